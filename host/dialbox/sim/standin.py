"""HostStandin: a minimal host written with the shared codec, for tests and benchmarks."""

from __future__ import annotations

import time
from typing import Any

import serial

from dialbox_protocol import codec


class HostStandin:
    """Speaks the host side of protocol v1 over a serial port (a simulated controller's pty).

    It acks every reliable frame it receives and keeps everything it received in `log`.
    """

    def __init__(self, port: str) -> None:
        self.port = serial.Serial(port, 115200, timeout=0.05)
        self.reader = codec.FrameReader()
        self.seq = 0
        self.log: list[Any] = []
        self.pending: list[dict[str, Any]] = []

    def close(self) -> None:
        self.port.close()

    def send(self, name: str, args: list[Any]) -> int:
        seq = 0
        if codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        self.port.write(codec.encode(name, seq, args))
        return seq

    def restart_session(self) -> None:
        self.seq = 0

    def _pump(self, timeout: float) -> None:
        data = self.port.read(256)
        for msg in self.reader.feed(data):
            self.log.append(msg)
            if isinstance(msg, dict):
                if msg["seq"]:
                    self.port.write(codec.encode("ack", 0, [msg["seq"]]))
                self.pending.append(msg)

    def expect(self, name: str, timeout: float = 10.0, **fields: Any) -> dict[str, Any]:
        """The next received message of this type (and field values); others are skipped."""
        deadline = time.monotonic() + timeout
        while True:
            for i, msg in enumerate(self.pending):
                if msg["t"] == name and all(msg.get(k) == v for k, v in fields.items()):
                    del self.pending[: i + 1]
                    return msg
            if time.monotonic() > deadline:
                raise AssertionError(f"no {name} {fields} within {timeout}s; got {self.log}")
            self._pump(0.05)

    def handshake(
        self, seat: int = 0, colour: str = "43a047", table: str = "t1", name: str = "Green"
    ) -> dict[str, Any]:
        """identify (every 0.5 s, at most 20 times) until hello, then welcome; the snapshot."""
        hello = None
        for _ in range(20):
            self.send("identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "standin"])
            try:
                hello = self.expect("hello", timeout=0.5)
                break
            except AssertionError:
                continue
        if hello is None:
            raise AssertionError(f"no hello after 20 identifies; got {self.log}")
        self.restart_session()
        self.pending.clear()
        self.send("welcome", [seat, colour, table, name])
        return self.expect("snapshot")
