"""One socket write per broker connection per loop turn (dialbox.transports.cork)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiomqtt
from gmqtt.mqtt.constants import MQTTv311

from dialbox.transports.cork import Cork
from dialbox.transports.mqtt import BrokerClient
from tests.host.harness import TABLE, Broker


class Wire:
    """A write transport that records each write it is handed."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def get_extra_info(self, name: str) -> str:
        return f"info:{name}"


async def _turns() -> None:
    wire = Wire()
    cork = Cork(wire, asyncio.get_running_loop())  # type: ignore[arg-type]
    for part in (b"a", b"bb", b"ccc"):
        cork.write(part)
    assert wire.writes == []  # nothing before the turn ends
    await asyncio.sleep(0)
    assert wire.writes == [b"abbccc"] and (cork.writes, cork.sends) == (3, 1)
    cork.write(b"d")
    await asyncio.sleep(0)
    assert wire.writes == [b"abbccc", b"d"]
    cork.write(b"e")
    cork.close()  # what was written before close() still goes
    assert wire.writes[-1] == b"e" and wire.closed and cork.is_closing()
    await asyncio.sleep(0)
    assert len(wire.writes) == 3  # the turn's flush finds nothing left
    assert cork.get_extra_info("peername") == "info:peername"


def test_a_turns_writes_reach_the_transport_once_in_order() -> None:
    asyncio.run(_turns())


async def _over_mosquitto(tmp_path: Path) -> None:
    broker = Broker(tmp_path, ["ctl-a"])
    await broker.start()
    got: list[bytes] = []
    try:
        async with aiomqtt.Client("127.0.0.1", broker.port, username="admin",
                                  password=broker.creds["admin"], identifier="admin") as spy:
            await spy.subscribe(f"dialbox/{TABLE}/#", qos=1)
            client = BrokerClient("cork-test", clean_session=True)
            client.set_auth_credentials("host", broker.creds["host"])
            await client.connect("127.0.0.1", broker.port, version=MQTTv311)
            cork = client.cork
            assert isinstance(cork, Cork)
            before = cork.sends
            for i in range(12):  # one turn: twelve PUBLISH packets, one send
                client.publish(f"dialbox/{TABLE}/dev/ctl-a/down", b"frame %d" % i, qos=0)
            await asyncio.sleep(0)
            assert cork.sends == before + 1 and cork.writes >= 12

            async def collect() -> None:
                async for m in spy.messages:
                    assert isinstance(m.payload, bytes)
                    got.append(m.payload)
                    if len(got) == 12:
                        return

            await asyncio.wait_for(collect(), 10)
            await client.disconnect()
    finally:
        broker.stop()
    assert got == [b"frame %d" % i for i in range(12)]


def test_a_corked_broker_connection_delivers_every_message_in_order(tmp_path: Path) -> None:
    asyncio.run(_over_mosquitto(tmp_path))
