"""The controller's prompt lifecycle and its checks on the host (issue 13, items 1, 4, 7):
a closed prompt is never asked again (across welcomes and resets), the lock record of a
prompt is given up only for its own confirmed `revealed`, and `alllocked`/`revealed` are
verified against the commitments before anything is revealed or shown."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialbox_fw.core import controller as c
from dialbox_fw.core.button import LONG, SHORT
from dialbox_fw.core.screens import render
from dialbox_fw.core.store import CLOSED, FileStore

from dialbox_protocol import codec
from tests.firmware.test_controller import PIXOID, Rig, types

BOT_NONCE = bytes(range(40, 52))


def _lock(r: Rig, pid: int, turns: int = 1) -> str:
    """Prompt `pid` (sealed), dial, lock: the commitment sent."""
    r.host("prompt", pid, True, True, "x", PIXOID, False)
    r.ctl.turn(1, turns, r.now)
    r.ctl.button(SHORT, r.now)
    return r.commitment()


def _reveal(r: Rig, pid: int, commitment: str) -> dict[str, Any]:
    """alllocked with this seat's and a bot's commitments: the controller's reveal."""
    bot = codec.commitment([0, 1, -1], BOT_NONCE, pid, "bot-1")
    out = r.host("alllocked", pid, [[0, commitment], [1, bot]])
    (reveal,) = [m for m in out if m["t"] == "reveal"]
    return reveal


def _entries(pid: int, reveal: dict[str, Any], uid: str = "dev-1") -> list[Any]:
    bot = [1, [0, 1, -1], codec.b64(BOT_NONCE), "bot-1"]
    return [[0, reveal["sel"], reveal["nonce"], uid], bot]


def _round(r: Rig, pid: int) -> None:
    """A whole sealed round, revealed and verified."""
    reveal = _reveal(r, pid, _lock(r, pid))
    r.host("revealed", pid, [[0, "E 3"], [1, "N 1"]], "done", _entries(pid, reveal))
    assert r.ctl.state == c.REVEALED and r.ctl.results[2]


def test_a_closed_prompt_is_never_asked_again_across_welcomes_and_resets(tmp_path: Path) -> None:
    store = FileStore(str(tmp_path / "lock.json"))
    r = Rig(store)
    r.welcome()
    _round(r, 17)
    # the host's retransmission of the prompt (its ack was lost), under a new seq
    assert types(r.host("prompt", 17, True, True, "x", PIXOID, False)) == ["ack"]
    assert r.ctl.state == c.REVEALED
    for t in ("alllocked", "revealed"):
        args: list[Any] = [17, []] if t == "alllocked" else [17, [], "late", []]
        assert types(r.host(t, *args)) == ["ack"]  # old news: acknowledged, nothing else
    assert r.ctl.state == c.REVEALED
    r.welcome()  # a new session forgets sequence numbers, not closed prompts
    r.host("prompt", 17, True, True, "x", PIXOID, False)
    assert r.ctl.state != c.PROGRAMMING
    # a reset: the ring is on flash
    r2 = Rig(FileStore(str(tmp_path / "lock.json")))
    r2.welcome()
    assert types(r2.host("prompt", 17, True, True, "x", PIXOID, False)) == ["ack"]
    assert r2.ctl.state == c.IDLE
    r2.host("prompt", 18, True, True, "x", PIXOID, False)
    assert r2.ctl.state == c.PROGRAMMING and r2.ctl.pid() == 18


def test_the_closed_ring_is_bounded_and_its_file_stays_small(tmp_path: Path) -> None:
    store = FileStore(str(tmp_path / "lock.json"))
    r = Rig(store)
    r.welcome()
    for pid in range(100, 100 + CLOSED + 2):
        r.host("prompt", pid, False, False, "x", PIXOID, False)
        r.host("revealed", pid, [], "Void", [])
    assert len(r.ctl.closed) == CLOSED
    path = tmp_path / "closed.json"
    assert len(path.read_bytes()) < 10 * CLOSED  # 16 pids of at most 8 digits
    again = FileStore(str(tmp_path / "lock.json")).load(True)
    assert again == list(range(102, 102 + CLOSED))  # the oldest two made room
    path.write_text("junk")
    assert FileStore(str(tmp_path / "lock.json")).load(True) == [-1] * CLOSED


def test_a_prompt_for_another_pid_waits_while_a_lock_is_unsettled() -> None:
    """The host closes a prompt before it asks the next, so a new prompt while a lock is
    held means the lock's `revealed` was lost on the way: the new prompt is not acknowledged
    (the host sends it again) and the lock record stays until its own `revealed` comes."""
    r = Rig()
    r.welcome()
    c17 = _lock(r, 17)
    reveal = _reveal(r, 17, c17)
    assert r.host("prompt", 18, True, True, "y", PIXOID, False, seq=40) == []  # no ack
    assert r.ctl.state == c.ALLLOCKED and r.ctl.record is not None
    # a revealed for another prompt does not touch it either
    r.host("revealed", 16, [[0, "N 1"]], "older", [[0, [0, 1, -1], reveal["nonce"], "dev-1"]])
    assert r.ctl.record is not None and r.ctl.record["pid"] == 17
    r.host("revealed", 17, [[0, "E 3"], [1, "N 1"]], "done", _entries(17, reveal))
    assert r.ctl.record is None and r.ctl.results[2]
    out = r.host("prompt", 18, True, True, "y", PIXOID, False, seq=40)  # its retransmission
    assert types(out) == ["ack"] and r.ctl.state == c.PROGRAMMING and r.ctl.pid() == 18


def test_alllocked_without_my_commitment_reveals_nothing() -> None:
    r = Rig()
    r.welcome()
    mine = _lock(r, 17)
    bot = codec.commitment([0, 1, -1], BOT_NONCE, 17, "bot-1")
    for commits in ([], [[1, bot]], [[0, bot]], [[1, mine]], [["0", mine]], [0, 1], [[0]]):
        out = r.host("alllocked", 17, commits)
        assert types(out) == ["ack", "error"] and out[1]["code"] == codec.E_MISMATCH, commits
        assert r.ctl.state == c.LOCKED
    assert not [m for m in r.sent if "sel" in m or "nonce" in m]
    assert r.store.load() is not None
    _reveal(r, 17, mine)  # the real one
    assert r.ctl.state == c.ALLLOCKED


def test_a_forged_revealed_is_not_shown_and_keeps_the_lock_record() -> None:
    r = Rig()
    r.welcome()
    mine = _lock(r, 17, turns=3)
    record = r.store.load()
    assert record is not None
    forged_nonce = codec.b64(bytes(12))
    for reveals in ([],  # no reveal of mine at all
                    [[1, [0, 1, -1], codec.b64(BOT_NONCE), "bot-1"],  # a good one, then
                     [0, [0, 0, -1], forged_nonce, "dev-1"]],  # not mine
                    [[1, 2]],  # malformed
                    [[0, [0, 0, -1], forged_nonce, "dev-1"]],  # another choice for me
                    [[0, record["sel"], forged_nonce, "dev-1"]],  # my choice, not my nonce
                    [[0, record["sel"], record["nonce"], "dev-2"]],  # another uid
                    [[0, 5]]):  # malformed
        out = r.host("revealed", 17, [[0, "S 9"]], "You chose S 9", reveals)
        assert types(out) == ["ack", "error"] and out[1]["code"] == codec.E_MISMATCH
        assert r.ctl.state == c.LOCKED and r.ctl.results is None
        assert r.store.load() == record and r.ctl.record is not None
        lines, _ = render(r.ctl)
        assert lines[0] == "REVEAL MISMATCH" and "S 9" not in " ".join(lines)
    # the host carries on: all locked, the reveal, the real `revealed`
    reveal = _reveal(r, 17, mine)
    assert reveal["sel"] == record["sel"]
    r.host("revealed", 17, [[0, "E 4"], [1, "N 1"]], "done", _entries(17, reveal))
    lines, _ = render(r.ctl)
    assert r.ctl.state == c.REVEALED and lines[0] == "VERIFIED" and r.ctl.alarm is None


def test_another_seats_reveal_that_does_not_verify_is_reported() -> None:
    r = Rig()
    r.welcome()
    reveal = _reveal(r, 17, _lock(r, 17))
    cheat = _entries(17, reveal)
    cheat[1] = [1, [2, 9, -1], codec.b64(BOT_NONCE), "bot-1"]  # not what the bot committed
    out = r.host("revealed", 17, [[0, "E 3"], [1, "E 9"]], "Seat 2 wins", cheat)
    assert types(out) == ["ack", "error"] and out[1]["code"] == codec.E_MISMATCH
    lines, _ = render(r.ctl)
    assert lines[0] == "REVEAL MISMATCH" and r.ctl.state == c.REVEALED and not r.ctl.results[2]
    assert r.ctl.record is None  # my own reveal was confirmed: that prompt is over
    r2 = Rig()
    r2.welcome()
    reveal = _reveal(r2, 17, _lock(r2, 17))
    out = r2.host("revealed", 17, [[0, "E 3"]], "one missing", _entries(17, reveal)[:1])
    assert out[1]["code"] == codec.E_MISMATCH and not r2.ctl.results[2]  # a committed seat left out


def test_a_void_closes_the_prompt_and_the_lock() -> None:
    r = Rig()
    r.welcome()
    _lock(r, 17)
    r.host("revealed", 17, [], "Void: seat 2 broke a rule", [])
    assert r.ctl.state == c.REVEALED and r.ctl.record is None and r.store.load() is None
    assert "VERIFIED" not in render(r.ctl)[0]
    assert types(r.host("prompt", 17, True, True, "x", PIXOID, False)) == ["ack"]
    assert r.ctl.state == c.REVEALED


def test_a_long_press_gives_up_a_lock_the_host_will_not_confirm() -> None:
    r = Rig()
    r.welcome()
    _lock(r, 17)
    r.host("revealed", 17, [[0, "S 9"]], "x", [])
    assert r.ctl.alarm is not None
    r.ctl.button(LONG, r.now)
    assert r.ctl.record is None and r.ctl.state == c.IDLE and r.ctl.alarm is None
    assert types(r.host("prompt", 17, True, True, "x", PIXOID, False)) == ["ack"]  # closed
    r.host("prompt", 18, True, True, "x", PIXOID, False)
    assert r.ctl.state == c.PROGRAMMING


def test_a_new_session_sends_only_its_own_snapshot() -> None:
    """A snapshot the host never acknowledged is stale after the next welcome: only the new
    one goes (an old one would tell the host about a prompt that has moved on)."""
    r = Rig()
    r.host("identify", 1, codec.TABLE_HASH, "test", codec.b64(bytes(16)))
    r.seq = 0
    out = r.host("welcome", 0, "43a047", "t1", "Green")
    assert types(out) == ["ack", "snapshot"]  # not acknowledged by the host
    _lock(r, 5)
    r.seq = 0
    out = r.host("welcome", 0, "43a047", "t1", "Green")
    snaps = [m for m in out if m["t"] == "snapshot"]
    assert len(snaps) == 1 and snaps[0]["pid"] == 5 and snaps[0]["state"] == "locked"
