"""MQTT links via gmqtt: one broker connection per table, one link per controller.

gmqtt is asyncio-native (a Protocol parsing whole reads): on this machine it costs 13-41 us of
CPU per message in and out, against 140-200 us for aiomqtt over paho (docs/host.md). Its own
reconnect is switched off; the hub reconnects with a fresh client and a clean session.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
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
LOGBOOKS_KEPT = 256
"""Per-controller log limits a hub keeps (they outlive links: a controller that reconnects
does not get a fresh burst); the oldest go first."""


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the broker is and how the host logs in."""

    host: str = "localhost"
    port: int = 1883
    user: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    keepalive: int = 10


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

    Publishes the host's retained availability (last will `offline`), watches each
    controller's retained availability and opens an MqttLink when it says `online`.
    Broker loss ends every link; the loop reconnects with backoff and the controllers'
    retained availability brings their links back.
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
        self.oversize = 0
        """Payloads refused unread for being over MAX_UP_PAYLOAD."""
        self.logbook = LogLimit(self.topics.root)
        self._logbooks: dict[str, LogLimit] = {}

    def _new_client(self, lost: asyncio.Event, subacks: dict[int, list[int]],
                    subscribed: asyncio.Event) -> BrokerClient:
        client = BrokerClient(
            self.client_id,
            clean_session=True,
            will_message=gmqtt.Message(self.topics.host_status, OFFLINE, qos=1, retain=True),
            logger=_client_log,
        )
        if self.address.user is not None:
            client.set_auth_credentials(self.address.user, self.address.password)

        def on_message(_c: Any, topic: str, payload: bytes, _qos: int, _props: Any) -> int:
            self._route(topic, payload)
            return 0

        def on_subscribe(_c: Any, mid: int, granted: list[int], _props: Any) -> None:
            subacks[mid] = list(granted)
            subscribed.set()

        client.on_message = on_message
        client.on_subscribe = on_subscribe
        client.on_disconnect = lambda *_a: lost.set()
        return client

    async def run(self) -> None:
        """Connect, serve, and reconnect forever (until cancelled)."""
        backoff = 0.1
        while True:
            try:
                await self._session()
                backoff = 0.1
            except BrokerUnavailable as e:
                self.last_error = str(e)
                log.warning("broker %s:%d: %s", self.address.host, self.address.port, e)
            finally:
                self._lost()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    async def _session(self) -> None:
        a = self.address
        lost, subscribed = asyncio.Event(), asyncio.Event()
        subacks: dict[int, list[int]] = {}
        client = self._new_client(lost, subacks, subscribed)
        tls = ssl.create_default_context(cafile=a.tls_ca) if a.tls_ca else False
        try:
            try:
                await asyncio.wait_for(
                    client.connect(a.host, a.port, ssl=tls, keepalive=a.keepalive,
                                   version=MQTTv311), CONNECT_TIMEOUT)
                client.publish(self.topics.host_status, ONLINE, qos=1, retain=True)
                # retained availability can arrive with the SUBACK: links may open from here
                self._client = client
                mid = client.subscribe([
                    gmqtt.Subscription(f"{self.topics.root}/dev/+/status", qos=1),
                    gmqtt.Subscription(f"{self.topics.root}/dev/+/up", qos=FRAME_QOS)])
                while mid not in subacks and not lost.is_set():
                    subscribed.clear()
                    await asyncio.wait_for(subscribed.wait(), CONNECT_TIMEOUT)
            except (OSError, MQTTConnectError, TimeoutError) as e:
                raise BrokerUnavailable(str(e) or type(e).__name__) from None
            if any(q >= 0x80 for q in subacks.get(mid, [])):
                raise BrokerUnavailable(f"the broker refused the subscriptions of {a.user}")
            if lost.is_set():
                raise BrokerUnavailable("connection lost while subscribing")
            self.connects += 1
            self.connected.set()
            log.info("connected to broker %s:%d", a.host, a.port)
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

    def _route(self, topic: str, payload: object) -> None:
        where = self.topics.parse_dev(topic)
        if where is None or not isinstance(payload, bytes | bytearray):
            return
        uid, leaf = where
        if leaf == "status":
            if payload == ONLINE:
                old = self.links.pop(uid, None)
                if old is not None:
                    old.end()
                self._open(uid)
            elif payload == OFFLINE:
                old = self.links.pop(uid, None)
                if old is not None:
                    old.end()
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
