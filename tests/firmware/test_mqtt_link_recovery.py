"""The WiFi/MQTT link comes back after any drop (issue 16), on CPython and the unix port.

A scripted WiFi driver (mp_fake_wlan: connect() raises ESP_ERR_WIFI_STATE while the driver
is reconnecting by itself, as the ESP32's does) and a real Mosquitto that is stopped and
started again. The link must keep retrying, come back, and print nothing: stdout is the
serial link. Delays are checked as the values the link asked to sleep, never as wall time.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dialbox.paths import micropython_binary, micropython_path
from dialbox.processes import stop_process
from tests.firmware.broker import Mosquitto, Observer
from tests.firmware.mp_fake_wlan import (
    STAT_CONNECTING,
    STAT_GOT_IP,
    FakeNetwork,
    NoCountryNetwork,
    Rp2Network,
)

HERE = Path(__file__).parent


@pytest.fixture
def fast_wifi(monkeypatch: pytest.MonkeyPatch) -> Any:
    from dialbox_fw.hal import wifi

    monkeypatch.setattr(wifi, "POLL_MS", 1)  # polls, not seconds: the fake counts polls
    return wifi


def run(coro: Any) -> Any:
    return asyncio.run(coro)


# ------------------------------------------------------------------ hal/wifi.py on its own


def test_a_driver_already_connecting_is_waited_for_not_asked_again(fast_wifi: Any) -> None:
    net = FakeNetwork()
    w = fast_wifi.Wifi(net)
    assert run(w.connect("den", "pw", 5000))
    net.wlan.drop(reconnecting=True, polls=5)  # ESP32: the driver reconnects by itself
    assert run(w.connect("den", "pw", 5000))
    assert net.wlan.calls.count("connect") == 1  # a second connect() would have raised
    assert w.errors == 0


def test_an_rp2_waiting_for_its_address_is_not_interrupted(fast_wifi: Any) -> None:
    net = Rp2Network()
    w = fast_wifi.Wifi(net)
    assert run(w.connect("den", "pw", 5000))
    wlan = net.wlan
    wlan.connected = False
    wlan.st = Rp2Network.LINK_NOIP  # joined, DHCP under way
    wlan.up_at = wlan.polls + 4
    assert run(w.connect("den", "pw", 5000))
    assert wlan.calls == ["active", "connect"]  # no disconnect, no second connect


def test_connect_raising_oserror_is_survived_and_retried(fast_wifi: Any) -> None:
    net = FakeNetwork()
    net.wlan.fail_connects = 1  # ESP_ERR_WIFI_STATE
    w = fast_wifi.Wifi(net)
    assert run(w.connect("den", "pw", 60000)) is False  # no exception, and no long wait:
    assert net.wlan.calls == ["active", "connect"]  # nothing was under way
    assert run(w.connect("den", "pw", 5000))
    assert w.errors == 1


def test_an_attempt_that_times_out_leaves_the_driver_clean(fast_wifi: Any) -> None:
    net = FakeNetwork()
    net.wlan.join_polls = 10**9  # never gets there
    w = fast_wifi.Wifi(net)
    assert run(w.connect("den", "pw", 20)) is False
    assert net.wlan.calls == ["active", "connect", "disconnect"]
    net.wlan.join_polls = 3
    assert run(w.connect("den", "pw", 5000))  # from IDLE: a plain connect()
    assert net.wlan.calls[3:] == ["connect"]


def test_a_stale_association_is_dropped_before_connecting_again(fast_wifi: Any) -> None:
    net = FakeNetwork()
    w = fast_wifi.Wifi(net)
    assert run(w.connect("den", "pw", 5000))
    net.wlan.connected = False  # an address left over, no link
    assert net.wlan.st == STAT_GOT_IP
    before = len(net.wlan.calls)
    assert run(w.connect("den", "pw", 5000))
    assert net.wlan.calls[before:] == ["disconnect", "connect"]


def test_a_lost_access_point_is_joined_again(fast_wifi: Any) -> None:
    net = FakeNetwork()
    w = fast_wifi.Wifi(net)
    assert run(w.connect("den", "pw", 5000))
    net.wlan.drop(reconnecting=False)
    before = len(net.wlan.calls)
    assert run(w.connect("den", "pw", 5000))
    assert net.wlan.calls[before:] == ["disconnect", "connect"]


def test_every_wlan_call_failing_never_raises(fast_wifi: Any) -> None:
    net = FakeNetwork()
    net.wlan.fail_everything = 1000
    w = fast_wifi.Wifi(net)
    for _ in range(3):
        assert run(w.connect("den", "pw", 20)) is False
    assert w.active() is False
    net.wlan.fail_everything = 0
    assert run(w.connect("den", "pw", 5000))


def test_the_country_is_set_once_before_the_interface_starts(fast_wifi: Any) -> None:
    net = FakeNetwork()
    w = fast_wifi.Wifi(net)
    w.country = "DE"
    assert run(w.connect("den", "pw", 5000))
    net.wlan.on = False  # switched off (e.g. by a power-saving driver) ...
    assert run(w.connect("den", "pw", 5000))  # ... and on again: no second country call
    assert net.order == ["country:DE", "active", "active"]
    other = NoCountryNetwork()  # a port without network.country(): left as it is
    w2 = fast_wifi.Wifi(other)
    w2.country = "DE"
    assert run(w2.connect("den", "pw", 5000))
    assert other.order == ["active"]


def test_no_country_configured_leaves_the_default(fast_wifi: Any) -> None:
    net = FakeNetwork()
    assert run(fast_wifi.Wifi(net).connect("den", "pw", 5000))
    assert net.order == ["active"]


# ------------------------------------------------------------------ backoff and client id


def _cfg(**kw: Any) -> dict[str, Any]:
    cfg = {"device": "", "colour": "", "ssid": "", "psk": "", "broker": "127.0.0.1",
           "port": 1883, "user": "", "password": "", "table": "t9", "key": ""}
    cfg.update(kw)
    return cfg


def _delays(seed: int, n: int) -> list[int]:
    from dialbox_fw.transports.mqtt_link import MqttLink

    link = MqttLink(_cfg(), "ctl", object(), seed=seed)
    return [link.next_delay() for _ in range(n)]


def test_backoff_doubles_to_the_cap_with_jitter_in_the_upper_half() -> None:
    from dialbox_fw.transports.mqtt_link import BACKOFF_MAX_MS, BACKOFF_MIN_MS

    bounds = [min(BACKOFF_MIN_MS << i, BACKOFF_MAX_MS) for i in range(12)]
    assert bounds[0] == 500 and bounds[-1] == 30000
    runs = {seed: _delays(seed, 12) for seed in range(1, 41)}
    for delays in runs.values():
        for d, b in zip(delays, bounds, strict=True):
            assert b // 2 <= d <= b, (d, b)
    # different controllers (seeds) wait differently: no lock-step after a broker restart
    for i in range(12):
        assert len({delays[i] for delays in runs.values()}) > 20
    assert _delays(7, 12) == runs[7]  # and the same seed repeats exactly


def test_the_seed_differs_between_controllers_without_being_given() -> None:
    from dialbox_fw.transports.mqtt_link import MqttLink

    firsts = {MqttLink(_cfg(), f"ctl-{i}", object()).next_delay() for i in range(30)}
    assert len(firsts) > 10


def test_client_ids_are_at_most_23_letters_and_digits_and_stable() -> None:
    from dialbox_fw.transports.mqtt_link import client_id

    uids = ["alice", "e6614c311b4f2a24", "a" * 21, "a" * 22, "alice-1", "alice_1", "alice.1",
            "controller-with-a-long-name-32ch", "x", "ab-" * 10, "0123456789abcdef0123"]
    ids = [client_id(u) for u in uids]
    for u, c in zip(uids, ids, strict=True):
        assert 1 <= len(c) <= 23 and c.isalnum() and c.isascii(), (u, c)
        assert client_id(u) == c
    assert len(set(ids)) == len(ids)
    assert client_id("alice") == "dbalice"  # a short plain uid stays readable
    assert client_id("e6614c311b4f2a24") == "dbe6614c311b4f2a24"
    assert client_id("alice-1").startswith("dbalice1")
    # the same ids on the controller's own runtime
    env = dict(os.environ, MICROPYPATH=micropython_path())
    code = ("from dialbox_fw.transports.mqtt_link import client_id\n"
            f"for u in {uids!r}:\n    print(client_id(u))\n")
    mp = subprocess.run([micropython_binary(), "-c", code], capture_output=True, text=True,
                        env=env, check=True)
    assert mp.stdout.split() == ids


# ------------------------------------------------------------------ the link, end to end


class FakeCtl:
    def __init__(self) -> None:
        self.lost = 0

    def link_lost(self) -> None:
        self.lost += 1


class FakeApp:
    def __init__(self) -> None:
        self.ctl = FakeCtl()
        self.active: Any = None
        self.frames: list[Any] = []

    def handle(self, msg: Any, now: int, link: Any) -> None:
        self.frames.append(msg)


class FakeHal:
    """What MqttLink needs of a board: wifi_connect (the real hal/wifi.py on a fake
    driver), log_error."""

    def __init__(self, wifi: Any) -> None:
        self.wifi = wifi
        self.errors: list[BaseException] = []

    async def wifi_connect(self, ssid: str, psk: str, timeout_ms: int) -> bool:
        result: bool = await self.wifi.connect(ssid, psk, timeout_ms)
        return result

    def log_error(self, e: BaseException) -> None:
        self.errors.append(e)


async def until(cond: Callable[[], bool], what: str, timeout: float = 30,
                extra: Callable[[], object] = lambda: "") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not cond():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}: {extra()}")
        await asyncio.sleep(0.01)


def test_the_link_survives_wifi_errors_and_a_broker_restart(
    broker: Mosquitto, fast_wifi: Any, capfd: pytest.CaptureFixture[str]
) -> None:
    from dialbox_fw.transports.mqtt_link import BACKOFF_MIN_MS, MqttLink

    net = FakeNetwork()
    wlan = net.wlan
    wlan.fail_connects = 2  # the first joins: ESP_ERR_WIFI_STATE
    hal = FakeHal(fast_wifi.Wifi(net))
    asked: list[int] = []
    resolved: list[str] = []

    async def sleep_ms(ms: int) -> None:
        asked.append(ms)
        await asyncio.sleep(0.02)  # the value is what is checked, not the wait

    def resolver(host: str, port: int) -> str:
        resolved.append(host)
        return "127.0.0.1"

    cfg = _cfg(ssid="den", psk="pw", broker="broker.test", port=broker.port, country="DE")
    link = MqttLink(cfg, "ctl-recover", hal, seed=11, sleep_ms=sleep_ms, resolver=resolver)
    app = FakeApp()
    app.active = link
    obs = Observer(broker.port, [link.status_topic])

    async def scenario() -> None:
        task = asyncio.create_task(link.run(app))
        try:
            await until(lambda: link.connects == 1, "the first connection",
                        extra=lambda: (link.failures, link.last_error, wlan.calls))
            await asyncio.to_thread(obs.wait, link.status_topic, b"online")
            joins = wlan.calls.count("connect")
            failed = link.failures
            # WiFi drops (the driver reconnects by itself) and the broker goes away
            wlan.drop(reconnecting=True, polls=20)
            await asyncio.to_thread(broker.stop)
            await until(lambda: app.ctl.lost == 1, "the loss noticed")
            await until(lambda: link.failures >= failed + 2, "attempts with the broker down")
            assert wlan.st == STAT_GOT_IP  # the driver got there by itself ...
            assert wlan.calls.count("connect") == joins  # ... without another connect()
            await asyncio.to_thread(broker.start)
            await until(lambda: link.connects == 2, "the link back")
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await link.client.close()

    try:
        run(scenario())
        # the observer reconnects by itself and sees the retained status come back
        obs.wait(link.status_topic, b"online")
    finally:
        obs.close()
    assert wlan.calls.count("connect") == 3  # two refused, one that joined
    assert net.order[0] == "country:DE"
    # every wait was jittered within [backoff/2, backoff]; the backoff doubled while the
    # broker was down and started again from 0.5 s after each connection
    assert asked and all(BACKOFF_MIN_MS // 2 <= d <= 30000 for d in asked)
    assert len(asked) >= 4
    # the broker's name was looked up once, then again only after connects failed
    assert resolved[0] == "broker.test" and len(resolved) <= 1 + link.failures
    out, err = capfd.readouterr()
    assert out == ""  # stdout is the serial link: nothing may appear there
    assert "Traceback" not in err and "exception" not in err.lower()
    # failures went to hal.log_error (nothing on a board), once per kind in a row
    assert hal.errors and all(type(e).__name__ == "MqttError" for e in hal.errors)


def test_dns_is_looked_up_once_and_again_only_after_a_failed_connect(broker: Mosquitto) -> None:
    from dialbox_fw.transports.mqtt import MqttClient, MqttError

    looked_up: list[str] = []

    def resolver(host: str, port: int) -> str:
        looked_up.append(host)
        return "127.0.0.1"

    async def scenario() -> None:
        c = MqttClient("dbdns", "broker.test", broker.port, resolver=resolver)
        await c.connect()
        await c.close()
        await c.connect()  # a reconnect after a loss: the kept address
        await c.close()
        assert looked_up == ["broker.test"]
        await asyncio.to_thread(broker.stop)
        with pytest.raises(MqttError):
            await c.connect(timeout=2)
        await asyncio.to_thread(broker.start)
        await c.connect()  # after a failure the name is looked up again
        await c.close()
        assert looked_up == ["broker.test", "broker.test"]
        ip = MqttClient("dbip", "127.0.0.1", broker.port, resolver=resolver)
        await ip.connect()  # an IP literal is never looked up
        await ip.close()
        assert looked_up == ["broker.test", "broker.test"]

    run(scenario())


def test_the_real_resolver_reads_addresses_on_cpython() -> None:
    from dialbox_fw.transports.mqtt import is_ip, resolve

    assert resolve("localhost", 1883) == "127.0.0.1"  # IPv4 preferred over ::1
    assert is_ip("192.168.1.10") and is_ip("::1") and not is_ip("broker.lan")


def test_a_failing_receive_path_does_not_take_the_connection_down() -> None:
    from dialbox_fw.transports.mqtt_link import MqttLink

    class BrokenApp(FakeApp):
        def handle(self, msg: Any, now: int, link: Any) -> None:
            raise ValueError("a bug in the app")

    hal = FakeHal(None)
    link = MqttLink(_cfg(), "ctl", hal, seed=1)
    link.app = BrokenApp()
    link.on_message(link.down_topic, b'["ping",0,1]00000000\n', False)  # no exception
    assert link.failures == 1 and isinstance(hal.errors[0], ValueError)


# ------------------------------------------------------------------ the unix port


@pytest.mark.micropython
def test_the_link_survives_wifi_errors_and_a_broker_restart_on_micropython(
    broker: Mosquitto,
) -> None:
    """The same on the MicroPython unix port, where an exception escaping a task is printed
    on stdout ("Task exception wasn't retrieved"): stdout must stay empty."""
    env = dict(os.environ, MICROPYPATH=micropython_path())
    proc = subprocess.Popen(
        [micropython_binary(), str(HERE / "mp_link_recovery.py"), str(broker.port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
    )
    seen: list[str] = []
    try:
        assert proc.stderr is not None
        for line in proc.stderr:
            line = line.strip()
            seen.append(line)
            if line == "up 1":
                broker.stop()
            elif line == "retrying":
                broker.start()
            elif line.startswith("done"):
                break
        out, _ = proc.communicate(timeout=30)
    finally:
        stop_process(proc, 5)
    assert seen and seen[-1].startswith("done"), seen
    assert out == "", out
    _, connects, joins, lost, resolves = seen[-1].split()
    assert int(connects) == 2 and int(joins) == 3 and int(lost) == 1
    assert int(resolves) >= 1
    delays = [int(x) for line in seen if line.startswith("delay") for x in line.split()[1:]]
    assert delays and all(250 <= d <= 30000 for d in delays)
    assert not any("Traceback" in line for line in seen), seen
    assert STAT_CONNECTING != STAT_GOT_IP


def test_running_out_of_heap_mid_packet_drops_the_connection_and_makes_room() -> None:
    from dialbox_fw.transports.mqtt import MqttClient

    class Starving:
        async def read(self, n: int) -> bytes:
            raise MemoryError("memory allocation failed, allocating 1024 bytes")

    seen: list[BaseException] = []
    closed: list[bool] = []
    c = MqttClient("dboom", "127.0.0.1", 1, on_oom=seen.append,
                   on_close=lambda: closed.append(True))
    c.reader = Starving()
    c.connected = True
    asyncio.run(c._read_loop())
    assert len(seen) == 1 and isinstance(seen[0], MemoryError)
    assert not c.connected and closed == [True]
