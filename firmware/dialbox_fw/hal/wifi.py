"""Joining WiFi on a real board (network.WLAN), for the MQTT link."""

import asyncio

from dialbox_fw.core.clock import ticks_diff, ticks_ms


class Wifi:
    """The station interface, created on first use."""

    def __init__(self):
        self.wlan = None

    def active(self):
        return self.wlan is not None and self.wlan.active()

    async def connect(self, ssid, psk, timeout_ms):
        import network

        if self.wlan is None:
            self.wlan = network.WLAN(network.STA_IF)
        w = self.wlan
        if w.isconnected():
            return True
        w.active(True)
        w.connect(ssid, psk)
        t0 = ticks_ms()
        while ticks_diff(ticks_ms(), t0) < timeout_ms:
            if w.isconnected():
                return True
            await asyncio.sleep(0.2)
        w.disconnect()
        return False
