"""A small test-only game for the daemon: sealed rounds, a cross-wheel rule, an open prompt."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from dialbox.engine import Ask, Flow, Game, GameOptions, Result, Wheel, wheels
from dialbox.engine.registry import GameInfo
from dialbox.engine.wheels import DIGIT_FACES, DIRECTION_FACES, LETTER_FACES


class DuelOptions(GameOptions):
    players: int = Field(2, ge=1, le=6)
    rounds: int = Field(3, ge=1, le=50)
    forbid_n9: bool = True


class Duel(Game):
    """Each round every seat dials a direction and 1-9 in secret; the highest digit scores it
    and then picks a letter in the open. "N 9" is illegal (a rule spanning two wheels)."""

    name = "duel"
    Options = DuelOptions

    def setup(self) -> None:
        self.scores = [0] * self.options.players
        self.round = 0

    def snapshot(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "round": self.round}

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.snapshot()  # nothing hidden: dials are sealed until applied

    def explain(self, ask: Ask, selection: tuple[int, int, int]) -> str | None:
        o = self.options
        assert isinstance(o, DuelOptions)
        if ask.topic == "duel.dial" and o.forbid_n9 and selection[:2] == (0, 9):
            return "north 9 is not allowed"
        return None

    def flow(self) -> Flow:
        o = self.options
        assert isinstance(o, DuelOptions)
        for self.round in range(1, o.rounds + 1):
            left = Wheel.of(DIRECTION_FACES, (0, 2, 4, 6))
            centre = Wheel.of(DIGIT_FACES, range(1, 10), {0: "0 is not a number here"})
            asks = [
                Ask(s, "duel.dial", "Dial a direction and 1-9", wheels(left, centre),
                    default=(2, 1, -1))
                for s in range(o.players)
            ]
            answers = yield self.sealed(asks)
            best = max(answers, key=lambda s: (answers[s][1], -s))
            self.scores[best] += answers[best][1]
            self.emit("duel.round", f"Round {self.round}: seat {best + 1} scores.", seat=best)
            letter = yield self.open(
                Ask(best, "duel.letter", "Keep a letter", wheels(None, None,
                                                                  Wheel.of(LETTER_FACES)))
            )
            self.emit("duel.letter", f"Seat {best + 1} keeps {letter[best][2]}.")
        top = max(self.scores)
        self.result = Result(dict(enumerate(self.scores)),
                             [s for s, v in enumerate(self.scores) if v == top], "done")


INFO = GameInfo(game=Duel, title="Duel", players=(1, 2, 3, 4, 5, 6))
DUEL = "tests.host.games"
"""The game's name in a config: the package path that holds its INFO."""
