"""The simulated controller over MQTT: availability, handshake and a sealed round via a broker.

A payload on the up and down topics holds one or more whole frames (docs/protocol.md,
"MQTT topics"): the tests below send several frames in one payload and check how the
firmware packs the frames it sends at the same moment.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from dialbox.sim import MqttSettings, SimController
from dialbox_protocol import codec
from tests.firmware.broker import Mosquitto, Observer

CHALLENGE = codec.b64(bytes(16))


def split_frames(payload: bytes) -> list[bytes]:
    """The frames of one payload, each with its newline (a payload ends with one)."""
    assert payload.endswith(b"\n"), payload
    return [line + b"\n" for line in payload.split(b"\n")[:-1]]


class MqttHost:
    """The host side of one controller's topics, written with the codec."""

    def __init__(self, port: int, table: str, uid: str) -> None:
        base = f"dialbox/{table}/dev/{uid}/"
        self.up, self.down, self.status = base + "up", base + "down", base + "status"
        self.obs = Observer(port, [self.up, self.status])
        self.seq = 0
        self.payloads_read = 0
        self.inbox: list[dict[str, Any]] = []  # every frame received, decoded, in order
        self.read = 0  # how many of inbox expect() has looked at

    def frame(self, name: str, args: list[Any]) -> bytes:
        """One frame, numbered with the next sequence number when the message is reliable."""
        seq = 0
        if codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        return codec.encode(name, seq, args)

    def send(self, name: str, args: list[Any]) -> None:
        self.obs.publish(self.down, self.frame(name, args))

    def send_payload(self, *frames: bytes) -> None:
        """Several frames in one payload, in order."""
        payload = b"".join(frames)
        assert len(payload) <= codec.MAX_FRAME
        self.obs.publish(self.down, payload)

    def up_payloads(self) -> list[bytes]:
        with self.obs.cond:
            return [p for t, p, _ in self.obs.messages if t == self.up]

    def _take_payloads(self) -> None:
        """Decode the up payloads not read yet (under obs.cond) and ack reliable frames."""
        for payload in self.up_payloads()[self.payloads_read :]:
            self.payloads_read += 1
            assert len(payload) <= codec.MAX_FRAME, payload
            for frame in split_frames(payload):
                msg = codec.decode_frame(frame)
                assert isinstance(msg, dict), msg
                if msg["seq"]:
                    self.obs.publish(self.down, codec.encode("ack", 0, [msg["seq"]]))
                self.inbox.append(msg)

    def expect(self, name: str, timeout: float = 15, **fields: Any) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.obs.cond:
                self._take_payloads()
                while self.read < len(self.inbox):
                    msg = self.inbox[self.read]
                    self.read += 1
                    if msg["t"] == name and all(msg[k] == v for k, v in fields.items()):
                        return msg
                self.obs.cond.wait(0.1)
        raise AssertionError(f"no {name} {fields}; got {self.obs.messages}")


@contextmanager
def seated_sim(
    broker: Mosquitto, runtime: str, uid: str
) -> Iterator[tuple[SimController, MqttHost]]:
    """A simulated controller on the broker, through the handshake and seated (seat 1)."""
    host = MqttHost(broker.port, "t9", uid)
    settings = MqttSettings(port=broker.port, table="t9")
    sim = SimController(uid, runtime=runtime, link="mqtt", mqtt=settings)  # type: ignore[arg-type]
    try:
        sim.start()
        host.obs.wait(host.status, b"online")
        host.send("identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "test", CHALLENGE])
        hello = host.expect("hello")
        assert hello["uid"] == uid
        host.seq = 0
        host.send("welcome", [1, "1e88e5", "t9", "Blue"])
        host.expect("snapshot")
        yield sim, host
    finally:
        sim.stop()
        host.obs.close()


def names(payload: bytes) -> list[tuple[Any, ...]]:
    """(type, first field) of each frame of a payload."""
    out = []
    for frame in split_frames(payload):
        msg = codec.decode_frame(frame)
        assert isinstance(msg, dict), msg
        spec = codec.message_spec(msg["t"])
        assert spec is not None
        out.append((msg["t"], msg[spec[3][0][0]]))
    return out


def payload_with(host: MqttHost, frame_name: str, value: Any) -> bytes:
    """The first up payload holding frame_name with this first field (waits for it)."""
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        for payload in host.up_payloads():
            if (frame_name, value) in names(payload):
                return payload
        time.sleep(0.05)
    raise AssertionError(f"no {frame_name} {value}; got {host.up_payloads()}")


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_sealed_round_over_mqtt(broker: Mosquitto, runtime: str) -> None:
    with seated_sim(broker, runtime, "sim-m") as (sim, host):
        host.send("prompt", [4, True, True, "Pick", [None, [None, 0b1110, 1], None], False])
        sim.wait_state("programming")
        sim.turn(1, 2)
        sim.press(100)
        commit = host.expect("commit")
        # the host confirms the commitment and, all seats locked, says so: one payload
        alllocked = host.frame("alllocked", [4, [[1, commit["commitment"]]]])
        host.send_payload(host.frame("status", [4, "locked"]), alllocked)
        reveal = host.expect("reveal")
        assert reveal["sel"] == [-1, 3, -1]
        assert codec.verify_reveal(commit["commitment"], reveal["sel"], reveal["nonce"], 4, "sim-m")
        sim.kill()  # no DISCONNECT: the broker publishes the retained will
        host.obs.wait(host.status, b"offline")


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_down_payload_of_several_frames_is_handled_in_order(
    broker: Mosquitto, runtime: str
) -> None:
    with seated_sim(broker, runtime, "sim-b") as (sim, host):
        wheels = [None, [None, 0b1110, 1], None]
        first = host.frame("prompt", [4, True, True, "First", wheels, False])
        first_seq = host.seq
        second = host.frame("prompt", [5, True, True, "Second", wheels, False])
        host.send_payload(first, host.frame("ping", [7]), second)
        sim.wait_for(lambda v: v.state == "programming" and v.pid == 5)
        # answered in the order the frames came, all at the same moment: one up payload
        assert names(payload_with(host, "pong", 7)) == [
            ("ack", first_seq),
            ("pong", 7),
            ("ack", host.seq),
        ]


def test_corrupted_frame_in_a_payload_does_not_stop_the_rest(broker: Mosquitto) -> None:
    with seated_sim(broker, "micropython", "sim-c") as (sim, host):
        bad = bytearray(host.frame("ping", [2]))
        bad[3] ^= 0x01  # "ping" -> "piog": the checksum no longer matches
        wheels = [None, [None, 0b1110, 1], None]
        prompt = host.frame("prompt", [6, True, True, "After", wheels, False])
        host.send_payload(host.frame("ping", [1]), bytes(bad), prompt, host.frame("ping", [3]))
        sim.wait_for(lambda v: v.state == "programming" and v.pid == 6)
        assert names(payload_with(host, "pong", 3)) == [
            ("pong", 1),
            ("ack", host.seq),
            ("pong", 3),
        ]


def test_frames_sent_together_are_packed_into_payloads_of_at_most_1024_bytes(
    broker: Mosquitto,
) -> None:
    with seated_sim(broker, "micropython", "sim-p") as (_sim, host):
        before = len(host.up_payloads())
        identify = host.frame(
            "identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "test", CHALLENGE]
        )
        count = codec.MAX_FRAME // len(identify)  # one full payload of requests ...
        host.send_payload(identify * count)  # ... answered by far more bytes of hellos
        for _ in range(count):
            host.expect("hello")
        payloads = [p for p in host.up_payloads()[before:] if names(p)[0][0] == "hello"]
        frames = [f for p in payloads for f in split_frames(p)]
        assert [name for p in payloads for name, _ in names(p)] == ["hello"] * count
        assert sum(len(f) for f in frames) > codec.MAX_FRAME
        assert len(payloads) >= 2
        for payload, following in zip(payloads, payloads[1:], strict=False):
            assert len(payload) <= codec.MAX_FRAME
            # packed as full as whole frames allow: the next frame would not have fitted
            assert len(payload) + len(split_frames(following)[0]) > codec.MAX_FRAME
        assert len(payloads[-1]) <= codec.MAX_FRAME


def test_broker_loss_is_noticed_and_the_link_comes_back(broker: Mosquitto) -> None:
    """The publisher waits on an event, not a poll: a lost connection must still wake it,
    mark the link lost (OLED: connecting) and lead to the reconnect."""
    with seated_sim(broker, "micropython", "sim-r") as (sim, host):
        host.send("ping", [1])
        host.expect("pong", ms=1)
        sim.wait_for(lambda v: v.linked, what="linked")
        broker.stop()
        sim.wait_for(lambda v: not v.linked and "connecting..." in v.lines, what="link lost")
        broker.start()
        again = MqttHost(broker.port, "t9", "sim-r")
        try:
            again.obs.wait(again.status, b"online", timeout=30)
            again.send("identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "test", CHALLENGE])
            again.expect("hello")
            again.send("welcome", [1, "1e88e5", "t9", "Blue"])
            again.expect("snapshot")
            sim.wait_for(lambda v: v.linked, what="linked again")
            again.send_payload(again.frame("ping", [2]), again.frame("ping", [3]))
            assert names(payload_with(again, "pong", 3)) == [("pong", 2), ("pong", 3)]
        finally:
            again.obs.close()
