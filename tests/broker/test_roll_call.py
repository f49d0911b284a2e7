"""The host's roll call, on Mosquitto (with the generated ACLs): how links come back when the
host's connection does, with and without the controllers' retained availability.

A clustered broker keeps retained messages per node (RabbitMQ: a host that reconnects to
another node does not get them), so the host publishes its `online` live once subscribed and
every connected controller answers `here`. On a broker that keeps them (Mosquitto) the
retained `online`s open the links as before and the answers change nothing: no second
handshake, so no hello answering a stale challenge.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import gmqtt
from gmqtt.mqtt.constants import MQTTv311

from dialbox.doubles import ControllerDouble
from dialbox.transports.mqtt import BrokerClient, MqttHub
from tests.host.harness import (
    TABLE,
    Broker,
    Cable,
    mqtt_doubles,
    running_daemon,
    table_config,
    wait_for,
)

UIDS = ["rc-a", "rc-b", "rc-c"]


def _count_identifies(d: ControllerDouble) -> list[int]:
    seen = [0]

    def on_frame(msg: dict[str, Any]) -> None:
        if msg["t"] == "identify":
            seen[0] += 1

    d.on_frame = on_frame
    return seen


async def _clear_retained(port: int, user: str, password: str, topics: list[str]) -> None:
    """Forget the broker's retained copies (an empty retained message), as a node that never
    held them would be."""
    c = BrokerClient("rc-cleaner", clean_session=True)
    c.set_auth_credentials(user, password)
    await c.connect("127.0.0.1", port, version=MQTTv311)
    for t in topics:
        c.publish(t, b"", qos=1, retain=True)
    await asyncio.sleep(0.3)
    await c.disconnect()


@contextlib.asynccontextmanager
async def _table_behind_a_cable(tmp_path: Path) -> AsyncIterator[
        tuple[Broker, Cable, MqttHub, list[ControllerDouble]]]:
    """A daemon whose broker connection runs through a cable the test can cut, its three
    controllers on the broker directly, all welcomed."""
    broker = Broker(tmp_path, UIDS)
    await broker.start()
    cable = Cable(broker.port)  # the host's own connection, which the test cuts
    await cable.start()
    try:
        mqtt = {**broker.host_mqtt(), "port": cable.port}
        cfg = table_config(tmp_path, players=3, uids=UIDS, mqtt=mqtt, pairing="auto")
        async with running_daemon(cfg) as daemon, mqtt_doubles(broker, UIDS) as ds:
            await wait_for(lambda: all(d.welcomed.is_set() for d in ds), 30, "welcomed")
            yield broker, cable, daemon.hubs[TABLE], ds
    finally:
        await cable.close()
        broker.stop()


def test_the_host_back_on_its_broker_resumes_each_controller_once(tmp_path: Path) -> None:
    """With the retained `online`s there: each link opens once (from the retained copy); the
    controllers' `here` answers open nothing more."""

    async def run() -> None:
        async with _table_behind_a_cable(tmp_path) as (broker, cable, hub, ds):
            identifies = [_count_identifies(d) for d in ds]
            calls = [d.roll_calls for d in ds]  # (one if the doubles were first)
            for d in ds:
                d.welcomed.clear()
            cable.cut()
            await wait_for(lambda: not hub.connected.is_set(), 10, "the host cut off")
            await cable.mend()
            await wait_for(lambda: all(d.welcomed.is_set() for d in ds), 30,
                           "welcomed again")
            await wait_for(lambda: [d.roll_calls for d in ds] == [c + 1 for c in calls],
                           10, "the roll call answered")
            await asyncio.sleep(1.0)  # time for any second handshake to show
            assert hub.here == 0  # every link was already open: nothing reopened
            assert [n[0] for n in identifies] == [1, 1, 1]
            assert [d.errors for d in ds] == [[], [], []]  # no auth_failed

    asyncio.run(run())


def test_without_retained_availability_the_roll_call_brings_every_controller_back(
    tmp_path: Path,
) -> None:
    """What a host reconnecting to another node of a cluster sees: no retained `online`.
    The controllers' answers open their links (here `online`: the host's last will ended
    their sessions; after a node died, with no will, `here`); each is welcomed once."""

    async def run() -> None:
        async with _table_behind_a_cable(tmp_path) as (broker, cable, hub, ds):
            identifies = [_count_identifies(d) for d in ds]
            calls = [d.roll_calls for d in ds]
            for d in ds:
                d.welcomed.clear()
            cable.cut()
            await wait_for(lambda: not hub.connected.is_set(), 10, "the host cut off")
            await wait_for(lambda: all(d.orphan for d in ds), 10, "the host's will")
            await _clear_retained(broker.port, "host", broker.creds["host"],
                                  [f"dialbox/{TABLE}/dev/{u}/status" for u in UIDS])
            await cable.mend()
            await wait_for(lambda: all(d.welcomed.is_set() for d in ds), 30,
                           "welcomed again through the roll call")
            assert [d.roll_calls for d in ds] == [c + 1 for c in calls]
            await asyncio.sleep(1.0)
            assert [n[0] for n in identifies] == [1, 1, 1]
            assert [d.errors for d in ds] == [[], [], []]

    asyncio.run(run())


def test_a_controller_answers_only_the_hosts_live_online(tmp_path: Path) -> None:
    """The double, as the firmware (tests/firmware/test_mqtt_failover.py): a retained
    `online` met on subscribing is not answered; a live one is, once."""

    async def run() -> None:
        broker = Broker(tmp_path, ["rc-a"])
        await broker.start()
        try:
            host = BrokerClient("rc-host", clean_session=True)
            host.set_auth_credentials("host", broker.creds["host"])
            heard: list[tuple[bytes, bool]] = []

            def on_message(_c: Any, _t: str, payload: bytes, _q: int, p: Any) -> int:
                heard.append((bytes(payload), bool(p.get("retain"))))
                return 0

            host.on_message = on_message
            await host.connect("127.0.0.1", broker.port, version=MQTTv311)
            host.subscribe(gmqtt.Subscription(f"dialbox/{TABLE}/dev/rc-a/status", qos=0))
            host.publish(f"dialbox/{TABLE}/host/status", b"online", qos=1, retain=True)
            async with mqtt_doubles(broker, ["rc-a"]) as (d,):
                await wait_for(lambda: (b"online", False) in heard, 10, "the online")
                await asyncio.sleep(0.5)
                assert d.roll_calls == 0
                host.publish(f"dialbox/{TABLE}/host/status", b"online", qos=1, retain=True)
                await wait_for(lambda: (b"here", False) in heard, 10, "the answer")
                assert d.roll_calls == 1
            await host.disconnect()
        finally:
            broker.stop()

    asyncio.run(run())


def test_the_hub_opens_a_link_for_here_only_when_there_is_none() -> None:
    from dialbox.transports.mqtt import FRESH_LINK, HERE, OFFLINE, ONLINE, BrokerAddress, MqttHub

    async def run() -> None:
        async def on_link(link: Any) -> None:
            return None

        hub = MqttHub(BrokerAddress(), TABLE, on_link)
        status = f"dialbox/{TABLE}/dev/a/status"
        hub._route(status, HERE)  # no link: the answer opens one
        first = hub.links["a"]
        assert hub.here == 1
        hub._route(status, HERE)  # a link: nothing
        hub._route(status, ONLINE)  # a fresh link is kept (its hello may be in flight)
        assert hub.links["a"] is first and not first.closed
        hub._opened["a"] -= FRESH_LINK  # older: a new `online` is a controller back
        hub._route(status, ONLINE)
        second = hub.links["a"]
        assert second is not first and first.closed
        hub._route(status, OFFLINE)
        assert second.closed and "a" not in hub.links
        hub._route(status, HERE)
        assert hub.links["a"] not in (first, second) and hub.here == 2
        await asyncio.sleep(0)
        for t in list(hub._tasks):
            t.cancel()

    asyncio.run(run())
