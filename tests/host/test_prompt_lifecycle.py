"""The host's side of issue 13, items 1, 4 and 7, without a wire: the session stops sending
the frames of a closed prompt and takes one snapshot per welcome; `revealed` carries what
the controllers need to verify (a private decision's seat its own only); a controller that
comes back holding a closed prompt is told how it ended."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from dialbox.engine.decisions import Ask, Decision
from dialbox.engine.events import Event
from dialbox.engine.wheels import DIGIT_FACES, Wheel, wheels
from dialbox.runner.telling import tell
from dialbox.sessions import Session
from dialbox.transports.local import LocalLink
from dialbox_protocol import codec
from dialbox_protocol.frames import Parsed, to_frame
from dialbox_protocol.models import (
    Ack,
    AllLocked,
    Hello,
    Identify,
    Ping,
    Prompt,
    Revealed,
    Snapshot,
    Welcome,
)
from tests.host.harness import TABLE, doubles, running_daemon, table_config
from tests.host.test_session import _Host

WHEELS: list[Any] = [None, None, None]


class _Prompts(_Host):
    """Admits anyone; the prompts in `open` are the open ones."""

    def __init__(self) -> None:
        super().__init__()
        self.open: set[int] = set()

    def is_open(self, session: Session, pid: int) -> bool:
        return pid in self.open


async def _frame(frames: AsyncIterator[Parsed], timeout: float = 5) -> Any:
    """The next frame that is not a heartbeat."""
    while True:
        f = await asyncio.wait_for(frames.__anext__(), timeout)
        if not isinstance(f, Ping):
            return f


async def _welcomed(dev: LocalLink, frames: AsyncIterator[Parsed]) -> None:
    assert isinstance(await _frame(frames), Identify)
    await dev.send(to_frame(Hello(fw="t", board="local", uid="d1")))
    welcome = await _frame(frames)
    assert isinstance(welcome, Welcome)
    await dev.send(to_frame(Ack(ref=welcome.seq)))


def test_the_frames_of_a_closed_prompt_are_not_sent_again() -> None:
    async def run() -> None:
        host_end, dev = LocalLink.pair("t")
        host = _Prompts()
        session = Session(host_end, host)
        task = asyncio.create_task(session.run())
        frames = dev.__aiter__()
        try:
            await _welcomed(dev, frames)
            host.open = {5}
            session.post(Prompt(pid=5, sealed=True, unlock=True, text="Dial", wheels=WHEELS))
            session.post(AllLocked(pid=5, commits=[]))
            session.post(Revealed(pid=5, choices=[], summary="Void", reveals=[]))
            sent = [await _frame(frames) for _ in range(3)]
            assert [type(f) for f in sent] == [Prompt, AllLocked, Revealed]
            again = [await _frame(frames) for _ in range(3)]  # none acknowledged: again
            assert [type(f) for f in again] == [Prompt, AllLocked, Revealed]
            host.open = set()  # prompt 5 is over: only its `revealed` still goes
            later = [await _frame(frames) for _ in range(2)]
            assert all(isinstance(f, Revealed) for f in later), later
            assert session.unacked == 1
        finally:
            await host_end.close()
            await asyncio.wait_for(task, 5)

    asyncio.run(run())


def test_one_snapshot_per_welcome() -> None:
    async def run() -> None:
        host_end, dev = LocalLink.pair("t")
        host = _Prompts()
        session = Session(host_end, host)
        task = asyncio.create_task(session.run())
        frames = dev.__aiter__()
        try:
            await _welcomed(dev, frames)
            await dev.send(to_frame(Snapshot(seq=1, pid=7, state="locked",
                                             commitment="A" * 22)))
            # an old snapshot (replayed, or sent again after its session) under a new seq
            for seq in (2, 500, 40000):
                await dev.send(to_frame(Snapshot(seq=seq, pid=None, state="idle")))
            acks = [await _frame(frames) for _ in range(4)]
            assert [a.ref for a in acks] == [1, 2, 500, 40000]  # each acknowledged
            assert [m for m in host.messages if isinstance(m, Snapshot)] == [
                Snapshot(seq=1, pid=7, state="locked", commitment="A" * 22)]
            # a new welcome: its snapshot counts again
            await dev.send(to_frame(Hello(fw="t", board="local", uid="d1")))
            welcome = await _frame(frames)
            assert isinstance(welcome, Welcome)
            await dev.send(to_frame(Ack(ref=welcome.seq)))
            await dev.send(to_frame(Snapshot(seq=1, pid=None, state="idle")))
            await _frame(frames)
            assert len([m for m in host.messages if isinstance(m, Snapshot)]) == 2
        finally:
            await host_end.close()
            await asyncio.wait_for(task, 5)

    asyncio.run(run())


def _decision(kind: Any) -> Decision:
    w = wheels(None, Wheel.of(DIGIT_FACES, range(1, 10)))
    return Decision(1, kind, (Ask(0, "t.dial", "Dial", w), Ask(1, "t.dial", "Dial", w),
                              Ask(2, "t.dial", "Dial", w)))


def _proofs(pid: int) -> tuple[dict[int, tuple[int, int, int]], dict[int, tuple[str, str]],
                                dict[int, tuple[str, str]]]:
    answers = {0: (-1, 3, -1), 1: (-1, 7, -1), 2: (-1, 5, -1)}
    proofs, commitments = {}, {}
    for seat, sel in answers.items():
        nonce, uid = bytes([seat + 1] * 12), f"ctl-{seat}" if seat < 2 else "bot-2"
        proofs[seat] = (codec.b64(nonce), uid)
        commitments[seat] = (uid, codec.commitment(sel, nonce, pid, uid))
    return answers, proofs, commitments


def test_revealed_carries_every_reveal_and_a_private_seat_its_own_only() -> None:
    pid = 321
    answers, proofs, commitments = _proofs(pid)
    events = [Event("t.x", "Seat 2 wins.")]
    sealed = tell(pid, _decision("sealed"), answers, events, lambda a, s: None, proofs,
                  commitments)
    assert sealed.public.verified
    for seat, frame in sealed.frames.items():
        assert [r[0] for r in frame.reveals] == [0, 1, 2], seat
        for s, sel, nonce, uid in frame.reveals:
            assert codec.verify_reveal(commitments[s][1], sel, nonce, pid, uid)
        assert len(to_frame(frame, codec.MAX_SEQ)) <= codec.MAX_FRAME
    private = tell(pid, _decision("private"), answers, events, lambda a, s: None, proofs,
                   commitments)
    assert not private.public.verified and private.public.choices == ()
    for seat, frame in private.frames.items():
        assert [r[0] for r in frame.reveals] == [seat]  # never another seat's selection
        assert [c[0] for c in frame.choices] == [seat]
    # a seat that took the game's default has no reveal: nothing to verify it against
    del proofs[1]
    partial = tell(pid, _decision("sealed"), answers, events, lambda a, s: None, proofs,
                   commitments)
    assert not partial.public.verified
    assert [r[0] for r in partial.frames[0].reveals] == [0, 2]
    # a summary too long for one frame with six seats' reveals is shortened, not refused
    many = Decision(2, "sealed", tuple(Ask(s, "t", "x", wheels(None, Wheel.of(DIGIT_FACES)))
                                       for s in range(6)))
    big = {s: (-1, 9, -1) for s in range(6)}
    uids = {s: (codec.b64(bytes(12)), "u" * 32) for s in range(6)}
    huge = [Event("t.x", "\u00e9" * 200)]
    frame = tell(9, many, big, huge, lambda a, s: None, uids).frames[0]
    assert len(to_frame(frame, codec.MAX_SEQ)) <= codec.MAX_FRAME and len(frame.reveals) == 6


def test_a_controller_back_with_a_closed_prompt_is_told_how_it_ended(tmp_path: Path) -> None:
    """A controller whose `revealed` was lost with its link comes back still holding that
    prompt (its snapshot says so): the host sends that `revealed` again before the next
    prompt; for a prompt it does not know (another journal), a void note."""
    uids = ["ctl-a", "ctl-b"]

    async def run() -> None:
        cfg = table_config(tmp_path, players=2, uids=uids, pairing="auto",
                           options={"rounds": 1, "forbid_n9": False})
        async with running_daemon(cfg) as daemon, doubles(tmp_path, uids) as (a, _b):
            runner = daemon.runners[TABLE]
            await asyncio.wait_for(runner.finished.wait(), 30)
            first = a.revealed[-1]  # the last prompt a was asked
            session = runner.sessions[a.uid]
            seat = runner.table.seat_of(a.uid)
            assert seat is not None
            told = runner.cycle.closing(seat.index, first["pid"])
            assert told.pid == first["pid"] and told.choices == [tuple(c) for c in
                                                                   first["choices"]]
            assert runner.cycle.closing(seat.index, 99).summary == "Void: prompt 99 is over"
            sent: list[Any] = []
            post = session.post
            session.post = lambda m: (sent.append(m), post(m))[1]  # type: ignore[method-assign]
            runner.cycle.resume(session, seat.index,
                                Snapshot(seq=1, pid=first["pid"], state="alllocked",
                                         commitment="A" * 22))
            assert sent and isinstance(sent[0], Revealed) and sent[0].pid == first["pid"]
            assert not [e for e in daemon.journal.entries(TABLE) if e.kind == "void"]

    asyncio.run(run())
