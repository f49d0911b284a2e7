"""End to end with the real firmware (dialbox.sim) under the MicroPython unix port and CPython."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from dialbox.daemon import Daemon
from dialbox.journal import Journal
from dialbox.lockbox import Phase
from dialbox.sessions import session as session_mod
from dialbox.sim import MqttSettings, SimController
from tests.host.harness import TABLE, Broker, key_for, running_daemon, table_config, wait_for


def _sims(tmp: Path, uids: list[str], **kw: Any) -> list[SimController]:
    return [SimController(u, state_dir=tmp / "flash" / u, key=key_for(tmp, u), **kw)
            for u in uids]


def _serial(cfg: dict[str, Any], tmp: Path) -> dict[str, Any]:
    cfg["serial"] = {"ports": [str(tmp / "flash" / "*" / "tty")], "usb": []}
    return cfg


def _check(journal: Journal, controllers: list[str]) -> int:
    """Every sealed prompt that was applied holds a commitment from each controller seat;
    nothing was voided; returns the number of decisions applied."""
    entries = journal.entries(TABLE)
    assert not [e for e in entries if e.kind == "void"]
    seats = {e.data["seat"] for e in entries if e.kind == "seat" and e.data["uid"] in controllers}
    sealed = {e.data["pid"] for e in entries if e.kind == "alllocked"}
    applied = [e for e in entries if e.kind == "applied"]
    for e in applied:
        if e.data["pid"] in sealed:
            committed = {c.data["seat"] for c in entries
                         if c.kind == "commit" and c.data["pid"] == e.data["pid"]}
            assert seats <= committed
    return len(applied)


@pytest.mark.micropython
def test_micropython_firmware_plays_a_full_game_over_ptys(tmp_path: Path) -> None:
    uids = ["mp-a", "mp-b"]

    async def run() -> None:
        cfg = _serial(table_config(tmp_path, players=3, uids=uids, bots=[3],
                                   options={"rounds": 2, "forbid_n9": False}), tmp_path)
        sims = _sims(tmp_path, uids, runtime="micropython", auto=True)
        async with running_daemon(cfg) as daemon:
            try:
                await asyncio.gather(*(asyncio.to_thread(s.start) for s in sims))
                runner = daemon.runners[TABLE]
                await asyncio.wait_for(runner.finished.wait(), 90)
                assert _check(daemon.journal, uids) == 4
                for s in sims:
                    await asyncio.to_thread(s.wait_for, lambda v: v.state == "revealed", 10,
                                            "the last reveal")
            finally:
                await asyncio.gather(*(asyncio.to_thread(s.stop) for s in sims))

    asyncio.run(run())


@pytest.mark.micropython
def test_micropython_firmware_survives_unplug_and_power_cut_mid_prompt(tmp_path: Path) -> None:
    uids = ["mp-a", "mp-b"]

    async def run() -> None:
        cfg = _serial(table_config(tmp_path, players=2, uids=uids,
                                   options={"rounds": 2, "forbid_n9": False}), tmp_path)
        a, b = _sims(tmp_path, uids, runtime="micropython")
        async with running_daemon(cfg) as daemon:
            runner = daemon.runners[TABLE]
            try:
                await asyncio.gather(asyncio.to_thread(a.start), asyncio.to_thread(b.start))
                for s in (a, b):  # pairing: press to take a seat
                    await asyncio.to_thread(s.wait_for, lambda v: v.pid is not None, 20, "pair")
                    s.press(100)
                    await wait_for(lambda s=s: runner.table.seat_of(s.uid) is not None)

                async def sealed_on_both() -> int:
                    await wait_for(lambda: runner.box is not None and runner.box.sealed)
                    pid = runner.box.pid  # type: ignore[union-attr]
                    for s in (a, b):
                        await asyncio.to_thread(
                            s.wait_for, lambda v: v.pid == pid and v.state == "programming",
                            20, "the sealed prompt")
                    return pid

                async def open_prompt() -> None:
                    await wait_for(lambda: runner.box is not None and not runner.box.sealed)
                    box = runner.box
                    assert box is not None
                    s = a if box.seats == (0,) else b
                    await asyncio.to_thread(
                        s.wait_for, lambda v: v.pid == box.pid and v.state == "programming",
                        20, "the open prompt")
                    s.press(100)

                # round 1: a locks and is unplugged; b locks; a is plugged back in
                await sealed_on_both()
                a.turn(1, 2)
                a.press(100)
                await wait_for(lambda: runner.box is not None and runner.box.locked(0))
                a.unplug()
                await wait_for(lambda: not runner.table.seats[0].online, what="a offline")
                b.turn(0, 1)
                b.press(100)
                await wait_for(lambda: runner.box is not None
                               and runner.box.phase == Phase.ALL_LOCKED)
                a.replug()
                await open_prompt()
                # round 2: power cut on a between its lock and the reveal
                await sealed_on_both()
                a.turn(1, 4)
                a.press(100)
                await wait_for(lambda: runner.box is not None and runner.box.locked(0))
                # (a real power cut takes the USB port with it: the pty goes too)
                await asyncio.to_thread(a.kill)
                a.unplug()
                b.press(100)
                await wait_for(lambda: runner.box is not None
                               and runner.box.phase == Phase.ALL_LOCKED)
                a.replug()
                await asyncio.to_thread(a.start)  # boots from flash, reveals what it locked
                await open_prompt()
                await asyncio.wait_for(runner.finished.wait(), 60)
                assert _check(daemon.journal, uids) == 4
            finally:
                await asyncio.gather(asyncio.to_thread(a.stop), asyncio.to_thread(b.stop))

    asyncio.run(run())


def test_cpython_firmware_plays_over_mosquitto_with_generated_acls(tmp_path: Path) -> None:
    uids = ["py-a", "py-b", "py-c"]

    async def run() -> None:
        broker = Broker(tmp_path, uids)
        await broker.start()
        try:
            cfg = table_config(tmp_path, players=3, uids=uids, mqtt=broker.host_mqtt(),
                               options={"rounds": 2, "forbid_n9": False})
            sims = [
                SimController(u, state_dir=tmp_path / "flash" / u, runtime="cpython",
                              link="mqtt", auto=True, key=key_for(tmp_path, u),
                              mqtt=MqttSettings("127.0.0.1", broker.port, TABLE, u,
                                                broker.creds[u]))
                for u in uids
            ]
            async with running_daemon(cfg) as daemon:
                try:
                    await asyncio.gather(*(asyncio.to_thread(s.start) for s in sims))
                    await asyncio.wait_for(daemon.runners[TABLE].finished.wait(), 90)
                    assert _check(daemon.journal, uids) == 4
                finally:
                    await asyncio.gather(*(asyncio.to_thread(s.stop) for s in sims))
        finally:
            broker.stop()

    asyncio.run(run())


async def _sealed_prompt(runner: Any, sims: list[SimController]) -> int:
    """Wait until a sealed prompt is open and shown on every controller; its pid."""
    await wait_for(lambda: runner.box is not None and runner.box.sealed)
    pid: int = runner.box.pid
    for s in sims:
        await asyncio.to_thread(
            s.wait_for, lambda v: v.pid == pid and v.state == "programming",
            20, "the sealed prompt")
    return pid


@contextlib.asynccontextmanager
async def _sealed_prompt_on_two(tmp_path: Path) -> AsyncIterator[tuple[Daemon, SimController,
                                                                       SimController, int]]:
    """A daemon and two MicroPython controllers seated at once, a sealed prompt shown on
    both: (daemon, a, b, its pid). The controllers are stopped on the way out."""
    uids = ["mp-a", "mp-b"]
    cfg = _serial(table_config(tmp_path, players=2, uids=uids, pairing="auto",
                               options={"rounds": 1, "forbid_n9": False}), tmp_path)
    a, b = _sims(tmp_path, uids, runtime="micropython")
    async with running_daemon(cfg) as daemon:
        try:
            await asyncio.gather(asyncio.to_thread(a.start), asyncio.to_thread(b.start))
            yield daemon, a, b, await _sealed_prompt(daemon.runners[TABLE], [a, b])
        finally:
            await asyncio.gather(asyncio.to_thread(a.stop), asyncio.to_thread(b.stop))


async def _reboot_then_reveal(daemon: Daemon, a: SimController, pid: int,
                              presses: list[SimController]) -> None:
    """Reboot `a` behind its live port, then the `presses`; the prompt must be answered."""
    runner = daemon.runners[TABLE]
    await asyncio.to_thread(a.kill)  # the port stays up
    await asyncio.to_thread(a.start)
    for s in presses:
        if s is a:  # its prompt is back only once the host has found it again
            await _sealed_prompt(runner, [a])
        s.press(100)
    await wait_for(lambda: runner.box is None or runner.box.pid != pid,
                   timeout=60, what="the reveal after the reboot")
    assert _check(daemon.journal, sorted({a.uid, *(s.uid for s in presses)})) >= 1


@pytest.mark.micropython
def test_micropython_firmware_rebooting_behind_a_live_port_says_it_has_no_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reboot (watchdog, brown-out) that keeps the USB port up, between lock and reveal:
    the host's session still looks alive. Its `alllocked` is refused with `error
    unexpected_now "no session"`; the host identifies again at once and the seat resumes
    and reveals. The quiet-seat probe and the host's silence timeout are switched off: this
    path alone must recover it (and a slow reboot cannot end the host's session instead)."""
    monkeypatch.setattr(session_mod, "PROBE_AFTER", 1e9)
    monkeypatch.setattr(session_mod, "OFFLINE_AFTER", 1e9)

    async def run() -> None:
        async with _sealed_prompt_on_two(tmp_path) as (daemon, a, b, pid):
            runner = daemon.runners[TABLE]
            seat_a = runner.table.seat_of(a.uid)
            assert seat_a is not None
            session_a = runner.sessions[a.uid]
            a.press(100)
            await wait_for(lambda: runner.box is not None and runner.box.locked(seat_a.index))
            await _reboot_then_reveal(daemon, a, pid, [b])
            assert runner.sessions[a.uid] is session_a and session_a.reidentified >= 1

    asyncio.run(run())


@pytest.mark.micropython
def test_micropython_firmware_rebooting_before_it_locks_is_found_by_the_probe(
        tmp_path: Path) -> None:
    """A reboot behind a live port while the seat still owes its lock: the host has nothing
    reliable to send it (the prompt was acknowledged), so no frame is refused with "no
    session"; the quiet-seat probe asks again and the prompt is shown again."""

    async def run() -> None:
        async with _sealed_prompt_on_two(tmp_path) as (daemon, a, b, pid):
            await _reboot_then_reveal(daemon, a, pid, [a, b])

    asyncio.run(run())
