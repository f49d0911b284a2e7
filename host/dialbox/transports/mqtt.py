"""MQTT links via gmqtt: one broker connection per table, one link per controller.

gmqtt is asyncio-native (a Protocol parsing whole reads): on this machine it costs 13-41 us of
CPU per message in and out, against 140-200 us for aiomqtt over paho (docs/host.md). Its own
reconnect is switched off; the hub reconnects with a fresh client and a clean session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import ssl
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, ClassVar

import gmqtt
from gmqtt.mqtt.constants import MQTTv311
from gmqtt.mqtt.handler import MQTTConnectError

from dialbox.logbook import LogLimit
from dialbox.transports.base import BrokerUnavailable, Link, LinkClosed
from dialbox.transports.cork import Cork, cork_gmqtt
from dialbox_protocol import codec
from dialbox_protocol.frames import parse_frame

log = logging.getLogger("dialbox.mqtt")
# gmqtt logs every lost connection with a traceback; the hub reports it as one line.
_client_log = logging.getLogger("dialbox.mqtt.client")
_client_log.setLevel(logging.ERROR)
logging.getLogger("gmqtt").setLevel(logging.ERROR)

ONLINE = b"online"
OFFLINE = b"offline"
HERE = b"here"
"""A controller's answer to the host's live `online` (the roll call): not retained, it opens
the controller's link if none is open and changes nothing otherwise (docs/protocol.md,
"MQTT topics"). Retained messages of one broker node do not reach the clients of another
(RabbitMQ), so neither side can count on the other's retained `online`."""
FRAME_QOS = 0
"""Frames travel at QoS 0: the protocol's seq/ack/retransmission carries them end to end, so
MQTT's per-hop PUBACK would only double the packets (docs/protocol.md, "MQTT topics").
Availability and the retained state stay at QoS 1."""
CONNECT_TIMEOUT = 10.0
MAX_UP_PAYLOAD = codec.MAX_FRAME
"""The largest payload a controller may publish on its `up` topic: whole frames, MAX_FRAME
bytes in all (docs/protocol.md, "MQTT topics"). A longer one is refused unread: not split,
not decoded, counted (`MqttHub.oversize`) and logged through the link's LogLimit."""
MAX_STATE = 128 * 1024
"""The largest retained state the host publishes: it stays under the generated broker
config's `max_packet_size` (dialbox.broker.mosquitto.MAX_PACKET), which would disconnect the
host for a larger packet. States of the built-in games are 5-8 kB."""
FRESH_LINK = 2.0
"""Seconds during which a new link is kept when another `online` of its controller comes
(its retained `online` and a live one both seen, or its answer to the roll call): a restart
would send a new challenge and refuse the hello in flight. A controller that really
connected again within them says so to the next reliable frame ("no session")."""
LOGBOOKS_KEPT = 256
"""Per-controller log limits a hub keeps (they outlive links: a controller that reconnects
does not get a fresh burst); the oldest go first."""


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the broker is and how the host logs in.

    `host` names one broker, or the nodes of a clustered one separated by commas, each
    `host` or `host:port` (`port` for those without one; `[v6]:port` for an IPv6 literal):
    "pi1:1883,pi2:1883,pi3:1883". The hub connects to the first and moves to the next node
    whenever a connection fails or is lost (docs/host.md, "Venue")."""

    host: str = "localhost"
    port: int = 1883
    user: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    keepalive: int = 10

    def nodes(self) -> list[tuple[str, int]]:
        """(host, port) of each broker node, in order."""
        return parse_nodes(self.host, self.port)


def parse_nodes(hosts: str, port: int) -> list[tuple[str, int]]:
    """"a,b:1884,[::1]:1885" -> [("a", port), ("b", 1884), ("::1", 1885)]; a single
    entry without a comma is taken whole (an IPv6 literal without brackets stays one host).
    Raises ValueError for an empty entry or a bad port."""
    if "," not in hosts:
        if hosts.startswith("[") or (hosts.count(":") == 1):
            return [_node(hosts, port)]
        return [(hosts, port)]
    return [_node(item.strip(), port) for item in hosts.split(",")]


def _node(item: str, port: int) -> tuple[str, int]:
    host, p = item, ""
    if item.startswith("["):
        host, _, rest = item[1:].partition("]")
        p = rest[1:] if rest.startswith(":") else rest
    elif item.count(":") == 1:
        host, _, p = item.partition(":")
    if not host or (p and not p.isdigit()):
        raise ValueError(f"broker node {item!r}: expected host or host:port")
    n = int(p) if p else port
    if not 1 <= n <= 65535:
        raise ValueError(f"broker node {item!r}: port {n} is not 1-65535")
    return host, n


def split_payload(payload: bytes) -> list[bytes]:
    """The frames of one MQTT payload: one or more lines, each ending with its newline
    (the last newline may be missing)."""
    out = []
    start, n = 0, len(payload)
    while start < n:
        nl = payload.find(b"\n", start)
        end = n if nl < 0 else nl + 1
        if end - start > 1 or payload[start:end] != b"\n":
            out.append(payload[start:end])
        start = end
    return out


def pack_payloads(frames: list[bytes], limit: int = codec.MAX_FRAME) -> list[bytes]:
    """Frames (each ending with a newline) joined in order into as few payloads as possible,
    each at most `limit` bytes; a frame is never split."""
    out: list[bytes] = []
    cur: list[bytes] = []
    size = 0
    for f in frames:
        if cur and size + len(f) > limit:
            out.append(b"".join(cur))
            cur, size = [], 0
        cur.append(f)
        size += len(f)
    if cur:
        out.append(b"".join(cur))
    return out


class BrokerClient(gmqtt.Client):  # type: ignore[misc]
    """gmqtt's client without its own reconnect (it would come back with a persistent
    session and fight a fresh client for the same id): MqttHub.run reconnects."""

    cork: Cork | None = None
    """This connection's socket, written once per loop turn (dialbox.transports.cork)."""

    async def reconnect(self, delay: bool = False) -> None:
        return None

    async def connect(self, *args: Any, **kwargs: Any) -> None:
        await super().connect(*args, **kwargs)
        self.cork = cork_gmqtt(self)


class Topics:
    """The topic layout of one table (docs/protocol.md, "MQTT topics")."""

    def __init__(self, table: str) -> None:
        self.table = table
        self.root = f"dialbox/{table}"
        self.host_status = f"{self.root}/host/status"
        self.state = f"{self.root}/state"

    def dev(self, uid: str, leaf: str) -> str:
        return f"{self.root}/dev/{uid}/{leaf}"

    def parse_dev(self, topic: str) -> tuple[str, str] | None:
        """(uid, leaf) for a device topic of this table, else None."""
        parts = topic.split("/")
        if len(parts) == 5 and parts[:3] == ["dialbox", self.table, "dev"]:
            return parts[3], parts[4]
        return None


class MqttLink(Link):
    """A controller reached through the broker: frames on its up topic, ours on its down topic."""

    kind: ClassVar[str] = "mqtt"
    rto: ClassVar[float] = 1.0
    rto_max: ClassVar[float] = 8.0
    heartbeat: ClassVar[bool] = False

    def __init__(self, hub: MqttHub, uid: str) -> None:
        super().__init__(hub.topics.dev(uid, "up"), expected_uid=uid,
                         logbook=hub.logbook_of(uid))
        self.hub = hub
        self.uid = uid
        self.down = hub.topics.dev(uid, "down")

    def _write(self, frame: bytes) -> None:
        self._write_batch([frame])

    def _write_batch(self, frames: list[bytes]) -> None:
        # Frames ready together share a payload; nothing waits for the broker's PUBACK.
        for payload in pack_payloads(frames):
            self.hub.publish_frames(self.down, payload, self)


class MqttHub:
    """The host's connection for one table, with its own reconnect loop.

    Subscribes to the controllers' availability, then publishes the host's (`online`,
    retained; last will `offline`). A controller's `online` (its connect; or the retained
    copy, on a broker that keeps it) opens (or restarts) its MqttLink; `here`, a controller's
    answer to the host's live `online`, opens one if none is open; `offline` ends it. Broker
    loss ends every link; the loop reconnects with a jittered backoff, to the next node of a
    clustered broker, and the roll call (or the retained availability) brings the links back.
    """

    def __init__(
        self,
        address: BrokerAddress,
        table: str,
        on_link: Callable[[MqttLink], Coroutine[Any, Any, None]],
        client_id: str | None = None,
    ) -> None:
        self.address = address
        self.topics = Topics(table)
        self.on_link = on_link
        self.client_id = client_id or f"dialbox-host-{table}"
        self.links: dict[str, MqttLink] = {}
        self.connected = asyncio.Event()
        self._client: BrokerClient | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.last_error: str | None = None
        self.connects = 0
        self.nodes = address.nodes()
        """The broker's nodes, (host, port) each; one for a single broker."""
        self.node = 0
        """Index in `nodes` of the node in use or tried next."""
        self.here = 0
        """Links opened by a roll-call answer (`here`) rather than an `online`."""
        self._opened: dict[str, float] = {}
        """uid -> when its link was opened (loop time)."""
        self.attempts = 0
        self.retained = False
        """Whether the message being routed is a retained copy (set around _route)."""
        self.roll_calls = 0
        """`online` published again while connected (a stale `offline` of ours, a
        controller's `offline` on a clustered broker)."""
        self._roll_due: asyncio.TimerHandle | None = None
        self.oversize = 0
        """Payloads refused unread for being over MAX_UP_PAYLOAD."""
        self.logbook = LogLimit(self.topics.root)
        self._logbooks: dict[str, LogLimit] = {}

    def _new_client(self, lost: asyncio.Event, subacks: dict[int, list[int]],
                    subscribed: asyncio.Event) -> BrokerClient:
        self.attempts += 1
        # a clustered broker (several nodes): a client id of its own for every attempt.
        # RabbitMQ names a subscription's queue after the client id, and the queue of a node
        # that just died can take a new subscription of the same name with it (connected,
        # and deaf). A broker that binds client ids to users (the generated Mosquitto
        # config) replaces it anyway.
        cid = self.client_id if len(self.nodes) == 1 else f"{self.client_id}-{self.attempts}"
        client = BrokerClient(
            cid,
            clean_session=True,
            will_message=gmqtt.Message(self.topics.host_status, OFFLINE, qos=1, retain=True),
            logger=_client_log,
        )
        if self.address.user is not None:
            client.set_auth_credentials(self.address.user, self.address.password)

        def on_message(_c: Any, topic: str, payload: bytes, _qos: int, props: Any) -> int:
            self.retained = bool(props and props.get("retain"))
            try:
                self._route(topic, payload)
            finally:
                self.retained = False
            return 0

        def on_subscribe(_c: Any, mid: int, granted: list[int], _props: Any) -> None:
            subacks[mid] = list(granted)
            subscribed.set()

        client.on_message = on_message
        client.on_subscribe = on_subscribe

        def on_disconnect(*_a: Any) -> None:
            lost.set()
            subscribed.set()  # a wait for the SUBACK ends with the connection

        client.on_disconnect = on_disconnect
        return client

    async def run(self) -> None:
        """Connect, serve, and reconnect forever (until cancelled). Every attempt after a
        failure or a loss goes to the next node of the list (the same one for a single
        broker), after a random wait in [backoff/2, backoff]: 0.1 s, doubling to 5 s while
        attempts fail, back to 0.1 s once one connected. The jitter keeps the tables of a
        daemon (and the daemons of a venue) from all reconnecting in the same instant."""
        backoff = 0.1
        while True:
            host, port = self.nodes[self.node]
            before = self.connects
            try:
                await self._session(host, port)
            except BrokerUnavailable as e:
                self.last_error = str(e)
                log.warning("broker %s:%d: %s", host, port, e)
            finally:
                self._lost()
            if self.connects != before:
                backoff = 0.1  # it was up: the loss starts a fresh backoff
            self.node = (self.node + 1) % len(self.nodes)
            await asyncio.sleep(random.uniform(backoff / 2, backoff))
            backoff = min(backoff * 2, 5.0)

    async def _session(self, host: str, port: int) -> None:
        a = self.address
        lost, subscribed = asyncio.Event(), asyncio.Event()
        subacks: dict[int, list[int]] = {}
        client = self._new_client(lost, subacks, subscribed)
        tls = ssl.create_default_context(cafile=a.tls_ca) if a.tls_ca else False
        try:
            try:
                await asyncio.wait_for(
                    client.connect(host, port, ssl=tls, keepalive=a.keepalive,
                                   version=MQTTv311), CONNECT_TIMEOUT)
                # retained availability can arrive with the SUBACK: links may open from here
                self._client = client
                # both at QoS 0: with a clean session QoS 1 keeps nothing across connections,
                # and RabbitMQ makes a QoS 1 subscription a durable queue on its node, which
                # blocks the same client id from subscribing on another node while that
                # node is down (docs/host.md, "Venue")
                mid = client.subscribe([
                    gmqtt.Subscription(f"{self.topics.root}/dev/+/status", qos=0),
                    gmqtt.Subscription(f"{self.topics.root}/dev/+/up", qos=FRAME_QOS),
                    gmqtt.Subscription(self.topics.host_status, qos=0)])
                while mid not in subacks and not lost.is_set():
                    subscribed.clear()
                    await asyncio.wait_for(subscribed.wait(), CONNECT_TIMEOUT)
            except (OSError, MQTTConnectError, TimeoutError) as e:
                raise BrokerUnavailable(str(e) or type(e).__name__) from None
            if any(q >= 0x80 for q in subacks.get(mid, [])):
                raise BrokerUnavailable(f"the broker refused the subscriptions of {a.user}")
            if lost.is_set():
                raise BrokerUnavailable("connection lost while subscribing")
            # only now, subscribed: every controller connected to any node hears this live
            # and answers `here` (or has its `online` seen by the subscription above)
            client.publish(self.topics.host_status, ONLINE, qos=1, retain=True)
            self.connects += 1
            self.connected.set()
            log.info("connected to broker %s:%d", host, port)
            try:
                await lost.wait()
            except asyncio.CancelledError:
                # a clean stop: say so (the will is for crashes), then leave
                with contextlib.suppress(Exception):
                    client.publish(self.topics.host_status, OFFLINE, qos=1, retain=True)
                raise
            raise BrokerUnavailable("connection to the broker lost")
        finally:
            self._client = None
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.disconnect(), 2)

    def _roll_call(self) -> None:
        """Publish the host's `online` again: every connected controller answers (`here`,
        or `online` if our `offline` ended its session)."""
        self._roll_due = None
        client = self._client
        if client is not None and client.is_connected and self.connected.is_set():
            self.roll_calls += 1
            client.publish(self.topics.host_status, ONLINE, qos=1, retain=True)

    def _call_the_roll_soon(self) -> None:
        if self._roll_due is None:  # one for a burst of reasons
            self._roll_due = asyncio.get_running_loop().call_later(0.2, self._roll_call)

    def _route(self, topic: str, payload: object) -> None:
        retained = self.retained
        if topic == self.topics.host_status:
            # our own availability: a live `offline` while we are connected is the last will
            # of an older connection of ours that the broker only now gave up on (a client
            # id per attempt on a cluster: nothing took it over). Say `online` again.
            if payload == OFFLINE and not retained and self.connected.is_set():
                self._call_the_roll_soon()
            return
        where = self.topics.parse_dev(topic)
        if where is None or not isinstance(payload, bytes | bytearray):
            return
        uid, leaf = where
        if leaf == "status":
            if payload == ONLINE:
                old = self.links.get(uid)
                now = asyncio.get_running_loop().time()
                if (old is not None and not old.closed
                        and now - self._opened.get(uid, 0.0) < FRESH_LINK):
                    # opened a moment ago (its identify goes again every 0.5 s until a
                    # hello): a new challenge now would fail the hello in flight
                    return
                self.links.pop(uid, None)
                if old is not None:
                    old.end()
                self._opened[uid] = now
                self._open(uid)
            elif payload == HERE:  # the roll call's answer: a link if there is none
                link = self.links.get(uid)
                if link is None or link.closed:
                    self.here += 1
                    self._opened[uid] = asyncio.get_running_loop().time()
                    self._open(uid)
            elif payload == OFFLINE:
                old = self.links.pop(uid, None)
                if old is not None:
                    old.end()
                if len(self.nodes) > 1 and not retained:
                    # on a cluster this may be the last will of a connection the controller
                    # already replaced (nothing took its client id over): if it is still
                    # there, the roll call brings its link back at once
                    self._call_the_roll_soon()
        elif leaf == "up":
            if len(payload) > MAX_UP_PAYLOAD:  # refused before anything reads it
                self.oversize += 1
                self.logbook_of(uid).log(
                    log, logging.WARNING, "%s: payload of %d bytes refused unread (at most %d)",
                    self.topics.dev(uid, "up"), len(payload), MAX_UP_PAYLOAD)
                return
            link = self.links.get(uid)
            if link is None or link.closed:  # (a link whose session ended: start anew)
                link = self._open(uid)
            for frame in split_payload(bytes(payload)):
                link.deliver(parse_frame(frame))

    def logbook_of(self, uid: str) -> LogLimit:
        """The log limit of one controller's topics (kept across its links)."""
        book = self._logbooks.get(uid)
        if book is None:
            if len(self._logbooks) >= LOGBOOKS_KEPT:
                del self._logbooks[next(iter(self._logbooks))]
            book = self._logbooks[uid] = LogLimit(self.topics.dev(uid, "up"))
        return book

    def _open(self, uid: str) -> MqttLink:
        link = MqttLink(self, uid)
        self.links[uid] = link
        task = asyncio.create_task(self.on_link(link))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return link

    def _lost(self) -> None:
        self._client = None
        self.connected.clear()
        for link in self.links.values():
            link.end()
        self.links.clear()

    def publish(self, topic: str, payload: bytes, qos: int = 1, retain: bool = False) -> None:
        """Queue one message on the broker connection (nothing waits for a PUBACK)."""
        client = self._client
        if client is None or not client.is_connected:
            raise LinkClosed("not connected to the broker")
        client.publish(topic, payload, qos=qos, retain=retain)

    def publish_frames(self, topic: str, payload: bytes, link: MqttLink) -> None:
        try:
            self.publish(topic, payload, FRAME_QOS)
        except LinkClosed:
            link.end()
            raise

    def publish_state(self, payload: bytes) -> None:
        """The table's public state, retained: the JSON of a `dialbox.table.TableState`
        (never a selection before all-locked, never a private answer). One over MAX_STATE
        is not sent (the broker would drop the host for it): logged, and the next one goes."""
        if len(payload) > MAX_STATE:
            self.logbook.log(log, logging.ERROR, "%s: a state of %d bytes not published "
                             "(at most %d)", self.topics.state, len(payload), MAX_STATE)
            return
        with contextlib.suppress(LinkClosed):
            self.publish(self.topics.state, payload, retain=True)

    async def wait_connected(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.connected.wait(), timeout)
        except TimeoutError:
            raise BrokerUnavailable(
                f"no broker at {self.address.host}:{self.address.port}"
                + (f" ({self.last_error})" if self.last_error else "")
            ) from None
