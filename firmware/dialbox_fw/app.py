"""The controller application: wires a HAL, the core state machine and the links together.

Self-healing (docs/controller.md, Recovery): every pass of the main loop is guarded. A
MemoryError gives the memory reserve up; any other Exception (an I2C OSError from a loose
OLED connector, a flash OSError, a bug) is reported to the host as an `error internal`
frame and on the OLED, at most once every _FAULT_EVERY_MS, and the loop carries on. A
display that keeps failing is dropped (the controller runs on without its OLED). An
exception that escapes the loop anyway resets the board through the HAL. KeyboardInterrupt
(Ctrl-C from mpremote) and SystemExit are never caught: they must reach the REPL.
"""

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
from dialbox_fw.core.clock import ticks_add, ticks_diff, ticks_ms
from dialbox_fw.core.session import MQTT_RTO, SERIAL_RTO
from dialbox_fw.core.store import FileStore

LOOP_MS = const(5)
RESERVE = const(2048)  # bytes held back for when the heap is too fragmented
RESERVE_HOLD_MS = const(10000)  # longest the reserve stays given up for a retry (> any RTO)
_E_INTERNAL = const(18)  # codec.E_INTERNAL
# (underscored: MicroPython keeps neither a global nor a qstr for them; heap matters)
_DETAIL_MAX = const(80)  # an error frame's detail (docs/protocol.md)
_FAULT_EVERY_MS = const(2000)  # at most one fault report (frame, log, notice) per 2 s
_VIEW_RETRY_MS = const(1000)  # a redraw that raised is tried again this much later
_VIEW_GIVE_UP = const(3)  # redraws in a row failing with OSError: run without the OLED
_FATAL_PAUSE_MS = const(2000)  # from the report of a fatal exception to the reset


class Reset(BaseException):
    """The board was reset under the running app: nothing after it runs.

    A HAL whose reset() returns (the virtual HAL of the simulated controller) raises it
    instead of returning, so the stack unwinds exactly as far as a real reset would take it
    down; run() catches it and its caller boots again. A BaseException, like SystemExit, so
    no `except Exception` on the way takes it for a fault."""


if hasattr(asyncio, "sleep_ms"):  # MicroPython: no float allocated every pass

    def _sleep_loop():
        return asyncio.sleep_ms(LOOP_MS)

else:

    def _sleep_loop():
        return asyncio.sleep(LOOP_MS / 1000)


def describe(e, stage=None):
    """A short account of an exception in printable ASCII (the codec's rule for a
    frame): 'OSError 5 in view' (an OSError's first argument is its errno)."""
    text = type(e).__name__
    if e.args:
        text = "%s %s" % (text, e.args[0])
    if stage:
        text = text + " in " + stage
    # (through the bytes: iterating a str would intern each character as a qstr)
    return bytes(b if 32 <= b < 127 else 63 for b in text.encode()[:_DETAIL_MAX]).decode()


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
        # faults: the part of the pass running (named in reports; names the firmware
        # already has, so no new qstrs), how many since the last report (rate limit),
        # when that report went out
        self.stage = None
        self.unreported = 0
        self.reported_at = None
        # after a redraw that raised: (no redraw before this tick, failed redraws in a row)
        self.view_hold = None
        self.shown_low = False  # the battery warning as last drawn

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

    # ------------------------------------------------------------ faults

    def fault(self, e, now, stage=None):
        """An exception in a pass (not MemoryError), or escaping the loop (`stage`):
        reported, rate-limited; the pass is over and the next one runs as usual.
        Never raises."""
        if stage is None:
            stage = self.stage
        try:
            if stage == "view":
                # try again _VIEW_RETRY_MS later, not on every 5 ms pass; after
                # _VIEW_GIVE_UP OSErrors in a row (I2C: a loose or dead display) run
                # without the OLED, and say so at once (and once: it cannot fail again)
                hold = self.view_hold
                fails = 1 if hold is None else hold[1] + 1
                self.view_hold = (ticks_add(now, _VIEW_RETRY_MS), fails)
                hal = self.hal
                if fails >= _VIEW_GIVE_UP and isinstance(e, OSError) and getattr(hal, "oled", 0):
                    hal.oled = None
                    self.view_hold = None
                    self.reported_at = None
                    stage = "view, OLED off"
            at = self.reported_at
            if at is not None and ticks_diff(now, at) < _FAULT_EVERY_MS:
                self.unreported += 1  # counted, and told with the next report
                return
            self.reported_at = now
            detail = describe(e, stage)
            if self.unreported:
                detail = "%s (+%d)" % (detail[: _DETAIL_MAX - 12], self.unreported)
                self.unreported = 0
            self.hal.log_error(e)
            # the host hears of it (an unsequenced `error internal` frame, ref 0), the
            # player sees it (a notice: "! " and 14 characters, a short press clears it)
            ctl = self.ctl
            ctl._send("error", [_E_INTERNAL, detail, 0], now)
            ctl.notice = describe(e)[:14]
            ctl.changed = True
        except Exception:  # MemoryError while reporting, say: the count above stays
            pass

    # ------------------------------------------------------------ the loop

    def step(self, now):
        """One pass of the main loop: inputs, links, timers, outputs, display."""
        hal = self.hal
        ctl = self.ctl
        for i in range(3):  # (stage "poll": reading the hardware)
            d = hal.take_detents(i)
            if d:
                ctl.turn(i, d, now)
        ev = self.button.sample(hal.button_pressed(), now)
        if ev:
            ctl.button(ev, now)
        self.stage = "receive"
        for link in self.links:
            if link.kind == "serial":
                link.receive(self.handle, now)
        self.stage = "tick"
        ctl.tick(now)
        self.stage = "send"
        out = ctl.session.take()
        if out and self.active is not None:
            for frame in out:
                self.active.send(frame)
        self.stage = "battery"
        low = hal.battery_low()
        self.stage = "view"
        if low != self.shown_low:
            ctl.changed = True
        if ctl.changed:
            hold = self.view_hold
            if hold is not None and ticks_diff(now, hold[0]) < 0:
                return  # the last redraw failed: not again on every pass
            lines, led = screens.render(ctl, low)
            hal.view(lines, led, ctl)
            ctl.changed = False  # only now: a redraw cut short by MemoryError is retried
            self.shown_low = low
            self.view_hold = None

    def cycle(self, now):
        """One guarded pass: a MemoryError gives the reserve up (a clean pass may take it
        back, see starved_at); any other Exception is reported (fault) and the loop goes
        on. KeyboardInterrupt, SystemExit and Reset are not Exceptions: they go through."""
        try:
            self.stage = "poll"
            self.hal.poll(now)
            self.step(now)
        except MemoryError as e:
            # a frame that could not be handled now is retransmitted by the host, and
            # a queued message stays queued: make room and carry on, the retry fits.
            self.starved(e, now)
            return
        except Exception as e:
            self.fault(e, now)
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
        hal = self.hal
        while self.running:
            self.cycle(ticks_ms())
            hal.feed()  # the watchdog, started by the first feed: a stuck pass resets the board
            if self.reboot_pending:
                await asyncio.sleep(0.2)  # let the ack go out
                hal.reset()  # a board never comes back from this (the virtual HAL: Reset)
                self.reboot_pending = False
                self.restart = True
                self.running = False
            for link in self.links:
                if link.kind == "serial" and not link.up:
                    self.running = False
            await _sleep_loop()


async def start_mqtt(app, hal):
    """Join WiFi (hardware) and run the MQTT link when the config names a broker. (The
    link survives its own faults: MqttLink.run catches every Exception and reconnects.)"""
    from dialbox_fw.transports.mqtt_link import MqttLink

    link = MqttLink(app.cfg, app.ctl.uid, hal)
    app.add_link(link)
    await link.run(app)


async def run(hal, cfg_path="config.json", store=None, extra=None):
    """Boot the app on a HAL and run it until the serial link ends or the board resets;
    returns the App (its `restart` says whether the caller should boot again)."""
    app = App(hal, cfg_path, store)
    serial = hal.serial_stream()
    if serial is not None:
        from dialbox_fw.transports.serial import SerialLink

        app.add_link(SerialLink(serial))
    tasks = []
    try:
        try:
            if hal.button_pressed():  # held at power-on: the self-test, if held on 2 s
                from dialbox_fw.core.selftest import run as selftest

                await selftest(hal, app.ctl)
            if configmod.uses_mqtt(app.cfg) and app.ctl.state != ctlmod.ERROR:
                tasks.append(asyncio.create_task(start_mqtt(app, hal)))
            if extra is not None:
                tasks.append(asyncio.create_task(extra(app)))
            await app.main_loop()
        except Exception as e:
            # escaped the guarded passes: report it (log, host, OLED: one more pass sends
            # and draws it), wait (Ctrl-C still reaches the REPL), reset through the HAL
            app.reported_at = None  # told whatever the rate limit
            app.fault(e, ticks_ms(), "main_loop")
            app.cycle(ticks_ms())
            await asyncio.sleep(_FATAL_PAUSE_MS / 1000)  # (shorter than any watchdog's)
            hal.reset()
            app.restart = True  # a HAL whose reset() returns: the caller boots again
    except Reset:
        app.restart = True
        app.running = False
    finally:
        for t in tasks:
            t.cancel()
    return app
