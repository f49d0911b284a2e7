"""The session's reliability layer on its own: retransmission until acknowledged, duplicates."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from dialbox.sessions import Session
from dialbox.transports.local import LocalLink
from dialbox_protocol.frames import Parsed, to_frame
from dialbox_protocol.models import (
    Ack,
    Error,
    Hello,
    Identify,
    Message,
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
