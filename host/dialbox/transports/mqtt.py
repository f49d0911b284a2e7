"""MQTT links via aiomqtt: one broker connection per table, one link per controller."""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, ClassVar

import aiomqtt

from dialbox.transports.base import BrokerUnavailable, Link, LinkClosed
from dialbox_protocol.frames import parse_frame

log = logging.getLogger("dialbox.mqtt")
# aiomqtt warns once more than ten publishes await their PUBACK; a host sending to many
# controllers at once does that by design (frames are published without waiting).
_client_log = logging.getLogger("dialbox.mqtt.client")
_client_log.setLevel(logging.ERROR)

ONLINE = b"online"
OFFLINE = b"offline"


@dataclass(frozen=True, slots=True)
class BrokerAddress:
    """Where the broker is and how the host logs in."""

    host: str = "localhost"
    port: int = 1883
    user: str | None = None
    password: str | None = None
    tls_ca: str | None = None
    keepalive: int = 10


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
        super().__init__(hub.topics.dev(uid, "up"), expected_uid=uid)
        self.hub = hub
        self.uid = uid
        self.down = hub.topics.dev(uid, "down")

    async def _write(self, frame: bytes) -> None:
        # Publish without waiting for the broker's PUBACK before the next frame: tasks start
        # in order, so frames stay in order, and one slow acknowledgement holds nothing up.
        self.hub.publish_soon(self.down, frame, self)


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
        self._client: aiomqtt.Client | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self.last_error: str | None = None
        self.connects = 0

    def _new_client(self) -> aiomqtt.Client:
        a = self.address
        tls = ssl.create_default_context(cafile=a.tls_ca) if a.tls_ca else None
        return aiomqtt.Client(
            a.host,
            a.port,
            username=a.user,
            password=a.password,
            identifier=self.client_id,
            keepalive=a.keepalive,
            will=aiomqtt.Will(self.topics.host_status, OFFLINE, qos=1, retain=True),
            tls_context=tls,
            clean_session=True,
            logger=_client_log,
            # Nagle would hold our small frames back while an earlier one is unacknowledged.
            socket_options=((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),),
        )

    async def run(self) -> None:
        """Connect, serve, and reconnect forever (until cancelled)."""
        backoff = 0.1
        while True:
            try:
                await self._session()
                backoff = 0.1
            except aiomqtt.MqttError as e:
                self.last_error = str(e)
                log.warning("broker %s:%d: %s", self.address.host, self.address.port, e)
            finally:
                self._lost()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)

    async def _session(self) -> None:
        async with self._new_client() as client:
            self._client = client
            self.connects += 1
            await client.publish(self.topics.host_status, ONLINE, qos=1, retain=True)
            await client.subscribe(f"{self.topics.root}/dev/+/status", qos=1)
            await client.subscribe(f"{self.topics.root}/dev/+/up", qos=1)
            self.connected.set()
            log.info("connected to broker %s:%d", self.address.host, self.address.port)
            async for message in client.messages:
                self._route(str(message.topic), message.payload)

    def _route(self, topic: str, payload: object) -> None:
        where = self.topics.parse_dev(topic)
        if where is None or not isinstance(payload, bytes | bytearray):
            return
        uid, leaf = where
        if leaf == "status":
            if bytes(payload) == ONLINE:
                old = self.links.pop(uid, None)
                if old is not None:
                    old.end()
                self._open(uid)
            elif bytes(payload) == OFFLINE:
                old = self.links.pop(uid, None)
                if old is not None:
                    old.end()
        elif leaf == "up":
            link = self.links.get(uid) or self._open(uid)
            # a payload holds one or more whole frames, each ending in its newline
            for frame in bytes(payload).split(b"\n"):
                if frame:
                    link.deliver(parse_frame(frame))

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

    async def publish(self, topic: str, payload: bytes, retain: bool = False) -> None:
        client = self._client
        if client is None:
            raise LinkClosed("not connected to the broker")
        try:
            await client.publish(topic, payload, qos=1, retain=retain)
        except aiomqtt.MqttError as e:
            raise LinkClosed(f"publish to {topic} failed: {e}") from None

    def publish_soon(self, topic: str, payload: bytes, link: MqttLink) -> None:
        if self._client is None:
            link.end()
            raise LinkClosed("not connected to the broker")
        task = asyncio.ensure_future(self._publish_or_end(topic, payload, link))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _publish_or_end(self, topic: str, payload: bytes, link: MqttLink) -> None:
        try:
            await self.publish(topic, payload)
        except LinkClosed:
            link.end()

    async def publish_state(self, payload: bytes) -> None:
        """The table's public state, retained (never a selection before all-locked)."""
        try:
            await self.publish(self.topics.state, payload, retain=True)
        except LinkClosed:
            pass

    async def wait_connected(self, timeout: float) -> None:
        try:
            await asyncio.wait_for(self.connected.wait(), timeout)
        except TimeoutError:
            raise BrokerUnavailable(
                f"no broker at {self.address.host}:{self.address.port}"
                + (f" ({self.last_error})" if self.last_error else "")
            ) from None
