"""Run under the MicroPython unix port: MqttLink through WiFi errors and a broker restart.

usage: mp_link_recovery.py PORT. Reports on stderr, one line per step ("up 1", "lost",
"retrying", "delay MS ...", "done CONNECTS JOINS LOST RESOLVES"); the test stops the broker
on "up 1" and starts it again on "retrying". stdout must stay empty: on a board it is the serial
link, and MicroPython prints an exception that escapes a task there.
"""

import asyncio
import sys

from dialbox_fw.hal import wifi as wifimod
from dialbox_fw.transports.mqtt_link import MqttLink
from mp_fake_wlan import FakeNetwork

wifimod.POLL_MS = 1
port = int(sys.argv[1])
net = FakeNetwork()
wlan = net.wlan
wlan.fail_connects = 2  # ESP_ERR_WIFI_STATE on the first joins


def say(text):
    sys.stderr.write(text + "\n")


class Hal:
    def __init__(self):
        self.wifi = wifimod.Wifi(net)

    async def wifi_connect(self, ssid, psk, timeout_ms):
        return await self.wifi.connect(ssid, psk, timeout_ms)

    def log_error(self, e):
        say("log_error %r" % (e,))


class Ctl:
    lost = 0

    def link_lost(self):
        self.lost += 1


class App:
    def __init__(self):
        self.ctl = Ctl()
        self.active = None

    def handle(self, msg, now, link):
        pass


asked = []
looked_up = []


async def sleep_ms(ms):
    asked.append(ms)
    await asyncio.sleep_ms(20)


def resolver(host, p):
    looked_up.append(host)
    return "127.0.0.1"


cfg = {
    "ssid": "den",
    "psk": "pw",
    "broker": "broker.test",
    "port": port,
    "user": "",
    "password": "",
    "table": "t9",
    "country": "DE",
}
hal = Hal()
link = MqttLink(cfg, "mp-recover", hal, seed=5, sleep_ms=sleep_ms, resolver=resolver)
app = App()
app.active = link


async def wait(cond):
    while not cond():
        await asyncio.sleep_ms(5)


async def main():
    asyncio.create_task(link.run(app))
    await wait(lambda: link.connects == 1)
    failed = link.failures
    wlan.drop(True, 20)  # the driver reconnects by itself: connect() would raise
    say("up 1")  # the test stops the broker
    await wait(lambda: app.ctl.lost == 1)
    say("lost")
    await wait(lambda: link.failures >= failed + 2)
    say("retrying")  # the test starts the broker again
    await wait(lambda: link.connects == 2)
    say("delay " + " ".join(str(d) for d in asked))
    say(
        "done %d %d %d %d"
        % (link.connects, wlan.calls.count("connect"), app.ctl.lost, len(looked_up))
    )


asyncio.run(main())
