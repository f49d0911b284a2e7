"""The HAL of a real board, built from its profile: encoders, button, LED, OLED, USB, WiFi."""

import machine
import micropython
from machine import Pin

from dialbox_fw.core.clock import ticks_diff, ticks_ms


def _hex_rgb(colour, scale):
    v = int(colour, 16)
    return (((v >> 16) & 255) * scale >> 8, ((v >> 8) & 255) * scale >> 8, (v & 255) * scale >> 8)


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
        self.oled = None
        o = profile.get("oled")
        if o:
            try:
                from dialbox_fw.hal.ssd1306 import Oled

                i2c = machine.I2C(o["i2c"], sda=Pin(o["sda"]), scl=Pin(o["scl"]), freq=o["freq"])
                self.oled = Oled(i2c, o["address"], o["width"], o["height"])
            except OSError:
                self.oled = None  # no display answering: run without it
        self.adc = None
        bat = profile.get("battery")
        if bat:
            self.adc = machine.ADC(bat["adc_pin"])
            self.bat = bat
        self.bat_low = False
        self.bat_at = ticks_ms()
        from dialbox_fw.hal.wifi import Wifi

        self.wifi = Wifi()

    def board_name(self):
        return self.profile["board"]

    def unique_id(self):
        import binascii

        return binascii.hexlify(machine.unique_id()).decode()

    def can_sense_battery(self):
        return self.adc is not None

    def battery_low(self):
        if self.adc is None:
            return False
        if self.bat.get("wifi_shared") and self.wifi.active():
            return self.bat_low  # the ADC pin is the WiFi chip's clock while WiFi is on
        now = ticks_ms()
        if ticks_diff(now, self.bat_at) > 10000:
            self.bat_at = now
            mv = self.adc.read_u16() * 3300 * self.bat["divider"] // 65535
            self.bat_low = mv < self.bat["low_mv"]
        return self.bat_low

    def log_error(self, e):
        pass  # no one to tell: the OLED keeps showing the state

    def reset(self):
        machine.reset()

    def serial_stream(self):
        from dialbox_fw.hal.usb_cdc import StdioStream

        micropython.kbd_intr(-1)  # a 0x03 byte in a frame must not interrupt the firmware
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
