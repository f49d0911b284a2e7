"""The session's reliability layer on its own: retransmission until acknowledged, duplicates."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from dialbox.sessions import Session
from dialbox.sessions import session as session_mod
from dialbox.transports.local import LocalLink
from dialbox_protocol import codec
from dialbox_protocol.frames import Parsed, to_frame
from dialbox_protocol.models import (
    Ack,
    Error,
    Hello,
    Identify,
    Message,
    Ping,
    Pong,
    Prompt,
    Snapshot,
    Welcome,
)


class _Host:
    """Admits anyone to seat 0 and records what the session hands over."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.durable_calls = 0

    def admit(self, session: Session, hello: Hello) -> Welcome | Error:
        return Welcome(seat=0, colour="ff0000", table="t", name="Red")

    def on_snapshot(self, session: Session, snapshot: Snapshot) -> None:
        self.messages.append(snapshot)

    def on_message(self, session: Session, msg: Message) -> None:
        self.messages.append(msg)

    def on_offline(self, session: Session) -> None:
        pass

    def owes(self, session: Session) -> bool:
        return False

    def durable(self) -> None:
        self.durable_calls += 1


async def _next(frames: AsyncIterator[Parsed]) -> Any:
    return await asyncio.wait_for(frames.__anext__(), 10)


async def _next_ack(frames: AsyncIterator[Parsed]) -> Ack:
    """The next ack, past retransmissions of frames still unacknowledged (a slow machine)."""
    while True:
        f = await _next(frames)
        if isinstance(f, Ack):
            return f
        assert isinstance(f, Welcome | Prompt), f


async def _retransmits() -> None:
    host_end, dev = LocalLink.pair("t")
    host = _Host()
    session = Session(host_end, host)
    task = asyncio.create_task(session.run())
    frames = dev.__aiter__()
    try:
        assert isinstance(await _next(frames), Identify)
        await dev.send(to_frame(Hello(fw="t", board="local", uid="d1")))
        welcome = await _next(frames)
        assert isinstance(welcome, Welcome) and welcome.seq == 1
        # not acknowledged: the same frame comes again, and again (timeout doubling)
        for _ in range(2):
            again = await _next(frames)
            assert isinstance(again, Welcome) and again.seq == welcome.seq
        await dev.send(to_frame(Ack(ref=welcome.seq)))
        await dev.send(to_frame(Snapshot(seq=1, pid=None, state="idle")))
        ack = await _next_ack(frames)
        assert ack.ref == 1
        assert session.unacked == 0 and session._resend_timer is None
        assert host.durable_calls > 0  # the host was made durable before frames went out
        session.post(Prompt(pid=5, sealed=True, unlock=True, text="Dial",
                            wheels=[None, None, None]))
        prompt = await _next(frames)
        assert isinstance(prompt, Prompt) and prompt.seq == 2
        assert session.unacked == 1
        # the controller's duplicate (same seq) is acknowledged again but handed over once
        await dev.send(to_frame(Snapshot(seq=1, pid=None, state="idle")))
        dup_ack = await _next_ack(frames)
        assert dup_ack.ref == 1
        assert sum(isinstance(m, Snapshot) for m in host.messages) == 1
        await dev.send(to_frame(Ack(ref=2)))
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        assert session.unacked == 0
    finally:
        await host_end.close()
        await asyncio.wait_for(task, 5)


def test_unacknowledged_frames_go_again_until_acknowledged() -> None:
    asyncio.run(_retransmits())


async def frames_until_pong(dev: Any, frames: Any, ms: int) -> list[Any]:
    """The frames a session sends up to the pong for a ping sent now (what it did before)."""
    await dev.send(to_frame(Ping(ms=ms)))
    seen = []
    while True:
        f = await _next(frames)
        if isinstance(f, Pong) and f.ms == ms:
            return seen
        seen.append(f)


async def _no_session() -> None:
    host_end, dev = LocalLink.pair("t")
    session = Session(host_end, _Host())
    task = asyncio.create_task(session.run())
    frames = dev.__aiter__()

    async def until_pong(ms: int) -> list[Any]:
        return await frames_until_pong(dev, frames, ms)

    try:
        assert isinstance(await _next(frames), Identify)
        await dev.send(to_frame(Hello(fw="t", board="local", uid="d1")))
        assert isinstance(await _next(frames), Welcome)
        await dev.send(to_frame(Ack(ref=1)))
        # another unexpected_now is only reported
        await dev.send(to_frame(Error(code=codec.E_STATE, detail="already locked", ref=4)))
        assert not [f for f in await until_pong(1) if isinstance(f, Identify)]
        # the controller lost the session: one identify, however many frames it refuses
        for ref in (2, 2, 3):
            await dev.send(to_frame(Error(code=codec.E_STATE, detail=codec.NO_SESSION, ref=ref)))
        assert sum(isinstance(f, Identify) for f in await until_pong(2)) == 1
        assert session.reidentified == 1
        await dev.send(to_frame(Hello(fw="t", board="local", uid="d1")))
        welcome = await _next(frames)
        assert isinstance(welcome, Welcome) and welcome.seq == 1  # a new session: resumed
    finally:
        await host_end.close()
        await asyncio.wait_for(task, 5)


def test_a_controller_without_a_session_is_identified_again_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(session_mod, "REIDENTIFY_EVERY", 3600.0)  # no second one in this test
    asyncio.run(_no_session())
