"""The controller's MQTT link with several broker nodes, and the host's roll call.

`broker` may list the nodes of a clustered broker ("a,b:1884"): the link connects to the
first, and every attempt after a failure or a loss goes to the next. The host's live
(not retained) `online` is answered with `here` on the controller's status topic (a node's
retained messages do not reach another node's clients: docs/protocol.md, "MQTT topics").
Two Mosquittos stand in for two nodes here; the RabbitMQ cluster runs in tests/broker.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.firmware.broker import Mosquitto, Observer
from tests.firmware.test_mqtt_link_recovery import FakeApp, FakeHal, _cfg, until


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def _fast(ms: int) -> None:
    await asyncio.sleep(0.01)


def test_a_single_broker_is_used_as_before() -> None:
    from dialbox_fw.transports.mqtt_link import MqttLink

    link = MqttLink(_cfg(broker="broker.lan", port=1884), "ctl", FakeHal(None), seed=1)
    assert link.nodes == ["broker.lan"]
    assert (link.client.host, link.client.port) == ("broker.lan", 1884)
    assert link.client.client_id == "dbctl"  # one broker: the id stays the uid's


def test_the_link_moves_to_the_next_node_when_its_node_dies(tmp_path: Path) -> None:
    from dialbox_fw.transports.mqtt_link import MqttLink

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = Mosquitto(tmp_path / "a")
    b = Mosquitto(tmp_path / "b")
    a.start()
    b.start()
    cfg = _cfg(broker=f"127.0.0.1:{a.port},127.0.0.1", port=b.port)  # b: the default port
    link = MqttLink(cfg, "ctl-fail", FakeHal(None), seed=3, sleep_ms=_fast)
    app = FakeApp()
    app.active = link
    on_a = Observer(a.port, [link.status_topic])
    on_b = Observer(b.port, [link.status_topic])

    async def scenario() -> None:
        task = asyncio.create_task(link.run(app))
        try:
            await until(lambda: link.connects == 1, "the first connection")
            assert (link.client.host, link.client.port) == ("127.0.0.1", a.port)
            ids = [link.client.client_id]
            await asyncio.to_thread(on_a.wait, link.status_topic, b"online")
            await asyncio.to_thread(a.stop)  # its node dies
            await until(lambda: link.connects == 2, "the link on the other node",
                        extra=lambda: (link.failures, link.last_error))
            assert (link.client.host, link.client.port) == ("127.0.0.1", b.port)
            assert app.ctl.lost == 1
            ids.append(link.client.client_id)
            await asyncio.to_thread(on_b.wait, link.status_topic, b"online")
            # b dies too, a is back: the link goes round to a
            await asyncio.to_thread(a.start)
            await asyncio.to_thread(b.stop)
            await until(lambda: link.connects == 3, "the link back on the first node")
            assert link.client.port == a.port
            ids.append(link.client.client_id)
            # a client id per attempt (RabbitMQ: no queue of a dead node taken over)
            assert len(set(ids)) == 3 and all(len(i) <= 23 and i.isalnum() for i in ids)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await link.client.close()

    try:
        run(scenario())
    finally:
        on_a.close()
        on_b.close()
        a.stop()
        b.stop()


def test_the_hosts_live_online_is_answered_with_here_and_a_retained_one_is_not(
    broker: Mosquitto,
) -> None:
    from dialbox_fw.transports.mqtt_link import MqttLink

    link = MqttLink(_cfg(port=broker.port), "ctl-roll", FakeHal(None), seed=5,
                    sleep_ms=_fast)
    app = FakeApp()
    app.active = link
    host = Observer(broker.port, [link.status_topic])
    # the host was there before: its retained `online` reaches the link as it subscribes
    host.publish(link.host_topic, b"online", retain=True)

    def count(payload: bytes) -> int:
        with host.cond:
            return sum(1 for t, p, _r in host.messages if t == link.status_topic
                       and p == payload)

    def heres() -> int:
        return count(b"here")

    async def scenario() -> None:
        task = asyncio.create_task(link.run(app))
        try:
            await until(lambda: link.connects == 1 and link.host_online, "connected")
            await asyncio.to_thread(host.wait, link.status_topic, b"online")
            await asyncio.sleep(0.3)
            assert heres() == 0  # a retained `online` is old news: the link announced itself
            host.publish(link.host_topic, b"online", retain=True)  # the host reconnects
            await asyncio.to_thread(host.wait, link.status_topic, b"here")
            assert heres() == 1
            await asyncio.sleep(0.2)
            assert heres() == 1  # once per roll call
            # frames still go: the answer does not block the queue
            link.send(b'["pong",0,5]00000000\n')
            await until(lambda: not link.outq, "the frame sent")
            # the host leaves: the controller's side of the session is over
            host.publish(link.host_topic, b"offline", retain=True)
            await until(lambda: app.ctl.lost == 1, "the host's offline seen")
            # back: the answer is `online` (start my link again), not `here`
            onlines = count(b"online")
            host.publish(link.host_topic, b"online", retain=True)
            await until(lambda: count(b"online") == onlines + 1, "the answer `online`")
            assert heres() == 1
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await link.client.close()

    try:
        run(scenario())
        with host.cond:
            retained_here = [r for t, p, r in host.messages if p == b"here" and r]
        assert retained_here == []  # `here` is never retained: the node keeps `online`
    finally:
        host.close()


def test_client_ids_with_room_for_the_attempt_stay_within_23() -> None:
    from dialbox_fw.transports.mqtt_link import client_id

    uids = ["alice", "e6614c311b4f2a24", "a" * 18, "a" * 19, "controller-with-a-long-name-32ch",
            "ab-" * 10, "0123456789abcdef0123"]
    short = [client_id(u, 20) for u in uids]
    assert all(len(c) <= 20 and c.isalnum() for c in short)
    assert len(set(short)) == len(short)
    assert client_id("alice", 20) == "dbalice"
    assert len(client_id("a" * 19, 20)) == 20  # too long for "db" + uid: hashed
