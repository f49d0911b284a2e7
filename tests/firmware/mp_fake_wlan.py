"""A scripted stand-in for MicroPython's `network` module (ESP32 flavour), for CPython and
the MicroPython unix port alike: what hal/wifi.py sees of a WiFi driver.

Like the ESP32 driver, connect() raises OSError (ESP_ERR_WIFI_STATE) while the driver is
already connecting, and after a drop the driver reconnects by itself (status CONNECTING).
Time is counted in isconnected() polls, never in wall time.
"""

STA_IF = 0
STAT_IDLE = 1000
STAT_CONNECTING = 1001
STAT_GOT_IP = 1010
STAT_NO_AP_FOUND = 201
ESP_ERR_WIFI_STATE = 0x3007


class FakeWlan:
    def __init__(self, net):
        self.net = net
        self.on = False
        self.connected = False
        self.st = net.STAT_IDLE
        self.polls = 0
        self.up_at = None  # the poll count at which the association completes
        self.join_polls = 3  # polls from connect() to connected
        self.fail_connects = 0  # connect() calls still to refuse with OSError
        self.fail_everything = 0  # WLAN calls (any) still to refuse with OSError
        self.calls = []  # "connect", "disconnect", "active" in order

    def _maybe_fail(self):
        if self.fail_everything:
            self.fail_everything -= 1
            raise OSError(ESP_ERR_WIFI_STATE)

    def active(self, value=None):
        self._maybe_fail()
        if value is None:
            return self.on
        self.calls.append("active")
        self.net.order.append("active")
        self.on = bool(value)
        return None

    def status(self):
        self._maybe_fail()
        return self.st

    def isconnected(self):
        self._maybe_fail()
        self.polls += 1
        if self.up_at is not None and self.polls >= self.up_at:
            self.up_at = None
            self.connected = True
            self.st = self.net.STAT_GOT_IP
        return self.connected

    def connect(self, ssid, psk):
        self.calls.append("connect")
        self._maybe_fail()
        if self.st == self.net.STAT_CONNECTING:  # what the ESP32 driver does
            raise OSError(ESP_ERR_WIFI_STATE)
        if self.fail_connects:
            self.fail_connects -= 1
            raise OSError(ESP_ERR_WIFI_STATE)
        self.st = self.net.STAT_CONNECTING
        self.up_at = self.polls + self.join_polls

    def disconnect(self):
        self.calls.append("disconnect")
        self._maybe_fail()
        self.connected = False
        self.up_at = None
        self.st = self.net.STAT_IDLE

    def drop(self, reconnecting=True, polls=3):
        """The access point went away. With `reconnecting` the driver is at it again by
        itself (connected `polls` polls later); without, it reports no AP and waits."""
        self.connected = False
        if reconnecting:
            self.st = self.net.STAT_CONNECTING
            self.up_at = self.polls + polls
        else:
            self.st = self.net.STAT_NO_AP_FOUND
            self.up_at = None


class FakeNetwork:
    """Module-shaped: network.WLAN(network.STA_IF), network.country(), STAT_* names."""

    STA_IF = STA_IF
    STAT_IDLE = STAT_IDLE
    STAT_CONNECTING = STAT_CONNECTING
    STAT_GOT_IP = STAT_GOT_IP
    STAT_NO_AP_FOUND = STAT_NO_AP_FOUND

    def __init__(self):
        self.order = []  # "country:XX" and "active" in the order they happened
        self.wlan = FakeWlan(self)

    def WLAN(self, iface):
        return self.wlan

    def country(self, cc=None):
        if cc is not None:
            self.order.append("country:" + cc)
        return cc


class Rp2Network(FakeNetwork):
    """The RP2 (CYW43) numbering: 2 = joined, waiting for an address (no STAT_ name)."""

    STAT_IDLE = 0
    STAT_CONNECTING = 1
    STAT_GOT_IP = 3
    STAT_NO_AP_FOUND = -2
    LINK_NOIP = 2


class NoCountryNetwork(FakeNetwork):
    """A port without network.country()."""

    country = None
