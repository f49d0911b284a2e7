"""A serial line between a simulated controller and the daemon that a test can tamper with.

`PtyRelay` opens the simulated controller's pty (its `device_path`) on one side and a second
pty on the other, whose slave node the daemon finds through a symlink (the daemon's serial
glob). A thread copies bytes both ways one frame (line) at a time: each frame is logged as
it was sent, then a test's `drop` hook may swallow it whole, and the noise model may flip
bits (each bit with probability `bit_error`) and drop bytes (each byte with probability
`byte_drop`), from one seeded RNG. `inject_up`/`inject_down` write frames a test forged.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import threading
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialbox_protocol import codec

UP = "up"
"""controller -> host"""
DOWN = "down"
"""host -> controller"""

Drop = Callable[[str, dict[str, Any]], bool]
"""(direction, decoded frame) -> True to swallow the frame."""


@dataclass
class Counts:
    frames: dict[str, int] = field(default_factory=lambda: {UP: 0, DOWN: 0})
    bits_flipped: int = 0
    bytes_dropped: int = 0
    frames_dropped: int = 0
    """Frames a test's `drop` hook swallowed."""
    frames_hit: int = 0
    """Frames the noise changed (a flipped bit or a dropped byte)."""


class PtyRelay:
    def __init__(self, sim_path: str, link: Path, *, seed: int = 0, bit_error: float = 0.0,
                 byte_drop: float = 0.0, drop: Drop | None = None) -> None:
        self.rng = random.Random(seed)
        self.bit_error = bit_error
        self.byte_drop = byte_drop
        self.drop = drop
        self.counts = Counts()
        self.log: list[tuple[str, dict[str, Any]]] = []
        """Every frame sent each way (as sent, before any tampering), decoded."""
        self.sim_fd = os.open(sim_path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.sim_fd)
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        tty.setraw(self.master)
        os.set_blocking(self.master, False)
        link.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            link.unlink()
        link.symlink_to(os.ttyname(self.slave))
        self.link = link
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._partial = {UP: b"", DOWN: b""}
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=3)
        with contextlib.suppress(FileNotFoundError):
            self.link.unlink()
        for fd in (self.sim_fd, self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def frames(self, direction: str, name: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            return [m for d, m in self.log if d == direction and (name is None or m["t"] == name)]

    # ------------------------------------------------------------------ writing forged frames

    def inject_up(self, frame: bytes) -> None:
        """A frame to the daemon as if the controller had sent it."""
        self._write(self.master, frame)

    def inject_down(self, frame: bytes) -> None:
        """A frame to the controller as if the daemon had sent it."""
        self._write(self.sim_fd, frame)

    @staticmethod
    def _write(fd: int, data: bytes) -> None:
        view = memoryview(data)
        while len(view):
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                select.select([], [fd], [], 0.05)
                continue
            except OSError:
                return
            view = view[n:]

    # ------------------------------------------------------------------ the relay

    def _run(self) -> None:
        src = {self.sim_fd: (UP, self.master), self.master: (DOWN, self.sim_fd)}
        while not self._stop.is_set():
            try:
                ready, _, _ = select.select(list(src), [], [], 0.05)
            except (OSError, ValueError):
                return
            for fd in ready:
                direction, dst = src[fd]
                try:
                    data = os.read(fd, 4096)
                except (BlockingIOError, InterruptedError):
                    continue
                except OSError:
                    data = b""
                if not data:
                    continue  # (an unplugged end: nothing to relay)
                self._frames(direction, dst, data)

    def _frames(self, direction: str, dst: int, data: bytes) -> None:
        buf = self._partial[direction] + data
        *lines, rest = buf.split(b"\n")
        self._partial[direction] = rest
        for line in lines:
            frame = line + b"\n"
            msg = codec.decode_frame(frame)
            if isinstance(msg, dict):
                with self._lock:
                    self.log.append((direction, msg))
                    self.counts.frames[direction] += 1
                if self.drop is not None and self.drop(direction, msg):
                    self.counts.frames_dropped += 1
                    continue
            out = self._noise(frame)
            if out:
                self._write(dst, out)

    def _noise(self, frame: bytes) -> bytes:
        if not self.bit_error and not self.byte_drop:
            return frame
        out = bytearray()
        rng = self.rng
        hit = False
        for b in frame:
            if self.byte_drop and rng.random() < self.byte_drop:
                self.counts.bytes_dropped += 1
                hit = True
                continue
            if self.bit_error:
                for bit in range(8):
                    if rng.random() < self.bit_error:
                        b ^= 1 << bit
                        self.counts.bits_flipped += 1
                        hit = True
            out.append(b)
        if hit:
            self.counts.frames_hit += 1
        return bytes(out)


def forge(name: str, seq: int, **fields: Any) -> bytes:
    """A frame of this type with these field values, laid out as this checkout's message
    table says (a field the table does not have is left out: the same test then runs against
    an older protocol too)."""
    spec = codec.message_spec(name)
    assert spec is not None
    return codec.encode(name, seq, [fields[f] for f, _t in spec[3]])
