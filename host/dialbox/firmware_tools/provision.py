"""Provision a controller over USB: device id, colour, WiFi, broker and credentials."""

from __future__ import annotations

import time
from dataclasses import dataclass

import serial

from dialbox_protocol import codec


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
        ]


def _read_until(
    port: serial.Serial, reader: codec.FrameReader, want: str, timeout: float
) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for msg in reader.feed(port.read(256)):
            if isinstance(msg, dict):
                if msg["t"] == "error":
                    raise ProvisionError(f"controller refused: {msg['detail']}")
                if msg["t"] == want:
                    return msg
    raise ProvisionError(f"no {want} from the controller within {timeout:.0f} s")


def provision(port_name: str, p: Provisioning, attempts: int = 20) -> dict[str, object]:
    """identify -> hello, then a reliable `config` frame; returns the controller's hello.

    The controller checks every field (the same checks it runs at boot), stores
    config.json and restarts; a refused field comes back as ProvisionError.
    """
    with serial.Serial(port_name, 115200, timeout=0.05) as port:
        reader = codec.FrameReader()
        hello = None
        for _ in range(attempts):
            port.write(
                codec.encode("identify", 0, [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "provision"])
            )
            try:
                hello = _read_until(port, reader, "hello", 0.5)
                break
            except ProvisionError:
                continue
        if hello is None:
            raise ProvisionError(f"{port_name}: not a dialbox controller (no hello)")
        frame = codec.encode("config", 1, p.args())
        for _ in range(5):
            port.write(frame)
            try:
                ack = _read_until(port, reader, "ack", 1.0)
            except ProvisionError as e:
                if "refused" in str(e):
                    raise
                continue
            if ack["ref"] == 1:
                # an error frame right after the ack means the config was refused
                try:
                    _read_until(port, reader, "__none__", 0.3)
                except ProvisionError as e:
                    if "refused" in str(e):
                        raise
                return hello
        raise ProvisionError("the controller did not acknowledge the configuration")
