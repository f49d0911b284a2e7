"""A controller that resets itself mid-prompt: the lock record survives every reset, the
host resumes the seat, and the game completes with the locked choice revealed.

The real firmware on the virtual HAL (MicroPython unix port and CPython), seated at a
table of the daemon over ptys. Unlike a power cut (SIGKILL, test_firmware_e2e.py) the
reset here is the firmware's own: the HAL's reset() (machine.reset() on a board) from the
reset button, or from the virtual watchdog when the main loop hangs, and the controller
boots again in the same process from its flash. Once with the USB port staying up (a
board behind a USB-serial bridge), once with it re-enumerating (a Pico's own USB)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from dialbox.daemon import Daemon
from dialbox.journal import Journal
from dialbox.lockbox import Phase
from dialbox.sim import SimController, SimView
from tests.host.harness import TABLE, key_for, running_daemon, table_config, wait_for


def _controllers(tmp: Path, runtime: str, **kw: Any) -> tuple[SimController, SimController]:
    a, b = (SimController(u, state_dir=tmp / "flash" / u, key=key_for(tmp, u),
                          runtime=runtime, **kw)  # type: ignore[arg-type]
            for u in ("rs-a", "rs-b"))
    return a, b


def _config(tmp: Path) -> dict[str, Any]:
    cfg = table_config(tmp, players=2, uids=["rs-a", "rs-b"], pairing="auto",
                       options={"rounds": 1, "forbid_n9": False})
    cfg["serial"] = {"ports": [str(tmp / "flash" / "*" / "tty")], "usb": []}
    return cfg


def _entries(journal: Journal, kind: str, pid: int) -> list[Any]:
    return [e for e in journal.entries(TABLE) if e.kind == kind and e.data["pid"] == pid]


async def _lock_then_reset(daemon: Daemon, a: SimController, b: SimController,
                           reset: Any) -> tuple[int, tuple[int, ...]]:
    """Seat both, wait for the sealed prompt, let `a` lock, run `reset()` (which must make
    `a` reset itself), check `a` booted again holding the same lock, let `b` lock and play
    to the end. Returns (pid, the selection `a` locked)."""
    runner = daemon.runners[TABLE]
    await asyncio.gather(asyncio.to_thread(a.start), asyncio.to_thread(b.start))
    await wait_for(lambda: runner.box is not None and runner.box.sealed, 60, "a sealed prompt")
    box = runner.box
    assert box is not None
    pid = box.pid
    for s in (a, b):
        await asyncio.to_thread(s.wait_for, lambda v: v.pid == pid and v.state == "programming",
                                20, "the sealed prompt")
    seat_a = runner.table.seat_of(a.uid)
    assert seat_a is not None
    a.turn(1, 3)
    a.press(100)
    held: SimView = await asyncio.to_thread(
        a.wait_for, lambda v: v.state == "locked" and v.lock is not None, 20, "a's lock")
    assert held.lock is not None and held.lock[0] == pid
    await wait_for(lambda: runner.box is not None and runner.box.locked(seat_a.index),
                   what="a's commitment at the host")
    await reset()
    # booted again from flash: locked on the same prompt with the same selection
    booted = a.reset_views[-1]
    after = await asyncio.to_thread(
        a.wait_for, lambda v: v.serial > booted and v.state == "locked"
        and v.lock == held.lock, 20, "a locked again after its reset")
    assert after.lock == held.lock
    b.turn(0, 1)
    b.press(100)
    await wait_for(lambda: runner.box is None or runner.box.phase == Phase.ALL_LOCKED
                   or runner.box.pid != pid, 60, "all locked")
    # the open prompt that follows (whichever seat it asks), then the end of the game
    await wait_for(lambda: runner.box is None or runner.box.pid != pid, 60, "the reveal")
    while not runner.finished.is_set():
        open_box = runner.box
        if open_box is not None and not open_box.sealed:
            asker = a if open_box.seats == (seat_a.index,) else b
            await asyncio.to_thread(
                asker.wait_for, lambda v, p=open_box.pid: v.pid == p and v.state == "programming",
                20, "the open prompt")
            asker.press(100)
            await wait_for(lambda o=open_box: runner.box is not o, 30, "the open prompt answered")
        else:
            await asyncio.sleep(0.05)
    assert runner.game.result is not None
    return pid, held.lock[1]


def _check_revealed(daemon: Daemon, a: SimController, pid: int, sel: tuple[int, ...]) -> None:
    """The sealed prompt was applied with exactly what `a` locked before its reset, from
    the one commitment it made; nothing voided, and `a` never locked anything else."""
    journal = daemon.journal
    runner = daemon.runners[TABLE]
    seat = runner.table.seat_of(a.uid)
    assert seat is not None
    assert not [e for e in journal.entries(TABLE) if e.kind == "void"]
    commits = {e.data["commitment"] for e in _entries(journal, "commit", pid)
               if e.data["seat"] == seat.index}
    assert len(commits) == 1  # the reset did not make it lock (and commit) again
    reveals = [e.data for e in _entries(journal, "reveal", pid) if e.data["seat"] == seat.index]
    assert [tuple(r["sel"]) for r in reveals] == [sel]
    applied = _entries(journal, "applied", pid)
    assert len(applied) == 1
    assert dict((s, tuple(x)) for s, x in applied[0].data["answers"])[seat.index] == sel
    assert a.locks[pid] == sel and a.relocks == []


@pytest.mark.parametrize(
    ("runtime", "port"),
    [pytest.param("micropython", "stays", marks=pytest.mark.micropython),
     pytest.param("micropython", "re-enumerates", marks=pytest.mark.micropython),
     ("cpython", "stays")],
)
def test_a_controller_reset_while_locked_resumes_the_seat_and_reveals_its_lock(
        tmp_path: Path, runtime: str, port: str) -> None:
    async def run() -> None:
        a, b = _controllers(tmp_path, runtime)
        async with running_daemon(_config(tmp_path)) as daemon:
            runner = daemon.runners[TABLE]
            try:
                async def reset() -> None:
                    if port == "re-enumerates":  # machine.reset() takes the USB device away
                        seat = runner.table.seat_of(a.uid)
                        assert seat is not None
                        a.unplug()
                        await wait_for(lambda: not seat.online, what="a offline")
                    a.reset()
                    assert await asyncio.to_thread(a.wait_resets, 1) == ["button"]
                    if port == "re-enumerates":
                        a.replug()

                pid, sel = await _lock_then_reset(daemon, a, b, reset)
            finally:
                await asyncio.gather(asyncio.to_thread(a.stop), asyncio.to_thread(b.stop))
            _check_revealed(daemon, a, pid, sel)
            assert a.resets == ["button"] and b.resets == []

    asyncio.run(run())


@pytest.mark.micropython
def test_a_controller_hung_while_locked_is_reset_by_its_watchdog_and_reveals_its_lock(
        tmp_path: Path) -> None:
    """The main loop hangs (a stuck bus) while the controller holds its lock: its watchdog
    resets it, and it resumes."""

    async def run() -> None:
        a, b = _controllers(tmp_path, "micropython", watchdog_ms=1000)
        async with running_daemon(_config(tmp_path)) as daemon:
            try:
                async def hang() -> None:
                    a.hang(2500)
                    assert await asyncio.to_thread(a.wait_resets, 1, 20) == ["watchdog"]

                pid, sel = await _lock_then_reset(daemon, a, b, hang)
            finally:
                await asyncio.gather(asyncio.to_thread(a.stop), asyncio.to_thread(b.stop))
            _check_revealed(daemon, a, pid, sel)
            assert a.resets == ["watchdog"]  # the watchdog bit once, and only after the hang

