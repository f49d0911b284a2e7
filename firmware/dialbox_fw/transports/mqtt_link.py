"""The WiFi/MQTT link: dialbox topics, availability with a last will, reconnect with backoff."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


import asyncio

from dialbox_fw.core.clock import ticks_ms
from dialbox_fw.transports.mqtt import MqttClient, MqttError
from dialbox_protocol import codec

KEEPALIVE_S = const(15)
BACKOFF_MIN_MS = const(500)
BACKOFF_MAX_MS = const(30000)
WIFI_TIMEOUT_MS = const(15000)
# Frames travel at QoS 0: the protocol's own seq/ack/retransmission already carries them end
# to end (MQTT's QoS 1 would only add a PUBACK per message per hop; docs/protocol.md).
FRAME_QOS = const(0)


class MqttLink:
    """Frames on dialbox/<table>/dev/<uid>/up and /down (QoS 1), availability on .../status.

    run() keeps the link up for ever: join WiFi (with timeout), connect (will = retained
    `offline`), subscribe to the down topic and the host's status, publish `online`
    (retained), then publish what send() queues; on any loss it backs off (doubling to
    30 s) and starts again.

    A payload holds one or more whole frames (each ending in its newline, at most
    codec.MAX_FRAME bytes in all): the frames queued at the same moment go out together,
    and a down payload is split at its newlines and each frame handled in order.
    """

    kind = "mqtt"

    def __init__(self, cfg, uid, hal):
        base = "dialbox/%s/" % cfg["table"]
        dev = base + "dev/" + uid + "/"
        self.up_topic = dev + "up"
        self.down_topic = dev + "down"
        self.status_topic = dev + "status"
        self.host_topic = base + "host/status"
        self.cfg = cfg
        self.hal = hal
        self.app = None
        self.outq = []
        self.ready = asyncio.Event()  # set by send() and when the connection closes
        self.connects = 0
        self.host_online = False
        self.client = MqttClient(
            uid,
            cfg["broker"],
            cfg["port"],
            cfg["user"],
            cfg["password"],
            keepalive=KEEPALIVE_S,
            will=(self.status_topic, b"offline", True, 1),
            on_message=self.on_message,
            on_close=self.ready.set,
        )

    def send(self, frame):
        self.outq.append(frame)
        self.ready.set()

    def next_payload(self):
        """(payload, count): the first frames of the queue, in order, joined into one
        payload of at most codec.MAX_FRAME bytes (a frame is never split)."""
        q = self.outq
        size = len(q[0])
        k = 1
        while k < len(q) and size + len(q[k]) <= codec.MAX_FRAME:
            size += len(q[k])
            k += 1
        if k == 1:
            return q[0], 1
        return b"".join(q[:k]), k

    def on_message(self, topic, payload, retained):
        app = self.app
        if topic == self.down_topic:
            if app is not None:
                self.receive(app, payload)
        elif topic == self.host_topic:
            self.host_online = payload == b"online"
            if not self.host_online and app is not None and app.active is self:
                app.ctl.link_lost()

    def receive(self, app, payload):
        """Hand each frame of a down payload to the app, in order. A piece that does not
        decode reaches the app as its DecodeError and the frames after it still count."""
        now = ticks_ms()
        mv = memoryview(payload)
        n = len(payload)
        start = 0
        while start < n:
            end = payload.find(b"\n", start)
            end = n if end < 0 else end + 1
            app.handle(codec.decode_frame(mv[start:end]), now, self)
            start = end

    async def run(self, app):
        self.app = app
        backoff = BACKOFF_MIN_MS
        cfg = self.cfg
        client = self.client
        while True:
            if cfg["ssid"] and not await self.hal.wifi_connect(
                cfg["ssid"], cfg["psk"], WIFI_TIMEOUT_MS
            ):
                await asyncio.sleep(backoff / 1000)
                backoff = min(backoff * 2, BACKOFF_MAX_MS)
                continue
            try:
                await client.connect()
                await client.subscribe(self.down_topic, FRAME_QOS)
                await client.subscribe(self.host_topic, 1)
                await client.publish(self.status_topic, b"online", qos=1, retain=True)
            except MqttError:
                await client.close()
                await asyncio.sleep(backoff / 1000)
                backoff = min(backoff * 2, BACKOFF_MAX_MS)
                continue
            backoff = BACKOFF_MIN_MS
            self.connects += 1
            ready = self.ready
            q = self.outq
            try:
                while client.connected:
                    while q and client.connected:
                        payload, k = self.next_payload()
                        await client.publish(self.up_topic, payload, qos=FRAME_QOS)
                        del q[:k]  # only once written: reliable frames also wait for an ack
                    ready.clear()  # no await since the queue was seen empty: no send() missed
                    if client.connected:
                        await ready.wait()  # send(), or the connection closing (on_close)
            except MqttError:
                pass
            if app.active is self:
                app.ctl.link_lost()
