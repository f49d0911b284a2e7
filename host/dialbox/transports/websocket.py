"""Phone links: the controller page in a browser, over a WebSocket (docs/protocol.md,
"WebSocket links").

A phone is a controller like any other: the same session (dialbox.sessions) speaks protocol
v1 to it, the host first. Each WebSocket **text** message carries exactly one frame, the
codec's bytes without the newline (one trailing newline is tolerated). What the link
refuses is answered with an `error` frame and the link is kept, as a serial port drops a
malformed line: a binary message (`bad_frame`), a message longer than a frame may be
(`oversize`), a message holding more than one line (`bad_frame`), and every frame the codec
refuses (bad CRC, not a frame, unknown type...). A link that keeps sending such input
(STRIKES refusals beyond a small rate) is closed with code 1008 and the reason.

Two shapes of the same link:
- `WebSocketLink`: the WebSocket itself, when the process serving the table screen also
  owns the table (one process: `dialbox run` with one worker, serial only, the demo);
- `StreamLink`: a byte stream of newline-ended lines (a Unix socket from the supervisor's
  relay, docs/host.md "Phones"), when a worker process owns the table. The relay checks
  each WebSocket message with `check_message` (the same rules) and forwards a frame as one
  line, a refusal as a control line `!refuse CODE DETAIL`; the worker's link answers and
  counts it; a close is sent back as `!close CODE REASON`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from dialbox.logbook import TokenBucket
from dialbox.transports.base import Link, LinkClosed
from dialbox_protocol import codec
from dialbox_protocol.frames import ProtocolError, parse_frame, to_frame
from dialbox_protocol.models import Error

log = logging.getLogger("dialbox.websocket")

MAX_MESSAGE = codec.MAX_FRAME
"""Characters of one text message: a frame (at most MAX_FRAME - 1 without its newline), plus
the one trailing newline tolerated."""
WS_MAX_SIZE = 64 * 1024
"""Bytes of a WebSocket message the server reads at all (uvicorn's `ws_max_size`): a longer
one closes the connection (1009), a shorter one over MAX_MESSAGE is refused, link kept."""
STRIKE_RATE = 1.0
STRIKE_BURST = 20
"""Refused messages a link may send: 20 at once, then one a second; past that it is closed."""
REPLY_RATE = 5.0
REPLY_BURST = 10
"""`error` answers to refused messages: 10 at once, then 5 a second (a flood in is not a
flood out)."""
CLOSE_POLICY = 1008
CLOSE_AGAIN = 1013
CLOSE_AWAY = 1001
_ANSWERED = frozenset({codec.E_CRC, codec.E_FRAME, codec.E_OVERSIZE, codec.E_JSON,
                       codec.E_TYPE})
"""Refusals the link answers itself (the session answers bad fields, version and table)."""
ABUSE = "too many malformed messages: closed"


class WsPeer(Protocol):
    """What a link needs of a server-side WebSocket (Starlette's `WebSocket` is one)."""

    async def receive(self) -> Mapping[str, Any]: ...

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def check_message(message: Mapping[str, Any]) -> bytes | ProtocolError | None:
    """One ASGI `websocket.receive` message: the frame's bytes (no newline), a refusal, or
    None when the other end has gone (`websocket.disconnect`)."""
    if message.get("type") == "websocket.disconnect":
        return None
    text: str | None = message.get("text")
    if text is None:
        if message.get("bytes") is not None:
            return ProtocolError(codec.E_FRAME, "binary message refused: send each frame as "
                                                "one text message")
        return ProtocolError(codec.E_FRAME, "empty message")
    if len(text) > MAX_MESSAGE:
        return ProtocolError(codec.E_OVERSIZE, f"message of {len(text)} characters is over "
                                               f"{MAX_MESSAGE - 1}")
    if text.endswith("\n"):
        text = text[:-1]
    if "\n" in text:
        return ProtocolError(codec.E_FRAME, "one frame per message: the message holds "
                                            "several lines")
    try:
        return text.encode("ascii")
    except UnicodeEncodeError:
        return ProtocolError(codec.E_FRAME, "non-ASCII characters in a frame")


class PhoneLink(Link):
    """What both shapes of a phone link share: lines in, each a frame; refusals answered."""

    kind: ClassVar[str] = "phone"
    rto: ClassVar[float] = 0.25
    rto_max: ClassVar[float] = 2.0
    heartbeat: ClassVar[bool] = True

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._strikes = TokenBucket(STRIKE_RATE, STRIKE_BURST)
        self._replies = TokenBucket(REPLY_RATE, REPLY_BURST)
        self.refused = 0
        """Messages refused on this link (binary, oversize, undecodable)."""
        self.close_reason: str | None = None

    def take(self, line: bytes) -> None:
        """One frame as it came (without its newline)."""
        parsed = parse_frame(line)
        if isinstance(parsed, ProtocolError) and parsed.code in _ANSWERED:
            self.refuse(parsed)
        self.deliver(parsed)  # the session logs what it drops, as on serial

    def refuse(self, err: ProtocolError) -> None:
        """A message refused: answer it (rate-limited); a link that keeps at it is closed."""
        self.refused += 1
        if self._replies.take():
            with contextlib.suppress(LinkClosed):
                self._send(to_frame(Error(code=err.code, detail=err.detail[:80],
                                          ref=err.seq)))
        if not self._strikes.take():
            self.logbook.log(log, logging.WARNING, "%s: %s", self.name, ABUSE)
            self.shut(CLOSE_POLICY, ABUSE)

    def _write(self, frame: bytes) -> None:
        self._send(frame)

    def _send(self, frame: bytes) -> None:
        raise NotImplementedError

    def shut(self, code: int, reason: str) -> None:
        """Close the link with a WebSocket close code and reason (idempotent)."""
        raise NotImplementedError


class WebSocketLink(PhoneLink):
    """A phone on a WebSocket served in this process. `await link.pump()` reads it until it
    closes (the session runs beside it); writes are sent in order by one task."""

    def __init__(self, ws: WsPeer, name: str = "phone") -> None:
        super().__init__(name)
        self.ws = ws
        self._out: asyncio.Queue[str | tuple[int, str] | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None

    def _send(self, frame: bytes) -> None:
        if self.closed:
            raise LinkClosed(f"{self.name} is closed")
        self._out.put_nowait(frame.rstrip(b"\n").decode("ascii"))

    def shut(self, code: int, reason: str) -> None:
        if self.close_reason is None:
            self.close_reason = reason
            self._out.put_nowait((code, reason))
        self.end()

    async def _write_all(self) -> None:
        while True:
            item = await self._out.get()
            if item is None:
                return
            if isinstance(item, tuple):
                with contextlib.suppress(Exception):
                    await self.ws.close(item[0], item[1][:120])
                return
            try:
                await self.ws.send_text(item)
            except Exception:  # (the connection is gone: starlette, uvicorn, OSError)
                self.end()
                return

    async def pump(self) -> None:
        """Read messages until the WebSocket closes (or the link is shut)."""
        self._writer = asyncio.create_task(self._write_all())
        try:
            while not self.closed:
                try:
                    message = await self.ws.receive()
                except Exception:  # a read after the close, a broken connection
                    break
                got = check_message(message)
                if got is None:
                    break
                if isinstance(got, ProtocolError):
                    self.refuse(got)
                else:
                    self.take(got)
        finally:
            self.end()
            if self.close_reason is None:
                self._out.put_nowait(None)
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._writer, 2.0)

    async def close(self) -> None:
        self.shut(CLOSE_AWAY, "the host is stopping")


class StreamLink(PhoneLink):
    """A phone relayed to this worker over a byte stream of lines (see the module's doc)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 name: str = "phone") -> None:
        super().__init__(name)
        self.reader = reader
        self.writer = writer

    def _send(self, frame: bytes) -> None:
        if self.closed or self.writer.is_closing():
            raise LinkClosed(f"{self.name} is closed")
        self.writer.write(frame if frame.endswith(b"\n") else frame + b"\n")

    def _write_batch(self, frames: list[bytes]) -> None:
        self._send(b"".join(f if f.endswith(b"\n") else f + b"\n" for f in frames))

    def shut(self, code: int, reason: str) -> None:
        if self.close_reason is None:
            self.close_reason = reason
            if not self.writer.is_closing():
                self.writer.write(f"!close {code} {reason}\n".encode("ascii", "replace"))
                self.writer.close()
        self.end()

    async def pump(self) -> None:
        """Read lines until the relay closes the stream (or the link is shut)."""
        try:
            while not self.closed:
                try:
                    line = await self.reader.readline()
                except (ValueError, OSError, asyncio.IncompleteReadError):
                    break  # (a line over the stream's limit: the relay never sends one)
                if not line.endswith(b"\n"):
                    break
                line = line[:-1]
                if line.startswith(b"!refuse "):
                    code, _, detail = line[8:].decode("ascii", "replace").partition(" ")
                    self.refuse(ProtocolError(int(code) if code.isdigit() else codec.E_FRAME,
                                              detail))
                elif line:
                    self.take(line)
        finally:
            self.end()
            if not self.writer.is_closing():
                self.writer.close()

    async def close(self) -> None:
        self.shut(CLOSE_AWAY, "the host is stopping")
