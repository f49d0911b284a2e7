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


class MqttLink:
    """Frames on dialbox/<table>/dev/<uid>/up and /down (QoS 1), availability on .../status.

    run() keeps the link up for ever: join WiFi (with timeout), connect (will = retained
    `offline`), subscribe to the down topic and the host's status, publish `online`
    (retained), then wait; on any loss it backs off (doubling to 30 s) and starts again.
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
        )

    def send(self, frame):
        self.outq.append(frame)

    def on_message(self, topic, payload, retained):
        app = self.app
        if topic == self.down_topic:
            if app is not None:
                app.handle(codec.decode_frame(payload), ticks_ms(), self)
        elif topic == self.host_topic:
            self.host_online = payload == b"online"
            if not self.host_online and app is not None and app.active is self:
                app.ctl.link_lost()

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
                await client.subscribe(self.down_topic, 1)
                await client.subscribe(self.host_topic, 1)
                await client.publish(self.status_topic, b"online", qos=1, retain=True)
            except MqttError:
                await client.close()
                await asyncio.sleep(backoff / 1000)
                backoff = min(backoff * 2, BACKOFF_MAX_MS)
                continue
            backoff = BACKOFF_MIN_MS
            self.connects += 1
            try:
                while client.connected:
                    while self.outq and client.connected:
                        await client.publish(self.up_topic, self.outq[0], qos=1)
                        self.outq.pop(0)
                    await asyncio.sleep(0.01)
            except MqttError:
                pass
            if app.active is self:
                app.ctl.link_lost()
