"""The firmware's MQTT client under the MicroPython unix port against a real mosquitto."""

from __future__ import annotations

import os
import queue
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from dialbox.paths import micropython_binary, micropython_path
from tests.firmware.broker import Mosquitto, Observer, free_port

HERE = Path(__file__).parent


class MpClient:
    """mp_mqtt.py running under micropython; its stdout lines arrive in a queue."""

    def __init__(self, port: int, cid: str, retry_ms: int = 1000) -> None:
        env = dict(os.environ, MICROPYPATH=micropython_path())
        self.proc = subprocess.Popen(
            [micropython_binary(), str(HERE / "mp_mqtt.py"), str(port), cid, str(retry_ms)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.strip())

    def expect(self, prefix: str, timeout: float = 20) -> str:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no line {prefix!r}; saw {self.seen}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(line)
            if line.startswith(prefix):
                return line

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()


def test_connect_echo_last_will_and_reconnect_after_broker_restart(broker: Mosquitto) -> None:
    obs = Observer(broker.port, ["t/out", "t/mp1/status"])
    client = MpClient(broker.port, "mp1")
    try:
        client.expect("connected 1")
        obs.wait("t/mp1/status", b"online")
        obs.publish("t/in", b"first")
        obs.wait("t/out", b"first")
        client.expect("acked")
        # the broker goes away and comes back on the same port
        obs.close()
        broker.stop()
        broker.start()
        client.expect("connected 2", timeout=30)
        obs = Observer(broker.port, ["t/out", "t/mp1/status"])
        obs.wait("t/mp1/status", b"online")
        obs.publish("t/in", b"second")
        obs.wait("t/out", b"second")
        # a killed socket (process killed, no DISCONNECT): the broker publishes the will
        client.kill()
        obs.wait("t/mp1/status", b"offline")
    finally:
        client.kill()
        obs.close()


class PubackDropper:
    """A TCP proxy between client and broker that swallows one PUBACK once armed."""

    def __init__(self, broker_port: int) -> None:
        self.broker_port = broker_port
        self.port = free_port()
        self.listener = socket.create_server(("127.0.0.1", self.port))
        self.dropped = 0
        self.armed = False
        self.socks: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                c, _ = self.listener.accept()
            except OSError:
                return
            b = socket.create_connection(("127.0.0.1", self.broker_port))
            self.socks += [c, b]
            threading.Thread(target=self._copy, args=(c, b, False), daemon=True).start()
            threading.Thread(target=self._copy, args=(b, c, True), daemon=True).start()

    def _copy(self, src: socket.socket, dst: socket.socket, filter_pubacks: bool) -> None:
        buf = b""
        try:
            while data := src.recv(4096):
                if not filter_pubacks:
                    dst.sendall(data)
                    continue
                buf += data
                while len(buf) >= 2:  # remaining lengths here are all < 128
                    n = 2 + buf[1]
                    if len(buf) < n:
                        break
                    pkt, buf = buf[:n], buf[n:]
                    if pkt[0] & 0xF0 == 0x40 and self.armed and self.dropped == 0:
                        self.dropped += 1
                        continue
                    dst.sendall(pkt)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                s.close()

    def close(self) -> None:
        self.listener.close()
        for s in self.socks:
            s.close()


def test_qos1_publish_is_retried_until_acknowledged(broker: Mosquitto) -> None:
    proxy = PubackDropper(broker.port)
    obs = Observer(broker.port, ["t/out"])
    client = MpClient(proxy.port, "mp2", retry_ms=300)
    try:
        client.expect("connected 1")
        proxy.armed = True
        obs.publish("t/in", b"x")
        line = client.expect("acked")
        assert proxy.dropped == 1
        assert int(line.split()[-1]) >= 1  # sent again after the lost PUBACK
        obs.wait("t/out", b"x")
    finally:
        client.kill()
        obs.close()
        proxy.close()
