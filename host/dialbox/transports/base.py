"""The interface every transport gives: a link to one controller yielding frozen messages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import ClassVar

from dialbox_protocol.frames import Parsed


class TransportError(Exception):
    """Base of the errors a transport raises; library errors are translated into these."""


class LinkClosed(TransportError):
    """The link to a controller is gone (unplugged, broker lost, closed by us)."""


class PortUnavailable(TransportError):
    """A serial port could not be opened (missing, busy, no permission)."""


class BrokerUnavailable(TransportError):
    """The MQTT broker could not be reached or refused us."""


class Link:
    """One controller's link: `async for parsed in link` yields messages and ProtocolErrors.

    Messages are the protocol's frozen pydantic models; undecodable frames arrive as
    ProtocolError values, never as exceptions. `send()` writes one encoded frame.
    The iteration ends when the link closes.
    """

    kind: ClassVar[str] = "link"
    rto: ClassVar[float] = 0.25
    """Initial retransmission timeout of reliable frames on this kind of link (seconds)."""
    rto_max: ClassVar[float] = 2.0
    heartbeat: ClassVar[bool] = True
    """Whether the host pings over this link (serial) or relies on the broker (MQTT)."""

    def __init__(self, name: str, expected_uid: str | None = None) -> None:
        self.name = name
        self.expected_uid = expected_uid
        """The uid this link must carry (MQTT: the device in the topic), or None."""
        self._incoming: asyncio.Queue[Parsed | None] = asyncio.Queue()
        self.closed = False
        self.frames_in = 0
        self.frames_out = 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def deliver(self, parsed: Parsed) -> None:
        """Hand one decoded frame to whoever iterates this link."""
        if not self.closed:
            self.frames_in += 1
            self._incoming.put_nowait(parsed)

    def end(self) -> None:
        """Mark the link closed and end the iteration (idempotent)."""
        if not self.closed:
            self.closed = True
            self._incoming.put_nowait(None)

    def __aiter__(self) -> AsyncIterator[Parsed]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Parsed]:
        while True:
            item = await self._incoming.get()
            if item is None:
                return
            yield item

    async def send(self, frame: bytes) -> None:
        """Write one frame; raises LinkClosed when the link is gone."""
        if self.closed:
            raise LinkClosed(f"{self.name} is closed")
        self.frames_out += 1
        await self._write(frame)

    async def send_batch(self, frames: list[bytes]) -> None:
        """Write frames that are ready together, in order (one payload or one write where
        the link allows it); raises LinkClosed when the link is gone."""
        if self.closed:
            raise LinkClosed(f"{self.name} is closed")
        self.frames_out += len(frames)
        await self._write_batch(frames)

    async def _write(self, frame: bytes) -> None:
        raise NotImplementedError

    async def _write_batch(self, frames: list[bytes]) -> None:
        for frame in frames:
            await self._write(frame)

    async def close(self) -> None:
        """Close the link on our side; the iteration ends."""
        self.end()
