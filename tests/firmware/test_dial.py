"""`dial`: a live prompt's wheels reported as they move, rate-limited, the last one always
sent; never for a sealed prompt or an open one that is not live (docs/controller.md, "Live
prompts"). The firmware's clock is driven explicitly: every count here is deterministic."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dialbox_fw import app as appmod
from dialbox_fw.core import controller as c
from dialbox_fw.core.button import SHORT
from dialbox_fw.core.store import MemoryStore
from dialbox_fw.transports.serial import SerialLink

from dialbox.sim import SimController
from dialbox.sim.standin import HostStandin
from dialbox_protocol import codec
from tests.firmware.test_app import Hal, Stream
from tests.firmware.test_controller import PIXOID, Rig, types

GAMES = ["Pixoid", "Stadium", "Outspeed", "Pipcycle", "Trial", "Duel"]
MENU = [None, [[[g, i, "43a047"] for i, g in enumerate(GAMES)], 0b111111, 0], None]
"""The console's menu: one wheel of six games, the first shown first."""


def dials(msgs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in msgs if m["t"] == "dial"]


def live_rig(pid: int = 30) -> Rig:
    r = Rig()
    r.welcome()
    assert types(r.host("prompt", pid, False, False, "Next game?", MENU, True)) == ["ack"]
    assert r.ctl.state == c.PROGRAMMING and r.ctl.live
    return r


def turned(r: Rig, wheel: int, detents: int) -> list[dict[str, Any]]:
    """Turn a wheel, then the rest of that main-loop pass (tick, at the same moment):
    what the controller sent."""
    r.ctl.turn(wheel, detents, r.now)
    return r.drain() + r.tick(0)


def test_a_turn_on_a_live_prompt_dials_the_selection() -> None:
    r = live_rig()
    out = turned(r, 1, 1)
    assert types(out) == ["status", "dial"]
    assert out[1] == {"t": "dial", "seq": 0, "pid": 30, "sel": [-1, 1, -1]}
    assert dials(r.tick(200)) == []  # at rest: nothing more
    assert [d["sel"] for d in dials(turned(r, 1, 2))] == [[-1, 3, -1]]
    r.tick(200)
    # back past the first face: wraps to the last
    assert [d["sel"] for d in dials(turned(r, 1, -4))] == [[-1, 5, -1]]
    # an inactive wheel does not move, so says nothing
    r.tick(200)
    assert dials(turned(r, 0, 3)) == []


def test_a_fast_burst_is_rate_limited_and_ends_on_the_final_selection() -> None:
    """20 clicks 10 ms apart (one per main-loop pass): the first goes at once, then at most
    one per 100 ms, and the last selection goes from the pass after the wheels rest."""
    r = live_rig()
    during: list[dict[str, Any]] = []
    for _ in range(20):
        during += dials(turned(r, 1, 1))
        r.now += 10
    after = dials(r.tick(0))  # the first pass with no click
    assert len(during) == 2  # at 0 and 100 ms: not 20
    assert during[0]["sel"] == [-1, 1, -1]
    assert during[1]["sel"] == [-1, 11 % len(GAMES), -1]  # the 11th click, at 100 ms
    assert [d["sel"] for d in after] == [[-1, 20 % len(GAMES), -1]]  # the trailing send
    assert r.ctl.wheels[1].index == 20 % len(GAMES)
    for _ in range(50):  # at rest: nothing more, however long
        assert dials(r.tick(10)) == []


def test_the_last_move_is_sent_once_the_wheels_rest() -> None:
    r = live_rig()
    assert [d["sel"] for d in dials(turned(r, 1, 1))] == [[-1, 1, -1]]
    assert dials(turned(r, 1, 1)) == []  # within the same 100 ms: held back
    assert dials(r.tick(50)) == []
    assert [d["sel"] for d in dials(r.tick(50))] == [[-1, 2, -1]]
    assert dials(r.tick(500)) == []


@pytest.mark.parametrize(
    ("sealed", "live"),
    [(True, False), (False, False), (True, True)],
    ids=["sealed", "open-not-live", "sealed-marked-live"],
)
def test_no_dial_on_a_sealed_or_non_live_prompt(sealed: bool, live: bool) -> None:
    """The secrecy property: whatever is dialled on a game's prompt stays on the controller
    until the lock (sealed: until all-locked). A sealed prompt marked live (the host's model
    refuses to build one; a forged frame could carry it) is not live either."""
    r = Rig()
    r.welcome()
    r.host("prompt", 5, sealed, True, "x", PIXOID, live)
    assert r.ctl.state == c.PROGRAMMING and not r.ctl.live
    for i in range(40):
        turned(r, i % 2, 1 if i % 3 else -1)
        r.tick(10 if i % 4 else 150)
    r.tick(1000)
    r.ctl.button(SHORT, r.now)
    out = r.drain()
    assert types(out) == ["commit" if sealed else "reveal"]
    if sealed:
        r.ack_all(out)
        commitment = out[0]["commitment"]
        reveal = r.host("alllocked", 5, [[0, commitment]])
        assert "reveal" in types(reveal)
    for _ in range(10):
        r.tick(200)
    assert "editing" in [m.get("state") for m in r.sent]  # the wheels did move
    assert dials(r.sent) == []


def test_a_new_prompt_drops_a_dial_still_due_and_a_lock_ends_them() -> None:
    r = live_rig()
    turned(r, 1, 1)
    assert dials(turned(r, 1, 1)) == []  # due: waits for the 100 ms
    r.host("prompt", 31, True, True, "Move Pixoid", PIXOID, False)  # a sealed one next
    for _ in range(5):
        assert dials(r.tick(100)) == []
    r.host("prompt", 33, False, False, "Next game?", MENU, True)  # or a live one: silent
    turned(r, 1, 1)  # until its own wheels move
    assert dials(turned(r, 1, 1)) == []
    r.host("prompt", 34, False, False, "Next game?", MENU, True)
    assert dials(r.tick(100)) == []
    # a move still due when the player locks is not sent: the reveal says it
    r.host("prompt", 32, False, False, "Next game?", MENU, True)
    assert len(dials(turned(r, 1, 1))) == 1
    assert dials(turned(r, 1, 1)) == []
    r.ctl.button(SHORT, r.now)
    (reveal,) = r.drain()
    assert reveal["t"] == "reveal" and reveal["sel"] == [-1, 2, -1]
    for _ in range(5):
        assert dials(r.tick(100)) == []


def test_a_resumed_live_prompt_is_dialled_where_the_wheels_are() -> None:
    """No dial without a session; after the welcome, the host re-sends the prompt and hears
    the wheels' current selection (the menu on the table screen catches up)."""
    r = live_rig()
    turned(r, 1, 1)
    r.tick(200)
    r.ctl.link_lost()
    assert dials(turned(r, 1, 2)) == []  # turned while the link is down
    assert dials(r.tick(200)) == []
    r.welcome()
    assert [d["sel"] for d in dials(r.tick(10))] == [[-1, 3, -1]]  # the move made offline
    r.host("prompt", 30, False, False, "Next game?", MENU, True)  # the host resumes it
    assert r.ctl.wheels[1].index == 3  # the wheels are kept
    assert [d["sel"] for d in dials(r.tick(10))] == [[-1, 3, -1]]
    assert dials(r.tick(200)) == []


class TurningHal(Hal):
    """The test_app HAL with wheels the test turns."""

    def __init__(self) -> None:
        super().__init__()
        self.detents = [0, 0, 0]

    def take_detents(self, i: int) -> int:
        d = self.detents[i]
        self.detents[i] = 0
        return d


def test_the_main_loop_pass_sends_the_trailing_dial(tmp_path: Path) -> None:
    """The whole app, one pass at a time (5 ms apart, the loop's own pace): clicks on every
    pass for 150 ms, then rest; the dials are rate-limited and the last names where the
    wheel rests, sent by a pass with no input at all."""
    hal = TurningHal()
    app = appmod.App(hal, str(tmp_path / "config.json"), MemoryStore())
    stream = Stream()
    app.add_link(SerialLink(stream))
    reader = codec.FrameReader()
    got: list[dict[str, Any]] = []
    now = 1000

    def cycle() -> None:
        nonlocal now
        now += 5
        app.cycle(now)
        for frame in stream.tx:
            got.extend(m for m in reader.feed(frame) if isinstance(m, dict))
        stream.tx.clear()

    stream.rx = codec.encode("identify", 0, [1, codec.TABLE_HASH, "t", codec.b64(bytes(16))])
    cycle()
    stream.rx = codec.encode("welcome", 1, [0, "43a047", "t1", "Green"])
    cycle()
    stream.rx = codec.encode("prompt", 2, [30, False, False, "Next game?", MENU, True])
    cycle()
    assert app.ctl.state == c.PROGRAMMING
    for _ in range(31):  # a click on every pass for 150 ms
        hal.detents[1] = 1
        cycle()
    clicks_done = len(dials(got))
    for _ in range(40):  # 200 ms at rest
        cycle()
    sent = dials(got)
    assert len(sent) == clicks_done + 1 <= 3  # 0, 100 ms, then the trailing one
    assert sent[-1]["sel"] == [-1, 31 % len(GAMES), -1] == [-1, app.ctl.wheels[1].index, -1]
    assert all(d["pid"] == 30 and d["seq"] == 0 for d in sent)


# ---------------------------------------------------------------- the simulated controller


@pytest.fixture(params=["micropython", "cpython"])
def sim(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[SimController]:
    with SimController("sim-d", runtime=request.param, state_dir=tmp_path) as s:
        yield s


def test_sim_dials_a_live_prompt_and_nothing_else(sim: SimController) -> None:
    """The real firmware over its pty (MicroPython and CPython): a live prompt's wheels
    reach the host as they move, ending on the selection it locks; a sealed prompt and an
    open prompt that is not live, dialled and locked the same way, send no dial at all."""
    host = HostStandin(sim.device_path)
    try:
        host.handshake()
        host.send("prompt", [30, False, False, "Next game?", MENU, True])
        sim.wait_state("programming")
        sim.turn(1, 1)
        host.expect("dial", pid=30, sel=[-1, 1, -1])
        for _ in range(3):
            sim.turn(1, 1)
        host.expect("dial", pid=30, sel=[-1, 4, -1])  # where the wheel rests, always sent
        sim.wait_for(lambda v: "C Trial" in v.lines, what="the menu on Trial")
        sim.press(100)
        reveal = host.expect("reveal", pid=30, sel=[-1, 4, -1])
        mine = [0, reveal["sel"], reveal["nonce"], "sim-d"]
        host.send("revealed", [30, [[0, "Trial"]], "Trial of the Gods", [mine]])
        sim.wait_state("revealed")
        live = dials([m for m in host.log if isinstance(m, dict)])
        assert live and all(d["pid"] == 30 for d in live)

        host.send("prompt", [31, True, True, "Move Pixoid", PIXOID, False])
        sim.wait_state("programming")
        sim.turn(0, 1)
        host.expect("status", pid=31, state="editing")
        sim.turn(1, 3)
        sim.wait_for(lambda v: "C 4" in v.lines, what="centre wheel on 4")
        host.send("ping", [31])
        host.expect("pong", ms=31)  # whatever that pass sent has come
        sim.press(100)
        commit = host.expect("commit", pid=31)
        host.send("alllocked", [31, [[0, commit["commitment"]]]])
        reveal = host.expect("reveal", pid=31)
        mine = [0, reveal["sel"], reveal["nonce"], "sim-d"]
        host.send("revealed", [31, [[0, "E 4"]], "moved", [mine]])
        sim.wait_for(lambda v: v.state == "revealed" and v.pid is None, what="prompt 31 over")

        host.send("prompt", [32, False, False, "Your turn", PIXOID, False])
        sim.wait_state("programming")
        sim.turn(1, 2)
        host.expect("status", pid=32, state="editing")
        sim.wait_for(lambda v: "C 3" in v.lines, what="centre wheel on 3")
        host.send("ping", [32])
        host.expect("pong", ms=32)
        sim.press(100)
        host.expect("reveal", pid=32, sel=[0, 3, -1])
        host.send("ping", [33])
        host.expect("pong", ms=33)
        assert dials([m for m in host.log if isinstance(m, dict)]) == live
    finally:
        host.close()
