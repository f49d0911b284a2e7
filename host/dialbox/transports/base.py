"""The interface every transport gives: a link to one controller yielding frozen messages."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import ClassVar

from dialbox.logbook import LogLimit
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
    """One controller's link: `async for parsed in link` yields messages and ProtocolErrors,
    or `await link.serve(fn)` hands each to `fn` as it arrives (no queue, no task switch).

    Messages are the protocol's frozen pydantic models; undecodable frames arrive as
    ProtocolError values, never as exceptions. `write()` writes frames at once (links never
    block: a serial transport buffers, the broker client queues); `send()` is its awaitable
    form for one frame. Both end when the link closes.
    """

    kind: ClassVar[str] = "link"
    rto: ClassVar[float] = 0.25
    """Initial retransmission timeout of reliable frames on this kind of link (seconds)."""
    rto_max: ClassVar[float] = 2.0
    heartbeat: ClassVar[bool] = True
    """Whether the host pings over this link (serial) or relies on the broker (MQTT)."""

    def __init__(self, name: str, expected_uid: str | None = None,
                 logbook: LogLimit | None = None) -> None:
        self.name = name
        self.expected_uid = expected_uid
        """The uid this link must carry (MQTT: the device in the topic), or None."""
        self.logbook = logbook or LogLimit(name)
        """Every line logged about this link's input goes through it: a flood of bad
        frames costs a bounded number of lines (dialbox.logbook)."""
        self._incoming: asyncio.Queue[Parsed | None] = asyncio.Queue()
        self._receiver: Callable[[Parsed], None] | None = None
        self._ended = asyncio.Event()
        self._failure: BaseException | None = None
        self.closed = False
        self.frames_in = 0
        self.frames_out = 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def deliver(self, parsed: Parsed) -> None:
        """Hand one decoded frame to whoever serves or iterates this link."""
        if self.closed:
            return
        self.frames_in += 1
        receiver = self._receiver
        if receiver is None:
            self._incoming.put_nowait(parsed)
            return
        try:
            receiver(parsed)
        except Exception as e:  # the receiver's failure ends the link and surfaces in serve()
            self._failure = e
            self.end()

    def end(self) -> None:
        """Mark the link closed and end the iteration (idempotent)."""
        if not self.closed:
            self.closed = True
            self._incoming.put_nowait(None)
            self._ended.set()

    async def serve(self, receiver: Callable[[Parsed], None]) -> None:
        """Call `receiver` with every frame, in order, until the link closes (re-raises what
        the receiver raised)."""
        while not self._incoming.empty():
            item = self._incoming.get_nowait()
            if item is None:
                return
            receiver(item)
        self._receiver = receiver
        try:
            await self._ended.wait()
        finally:
            self._receiver = None
        if self._failure is not None:
            raise self._failure

    def __aiter__(self) -> AsyncIterator[Parsed]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Parsed]:
        while True:
            item = await self._incoming.get()
            if item is None:
                return
            yield item

    def write(self, frames: list[bytes]) -> None:
        """Write frames that are ready together, in order (one payload or one write where
        the link allows it); raises LinkClosed when the link is gone."""
        if self.closed:
            raise LinkClosed(f"{self.name} is closed")
        self.frames_out += len(frames)
        self._write_batch(frames)

    async def send(self, frame: bytes) -> None:
        """Write one frame; raises LinkClosed when the link is gone."""
        self.write([frame])

    def _write(self, frame: bytes) -> None:
        raise NotImplementedError

    def _write_batch(self, frames: list[bytes]) -> None:
        for frame in frames:
            self._write(frame)

    async def close(self) -> None:
        """Close the link on our side; the iteration ends."""
        self.end()
