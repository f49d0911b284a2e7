"""Serial links (USB CDC or pseudo-terminals) via pyserial-asyncio-fast, and hot-plug discovery."""

from __future__ import annotations

import asyncio
import glob
import logging
import os
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import serial
import serial_asyncio_fast
from serial.tools import list_ports
from serial.tools.list_ports_common import ListPortInfo

from dialbox.transports.base import Link, LinkClosed, PortUnavailable
from dialbox_protocol import codec
from dialbox_protocol.frames import Parsed, ProtocolError, parse_frame

log = logging.getLogger("dialbox.serial")
# pyserial-asyncio-fast logs a traceback for every unplugged port (its final flush fails);
# the link loss is reported here instead, as one line.
logging.getLogger("serial_asyncio_fast").setLevel(logging.CRITICAL)

BAUDRATE = 115200
MAX_WRITE_BUFFER = 64 * 1024
"""Bytes a serial link keeps for a controller that reads nothing; beyond it frames are
dropped, not buffered (reliable ones go again when it reads; the others are lossy anyway)."""


class SerialLink(Link):
    """A controller on a serial port; frames are split and checked by the shared codec."""

    kind: ClassVar[str] = "serial"
    rto: ClassVar[float] = 0.25
    rto_max: ClassVar[float] = 2.0
    heartbeat: ClassVar[bool] = True

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path
        self._lines = LineSplitter()
        self._transport: asyncio.Transport | None = None
        self.bytes_in = 0
        self.dropped_out = 0
        """Frames not written because the other end had MAX_WRITE_BUFFER bytes unread."""

    @classmethod
    async def open(cls, path: str, baudrate: int = BAUDRATE) -> SerialLink:
        """Open `path`; PortUnavailable (with the reason) if it cannot be opened."""
        link = cls(path)
        loop = asyncio.get_running_loop()
        try:
            transport, _ = await serial_asyncio_fast.create_serial_connection(
                loop, lambda: _Reader(link), path, baudrate=baudrate, exclusive=True
            )
        except (serial.SerialException, OSError, ValueError) as e:
            raise PortUnavailable(f"cannot open {path}: {e}") from None
        link._transport = transport
        return link

    def received(self, data: bytes) -> None:
        self.bytes_in += len(data)
        for line in self._lines.feed(data):
            self.deliver(parse_line(line))

    def _write_batch(self, frames: list[bytes]) -> None:
        self._write(b"".join(frames))

    def _write(self, frame: bytes) -> None:
        t = self._transport
        if t is None or t.is_closing():
            self.end()
            raise LinkClosed(f"{self.path} is closed")
        if t.get_write_buffer_size() > MAX_WRITE_BUFFER:
            self.dropped_out += 1
            self.logbook.log(log, logging.WARNING, "%s: reads nothing, %d bytes unread: "
                             "a write dropped", self.path, t.get_write_buffer_size())
            return
        try:
            t.write(frame)
        except (serial.SerialException, OSError) as e:
            self.end()
            raise LinkClosed(f"{self.path}: {e}") from None

    async def close(self) -> None:
        self.end()
        if self._transport is not None:
            self._transport.close()


class LineSplitter:
    """Splits a byte stream at newlines, the way the codec's FrameReader does, but a chunk
    at a time (bytes.find) instead of a byte at a time: a line longer than a frame may be is
    dropped whole and reported once; a reader that joins mid-stream resynchronises at the
    next newline. It never holds more than `max_frame` bytes: an overlong line is discarded
    as it arrives, not buffered (a 4 MB line costs 4 MB of `bytes.find`, no memory)."""

    def __init__(self, max_frame: int = codec.MAX_FRAME) -> None:
        self.max = max_frame
        self.buf = bytearray()
        self.overflow = False
        self.dropped = 0
        """Overlong lines dropped."""

    def feed(self, data: bytes) -> list[bytes | None]:
        """Complete lines (None for each overlong line dropped)."""
        out: list[bytes | None] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            if self.overflow or len(self.buf) + nl - start >= self.max:
                self.dropped += 1
                out.append(None)
            else:
                line = bytes(self.buf) + data[start:nl] if self.buf else data[start:nl]
                if line:
                    out.append(line)
            self.buf.clear()
            self.overflow = False
            start = nl + 1
        rest = len(data) - start
        if rest:
            if self.overflow or len(self.buf) + rest >= self.max:
                self.overflow = True
                self.buf.clear()
            else:
                self.buf += data[start:]
        return out


def parse_line(line: bytes | None) -> Parsed:
    if line is None:
        return ProtocolError(codec.E_OVERSIZE, f"line longer than {codec.MAX_FRAME} bytes dropped")
    return parse_frame(line)


class _Reader(asyncio.Protocol):
    """pyserial-asyncio-fast protocol feeding one SerialLink."""

    def __init__(self, link: SerialLink) -> None:
        self.link = link

    def data_received(self, data: bytes) -> None:
        self.link.received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:
            log.info("%s: link lost (%s)", self.link.path, exc)
        self.link.end()


@dataclass(frozen=True, slots=True)
class UsbMatch:
    """Which USB serial devices are controllers: vendor id, product id, optional serial number."""

    vid: int
    pid: int
    serial_number: str | None = None

    def matches(self, port: ListPortInfo) -> bool:
        if port.vid != self.vid or port.pid != self.pid:
            return False
        return self.serial_number is None or port.serial_number == self.serial_number


# Raspberry Pi RP2040 MicroPython and Espressif USB JTAG/serial, the boards dialbox targets.
DEFAULT_USB = (UsbMatch(0x2E8A, 0x0005), UsbMatch(0x303A, 0x1001))


def present_ports(patterns: Iterable[str], usb: Iterable[UsbMatch]) -> dict[str, str]:
    """Serial devices present now: {real device path: the path to open}.

    `patterns` are paths or globs (e.g. /dev/serial/by-id/usb-MicroPython*, a pty symlink);
    `usb` matches enumerated USB serial ports by VID/PID/serial number.
    """
    found: dict[str, str] = {}
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]:
            if os.path.exists(path):
                found.setdefault(os.path.realpath(path), path)
    matchers = list(usb)
    if matchers:
        for port in list_ports.comports():
            if any(m.matches(port) for m in matchers):
                found.setdefault(os.path.realpath(port.device), port.device)
    return found


class SerialWatcher:
    """Hot-plug: opens controllers as they appear and forgets them when they vanish.

    Controllers are identified later by their hello's unique id, never by the port name.
    Polls the device list (udev can also poke `rescan()`), so no fixed waits are needed.
    """

    def __init__(
        self,
        on_link: Callable[[SerialLink], Coroutine[Any, Any, None]],
        patterns: Iterable[str] = (),
        usb: Iterable[UsbMatch] = (),
        interval: float = 0.2,
    ) -> None:
        self.on_link = on_link
        self.patterns = list(patterns)
        self.usb = list(usb)
        self.interval = interval
        self.links: dict[str, SerialLink] = {}
        self.failed: dict[str, str] = {}
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    def watch(self, pattern: str) -> None:
        """Also watch this path or glob from now on (e.g. a pty a test just made)."""
        if pattern not in self.patterns:
            self.patterns.append(pattern)
        self.rescan()

    def rescan(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        try:
            while True:
                await self.scan()
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), self.interval)
                except TimeoutError:
                    pass
        finally:
            for link in list(self.links.values()):
                await link.close()

    async def scan(self) -> None:
        present = present_ports(self.patterns, self.usb)
        for real in [r for r in self.failed if r not in present]:
            del self.failed[real]
        for real, link in list(self.links.items()):
            if link.closed:
                del self.links[real]
        for real, path in present.items():
            if real in self.links or real in self.failed:
                continue
            try:
                link = await SerialLink.open(path)
            except PortUnavailable as e:
                self.failed[real] = str(e)
                log.warning("%s", e)
                continue
            self.links[real] = link
            log.info("serial device %s appeared", path)
            task = asyncio.create_task(self.on_link(link))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
