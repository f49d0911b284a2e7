"""A venue's clustered broker: three RabbitMQ nodes (MQTT plugin) on this machine.

The cluster is started once for the module (dialbox.broker.rabbit_cluster: its own epmd,
cookie, ports and directories; users, vhost and permissions from the generator in
dialbox.broker.rabbitmq). It checks what RabbitMQ 3.10 really does with the generated
definitions (topic permissions on publish and subscribe, retained messages node-local and
never for wildcard subscriptions), then plays a game whose host and controllers (the real
firmware, under MicroPython) sit on one node that is SIGKILLed mid-prompt: everyone fails
over to the other nodes and the game ends with every choice exactly as locked.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest

from dialbox.broker import rabbitmq
from dialbox.broker.rabbit_cluster import RabbitCluster
from dialbox.engine import Ask
from dialbox.journal import Journal
from dialbox.runner.replay import audit
from dialbox.sim import MqttSettings, SimController
from dialbox.sim.hand import Hand, RunnerSeat
from tests.host.harness import TABLE, key_for, running_daemon, table_config, wait_for

FIRMWARE = ["fw-a", "fw-b", "fw-c"]
OTHER = "t2"


@pytest.fixture(scope="module")
def cluster() -> Iterator[RabbitCluster]:
    c = RabbitCluster({TABLE: [*FIRMWARE, "c1", "c2"], OTHER: ["d1"]}, size=3)
    c.start()
    try:
        yield c
    finally:
        c.stop()


class Client:
    """A paho MQTT 3.1.1 client on one node, recording what it receives and whether the
    broker closed its connection."""

    def __init__(self, cluster: RabbitCluster, user: str, node: int,
                 password: str | None = None) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.closed = threading.Event()
        self.subacks: dict[int, list[int]] = {}
        self.ok = threading.Event()
        self.rc: Any = None
        self.c = paho.Client(paho.CallbackAPIVersion.VERSION2,
                             client_id=f"test-{user}-{node}-{time.monotonic_ns()}",
                             protocol=paho.MQTTv311, clean_session=True)
        self.c.username_pw_set(user, password or cluster.credentials[user])
        self.c.on_message = lambda _c, _u, m: self.messages.append(
            (m.topic, bytes(m.payload), bool(m.retain)))
        self.c.on_subscribe = lambda _c, _u, mid, rcs, _p: self.subacks.__setitem__(
            mid, [r.value for r in rcs])

        def on_connect(_c: Any, _u: Any, _f: Any, rc: Any, _p: Any) -> None:
            self.rc = rc
            self.ok.set()

        self.c.on_connect = on_connect
        self.c.on_disconnect = lambda *_a: self.closed.set()
        self.c.connect("127.0.0.1", cluster.nodes[node].mqtt_port)
        self.c.loop_start()
        assert self.ok.wait(10)

    @property
    def accepted(self) -> bool:
        return not self.rc.is_failure

    def subscribe(self, topic: str) -> list[int] | None:
        """The SUBACK's codes, or None when the broker closed the connection instead."""
        _r, mid = self.c.subscribe(topic, qos=1)
        deadline = time.monotonic() + 5
        while mid not in self.subacks and not self.closed.is_set():
            if time.monotonic() > deadline:
                raise AssertionError(f"no SUBACK for {topic}")
            time.sleep(0.02)
        return self.subacks.get(mid)

    def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        self.c.publish(topic, payload, qos=1, retain=retain)

    def wait(self, topic: str, payload: bytes, timeout: float = 5) -> None:
        deadline = time.monotonic() + timeout
        while (topic, payload) not in [(t, p) for t, p, _r in self.messages]:
            if time.monotonic() > deadline:
                raise AssertionError(f"no {payload!r} on {topic}: {self.messages}")
            time.sleep(0.02)

    def close(self) -> None:
        self.c.loop_stop()
        self.c.disconnect()


def dev(uid: str, leaf: str, table: str = TABLE) -> str:
    return f"dialbox/{table}/dev/{uid}/{leaf}"


# ------------------------------------------------------------------ the generated ACLs


def test_a_controller_cannot_write_or_read_another_controllers_topics(
    cluster: RabbitCluster,
) -> None:
    host = Client(cluster, f"host-{TABLE}", 1)  # another node than the controllers
    spy = Client(cluster, "c2", 2)
    try:
        assert host.subscribe(f"dialbox/{TABLE}/dev/+/up") == [1]
        assert spy.subscribe(dev("c2", "down")) == [1]
        # its own topics: allowed, across nodes
        own = Client(cluster, "c1", 0)
        own.publish(dev("c1", "up"), b"mine")
        host.wait(dev("c1", "up"), b"mine")
        assert own.subscribe(dev("c1", "down")) == [1]
        assert own.subscribe(f"dialbox/{TABLE}/host/status") == [1]
        assert not own.closed.is_set()
        own.close()
        # another controller's up topic: the broker closes the connection, nothing arrives
        forger = Client(cluster, "c1", 0)
        forger.publish(dev("c2", "up"), b"forged")
        assert forger.closed.wait(5)
        forger.close()
        # ... and its status topic (no faking another's availability)
        faker = Client(cluster, "c1", 1)
        faker.publish(dev("c2", "status"), b"offline", retain=True)
        assert faker.closed.wait(5)
        faker.close()
        # another controller's down topic, or a wildcard over the table: refused (the
        # subscription is not granted and the connection is closed)
        for topic in (dev("c2", "down"), f"dialbox/{TABLE}/dev/+/down", f"dialbox/{TABLE}/#"):
            reader = Client(cluster, "c1", 0)
            assert reader.subscribe(topic) is None, topic
            assert reader.closed.is_set()
            reader.close()
        # the host's frames for c2 still reach c2 alone
        host.publish(dev("c2", "down"), b"for c2")
        spy.wait(dev("c2", "down"), b"for c2")
        time.sleep(0.3)
        assert [p for _t, p, _r in host.messages] == [b"mine"]
    finally:
        host.close()
        spy.close()


def test_table_users_keep_to_their_table_and_the_admin_only_reads(cluster: RabbitCluster) -> None:
    other = Client(cluster, f"host-{OTHER}", 0)
    assert other.subscribe(f"dialbox/{TABLE}/dev/+/up") is None  # not its table
    other.close()
    mine = Client(cluster, f"host-{OTHER}", 0)
    assert mine.subscribe(f"dialbox/{OTHER}/dev/+/up") == [1]
    mine.close()
    admin = Client(cluster, "admin", 1)
    assert admin.subscribe("dialbox/#") == [1]
    admin.publish(dev("c1", "down"), b"x")
    assert admin.closed.wait(5)
    admin.close()
    for user, password in (("guest", "guest"), ("c1", "not-the-password")):
        refused = Client(cluster, user, 0, password)  # no guest user; a wrong password
        assert not refused.accepted, user
        refused.close()


def test_retained_messages_stay_on_their_node_and_skip_wildcard_subscriptions(
    cluster: RabbitCluster,
) -> None:
    """Why availability is announced live (docs/protocol.md, "MQTT topics")."""
    ctl = Client(cluster, "c1", 0)
    ctl.publish(dev("c1", "status"), b"online", retain=True)
    time.sleep(0.3)
    same = Client(cluster, f"host-{TABLE}", 0)
    other = Client(cluster, f"host-{TABLE}", 1)
    wild = Client(cluster, f"host-{TABLE}", 0)
    try:
        assert same.subscribe(dev("c1", "status")) == [1]
        assert other.subscribe(dev("c1", "status")) == [1]
        assert wild.subscribe(f"dialbox/{TABLE}/dev/+/status") == [1]
        time.sleep(0.5)
        assert same.messages == [(dev("c1", "status"), b"online", True)]
        assert other.messages == []  # another node: not there
        assert wild.messages == []  # a wildcard: never, even on the same node
        ctl.publish(dev("c1", "status"), b"here")  # live: everywhere, flagged not retained
        for c in (same, other, wild):
            c.wait(dev("c1", "status"), b"here")
            assert c.messages[-1][2] is False
    finally:
        for c in (ctl, same, other, wild):
            c.close()


# ------------------------------------------------------------------ a node dies mid-prompt


class HeldSeat(RunnerSeat):
    """A player who has not locked yet: holds back the `nth` sealed prompt it is asked
    until `release` is set (the other seats lock meanwhile)."""

    def __init__(self, runner: Any, nth: int) -> None:
        super().__init__(runner)
        self.nth = nth
        self.sealed: list[int] = []
        self.held: int | None = None
        self.release = False

    def ask(self, pid: int, seat: int) -> Ask | None:
        ask = super().ask(pid, seat)
        box = self.runner.box
        if ask is None or box is None or not box.sealed:
            return ask
        if pid not in self.sealed:
            self.sealed.append(pid)
        if len(self.sealed) == self.nth and pid == self.sealed[-1] and not self.release:
            self.held = pid
            return None
        return ask


def _applied_equals_locked(journal: Journal, sims: list[SimController]) -> int:
    """Every applied answer of a controller's seat is the first (and only) selection that
    controller locked for that prompt; each decision once, in order, nothing voided."""
    entries = journal.entries(TABLE)
    assert not [e for e in entries if e.kind == "void"]
    seat_uid = {e.data["seat"]: e.data["uid"] for e in entries if e.kind == "seat"}
    by_uid = {s.uid: s for s in sims}
    decisions = []
    for e in entries:
        if e.kind != "applied":
            continue
        decisions.append(e.data["decision"])
        for seat, sel in e.data["answers"]:
            sim = by_uid[seat_uid[seat]]
            assert sim.locks.get(e.data["pid"]) == tuple(sel), (
                f"seat {seat + 1} ({sim.uid}) prompt {e.data['pid']}: applied {sel}, "
                f"locked {sim.locks.get(e.data['pid'])}")
    for s in sims:
        assert s.relocks == [], (s.uid, s.relocks)
    assert decisions == sorted(set(decisions))
    return len(decisions)


@pytest.mark.micropython
def test_the_node_of_a_table_dies_mid_prompt_and_the_game_ends_intact(
    cluster: RabbitCluster, tmp_path: Path,
) -> None:
    hosts = cluster.mqtt_hosts(0)  # everyone starts on node 1
    mqtt = {"hosts": hosts, "user": "host", "password": cluster.credentials["host"]}
    cfg = table_config(tmp_path, players=3, uids=FIRMWARE, mqtt=mqtt, pairing="auto",
                       options={"rounds": 3, "forbid_n9": False})
    sims = [SimController(u, state_dir=tmp_path / "flash" / u, runtime="micropython",
                          link="mqtt", key=key_for(tmp_path, u),
                          mqtt=MqttSettings(",".join(hosts), 1883, TABLE, u,
                                            cluster.credentials[u]))
            for u in FIRMWARE]

    async def run() -> None:
        async with running_daemon(cfg) as daemon:
            runner = daemon.runners[TABLE]
            hub = daemon.hubs[TABLE]
            held = HeldSeat(runner, nth=2)  # the second round's sealed dial
            hands: list[asyncio.Task[None]] = []
            try:
                await asyncio.gather(*(asyncio.to_thread(s.start) for s in sims))
                hands = [asyncio.create_task(Hand(s, held if i == 2 else RunnerSeat(runner),
                                                  runner.bot_factory(i), pause=0.0,
                                                  seed=i).run())
                         for i, s in enumerate(sims)]
                await wait_for(lambda: held.held is not None and runner.box is not None
                               and runner.box.pid == held.held
                               and len(runner.box.locked_seats) == 2, 90,
                               "two seats locked on the held prompt")
                pid = held.held
                node1 = cluster.nodes[0].mqtt_port
                on_node1 = await asyncio.to_thread(cluster.mqtt_connections)
                assert {r["user"] for r in on_node1 if r["port"] == node1} >= set(FIRMWARE)
                assert hub.nodes[hub.node][1] == node1
                connects = hub.connects
                await asyncio.to_thread(cluster.kill, 0)  # SIGKILL the table's node
                await wait_for(lambda: hub.connects > connects, 30, "the host on a new node")
                # every controller back: linked, its session resumed with its lock
                await wait_for(lambda: all(s.view().linked for s in sims), 30,
                               "the controllers linked again")
                await wait_for(lambda: len(runner.box.locked_seats) == 2, 30,
                               "the two locks still held")
                assert hub.nodes[hub.node][1] != node1  # (node 1 is dead: all are elsewhere)
                assert runner.box.pid == pid  # still the same prompt, never voided
                held.release = True  # the last player locks: the prompt completes
                await asyncio.wait_for(runner.finished.wait(), 120)
                for s in sims:
                    await asyncio.to_thread(s.wait_for, lambda v: v.state == "revealed", 15,
                                            "the last reveal")
            finally:
                for h in hands:
                    h.cancel()
                await asyncio.gather(*hands, return_exceptions=True)
                await asyncio.gather(*(asyncio.to_thread(s.stop) for s in sims))
            assert runner.game.result is not None
            n = _applied_equals_locked(daemon.journal, sims)
            assert n == 6  # 3 rounds: a sealed dial and an open pick each
            assert pid in sims[2].locks  # the held seat locked after the failover
            replayed = audit(TABLE, daemon.journal.entries(TABLE))
            assert replayed.steps == replayed.hashed == n

    asyncio.run(run())  # (the last test on the cluster: node 1 stays down)


def test_the_generated_hashes_are_rabbitmqs_format() -> None:
    h = rabbitmq.hash_password("secret", salt=bytes.fromhex("908d3f4f"))
    import base64
    import hashlib

    raw = base64.b64decode(h)
    assert raw[:4] == bytes.fromhex("908d3f4f")
    assert raw[4:] == hashlib.sha256(raw[:4] + b"secret").digest()
    assert rabbitmq.check_password("secret", h) and not rabbitmq.check_password("other", h)
