"""The simulated controller over MQTT: availability, handshake and a sealed round via a broker."""

from __future__ import annotations

import time
from typing import Any

import pytest

from dialbox.sim import MqttSettings, SimController
from dialbox_protocol import codec
from tests.firmware.broker import Mosquitto, Observer


class MqttHost:
    """The host side of one controller's topics, written with the codec."""

    def __init__(self, port: int, table: str, uid: str) -> None:
        base = f"dialbox/{table}/dev/{uid}/"
        self.up, self.down, self.status = base + "up", base + "down", base + "status"
        self.obs = Observer(port, [self.up, self.status])
        self.seq = 0
        self.seen = 0

    def send(self, name: str, args: list[Any]) -> None:
        seq = 0
        if codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        self.obs.publish(self.down, codec.encode(name, seq, args))

    def expect(self, name: str, timeout: float = 15) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.obs.cond:
                msgs = [m for m in self.obs.messages if m[0] == self.up]
                for _topic, payload, _ in msgs[self.seen :]:
                    self.seen += 1
                    msg = codec.decode_frame(payload)
                    assert isinstance(msg, dict), msg
                    if msg["seq"]:
                        self.obs.publish(self.down, codec.encode("ack", 0, [msg["seq"]]))
                    if msg["t"] == name:
                        return msg
                self.obs.cond.wait(0.1)
        raise AssertionError(f"no {name}; got {self.obs.messages}")


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_sealed_round_over_mqtt(broker: Mosquitto, runtime: str) -> None:
    settings = MqttSettings(port=broker.port, table="t9")
    host = MqttHost(broker.port, "t9", "sim-m")
    sim = SimController("sim-m", runtime=runtime, link="mqtt", mqtt=settings)  # type: ignore[arg-type]
    try:
        sim.start()
        host.obs.wait(host.status, b"online")
        host.send("identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "test"])
        hello = host.expect("hello")
        assert hello["uid"] == "sim-m"
        host.seq = 0
        host.send("welcome", [1, "1e88e5", "t9", "Blue"])
        host.expect("snapshot")
        host.send("prompt", [4, True, True, "Pick", [None, [None, 0b1110, 1], None]])
        sim.wait_state("programming")
        sim.turn(1, 2)
        sim.press(100)
        commit = host.expect("commit")
        host.send("alllocked", [4])
        reveal = host.expect("reveal")
        assert reveal["sel"] == [-1, 3, -1]
        assert codec.verify_reveal(commit["commitment"], reveal["sel"], reveal["nonce"], 4, "sim-m")
        sim.kill()  # no DISCONNECT: the broker publishes the retained will
        host.obs.wait(host.status, b"offline")
    finally:
        sim.stop()
        host.obs.close()
