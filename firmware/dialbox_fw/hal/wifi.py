"""Joining WiFi on a real board (network.WLAN), for the MQTT link.

connect() looks at the driver's state before it acts, and no WLAN call can make it raise:

- already connected: done;
- the driver is connecting already (the ESP32 driver reconnects by itself after a drop,
  and calling connect() then raises OSError ESP_ERR_WIFI_STATE; an RP2 that has joined
  and waits for DHCP reports 2, between STAT_CONNECTING and STAT_GOT_IP): wait for it,
  do not start another connect;
- a stale or failed association (an address without a link, wrong password, no AP):
  disconnect() first, then connect();
- any OSError from a WLAN call counts as "not connected yet": a refused connect() is
  waited on only if the driver says it is connecting anyway; a timed-out attempt
  disconnects, so the next one starts from a clean state.

The WiFi country (network.country, where the port has it) is set once, before the
interface is first activated; "" leaves the port's default.
"""

import asyncio

from dialbox_fw.core.clock import ticks_diff, ticks_ms

POLL_MS = 200

if hasattr(asyncio, "sleep_ms"):  # MicroPython

    def _sleep_ms(ms):
        return asyncio.sleep_ms(ms)

else:

    async def _sleep_ms(ms):
        await asyncio.sleep(ms / 1000)


class Wifi:
    """The station interface, created on first use. `network` may be given (tests)."""

    def __init__(self, network=None):
        self.net = network
        self.wlan = None
        self.country = ""  # ISO 3166 alpha-2 (config.json "country"); "" = port default
        self.country_done = False
        self.joins = 0  # connect() calls made to the driver (diagnostics, tests)
        self.errors = 0  # OSErrors the driver raised (diagnostics, tests)

    def active(self):
        try:
            return self.wlan is not None and bool(self.wlan.active())
        except OSError:
            return False

    def _network(self):
        if self.net is None:
            import network

            self.net = network
        return self.net

    def _set_country(self, net):
        if self.country_done or not self.country:
            return
        self.country_done = True
        setter = getattr(net, "country", None)
        if setter is None:
            return  # a port without network.country(): its default stays
        try:
            setter(self.country)
        except (OSError, ValueError, TypeError):
            self.errors += 1

    def _interface(self, net):
        """The station interface, active; None when the driver refused."""
        try:
            w = self.wlan
            if w is None:
                w = net.WLAN(net.STA_IF)
                self.wlan = w
            if not w.active():
                self._set_country(net)
                w.active(True)
            return w
        except OSError:
            self.errors += 1
            return None

    def _connected(self, w):
        try:
            return bool(w.isconnected())
        except OSError:
            self.errors += 1
            return False

    def _status(self, w):
        try:
            return w.status()
        except OSError:
            self.errors += 1
            return None

    def _busy(self, net, st):
        """The driver is on its way: connecting, or (RP2) joined and waiting for DHCP."""
        c = getattr(net, "STAT_CONNECTING", None)
        if st is None or c is None:
            return False
        if st == c:
            return True
        g = getattr(net, "STAT_GOT_IP", None)
        return g is not None and c < st < g

    def _call(self, method, *args):
        try:
            method(*args)
            return True
        except OSError:
            self.errors += 1
            return False

    async def connect(self, ssid, psk, timeout_ms):
        """True once connected (within timeout_ms), else False. Never raises Exception."""
        try:
            net = self._network()
        except ImportError:
            return False
        w = self._interface(net)
        if w is None:
            return False
        if self._connected(w):
            return True
        st = self._status(w)
        if not self._busy(net, st):
            if st is not None and st != getattr(net, "STAT_IDLE", None):
                self._call(w.disconnect)  # stale or failed association: drop it first
            self.joins += 1
            if not self._call(w.connect, ssid, psk) and not self._busy(net, self._status(w)):
                return False  # refused, and nothing under way: the caller backs off
        t0 = ticks_ms()
        while ticks_diff(ticks_ms(), t0) < timeout_ms:
            if self._connected(w):
                return True
            await _sleep_ms(POLL_MS)
        if self._connected(w):
            return True
        self._call(w.disconnect)  # the next attempt starts from a clean state
        return False
