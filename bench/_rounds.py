"""What the host benchmark's processes share: the game its tables play (`game =
"bench._rounds:Rounds"`: the daemon imports only this, never the benchmark's machinery), and
the names, device keys and broker passwords of the rig's controllers."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import Field

from dialbox.engine import Ask, Flow, Game, GameOptions, Result, Wheel, wheels
from dialbox.engine.wheels import DIGIT_FACES, DIRECTION_FACES

GAME = "bench._rounds:Rounds"
SEATS = 6
ECHO_TABLE = "echo"
"""The bare MQTT echo's own table in the broker's ACLs: a controller user `echo` (writes its
`up`, reads its `down`) and the table's host user `host-echo` (reads and writes the table)."""
ECHO_UID = "echo"


def bench_key(uid: str) -> bytes:
    """The device key of a benchmark double (derived from its uid, so the rig and the
    daemon's key store agree without passing keys around)."""
    return hashlib.sha256(b"dialbox-bench|" + uid.encode()).digest()


def password(user: str) -> str:
    """Every broker user's password in a benchmark run."""
    return "pw-" + user


class RoundsOptions(GameOptions):
    players: int = Field(6, ge=1, le=6)
    rounds: int = Field(100, ge=1)


class Rounds(Game):
    """Sealed rounds only: every seat dials a direction and a digit, again and again."""

    name = "bench-rounds"
    Options = RoundsOptions

    def setup(self) -> None:
        self.round = 0

    def snapshot(self) -> dict[str, Any]:
        return {"round": self.round}

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.snapshot()

    def flow(self) -> Flow:
        o = self.options
        assert isinstance(o, RoundsOptions)
        left, centre = Wheel.of(DIRECTION_FACES, (0, 2, 4, 6)), Wheel.of(DIGIT_FACES)
        for self.round in range(1, o.rounds + 1):
            yield self.sealed([Ask(s, "dial", "Dial", wheels(left, centre))
                               for s in range(o.players)])
        self.result = Result({s: 0 for s in range(o.players)}, [], "done")
