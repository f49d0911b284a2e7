"""Issue 13, items 1, 4 and 7, against the daemon and the real firmware (MicroPython unix
port) over real ptys, with a relay in the line that loses, forges, replays or garbles frames
(tests/host/relay.py); and over a real Mosquitto.

- lost acks made the host resend a prompt after its `revealed`: the firmware asked the
  closed prompt again. Now never: the host stops resending the frames of a closed prompt and
  the firmware remembers closed prompts (across welcomes and resets);
- a replayed old `snapshot` voided the prompt in hand: now one snapshot per welcome counts;
- a forged early `alllocked` made the controller reveal, a forged `revealed` was shown as its
  choice and erased its lock record: now the controller checks both against the
  commitments (its own first) and keeps its lock until its own reveal is confirmed;
- a whole game over a noisy line (bit errors and byte drops both ways): every applied answer
  is the controller's first lock for its prompt, and no closed prompt is shown again.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from dialbox.daemon import Daemon
from dialbox.doubles import ControllerDouble
from dialbox.journal import Journal
from dialbox.lockbox import Phase
from dialbox.sessions import session as session_mod
from dialbox.sim import SimController
from dialbox.sim import controller as sim_controller
from dialbox_protocol import codec
from tests.host.harness import (
    TABLE,
    Broker,
    key_for,
    mqtt_doubles,
    running_daemon,
    table_config,
    wait_for,
)
from tests.host.relay import DOWN, UP, Drop, PtyRelay, forge

Tables = tuple[Daemon, list[SimController], list[PtyRelay]]


@contextlib.asynccontextmanager
async def relayed(tmp_path: Path, uids: list[str], *, auto: bool, rounds: int = 1,
                  drops: list[Drop | None] | None = None, **noise: Any,
                  ) -> AsyncIterator[Tables]:
    """A daemon and MicroPython controllers seated at once (pairing "auto"), each behind a
    PtyRelay the daemon's serial glob finds (the controllers' own ptys it never sees)."""
    cfg = table_config(tmp_path, players=len(uids), uids=uids, pairing="auto",
                       options={"rounds": rounds, "forbid_n9": False})
    cfg["serial"] = {"ports": [str(tmp_path / "links" / "*")], "usb": []}
    sims = [SimController(u, runtime="micropython", auto=auto, state_dir=tmp_path / "flash" / u,
                          key=key_for(tmp_path, u)) for u in uids]
    relays: list[PtyRelay] = []
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in sims))
        for i, s in enumerate(sims):
            relays.append(PtyRelay(s.device_path, tmp_path / "links" / s.uid, seed=i,
                                   drop=(drops or [None] * len(sims))[i], **noise))
        async with running_daemon(cfg) as daemon:
            yield daemon, sims, relays
    finally:
        for r in relays:
            r.close()
        await asyncio.gather(*(asyncio.to_thread(s.stop) for s in sims))


def reasked(sim: SimController) -> list[int]:
    """Prompts the controller showed to be programmed again after it had moved past them
    (their `revealed`, or another prompt, came in between)."""
    done: set[int] = set()
    current: int | None = None
    again = []
    for v in sim.history():
        if v.state == "programming" and v.pid is not None:
            if v.pid in done:
                again.append(v.pid)
            if current is not None and current != v.pid:
                done.add(current)
            current = v.pid
        elif v.state == "revealed" and current is not None:
            done.add(current)
            current = None
    return again


def _applied(journal: Journal, sims: list[SimController]
             ) -> list[tuple[SimController, int, list[int]]]:
    """(controller, pid, selection) of every answer applied for a controller's seat."""
    entries = journal.entries(TABLE)
    seat_uid = {e.data["seat"]: e.data["uid"] for e in entries if e.kind == "seat"}
    by_uid = {s.uid: s for s in sims}
    out = []
    for e in entries:
        if e.kind == "applied":
            for seat, sel in e.data["answers"]:
                sim = by_uid.get(seat_uid.get(seat, ""))
                if sim is not None:
                    out.append((sim, e.data["pid"], sel))
    return out


async def first_locks_compared(journal: Journal, sims: list[SimController]) -> int:
    """applied_equals_first_locks, once every controller has reported its lock of each prompt
    the host applied an answer of it for. A controller reports a lock in a view over its
    simulator's control socket, in the same pass as it sends the frame that locks. An open
    prompt's reveal can be applied, and the game end, before the test's reader thread has
    read that view. A lock that never comes is reported by the comparison, after 10 s."""
    with contextlib.suppress(AssertionError):
        await wait_for(lambda: all(pid in sim.locks for sim, pid, _ in _applied(journal, sims)),
                       10, "the controllers' views of their locks")
    return applied_equals_first_locks(journal, sims)


def applied_equals_first_locks(journal: Journal, sims: list[SimController]) -> int:
    """Every answer applied for a controller's seat is the first lock that controller made
    for that prompt (never a second choice); returns how many were compared."""
    compared = 0
    for sim, pid, sel in _applied(journal, sims):
        first = sim.locks.get(pid)
        assert first == tuple(sel), f"{sim.uid} prompt {pid}: applied {sel}, its first lock {first}"
        compared += 1
    for sim in sims:
        assert not sim.relocks, f"{sim.uid} locked a prompt twice: {sim.relocks}"
    return compared


async def _sealed_on(daemon: Daemon, sims: list[SimController]) -> int:
    runner = daemon.runners[TABLE]
    await wait_for(lambda: runner.box is not None and runner.box.sealed, 30, "a sealed prompt")
    box = runner.box
    assert box is not None
    for s in sims:
        await asyncio.to_thread(s.wait_for, lambda v: v.pid == box.pid and v.state == "programming",
                                20, "the sealed prompt")
    return box.pid


def _seat(daemon: Daemon, who: SimController | ControllerDouble) -> int:
    seat = daemon.runners[TABLE].table.seat_of(who.uid)
    assert seat is not None
    return seat.index


@pytest.fixture(autouse=True)
def _long_history(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sim_controller, "HISTORY", 200_000)


# ---------------------------------------------------------------- (a) lost acks


@pytest.mark.micropython
def test_lost_acks_never_ask_a_closed_prompt_again(tmp_path: Path) -> None:
    """Every ack of a `prompt` frame is lost on the way to the host: the host keeps sending
    each prompt again. Before, it did so after the prompt's `revealed` and the firmware,
    whose 16-entry window had moved on, asked the closed prompt again (3/3). Now the host
    stops once the prompt is over and the firmware ignores a closed prompt."""

    def acks_of_prompts() -> Drop:
        prompts: set[int] = set()

        def drop(direction: str, msg: dict[str, Any]) -> bool:
            if direction == DOWN:
                if msg["t"] == "welcome":
                    prompts.clear()  # the host's sequence numbers restart
                elif msg["t"] == "prompt":
                    prompts.add(msg["seq"])
                return False
            return msg["t"] == "ack" and msg["ref"] in prompts

        return drop

    async def run() -> None:
        uids = ["mp-a", "mp-b"]
        async with relayed(tmp_path, uids, auto=True, rounds=6,
                           drops=[acks_of_prompts(), acks_of_prompts()]) as (daemon, sims, relays):
            runner = daemon.runners[TABLE]
            await asyncio.wait_for(runner.finished.wait(), 120)
            sent = [len(r.frames(DOWN, "prompt")) for r in relays]
            await asyncio.sleep(2.5)  # longer than the longest resend timeout
            for sim in sims:
                assert reasked(sim) == [], f"{sim.uid} asked closed prompts again"
            assert [len(r.frames(DOWN, "prompt")) for r in relays] == sent, (
                "the host still sends the prompts of a finished game")
            assert sum(r.counts.frames_dropped for r in relays) >= 12
            assert await first_locks_compared(daemon.journal, sims) >= 12

    asyncio.run(run())


# ---------------------------------------------------------------- (b) a replayed snapshot


@pytest.mark.micropython
def test_a_replayed_old_snapshot_does_not_void_the_prompt_serial(tmp_path: Path) -> None:
    """Both seats locked, the controller's reveal still on its way: its first snapshot
    (no prompt, idle) arrives again under a sequence number the host has not seen. Before,
    the host took it for the controller's state and voided the prompt ("lost its sealed
    choice", 5/5); now only the snapshot that follows a welcome counts."""
    hold = {"reveal": False}

    def drop(direction: str, msg: dict[str, Any]) -> bool:
        return hold["reveal"] and direction == UP and msg["t"] == "reveal"

    async def run() -> None:
        async with relayed(tmp_path, ["mp-a", "mp-b"], auto=False,
                           drops=[drop, None]) as (daemon, sims, relays):
            a, b = sims
            runner = daemon.runners[TABLE]
            pid = await _sealed_on(daemon, sims)
            hold["reveal"] = True
            a.turn(1, 3)
            a.press(100)
            await wait_for(lambda: runner.box is not None and runner.box.locked(_seat(daemon, a)))
            b.press(100)
            await wait_for(lambda: runner.box is not None
                           and runner.box.phase == Phase.ALL_LOCKED, what="all locked")
            await wait_for(lambda: bool(relays[0].frames(UP, "reveal")), what="a's reveal")
            old = relays[0].frames(UP, "snapshot")[0]
            assert old["pid"] is None and old["state"] == "idle"
            relays[0].inject_up(forge("snapshot", 999, pid=None, state="idle", commitment=None))
            await asyncio.sleep(1.0)
            assert not [e for e in daemon.journal.entries(TABLE) if e.kind == "void"]
            assert runner.box is not None and runner.box.pid == pid
            hold["reveal"] = False  # its next retransmission gets through
            await wait_for(lambda: runner.box is None or runner.box.pid != pid, 20,
                           "the reveal")
            applied = [e for e in daemon.journal.entries(TABLE) if e.kind == "applied"]
            assert applied and applied[0].data["pid"] == pid
            await first_locks_compared(daemon.journal, sims)

    asyncio.run(run())


def test_a_replayed_old_snapshot_does_not_void_the_prompt_mqtt(tmp_path: Path) -> None:
    """The same over a real Mosquitto: an old snapshot published on the controller's up
    topic while its reveal is held back."""
    uids = ["ctl-a", "ctl-b"]

    async def run() -> None:
        broker = Broker(tmp_path, uids)
        await broker.start()
        try:
            cfg = table_config(tmp_path, players=2, uids=uids, mqtt=broker.host_mqtt(),
                               pairing="auto", options={"rounds": 1, "forbid_n9": False})
            async with running_daemon(cfg) as daemon, mqtt_doubles(broker, uids) as ds:
                a, _b = ds
                runner = daemon.runners[TABLE]
                held: list[bytes] = []
                send = a.send_raw

                def hold_reveals(data: bytes) -> None:
                    msg = codec.decode_frame(data)
                    if isinstance(msg, dict) and msg["t"] == "reveal":
                        held.append(data)
                        return
                    send(data)

                a.send_raw = hold_reveals  # type: ignore[method-assign]
                await wait_for(lambda: runner.box is not None
                               and runner.box.phase == Phase.ALL_LOCKED, 30, "all locked")
                box = runner.box
                assert box is not None
                await wait_for(lambda: bool(held), what="a's reveal")
                send(forge("snapshot", 999, pid=None, state="idle", commitment=None))
                await asyncio.sleep(1.0)
                assert not [e for e in daemon.journal.entries(TABLE) if e.kind == "void"]
                assert runner.box is box and box.phase == Phase.ALL_LOCKED
                a.send_raw = send  # type: ignore[method-assign]
                send(held[-1])
                await wait_for(lambda: box.complete, what="the reveal")
                assert a.locks[box.pid] == list(box.answers()[_seat(daemon, a)])
        finally:
            broker.stop()

    asyncio.run(run())


# ---------------------------------------------------------------- (c) forged frames


async def _locked_a(daemon: Daemon, sims: list[SimController]) -> tuple[int, int]:
    """A sealed prompt on both; a dials and locks (its digit low: b will score, so a stays
    on the reveal afterwards). (pid, a's seat)"""
    a, _b = sims
    runner = daemon.runners[TABLE]
    pid = await _sealed_on(daemon, sims)
    a.turn(0, 1)
    a.press(100)
    me = _seat(daemon, a)
    await wait_for(lambda: runner.box is not None and runner.box.locked(me))
    return pid, me


async def _then_the_real_reveal(daemon: Daemon, sims: list[SimController],
                                relay: PtyRelay, pid: int) -> None:
    """b locks: the real all-locked and `revealed`; a reveals what it locked, verified."""
    a, b = sims
    runner = daemon.runners[TABLE]
    b.turn(1, 8)
    b.press(100)
    await wait_for(lambda: runner.box is None or runner.box.pid != pid, 20, "the reveal")
    await wait_for(lambda: any(v.state == "revealed" for v in a.history()),
                   what="the real revealed")
    shown = next(v for v in a.history() if v.state == "revealed")
    assert shown.lines[0] == "VERIFIED" and shown.lock is None
    assert not (a.state_dir / "lock.json").exists()
    assert await first_locks_compared(daemon.journal, sims) == 2
    state = runner.state()
    assert state.revealed is not None and state.revealed.verified


@pytest.mark.micropython
def test_a_forged_alllocked_makes_no_controller_reveal(tmp_path: Path) -> None:
    """A forged `alllocked` without the seat's commitment reaches a locked controller:
    before, it revealed its selection at once; now it reveals nothing and says why."""

    async def run() -> None:
        async with relayed(tmp_path, ["mp-a", "mp-b"], auto=False) as (daemon, sims, relays):
            a, b = sims
            pid, me = await _locked_a(daemon, sims)
            other = codec.commitment([0, 9, -1], bytes(12), pid, b.uid)
            relays[0].inject_down(forge("alllocked", 60001, pid=pid, commits=[[1 - me, other]]))
            await asyncio.sleep(1.0)
            assert not relays[0].frames(UP, "reveal"), "the controller revealed its selection"
            assert a.view().state == "locked"
            await wait_for(lambda: any(e["code"] == codec.E_MISMATCH
                                       for e in relays[0].frames(UP, "error")),
                           10, "the controller's report")
            await _then_the_real_reveal(daemon, sims, relays[0], pid)

    asyncio.run(run())


@pytest.mark.micropython
def test_a_forged_revealed_is_not_shown_and_keeps_the_lock(tmp_path: Path) -> None:
    """A forged `revealed` claims another choice for a locked controller: before, it was
    shown as the controller's choice and its lock record was erased; now the controller
    shows REVEAL MISMATCH, keeps its lock, and the real reveal goes through, verified."""

    async def run() -> None:
        async with relayed(tmp_path, ["mp-a", "mp-b"], auto=False) as (daemon, sims, relays):
            a, _b = sims
            pid, me = await _locked_a(daemon, sims)
            lock = a.view().lock
            assert lock is not None and lock[0] == pid
            forged = [[me, [0, 9, -1], codec.b64(bytes(12)), a.uid]]
            relays[0].inject_down(forge("revealed", 60002, pid=pid, choices=[[me, "N 9"]],
                                        summary="You chose N 9", reveals=forged))
            view = await asyncio.to_thread(
                a.wait_for, lambda v: "REVEAL MISMATCH" in v.lines, 10, "the mismatch")
            assert view.state == "locked" and "N 9" not in " ".join(view.lines)
            assert (a.state_dir / "lock.json").exists() and view.lock == lock
            await wait_for(lambda: any(e["code"] == codec.E_MISMATCH
                                       for e in relays[0].frames(UP, "error")),
                           10, "the controller's report")
            await _then_the_real_reveal(daemon, sims, relays[0], pid)

    asyncio.run(run())


# ---------------------------------------------------------------- (d) a noisy line


@pytest.mark.micropython
def test_a_game_over_a_noisy_serial_line_applies_only_first_locks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bit errors (each bit flipped with probability 1e-3) and byte drops (1e-3 per byte)
    both ways between the daemon and three controllers running the real firmware, for a
    whole game and at least 1,000 frames: every answer applied is the controller's first
    lock for its prompt, no controller ever shows a closed prompt again, nothing is voided.
    (The host pings every 0.25 s instead of every second: more frames through the noise in
    the same time, and fewer links that fall silent for 3 s; every 0.05 s once the game is
    over, until the 1,000 frames have crossed.)"""
    monkeypatch.setattr(session_mod, "HEARTBEAT", 0.25)

    async def run() -> None:
        uids = ["mp-a", "mp-b", "mp-c"]
        async with relayed(tmp_path, uids, auto=True, rounds=2, bit_error=1e-3,
                           byte_drop=1e-3) as (daemon, sims, relays):
            runner = daemon.runners[TABLE]

            def frames() -> int:
                return sum(sum(r.counts.frames.values()) for r in relays)

            await asyncio.wait_for(runner.finished.wait(), 150)
            # the game is over: the line stays noisy until 1,000 frames have crossed it
            # (nothing closed may come back meanwhile); pings every 0.05 s from here on, so
            # the rest of them cross in seconds
            monkeypatch.setattr(session_mod, "HEARTBEAT", 0.05)
            at_end = frames()
            await wait_for(lambda: frames() >= 1000, 60, "1,000 frames")
            kinds: dict[str, int] = {}
            for r in relays:
                for _d, m in r.log:
                    kinds[m["t"]] = kinds.get(m["t"], 0) + 1
            voids = len([e for e in daemon.journal.entries(TABLE) if e.kind == "void"])
            print(f"noisy game: {at_end} frames by its end, {frames()} in all {kinds}; "
                  f"{voids} void; garbled "
                  f"{sum(r.counts.frames_hit for r in relays)} "
                  f"({sum(r.counts.bits_flipped for r in relays)} bits flipped, "
                  f"{sum(r.counts.bytes_dropped for r in relays)} bytes dropped)")
            for sim in sims:
                assert reasked(sim) == [], f"{sim.uid} asked closed prompts again"
            assert await first_locks_compared(daemon.journal, sims) == 8  # 2 x (3 + 1)
            assert sum(r.counts.bits_flipped for r in relays) > 0
            assert sum(r.counts.bytes_dropped for r in relays) > 0

    asyncio.run(run())
