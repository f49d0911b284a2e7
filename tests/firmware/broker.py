"""A real mosquitto for tests: own config, ephemeral port, started and stopped by pid."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho

from dialbox.processes import stop_process

MOSQUITTO = "/usr/sbin/mosquitto"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Mosquitto:
    """One broker process on 127.0.0.1:port, anonymous, no persistence."""

    def __init__(self, workdir: Path, port: int | None = None) -> None:
        self.port = port or free_port()
        self.conf = workdir / "mosquitto.conf"
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n"
        )
        self.log = workdir / "mosquitto.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                [MOSQUITTO, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return
            time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not start: {self.log.read_text()}")

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, 5)
            self.proc = None


class Observer:
    """A paho client that records every message on the topics it subscribes to."""

    def __init__(self, port: int, topics: list[str]) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.cond = threading.Condition()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2)
        self.topics = topics
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _on_connect(self, client: Any, *_: Any) -> None:
        for t in self.topics:
            client.subscribe(t, qos=1)

    def _on_message(self, _client: Any, _u: Any, msg: Any) -> None:
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self.cond.notify_all()

    def wait(self, topic: str, payload: bytes, timeout: float = 15) -> None:
        deadline = time.monotonic() + timeout
        with self.cond:
            while not any(t == topic and p == payload for t, p, _ in self.messages):
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {payload!r} on {topic}; got {self.messages}")
                self.cond.wait(left)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()
