"""HostStandin: a minimal host written with the shared codec, for tests and benchmarks."""

from __future__ import annotations

import threading
import time
from typing import Any

import serial

from dialbox_protocol import codec
from dialbox_protocol.models import new_challenge


class HostStandin:
    """Speaks the host side of protocol v1 over a serial port (a simulated controller's pty).

    A background thread reads the port, acks every reliable frame it receives, sends its
    own reliable frames again until they are acknowledged (250 ms doubling to 2 s) and sends
    a heartbeat `ping` about once a second, as the host does (a controller declares the link
    lost after 3 s of silence). Everything received is kept in `log`.
    """

    def __init__(self, port: str, heartbeat: bool = True) -> None:
        self.port = serial.Serial(port, 115200, timeout=0.05)
        self.reader = codec.FrameReader()
        self.seq = 0
        self.log: list[Any] = []
        self.pending: list[dict[str, Any]] = []
        self.unacked: dict[int, list[Any]] = {}  # seq -> [frame, due, rto]
        self.heartbeat = heartbeat
        self.challenge = new_challenge()
        """The challenge of its identify frames (a hello's mac covers it)."""
        self._cond = threading.Condition()
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.port.close()

    def _write(self, frame: bytes) -> None:
        with self._write_lock:
            self.port.write(frame)

    def send(self, name: str, args: list[Any]) -> int:
        seq = 0
        if codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        frame = codec.encode(name, seq, args)
        if seq:
            with self._cond:
                self.unacked[seq] = [frame, time.monotonic() + 0.25, 0.25]
        self._write(frame)
        return seq

    def send_once(self, name: str, seq: int, args: list[Any]) -> None:
        """Write one frame with this seq as it is: not numbered, not sent again (a stray or
        replayed frame)."""
        self._write(codec.encode(name, seq, args))

    def restart_session(self) -> None:
        self.seq = 0
        with self._cond:
            self.unacked.clear()

    def _run(self) -> None:
        last_ping = time.monotonic()
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                if self.heartbeat and now - last_ping >= 1.0:
                    last_ping = now
                    self._write(codec.encode("ping", 0, [int(now * 1000) % (1 << 30)]))
                with self._cond:
                    due = [e for e in self.unacked.values() if e[1] <= now]
                    for e in due:
                        e[2] = min(e[2] * 2, 2.0)
                        e[1] = now + e[2]
                for e in due:
                    self._write(e[0])
                data = self.port.read(256)
            except (OSError, serial.SerialException):
                return
            for msg in self.reader.feed(data):
                with self._cond:
                    self.log.append(msg)
                    if isinstance(msg, dict):
                        if msg["t"] == "ack":
                            self.unacked.pop(msg["ref"], None)
                        if msg["seq"]:
                            self._write(codec.encode("ack", 0, [msg["seq"]]))
                        self.pending.append(msg)
                    self._cond.notify_all()

    def expect(self, name: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        """The next received message of this type (and field values); others are skipped."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for i, msg in enumerate(self.pending):
                    if msg["t"] == name and all(msg.get(k) == v for k, v in fields.items()):
                        del self.pending[: i + 1]
                        return msg
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {name} {fields} within {timeout}s; got {self.log}")
                self._cond.wait(min(left, 0.1))

    def handshake(
        self, seat: int = 0, colour: str = "43a047", table: str = "t1", name: str = "Green"
    ) -> dict[str, Any]:
        """identify (every 0.5 s, at most 20 times) until hello, then welcome; the snapshot."""
        hello = None
        for _ in range(20):
            self.send("identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "standin",
                                   self.challenge])
            try:
                hello = self.expect("hello", timeout=0.5)
                break
            except AssertionError:
                continue
        if hello is None:
            raise AssertionError(f"no hello after 20 identifies; got {self.log}")
        self.restart_session()
        with self._cond:
            self.pending.clear()
        self.send("welcome", [seat, colour, table, name])
        return self.expect("snapshot")
