"""The HAL of a real board, built from its profile: encoders, button, LED, OLED, USB, WiFi,
battery sense, watchdog."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


import machine
from machine import Pin

from dialbox_fw.core.clock import ticks_diff, ticks_ms

WDT_MS = const(8000)  # RP2040 allows at most 8388 ms, the RP2350 16777; the ESP32 more
BAT_EVERY_MS = const(10000)  # the battery is read at boot, then every 10 s
BAT_HYSTERESIS_MV = const(100)  # low below low_mv; OK again only above low_mv + 100
SAFE_FLAG = "safeboot"  # written by `dialbox firmware deploy` while it copies
LOG_PATH = "errors.log"  # exceptions logged on flash (stdout is the serial link)
LOG_MAX = const(8)  # at most this many per boot: a fault storm must not wear the flash
LOG_BYTES = const(4096)  # past this size the log starts again (the old one: errors.old)
BOOT_WINDOW_MS = 1500  # safe boot: the boot button is looked at this long after start
BUTTON_POLL_MS = const(20)
RESET_PAUSE_MS = 3000  # between a crash and the reset


def _hex_rgb(colour, scale):
    v = int(colour, 16)
    return (((v >> 16) & 255) * scale >> 8, ((v >> 8) & 255) * scale >> 8, (v & 255) * scale >> 8)


def log_to_flash(e, path=LOG_PATH):
    """Append an exception (with its traceback where the port prints one) to the log file.
    Never raises: a full or failing flash must not turn a report into another fault."""
    import os
    import sys

    try:
        try:
            if os.stat(path)[6] > LOG_BYTES:
                os.rename(path, path[:-3] + "old")
        except OSError:
            pass
        show = getattr(sys, "print_exception", None)  # MicroPython: with the traceback
        with open(path, "a") as f:
            f.write("at %s ms: " % (ticks_ms(),))
            if show is not None and isinstance(e, BaseException):
                show(e, f)
            else:
                f.write(repr(e) + "\n")
    except Exception:
        pass


class Battery:
    """The battery's own voltage (VBAT, before the 5 V booster) through a divider to an
    ADC pin, with hysteresis so the LOW BATTERY line does not flicker around the limit.

    read_mv() gives the millivolts at the ADC pin; `divider` undoes the divider (2 for
    100k/100k). Low below low_mv; OK again only above low_mv + BAT_HYSTERESIS_MV."""

    def __init__(self, read_mv, divider, low_mv):
        self.read_mv = read_mv
        self.divider = divider
        self.low_mv = low_mv
        self.low = False
        self.mv = None  # the last battery voltage read
        self.at = None  # when

    def update(self, now):
        """Read when due (at once the first time, then every BAT_EVERY_MS); the state."""
        if self.at is not None and ticks_diff(now, self.at) < BAT_EVERY_MS:
            return self.low
        self.at = now
        mv = self.read_mv() * self.divider
        self.mv = mv
        if self.low:
            if mv > self.low_mv + BAT_HYSTERESIS_MV:
                self.low = False
        elif mv < self.low_mv:
            self.low = True
        return self.low


def battery_reader(bat, mcu):
    """read_mv() for the profile's `battery` entry: {"adc_pin", "divider", "low_mv"}.

    The pin is one the WiFi chip does not share (GP26 = ADC0 on the Picos: the Pico W's
    own VSYS sense, GP29, is the WiFi chip's clock line while WiFi is on). On the ESP32-S3
    the ADC needs 11 dB attenuation to read up to ~3.1 V, and read_uv() is calibrated."""
    pin = Pin(bat["adc_pin"])
    if mcu == "esp32s3":
        adc = machine.ADC(pin, atten=machine.ADC.ATTN_11DB)
        read_uv = getattr(adc, "read_uv", None)
        if read_uv is not None:
            return lambda: read_uv() // 1000
        return lambda: adc.read_u16() * 3100 // 65535  # uncalibrated: about 0..3.1 V
    adc = machine.ADC(pin)
    return lambda: adc.read_u16() * 3300 // 65535  # RP2: 3.3 V reference


def boot_button(mcu):
    """A function that is true while the board's boot button is pressed, or None."""
    if mcu in ("rp2040", "rp2350"):
        import rp2

        return rp2.bootsel_button  # 1 while BOOTSEL is pressed
    if mcu == "esp32s3":
        pin = Pin(0, Pin.IN, Pin.PULL_UP)  # the BOOT button pulls GPIO0 low
        return lambda: pin.value() == 0
    return None


def safe_boot(flag, button, window_ms, sleep_ms):
    """Why to stay in the REPL instead of running the app: "flag" (the safeboot file
    exists), "button" (pressed at some moment of the first window_ms), or None (run).
    button: boot_button()'s function or None; sleep_ms(ms) waits."""
    if flag:
        return "flag"
    if button is None:
        return None
    waited = 0
    while True:
        if button():
            return "button"
        if waited >= window_ms:
            return None
        sleep_ms(BUTTON_POLL_MS)
        waited += BUTTON_POLL_MS


def _sleep_ms(ms):
    import time

    if hasattr(time, "sleep_ms"):
        time.sleep_ms(ms)
    else:
        time.sleep(ms / 1000)


def boot(profile_path="board.json"):
    """The board's entry (main.py): safe boot, or the app until it ends or the board
    resets. Returns only to stay in the REPL, with why.

    Safe boot (no app, no watchdog, the REPL free for mpremote) when the SAFE_FLAG file
    exists, when the boot button is pressed during the first BOOT_WINDOW_MS, or when
    board.json cannot be read. Any exception but KeyboardInterrupt escaping the app is
    logged on flash and resets the board RESET_PAUSE_MS later (Ctrl-C in that pause still
    reaches the REPL); KeyboardInterrupt is never caught: mpremote's Ctrl-C must end in
    the REPL."""
    import json
    import os
    import sys

    try:
        os.stat(SAFE_FLAG)
        flag = True
    except OSError:
        flag = False
    try:
        with open(profile_path) as f:
            profile = json.load(f)
        mcu = profile.get("mcu")
    except Exception as e:  # (OSError, ValueError; never KeyboardInterrupt)
        log_to_flash(e)
        profile = mcu = None
    if mcu is None:
        mcu = "rp2040" if sys.platform == "rp2" else "esp32s3"
    try:
        button = boot_button(mcu)
    except Exception:  # no such module or pin on this port: no button to ask
        button = None
    why = safe_boot(flag, button, BOOT_WINDOW_MS, _sleep_ms)
    if why is None and profile is None:
        why = "no board profile"
    if why is not None:
        print("dialbox: safe boot (%s): the app is not started; the REPL is free" % why)
        return why
    try:
        import asyncio

        from dialbox_fw import app

        asyncio.run(app.run(BoardHal(profile)))
    except KeyboardInterrupt:
        raise  # Ctrl-C: to the REPL
    except Exception as e:
        log_to_flash(e)
        print("dialbox: %r: resetting" % (e,))
    _sleep_ms(RESET_PAUSE_MS)
    machine.reset()


class BoardHal:
    """Everything the app needs from the hardware, and nothing else (see hal/virtual.py)."""

    def __init__(self, profile):
        self.profile = profile
        driver = profile.get("encoder_driver", "irq")
        if driver == "pio":
            from dialbox_fw.hal import encoders_rp2

            self.encoders = encoders_rp2.make(profile)
        elif driver == "pcnt":
            from dialbox_fw.hal import encoders_esp32

            self.encoders = encoders_esp32.make(profile)
        else:
            from dialbox_fw.hal import encoders_irq

            self.irq_encoders = encoders_irq.make(profile, machine)
            self.encoders = self.irq_encoders
        btn = profile["button"]
        pull = Pin.PULL_UP if btn.get("pull", "up") == "up" else Pin.PULL_DOWN
        self.button = Pin(btn["pin"], Pin.IN, pull)
        self.active_low = btn.get("active_low", True)
        self.led_px = None
        led = profile.get("led")
        if led:
            import neopixel

            self.led_px = neopixel.NeoPixel(Pin(led["pin"]), led.get("count", 1))
            self.led_scale = led.get("brightness", 48)
        self.oled = None  # the app sets it to None too, once the display keeps failing
        o = profile.get("oled")
        if o:
            try:
                from dialbox_fw.hal.ssd1306 import Oled

                i2c = machine.I2C(o["i2c"], sda=Pin(o["sda"]), scl=Pin(o["scl"]), freq=o["freq"])
                self.oled = Oled(i2c, o["address"], o["width"], o["height"])
            except OSError:
                self.oled = None  # no display answering: run without it
        self.battery = None
        bat = profile.get("battery")
        if bat:
            self.battery = Battery(
                battery_reader(bat, profile.get("mcu")), bat.get("divider", 2), bat["low_mv"]
            )
        self.wdt = None
        self.logged = 0
        from dialbox_fw.hal.wifi import Wifi

        self.wifi = Wifi()

    def board_name(self):
        return self.profile["board"]

    def unique_id(self):
        import binascii

        return binascii.hexlify(machine.unique_id()).decode()

    def can_sense_battery(self):
        return self.battery is not None

    def battery_low(self):
        """Called every pass: the ADC is read only every BAT_EVERY_MS."""
        bat = self.battery
        if bat is None:
            return False
        return bat.update(ticks_ms())

    def log_error(self, e):
        """On flash (errors.log), the first LOG_MAX of each boot: stdout is the serial link,
        and the host hears of each fault anyway (an `error internal` frame)."""
        if self.logged < LOG_MAX:
            self.logged += 1
            log_to_flash(e)

    def reset(self):
        machine.reset()

    def feed(self):
        """Called by the app's main loop once a pass. The first call starts the hardware
        watchdog (so never in safe boot, nor before the app runs): from then on a pass
        must end, and feed it, within WDT_MS, or the board resets. It cannot be stopped
        again (RP2, ESP32), not even by Ctrl-C: `dialbox firmware deploy` therefore
        resets the board into safe boot before it copies (see boot())."""
        w = self.wdt
        if w is None:
            self.wdt = machine.WDT(timeout=WDT_MS)
        else:
            w.feed()

    def serial_stream(self):
        # Ctrl-C (0x03) is left on: it is how mpremote stops the app for a deploy, and it
        # can never come from the host inside a frame (a frame is printable ASCII and a
        # newline; the codec refuses anything else). See usb_cdc.py.
        from dialbox_fw.hal.usb_cdc import StdioStream

        return StdioStream()

    async def wifi_connect(self, ssid, psk, timeout_ms):
        return await self.wifi.connect(ssid, psk, timeout_ms)

    def poll(self, now):
        pass

    def take_detents(self, i):
        return self.encoders[i].take()

    def button_pressed(self):
        return self.button.value() == (0 if self.active_low else 1)

    def view(self, lines, colour, ctl):
        if self.led_px is not None:
            rgb = _hex_rgb(colour, self.led_scale)
            for i in range(len(self.led_px)):
                self.led_px[i] = rgb
            self.led_px.write()
        if self.oled is not None:
            self.oled.show(lines)
