"""The controller application: wires a HAL, the core state machine and the links together."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


import asyncio
import gc

from dialbox_fw.core import button as buttonmod
from dialbox_fw.core import config as configmod
from dialbox_fw.core import controller as ctlmod
from dialbox_fw.core import screens
from dialbox_fw.core.clock import ticks_diff, ticks_ms
from dialbox_fw.core.session import MQTT_RTO, SERIAL_RTO
from dialbox_fw.core.store import FileStore

LOOP_MS = const(5)
RESERVE = const(2048)  # bytes held back for when the heap is too fragmented
RESERVE_HOLD_MS = const(10000)  # longest the reserve stays given up for a retry (> any RTO)
_E_INTERNAL = const(18)  # codec.E_INTERNAL


if hasattr(asyncio, "sleep_ms"):  # MicroPython: no float allocated every pass

    def _sleep_loop():
        return asyncio.sleep_ms(LOOP_MS)

else:

    def _sleep_loop():
        return asyncio.sleep(LOOP_MS / 1000)


class App:
    """One controller: the HAL's inputs feed the Controller; its frames go to the live link.

    The serial link is always listened to (it is also how a controller is provisioned);
    the MQTT link runs too when the config names a broker. Outgoing frames go to the link
    that last sent an `identify`.
    """

    def __init__(self, hal, cfg_path="config.json", store=None):
        self.hal = hal
        self.cfg_path = cfg_path
        cfg, problem = configmod.load(cfg_path)
        self.cfg = cfg
        uid = cfg["device"] or hal.unique_id()
        if store is None:
            store = FileStore()
        caps = ["oled", "led", "flash"]
        if hal.can_sense_battery():
            caps.append("battery")
        self.ctl = ctlmod.Controller(
            uid,
            hal.board_name(),
            store,
            caps=caps,
            on_config=self.provisioned,
            key=configmod.key(cfg),
        )
        if cfg.get("colour"):
            self.ctl.colour = cfg["colour"]
        if problem is not None:
            self.ctl.fail("config: " + problem)
        self.button = buttonmod.Button()
        self.links = []
        self.active = None
        self.running = True
        self.reboot_pending = False
        self.restart = False
        self.memory_errors = 0
        self.reserve = None  # taken by the main loop once it runs
        # when a MemoryError gave the reserve up: it is taken again only once a reliable
        # frame has been handled since (the retry the room was made for), or after
        # RESERVE_HOLD_MS. Taking it back on the next quiet pass would fill the very hole
        # the retransmitted frame needs, and the same MemoryError would repeat forever.
        self.starved_at = None

    def provisioned(self, cfg):
        configmod.save(cfg, self.cfg_path)
        self.cfg = cfg
        self.reboot_pending = True

    def add_link(self, link):
        self.links.append(link)
        if self.active is None:
            self.use(link)

    def use(self, link):
        if link is self.active:
            return
        if self.active is not None:
            self.ctl.link_lost()
        self.active = link
        s = self.ctl.session
        if link.kind == "mqtt":
            s.rto0, s.rto_max = MQTT_RTO
            self.ctl.silence_ms = 0  # the broker's keepalive is the heartbeat
        else:
            s.rto0, s.rto_max = SERIAL_RTO
            self.ctl.silence_ms = ctlmod.SILENCE_MS

    def starved(self, e, now):
        """Out of memory: give the reserve up (one contiguous block, whatever the
        fragmentation) and collect, so the retry of what failed fits."""
        self.memory_errors += 1
        self.reserve = None
        self.starved_at = now
        gc.collect()
        self.hal.log_error(e)

    def handle(self, msg, now, link):
        if type(msg) is not dict and msg.code == _E_INTERNAL:
            # the decoder ran out of memory (it never raises): make room for the
            # retransmission the host will send
            self.starved(msg, now)
            return
        if link is not self.active and type(msg) is dict and msg["t"] == "identify":
            self.use(link)
        if link is self.active:
            self.ctl.handle(msg, now)
            if type(msg) is dict and msg["seq"]:
                self.starved_at = None  # a reliable frame went through: the retry fitted

    def step(self, now):
        """One pass of the main loop: inputs, links, timers, outputs, display."""
        hal = self.hal
        ctl = self.ctl
        for i in range(3):
            d = hal.take_detents(i)
            if d:
                ctl.turn(i, d, now)
        ev = self.button.sample(hal.button_pressed(), now)
        if ev:
            ctl.button(ev, now)
        for link in self.links:
            if link.kind == "serial":
                link.receive(self.handle, now)
        ctl.tick(now)
        out = ctl.session.take()
        if out and self.active is not None:
            for frame in out:
                self.active.send(frame)
        if ctl.changed:
            lines, led = screens.render(ctl, hal.battery_low())
            hal.view(lines, led, ctl)
            ctl.changed = False  # only now: a redraw cut short by MemoryError is retried

    def cycle(self, now):
        """One guarded pass: a MemoryError gives the reserve up; a clean pass may take it
        back (see starved_at)."""
        try:
            self.hal.poll(now)
            self.step(now)
        except MemoryError as e:
            # a frame that could not be handled now is retransmitted by the host, and
            # a queued message stays queued: make room and carry on, the retry fits.
            self.starved(e, now)
            return
        if self.reserve is None and (
            self.starved_at is None or ticks_diff(now, self.starved_at) > RESERVE_HOLD_MS
        ):
            self.starved_at = None
            try:
                self.reserve = bytearray(RESERVE)
            except MemoryError:
                pass

    async def main_loop(self):
        while self.running:
            self.cycle(ticks_ms())
            if self.reboot_pending:
                await asyncio.sleep(0.2)  # let the ack go out
                self.hal.reset()  # a board never comes back from this
                self.reboot_pending = False
                self.restart = True  # the virtual HAL does: the caller boots again
                self.running = False
            for link in self.links:
                if link.kind == "serial" and not link.up:
                    self.running = False
            await _sleep_loop()


async def start_mqtt(app, hal):
    """Join WiFi (hardware) and run the MQTT link when the config names a broker."""
    from dialbox_fw.transports.mqtt_link import MqttLink

    link = MqttLink(app.cfg, app.ctl.uid, hal)
    app.add_link(link)
    await link.run(app)


async def run(hal, cfg_path="config.json", store=None, extra=None):
    app = App(hal, cfg_path, store)
    serial = hal.serial_stream()
    if serial is not None:
        from dialbox_fw.transports.serial import SerialLink

        app.add_link(SerialLink(serial))
    tasks = []
    if configmod.uses_mqtt(app.cfg) and app.ctl.state != ctlmod.ERROR:
        tasks.append(asyncio.create_task(start_mqtt(app, hal)))
    if extra is not None:
        tasks.append(asyncio.create_task(extra(app)))
    await app.main_loop()
    for t in tasks:
        t.cancel()
    return app
