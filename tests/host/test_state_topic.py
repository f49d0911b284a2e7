"""The retained `state` topic: a change goes out, an unchanged state is not sent again until
it is due for a refresh (clustered brokers keep retained messages per node), and a new
broker connection gets the latest at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiomqtt
import pytest

import dialbox.daemon.daemon as daemon_module
from tests.host.harness import TABLE, Broker, running_daemon, table_config, wait_for


async def _watch(broker: Broker, seen: list[bytes], ready: asyncio.Event,
                 stored: bool = False) -> None:
    """What is published on the state topic (`stored`: also the copy the broker holds when
    we subscribe; the test broker keeps nothing across a restart)."""
    async with aiomqtt.Client("127.0.0.1", broker.port, username="admin",
                              password=broker.creds["admin"], identifier="admin") as c:
        await c.subscribe(f"dialbox/{TABLE}/state", qos=1)
        ready.set()
        async for m in c.messages:
            assert isinstance(m.payload, bytes)
            if stored or not m.retain:
                seen.append(m.payload)


async def _refresh(tmp_path: Path) -> None:
    broker = Broker(tmp_path, ["ctl-a"])
    await broker.start()
    seen: list[bytes] = []
    ready = asyncio.Event()
    spy = asyncio.create_task(_watch(broker, seen, ready))
    try:
        await ready.wait()
        cfg = table_config(tmp_path, players=2, uids=["ctl-a"], mqtt=broker.host_mqtt())
        async with running_daemon(cfg) as daemon:
            await wait_for(lambda: len(seen) >= 1, 20, "the first state")
            hub = daemon.hubs[TABLE]
            # nobody plays: nothing changes, yet the same state goes again when it is due
            await wait_for(lambda: len(seen) >= 3, 20, "refreshed states")
            assert len(set(seen)) == 1
            first = seen[0]
            # a new broker connection: the latest goes again at once, refresh or not
            daemon_module.STATE_REFRESH = 3600.0
            broker.stop()
            await wait_for(lambda: not hub.connected.is_set(), 20, "the broker gone")
            connects = hub.connects
            await broker.start()
            spy.cancel()
            ready.clear()
            seen.clear()
            spy = asyncio.create_task(_watch(broker, seen, ready, stored=True))
            await ready.wait()
            await wait_for(lambda: hub.connects > connects and len(seen) >= 1, 30,
                           "the state on the new connection")
            assert seen[-1] == first
    finally:
        spy.cancel()
        broker.stop()


def test_an_unchanged_state_is_refreshed_and_sent_again_on_a_new_connection(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(daemon_module, "STATE_REFRESH", 1.5)
    asyncio.run(_refresh(tmp_path))
