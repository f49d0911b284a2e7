"""The simulated controller over a pty, on the MicroPython unix port (128 KB heap) and CPython."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialbox.sim import SimController
from dialbox.sim.standin import HostStandin
from dialbox_protocol import codec

PIXOID = [[None, 0b01010101, 0], [None, 0b1111111110, 1], None]
RUNTIMES = ["micropython", "cpython"]


@pytest.fixture(params=RUNTIMES)
def runtime(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def sim(runtime: str, tmp_path: Path) -> Iterator[SimController]:
    with SimController("sim-t", runtime=runtime, state_dir=tmp_path) as s:  # type: ignore[arg-type]
        yield s


def test_scripted_session_with_reset_between_lock_and_reveal(sim: SimController) -> None:
    """Handshake, prompt, turns with bounce, commit, power cut, snapshot, reveal verified."""
    host = HostStandin(sim.device_path)
    try:
        snap = host.handshake()
        assert snap["pid"] is None and snap["state"] == "idle"
        sim.wait_state("idle")
        host.send("prompt", [17, True, True, "Move Pixoid", PIXOID, False])
        sim.wait_state("programming")
        sim.turn(0, 1)
        sim.turn(1, 3, bounce=True)
        host.expect("status", state="editing")
        sim.wait_for(lambda v: "C 4" in v.lines, what="centre wheel on 4")
        assert sim.led() == "43a047"  # digit 4's colour
        sim.press(100)
        commit = host.expect("commit", pid=17)
        sim.wait_state("locked")
        assert sim.screen()[0].startswith("LOCKED")
        assert not any("sel" in m for m in host.log if isinstance(m, dict))
        sim.kill()
        sim.start()
        snap = host.handshake()
        assert snap["state"] == "locked" and snap["commitment"] == commit["commitment"]
        host.send("prompt", [17, True, True, "Move Pixoid", PIXOID, False])
        host.send("alllocked", [17, [[0, commit["commitment"]]]])
        reveal = host.expect("reveal", pid=17)
        assert reveal["sel"] == [2, 4, -1]
        assert codec.verify_reveal(
            commit["commitment"], reveal["sel"], reveal["nonce"], 17, "sim-t"
        )
        mine = [0, reveal["sel"], reveal["nonce"], "sim-t"]
        host.send("revealed", [17, [[0, "E 4"], [1, "S 2"]], "Pixoid escapes", [mine]])
        view = sim.wait_state("revealed")
        assert "Pixoid escapes" in view.lines and "1 E 4" in view.lines
        assert view.lines[0] == "VERIFIED"
        if sim.runtime == "micropython":
            assert sim.heap == "128k"  # the whole game ran in a 128 KB MicroPython heap
            assert sim.memory()["alloc"] < 96 * 1024
    finally:
        host.close()


def test_a_controller_without_a_session_refuses_reliable_frames(sim: SimController) -> None:
    """Before any welcome, a prompt with seq 5 is answered `error unexpected_now "no session"`
    ref 5 (not acknowledged, not shown); an ack or an error is never answered so."""
    host = HostStandin(sim.device_path)
    try:
        sim.wait_state("connecting")
        host.send_once("prompt", 5, [17, True, True, "Move Pixoid", PIXOID, False])
        err = host.expect("error", ref=5)
        assert (err["code"], err["detail"]) == (codec.E_STATE, "no session")
        host.send_once("ack", 0, [5])
        host.send_once("error", 0, [codec.E_STATE, "no session", 3])
        host.send("ping", [4242])
        host.expect("pong", ms=4242)  # frames are handled in order: the two above are done
        snap = host.handshake()
        assert snap["pid"] is None and snap["state"] == "idle"
        sim.wait_state("idle")
        assert not any(v.state == "programming" for v in sim.history())
        got = [m for m in host.log if isinstance(m, dict)]
        assert not [m for m in got if m["t"] == "ack" and m["ref"] == 5]
        assert [(m["code"], m["detail"], m["ref"]) for m in got if m["t"] == "error"] == [
            (codec.E_STATE, "no session", 5)
        ]
    finally:
        host.close()


def test_long_press_unlocks(sim: SimController) -> None:
    host = HostStandin(sim.device_path)
    try:
        host.handshake()
        host.send("prompt", [3, True, True, "Wager", [None, [None, 0b1110, 1], None], False])
        sim.wait_state("programming")
        sim.press(80)
        host.expect("commit", pid=3)
        sim.wait_state("locked")
        sim.press(1100)
        host.expect("uncommit", pid=3)
        sim.wait_state("programming")
    finally:
        host.close()


def test_unplug_and_replug_resends_the_commit(sim: SimController) -> None:
    host = HostStandin(sim.device_path)
    host.handshake()
    host.send("prompt", [8, True, True, "Go", PIXOID, False])
    sim.wait_state("programming")
    host.close()
    sim.unplug()
    sim.press(100)  # locked while unplugged: the commit waits for the link
    sim.wait_state("locked")
    sim.replug()
    assert sim.link_path.resolve() == Path(sim.device_path)
    host = HostStandin(str(sim.link_path))
    try:
        snap = host.handshake()
        assert snap["state"] == "locked"
        commit = host.expect("commit", pid=8)
        assert commit["commitment"] == snap["commitment"]
    finally:
        host.close()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_auto_player_locks_a_legal_choice(runtime: str) -> None:
    with SimController("bot-1", runtime=runtime, auto=True) as sim:  # type: ignore[arg-type]
        host = HostStandin(sim.device_path)
        try:
            host.handshake()
            wheels = [[None, 0b01010101, 0], [None, 0b0000101000, 3], None]
            host.send("prompt", [21, True, False, "Auto", wheels, False])
            commit = host.expect("commit", pid=21)
            host.send("alllocked", [21, [[0, commit["commitment"]]]])
            reveal = host.expect("reveal", pid=21)
            assert reveal["sel"][0] in (0, 2, 4, 6)
            assert reveal["sel"][1] in (3, 5)
            assert reveal["sel"][2] == -1
            assert codec.verify_reveal(
                commit["commitment"], reveal["sel"], reveal["nonce"], 21, "bot-1"
            )
        finally:
            host.close()


def test_broken_config_shows_an_error_and_stays_provisionable(sim: SimController) -> None:
    sim.wait_state("connecting")
    sim.kill()
    (sim.state_dir / "config.json").write_text('{"device": "x"}')
    sim.start()
    view = sim.wait_state("error")
    assert view.lines[0] == "ERROR" and "config" in " ".join(view.lines)
    assert view.led == "ff0000"
    assert any(v.state == "error" for v in sim.history())
    host = HostStandin(sim.device_path)
    try:
        host.handshake()  # still answers over USB, so it can be provisioned again
    finally:
        host.close()


def _rounds(
    sim: SimController, wheels: list[Any], text: str, choices: list[Any], summary: str,
    uid: str = "e6614c311b7f2a2",
) -> None:
    host = HostStandin(sim.device_path)
    try:
        host.handshake()
        for pid in range(1, 6):
            host.send("prompt", [pid, True, True, text, wheels, False])
            sim.wait_for(lambda v, p=pid: v.state == "programming" and v.pid == p)
            sim.turn(0, 31, bounce=True)
            sim.turn(1, -5)
            sim.turn(2, 1)
            sim.press(100)
            commit = host.expect("commit", pid=pid)
            # the other seats' reveals, all to verify (uid: 16 hex digits, as machine.unique_id)
            others = [[s, [1, 2, 3], codec.b64(bytes([s] * 12)), f"{uid}{s:x}"]
                      for s in range(1, len(choices))]
            commits = [[0, commit["commitment"]]] + [
                [s, codec.commitment(sel, codec.unb64(n) or b"", pid, u)]
                for s, sel, n, u in others]
            host.send("alllocked", [pid, commits])
            reveal = host.expect("reveal", pid=pid)
            assert codec.verify_reveal(
                commit["commitment"], reveal["sel"], reveal["nonce"], pid, sim.uid
            )
            mine = [0, reveal["sel"], reveal["nonce"], sim.uid]
            host.send("revealed", [pid, choices, summary, [mine, *others]])
            sim.wait_for(lambda v: v.state == "revealed" and v.pid is None)
            assert sim.screen()[0] == "VERIFIED"
        assert sim.running
    finally:
        host.close()


def _faces(n: int) -> list[list[Any]]:
    return [[f"F{i}", i, "%06x" % (i * 0x070707)] for i in range(n)]


def test_custom_faces_and_six_seats_fit_in_the_128k_heap(tmp_path: Path) -> None:
    """A 12-face custom wheel, long texts, six seats revealed, five rounds, 128 KB heap."""
    wheels = [[_faces(12), 0x555, 2], [None, 1022, 1], [None, 15, 0]]
    with SimController("mid", runtime="micropython", state_dir=tmp_path) as sim:
        assert sim.heap == "128k"
        _rounds(sim, wheels, "T" * 40, [[s, "x" * 10] for s in range(6)], "S" * 60)


def test_largest_prompt_and_reveal_with_a_128k_heap(tmp_path: Path) -> None:
    """The worst case: a 32-face wheel in a prompt near the 1 KB frame limit, the longest
    texts, six seats revealed. On the 64-bit unix port this needs about 112 KB (see
    docs/controller.md, Memory); a 32-bit board needs far less."""
    wheels = [[_faces(32), 0x55555555, 2], [None, 1022, 1], [None, 15, 0]]
    with SimController("big", runtime="micropython", state_dir=tmp_path, heap="128k") as sim:
        _rounds(sim, wheels, "T" * 60, [[s, "x" * 24] for s in range(6)], "S" * 120, "u" * 31)


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_auto_player_presses_again_when_a_press_is_lost(runtime: str) -> None:
    """A host that answers several hellos welcomes the controller several times (seat -1)
    and re-sends the same pairing prompt after each: a press that ends while a welcome has
    put the controller back to "waiting for a seat" is lost. The auto player used to take
    the prompt as answered anyway and the seat waited for ever; it presses again now."""
    with SimController("bot-2", runtime=runtime, auto=True) as sim:  # type: ignore[arg-type]
        host = HostStandin(sim.device_path)
        try:
            host.handshake(seat=-1)
            pairing = [44, False, False, "Press to take seat 1", [None, None, None], False]
            host.send("prompt", pairing)
            for _ in range(40):  # 2 s of welcome + the same prompt, 25 ms apart
                sim.wait_for(lambda v: True, what="a view")
                host.send("welcome", [-1, "43a047", "t1", ""])
                time.sleep(0.025)
                host.send("prompt", pairing)
                time.sleep(0.025)
            # whatever happened to the presses so far, the prompt gets its answer
            reveal = host.expect("reveal", pid=44, timeout=10)
            assert reveal["sel"] == [-1, -1, -1]
        finally:
            host.close()


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_stopping_controller_says_why_in_its_log(runtime: str) -> None:
    """A firmware process that ends always leaves its reason in sim.log (never silent)."""
    with SimController("bye-1", runtime=runtime) as sim:  # type: ignore[arg-type]
        sim.wait_state("connecting")
        proc = sim._proc
        assert proc is not None
        proc.control.shutdown(socket.SHUT_RDWR)  # the steering process is gone
        proc.popen.wait(timeout=10)
        tail = sim.log_tail()
        assert "dialbox sim: stopping: the control socket closed" in tail
        assert "(the firmware process exited with status 0)" in tail
