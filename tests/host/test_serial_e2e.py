"""End to end over pseudo-terminals: the daemon, controller doubles, bots; faults and bad input."""

from __future__ import annotations

import asyncio
from pathlib import Path

from dialbox.doubles import ControllerDouble
from dialbox.lockbox import Phase
from dialbox_protocol import codec
from tests.host.harness import (
    TABLE,
    check_integrity,
    doubles,
    key_for,
    running_daemon,
    table_config,
    wait_for,
)


async def _game(tmp_path: Path) -> None:
    uids = ["ctl-a", "ctl-b"]
    cfg = table_config(tmp_path, players=3, uids=uids, bots=[3], options={"rounds": 4})
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids) as ds:
        runner = daemon.runners[TABLE]
        await asyncio.wait_for(runner.finished.wait(), 60)
        assert runner.game.result is not None
        n = check_integrity(daemon.journal, ds)
        assert n >= 8  # 4 sealed rounds + 4 open letters (+ nothing lost to voids)
        seats = {s.uid for s in runner.table.seats}
        assert {"ctl-a", "ctl-b"} <= seats
        assert all(d.revealed for d in ds)


def test_full_game_over_ptys_with_a_bot(tmp_path: Path) -> None:
    asyncio.run(_game(tmp_path))


async def _prompt_open(daemon, ds: list[ControllerDouble]) -> int:  # type: ignore[no-untyped-def]
    runner = daemon.runners[TABLE]
    await wait_for(lambda: runner.box is not None and runner.box.sealed
                   and all(d.prompt and d.prompt["pid"] == runner.box.pid for d in ds),
                   what="a sealed prompt on every controller")
    return int(runner.box.pid)


async def _unplug_replug(tmp_path: Path) -> None:
    uids = ["ctl-a", "ctl-b"]
    cfg = table_config(tmp_path, players=2, uids=uids, options={"rounds": 2})
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as (a, b):
        runner = daemon.runners[TABLE]
        # pairing: each presses its button on the "take a seat" prompt, a first (seat 1)
        for d in (a, b):
            await wait_for(lambda d=d: d.prompt is not None, what="pairing prompt")
            d.lock()
            await wait_for(lambda d=d: runner.table.seat_of(d.uid) is not None, what="seated")
        # round 1: a locks, is unplugged, b locks (all locked while a is away), a comes back
        pid = await _prompt_open(daemon, [a, b])
        a.turn(1, 3)
        a.lock()
        await wait_for(lambda: runner.box is not None and runner.box.locked(0), what="a locked")
        await a.unplug()
        await wait_for(lambda: not runner.table.seats[0].online, what="a offline")
        b.lock()
        await wait_for(lambda: runner.box is not None and runner.box.phase == Phase.ALL_LOCKED)
        await a.replug()
        await wait_for(lambda: any(r["pid"] == pid for r in a.revealed), what="a sees reveal")
        # open prompt for the round's winner
        await wait_for(lambda: runner.box is not None and not runner.box.sealed)
        winner = a if runner.box.seats == (0,) else b
        await wait_for(lambda: winner.prompt is not None and not winner.prompt["sealed"])
        winner.lock()
        # round 2: a is unplugged before locking, and locks after coming back
        pid2 = await _prompt_open(daemon, [a, b])
        assert pid2 != pid
        await a.unplug()
        b.turn(0, 1)
        b.lock()
        await a.replug()
        await wait_for(lambda: a.welcomed.is_set() and a.prompt is not None
                       and a.prompt["pid"] == pid2, what="prompt re-sent after replug")
        a.turn(1, 5)
        a.lock()
        await wait_for(lambda: runner.box is not None and not runner.box.sealed, what="round 2")
        winner = a if runner.box.seats == (0,) else b
        await wait_for(lambda: winner.prompt is not None and winner.prompt["pid"] == runner.box.pid)
        winner.lock()
        await asyncio.wait_for(runner.finished.wait(), 30)
        assert check_integrity(daemon.journal, [a, b]) == 4


def test_unplug_and_replug_before_and_after_locking(tmp_path: Path) -> None:
    asyncio.run(_unplug_replug(tmp_path))


async def _bad_input(tmp_path: Path) -> None:
    uids = ["ctl-a", "ctl-b"]
    cfg = table_config(tmp_path, players=2, uids=uids, options={"rounds": 3})
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids) as (a, b):
        runner = daemon.runners[TABLE]
        noise = [b"\x00\xff garbage\n", b'["commit",9,1,"xx"]deadbeef\n', b"x" * 3000 + b"\n",
                 b"\xfe\xfe\xfe", b'["ping",0,1]00000000\n']
        sent = {"n": 0}

        def corrupt(msg: dict) -> None:  # type: ignore[type-arg]
            # before every frame a's firmware answers, throw corrupted bytes on the line
            a.send_raw(noise[sent["n"] % len(noise)])
            sent["n"] += 1

        a.on_frame = corrupt
        await asyncio.wait_for(runner.finished.wait(), 60)
        assert sent["n"] > 10
        check_integrity(daemon.journal, [a, b])


def test_corrupted_serial_bytes_lose_nothing(tmp_path: Path) -> None:
    asyncio.run(_bad_input(tmp_path))


async def _refusals(tmp_path: Path) -> None:
    cfg = table_config(tmp_path, players=2, uids=["ctl-a", "ctl-b"])
    async with running_daemon(cfg) as daemon, doubles(tmp_path, ["ctl-a"]) as (a,):
        runner = daemon.runners[TABLE]
        await wait_for(lambda: runner.table.seat_of("ctl-a") is not None, what="a seated")

        # wrong protocol version: refused with a clear error before anything else
        old = ControllerDouble("ctl-b", link_dir=tmp_path / "links")
        old_hello = codec.encode("hello", 0,
                                 [1, codec.TABLE_HASH, "0.0.1", "pico", "ctl-b", [], ""])
        old_hello = old_hello.replace(b'["hello",0,1,', b'["hello",0,2,')
        body = old_hello[:-9]
        old_hello = body + b"%08x\n" % codec.crc32(body)

        def answer_old(msg: dict) -> None:  # type: ignore[type-arg]
            if msg["t"] == "identify":
                old.send_raw(old_hello)

        old.on_frame = answer_old
        old.auto = False
        await old.start()
        old._handle = _only_record(old, answer_old)  # type: ignore[method-assign]
        await wait_for(lambda: any(e["code"] == codec.E_VERSION for e in old.errors),
                       what="version refusal")
        err = next(e for e in old.errors if e["code"] == codec.E_VERSION)
        assert "protocol version 2" in err["detail"] and "firmware" in err["detail"]
        assert runner.table.seat_of("ctl-b") is None
        await old.stop()

        # unknown device: not in the table's controller list
        stranger = ControllerDouble("ctl-zz", link_dir=tmp_path / "links",
                                    key=key_for(tmp_path, "ctl-zz"))  # paired, not listed
        await stranger.start()
        await wait_for(lambda: any(e["code"] == codec.E_DEVICE for e in stranger.errors),
                       what="unknown device refusal")
        assert runner.table.seat_of("ctl-zz") is None
        await stranger.stop()

        # spoofed uid: a second controller claiming ctl-a while ctl-a is live
        twin = ControllerDouble("ctl-a", link_dir=tmp_path / "links-twin",
                                key=key_for(tmp_path, "ctl-a"))  # ctl-a's own key
        await twin.start()
        daemon.watcher.watch(str(tmp_path / "links-twin" / "*"))  # type: ignore[union-attr]
        await wait_for(lambda: any(e["code"] == codec.E_SPOOF for e in twin.errors),
                       what="uid_in_use refusal")
        assert runner.sessions["ctl-a"].link.name.startswith(str(tmp_path / "links"))
        await twin.stop()


def _only_record(d: ControllerDouble, fn):  # type: ignore[no-untyped-def]
    def handle(msg):  # type: ignore[no-untyped-def]
        if isinstance(msg, codec.DecodeError):
            return
        d.received.append(msg)
        if msg["t"] == "error":
            d.errors.append(msg)
        fn(msg)
    return handle


def test_wrong_version_unknown_device_and_spoofed_uid_are_refused(tmp_path: Path) -> None:
    asyncio.run(_refusals(tmp_path))


async def _replay(tmp_path: Path) -> None:
    uids = ["ctl-a", "ctl-b"]
    cfg = table_config(tmp_path, players=2, uids=uids, options={"rounds": 2})
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as (a, b):
        runner = daemon.runners[TABLE]
        sent: list[bytes] = []
        real_send = a.send_raw

        def tap(data: bytes) -> None:
            sent.append(data)
            real_send(data)

        a.send_raw = tap  # type: ignore[method-assign]
        for d in (a, b):  # each seated before the next presses: a takes seat 1 (index 0)
            await wait_for(lambda d=d: d.prompt is not None, what="pairing prompt")
            d.lock()
            await wait_for(lambda d=d: d.seat is not None, what="seated")
        assert (a.seat, b.seat) == (0, 1)
        pid = await _prompt_open(daemon, [a, b])
        a.lock()
        await wait_for(lambda: runner.box is not None and runner.box.locked(0))
        commit_frame = next(f for f in sent if f.startswith(b'["commit"'))
        commits = lambda: [e for e in daemon.journal.entries(TABLE) if e.kind == "commit"]  # noqa: E731
        before = len(commits())
        for _ in range(3):
            a.send_raw(commit_frame)  # same session, same seq: acknowledged, not processed
        b.lock()
        await wait_for(lambda: any(r["pid"] == pid for r in b.revealed), what="reveal")
        assert len(commits()) == before + 1  # b's commit only
        reveal_frame = next(f for f in sent if f.startswith(b'["reveal"'))
        applied = [e for e in daemon.journal.entries(TABLE) if e.kind == "applied"]
        # after the prompt is over, replay the old commit and reveal: nothing changes
        a.send_raw(commit_frame)
        a.send_raw(reveal_frame)
        await wait_for(lambda: runner.box is not None and not runner.box.sealed)
        assert [e for e in daemon.journal.entries(TABLE) if e.kind == "applied"] == applied
        check_integrity(daemon.journal, [a, b])


def test_replayed_frames_are_ignored(tmp_path: Path) -> None:
    asyncio.run(_replay(tmp_path))


async def _silent_port(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import os
    import tty

    from dialbox.sessions import session as session_mod

    monkeypatch.setattr(session_mod, "IDENTIFY_EVERY", 0.01)
    master, slave = os.openpty()
    tty.setraw(slave)
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "modem").symlink_to(os.ttyname(slave))
    got = bytearray()
    loop = asyncio.get_running_loop()
    loop.add_reader(master, lambda: got.extend(os.read(master, 4096)))
    cfg = table_config(tmp_path, players=2, uids=["ctl-a", "ctl-b"], options={"rounds": 1})
    try:
        async with running_daemon(cfg) as daemon, doubles(tmp_path, ["ctl-a", "ctl-b"]) as ds:
            await asyncio.wait_for(daemon.runners[TABLE].finished.wait(), 30)
            await wait_for(lambda: got.count(b"\n") >= 20, what="identify tries")
            await asyncio.sleep(0.1)  # would-be further tries
            assert got.count(b'["identify"') == 20  # bounded, then the port is left alone
            check_integrity(daemon.journal, ds)
    finally:
        loop.remove_reader(master)
        os.close(master)
        os.close(slave)


def test_an_unknown_serial_device_is_left_alone_after_bounded_tries(
        tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(_silent_port(tmp_path, monkeypatch))


async def _usb(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from serial.tools.list_ports_common import ListPortInfo

    import dialbox.transports.serial as serial_mod

    ds = [ControllerDouble(u, link_dir=tmp_path / "usb", key=key_for(tmp_path, u))
          for u in ("ctl-a", "ctl-b")]
    for d in ds:
        await d.start()
    other = ControllerDouble("not-ours", link_dir=tmp_path / "usb")
    await other.start()

    def port(path: str, vid: int, pid: int, serial_number: str) -> ListPortInfo:
        info = ListPortInfo(path, skip_link_detection=True)
        info.vid, info.pid, info.serial_number = vid, pid, serial_number
        return info

    ports = [port(ds[0].device_path or "", 0x2E8A, 0x0005, "E6614C311B7F2A2B"),
             port(ds[1].device_path or "", 0x303A, 0x1001, "F412FA"),
             port(other.device_path or "", 0x1234, 0x0005, "X")]  # another vendor's device
    monkeypatch.setattr(serial_mod.list_ports, "comports", lambda: ports)
    cfg = table_config(tmp_path, players=2, uids=["ctl-a", "ctl-b"], options={"rounds": 1})
    cfg["serial"] = {"ports": []}  # default USB matching only
    try:
        async with running_daemon(cfg) as daemon:
            await asyncio.wait_for(daemon.runners[TABLE].finished.wait(), 30)
            check_integrity(daemon.journal, ds)
            assert not other.received  # never spoken to
    finally:
        for d in [*ds, other]:
            await d.stop()


def test_usb_controllers_are_found_by_vid_and_pid(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asyncio.run(_usb(tmp_path, monkeypatch))
