"""Provision a controller over USB: device id, colour, WiFi, broker, credentials, device key."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import serial

from dialbox_protocol import codec
from dialbox_protocol.models import new_challenge


class ProvisionError(RuntimeError):
    """The controller did not answer, or refused the configuration (the reason says why)."""


@dataclass(frozen=True)
class Provisioning:
    """What `dialbox firmware provision` writes to a controller's config.json."""

    device: str
    colour: str = ""
    ssid: str = ""
    psk: str = ""
    broker: str = ""
    port: int = 1883
    user: str = ""
    password: str = ""
    table: str = "table1"
    key: str = ""
    """The device key in base64 (codec.b64 of 16-32 bytes): the controller proves it in
    every hello; the host keeps the same key in its key store. "" = none."""

    def args(self) -> list[object]:
        return [
            self.device,
            self.colour,
            self.ssid,
            self.psk,
            self.broker,
            self.port,
            self.user,
            self.password,
            self.table,
            self.key,
        ]


class _Link:
    """The serial port plus the frames read but not yet looked at."""

    def __init__(self, port: serial.Serial) -> None:
        self.port = port
        self.reader = codec.FrameReader()
        self.backlog: list[dict[str, Any]] = []

    def read_until(self, want: str, timeout: float) -> dict[str, Any]:
        """The next `want` message; an `error` from the controller raises ProvisionError."""
        deadline = time.monotonic() + timeout
        while True:
            while self.backlog:
                msg = self.backlog.pop(0)
                if msg["t"] == "error":
                    raise ProvisionError(f"controller refused: {msg['detail']}")
                if msg["t"] == want:
                    return msg
            if time.monotonic() > deadline:
                raise ProvisionError(f"no {want} from the controller within {timeout:.1f} s")
            for decoded in self.reader.feed(self.port.read(256)):
                if isinstance(decoded, dict):
                    self.backlog.append(decoded)


def provision(port_name: str, p: Provisioning, attempts: int = 20) -> dict[str, Any]:
    """identify -> hello, then a reliable `config` frame; returns the controller's hello.

    The controller checks every field (the same checks it runs at boot), stores
    config.json and restarts; a refused field comes back as ProvisionError.
    """
    with serial.Serial(port_name, 115200, timeout=0.05) as port:
        link = _Link(port)
        hello = None
        identify = codec.encode(
            "identify",
            0,
            [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "provision", new_challenge()],
        )
        for _ in range(attempts):
            port.write(identify)
            try:
                hello = link.read_until("hello", 0.5)
                break
            except ProvisionError:
                continue
        if hello is None:
            raise ProvisionError(f"{port_name}: not a dialbox controller (no hello)")
        frame = codec.encode("config", 1, p.args())
        for _ in range(5):
            port.write(frame)
            try:
                ack = link.read_until("ack", 1.0)
            except ProvisionError as e:
                if "refused" in str(e):
                    raise
                continue
            if ack["ref"] == 1:
                # the controller answers a refused field with an error frame after the ack
                try:
                    link.read_until("error", 0.5)
                except ProvisionError as e:
                    if "refused" in str(e):
                        raise
                return hello
        raise ProvisionError("the controller did not acknowledge the configuration")
