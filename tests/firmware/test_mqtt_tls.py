"""MQTT over TLS to a real Mosquitto with the generated config (issue 16).

`dialbox broker config --tls-names` makes a private CA and the broker's certificate; the
controller holds the CA as ca.der and verifies the broker's certificate and name on both
runtimes. The tests connect the firmware's own client and the whole simulated controller
(CPython and the MicroPython unix port) over TLS and exchange frames, and show that a
broker with a certificate from another CA, or a name the certificate does not carry, is
refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as paho
import pytest

from dialbox.broker import write_broker_config
from dialbox.broker.certs import make_tls
from dialbox.broker.mosquitto import BrokerFiles
from dialbox.paths import micropython_binary, micropython_path
from dialbox.processes import stop_process
from dialbox.sim import MqttSettings, SimController
from dialbox_protocol import codec
from tests.firmware.broker import free_port

HERE = Path(__file__).parent
TABLE = "t9"
CHALLENGE = codec.b64(bytes(16))
TLS_HEAP = "160k"


@dataclass
class TlsBroker:
    files: BrokerFiles
    port: int
    tls_port: int
    proc: subprocess.Popen[bytes]

    @property
    def ca_crt(self) -> Path:
        assert self.files.tls is not None
        return self.files.tls.ca_cert

    @property
    def ca_der(self) -> Path:
        assert self.files.tls is not None
        return self.files.tls.ca_der


def _wait_tcp(port: int, log: Path) -> None:
    import socket

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"mosquitto did not listen on {port}: {log.read_text()}")


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[TlsBroker]:
    """Mosquitto with `dialbox broker config`'s files: a plain and a TLS listener, both on
    ephemeral ports, a generated CA and server certificate; stopped by pid afterwards."""
    port, tls_port = free_port(), free_port()
    files = write_broker_config(tmp_path / "broker", {TABLE: ["ctl-t", "sim-t"]}, port=port,
                                bind="127.0.0.1", tls_port=tls_port, tls_names=[])
    log = tmp_path / "mosquitto.log"
    with open(log, "ab") as out:
        proc = subprocess.Popen(["/usr/sbin/mosquitto", "-c", str(files.conf)], stdout=out,
                                stderr=subprocess.STDOUT)
    try:
        _wait_tcp(port, log)
        _wait_tcp(tls_port, log)
        yield TlsBroker(files, port, tls_port, proc)
    finally:
        stop_process(proc, 5)


class TlsHost:
    """The host's side of one controller's topics, over TLS as the `host` user (paho)."""

    def __init__(self, b: TlsBroker, uid: str) -> None:
        base = f"dialbox/{TABLE}/dev/{uid}/"
        self.up, self.down, self.status = base + "up", base + "down", base + "status"
        self.messages: list[tuple[str, bytes]] = []
        self.cond = threading.Condition()
        self.client = paho.Client(paho.CallbackAPIVersion.VERSION2)
        self.client.tls_set(ca_certs=str(b.ca_crt))  # the daemon's `[mqtt] tls_ca`
        self.client.username_pw_set("host", b.files.credentials["host"])
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.connect("localhost", b.tls_port)
        self.client.loop_start()
        self.seq = 0

    def _on_connect(self, client: Any, *_: Any) -> None:
        client.subscribe([(self.up, 0), (self.status, 1)])

    def _on_message(self, _c: Any, _u: Any, msg: Any) -> None:
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload)))
            self.cond.notify_all()

    def wait(self, topic: str, pred: Any, timeout: float = 30) -> bytes:
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for t, p in self.messages:
                    if t == topic and pred(p):
                        return p
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"nothing matching on {topic}; got {self.messages}")
                self.cond.wait(left)

    def frames(self) -> list[dict[str, Any]]:
        with self.cond:
            payloads = [p for t, p in self.messages if t == self.up]
        out = []
        for p in payloads:
            for line in p.split(b"\n")[:-1]:
                msg = codec.decode_frame(line + b"\n")
                assert isinstance(msg, dict), msg
                out.append(msg)
        return out

    def expect(self, name: str, **fields: Any) -> dict[str, Any]:
        def has(_p: bytes) -> bool:
            return any(m["t"] == name and all(m[k] == v for k, v in fields.items())
                       for m in self.frames())

        self.wait(self.up, has)
        return next(m for m in self.frames()
                    if m["t"] == name and all(m[k] == v for k, v in fields.items()))

    def send(self, name: str, args: list[Any]) -> None:
        seq = 0
        if codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        self.client.publish(self.down, codec.encode(name, seq, args), qos=0)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


# ------------------------------------------------------------------ generated files


def test_generated_broker_config_offers_tls_with_a_private_ca(tls_broker: TlsBroker) -> None:
    files = tls_broker.files
    assert files.tls is not None
    conf = files.conf.read_text()
    assert f"listener {tls_broker.tls_port} 127.0.0.1" in conf
    assert f"certfile {files.tls.cert}" in conf and f"keyfile {files.tls.key}" in conf
    assert conf.count("use_username_as_clientid true") == 2  # on both listeners
    assert files.tls.key.stat().st_mode & 0o077 == 0
    assert files.tls.ca_key.stat().st_mode & 0o077 == 0
    assert files.tls.names == ("localhost", "127.0.0.1")
    text = subprocess.run(["openssl", "x509", "-in", str(files.tls.cert), "-noout", "-text"],
                          capture_output=True, text=True, check=True).stdout
    assert "DNS:localhost" in text and "IP Address:127.0.0.1" in text
    assert "TLS Web Server Authentication" in text and "CA:FALSE" in text
    # valid for a controller whose clock never was set (RP2: 2021, ESP32: 2000)
    assert "Not Before: Jan  1 00:00:00 1990 GMT" in text
    verify = subprocess.run(["openssl", "verify", "-CAfile", str(files.tls.ca_cert),
                             str(files.tls.cert)], capture_output=True, text=True, check=False)
    assert verify.returncode == 0, verify.stderr


def test_running_the_generator_again_keeps_the_ca(tmp_path: Path) -> None:
    first = make_tls(tmp_path / "tls", ["broker.lan"])
    ca = first.ca_der.read_bytes()
    cert = first.cert.read_bytes()
    again = make_tls(tmp_path / "tls", ["broker.lan", "192.168.1.10"])
    assert again.ca_der.read_bytes() == ca  # the controllers' ca.der stays valid
    assert again.cert.read_bytes() != cert
    assert again.names == ("localhost", "broker.lan", "127.0.0.1", "192.168.1.10")
    with pytest.raises(ValueError, match="not a host name"):
        make_tls(tmp_path / "tls", ["bad name"])


def test_broker_config_cli_generates_tls(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from dialbox.cli import main

    out = tmp_path / "b"
    assert main(["broker", "config", "--out", str(out), "--table", "t1=ctl-a",
                 "--tls-names", "broker.lan,192.168.1.10"]) == 0
    text = capsys.readouterr().out
    assert f"{out / 'tls' / 'ca.der'}" in text and "--mqtt-port 8883" in text
    assert "listener 8883 0.0.0.0" in (out / "mosquitto.conf").read_text()
    assert main(["broker", "config", "--out", str(out), "--table", "t1=ctl-a",
                 "--tls-names", "x", "--tls-cert", "c", "--tls-key", "k"]) == 2


# ------------------------------------------------------------------ the firmware's client


def _client_roundtrip(b: TlsBroker, host_name: str, ca: Path) -> str:
    """Connect the firmware's client (CPython) as ctl-t over TLS; publish up, get a down
    message back from the host. Returns "echo ..." or "refused ..."."""
    from dialbox_fw.transports.mqtt import MqttClient, MqttError, tls_context

    host = TlsHost(b, "ctl-t")
    inbox: list[bytes] = []

    async def scenario() -> str:
        c = MqttClient("dbtls", host_name, b.tls_port, "ctl-t", b.files.credentials["ctl-t"],
                       on_message=lambda t, p, r: inbox.append(p), ssl=tls_context(str(ca)),
                       resolver=lambda h, p: "127.0.0.1")
        try:
            await c.connect(timeout=5)
        except MqttError as e:
            return f"refused {e}"
        try:
            await c.subscribe(host.down, 0)
            await c.publish(host.up, b"hello over tls", qos=0)
            await asyncio.to_thread(host.wait, host.up, lambda p: p == b"hello over tls")
            host.client.publish(host.down, b"and back", qos=0)
            for _ in range(500):
                if inbox:
                    return "echo " + inbox[0].decode()
                await asyncio.sleep(0.02)
            return "no echo"
        finally:
            await c.disconnect()

    try:
        return asyncio.run(scenario())
    finally:
        host.close()


@pytest.fixture
def other_ca(tmp_path: Path) -> Path:
    return make_tls(tmp_path / "other-ca", []).ca_der


def test_cpython_client_talks_tls_and_verifies_the_broker(tls_broker: TlsBroker,
                                                          other_ca: Path) -> None:
    assert _client_roundtrip(tls_broker, "localhost", tls_broker.ca_der) == "echo and back"
    assert _client_roundtrip(tls_broker, "127.0.0.1", tls_broker.ca_der) == "echo and back"
    wrong_ca = _client_roundtrip(tls_broker, "localhost", other_ca)
    assert wrong_ca.startswith("refused") and "CERTIFICATE_VERIFY_FAILED" in wrong_ca
    wrong_name = _client_roundtrip(tls_broker, "impostor.test", tls_broker.ca_der)
    assert wrong_name.startswith("refused") and "impostor.test" in wrong_name


def _mp_tls(b: TlsBroker, host_name: str, ca: Path) -> list[str]:
    env = dict(os.environ, MICROPYPATH=micropython_path())
    proc = subprocess.Popen(
        [micropython_binary(), str(HERE / "mp_tls.py"), str(b.tls_port), str(ca), "ctl-t",
         b.files.credentials["ctl-t"], "ok", host_name],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    host = TlsHost(b, "ctl-t")
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line.strip())
        lines.put("<eof>")

    threading.Thread(target=read, daemon=True).start()
    seen: list[str] = []
    try:
        while True:
            line = lines.get(timeout=30)
            seen.append(line)
            if line == "published":
                host.wait(host.up, lambda p: p == b"hello over tls")
                host.client.publish(host.down, b"and back", qos=0)
            if line == "<eof>":
                return seen
    finally:
        host.close()
        stop_process(proc, 5)


@pytest.mark.micropython
def test_micropython_client_talks_tls_and_verifies_the_broker(tls_broker: TlsBroker,
                                                              other_ca: Path) -> None:
    ok = _mp_tls(tls_broker, "localhost", tls_broker.ca_der)
    assert ok[:3] == ["connected", "published", "echo and back"], ok
    assert _mp_tls(tls_broker, "127.0.0.1", tls_broker.ca_der)[2] == "echo and back"
    wrong_ca = _mp_tls(tls_broker, "localhost", other_ca)
    assert wrong_ca[0].startswith("refused"), wrong_ca
    wrong_name = _mp_tls(tls_broker, "impostor.test", tls_broker.ca_der)
    assert wrong_name[0].startswith("refused"), wrong_name


# ------------------------------------------------------------------ the simulated controller


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_simulated_controller_exchanges_frames_over_tls(tls_broker: TlsBroker, tmp_path: Path,
                                                        runtime: str) -> None:
    uid = "sim-t"
    flash = tmp_path / f"flash-{runtime}"
    settings = MqttSettings(host="localhost", port=tls_broker.tls_port, table=TABLE, user=uid,
                            password=tls_broker.files.credentials[uid])
    # TLS takes about 10 KB more of the heap on the 64-bit unix port (the ssl module, the
    # context with its CA, the session): more than the 128 KB MQTT heap has to spare
    sim = SimController(uid, runtime=runtime, link="mqtt", mqtt=settings,  # type: ignore[arg-type]
                        state_dir=flash, heap=TLS_HEAP)
    host = TlsHost(tls_broker, uid)
    try:
        # provisioned as `dialbox firmware provision` would (port only), then, as a maker
        # does over USB, the CA copied onto the flash and TLS switched on in config.json
        sim.start()
        sim.kill()
        shutil.copy(tls_broker.ca_der, flash / "ca.der")
        cfg = json.loads((flash / "config.json").read_text())
        cfg["tls"] = True
        (flash / "config.json").write_text(json.dumps(cfg))
        sim.start()
        host.wait(host.status, lambda p: p == b"online")
        host.send("identify", [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "test", CHALLENGE])
        assert host.expect("hello")["uid"] == uid
        host.seq = 0
        host.send("welcome", [1, "1e88e5", TABLE, "Blue"])
        host.expect("snapshot")
        sim.wait_for(lambda v: v.linked, what="linked")
        host.send("ping", [42])
        host.expect("pong", ms=42)
    finally:
        sim.stop()
        host.close()


# ------------------------------------------------------------------ the provisioned config


def _fields(**kw: Any) -> dict[str, Any]:
    cfg = {"device": "alice", "colour": "", "ssid": "den", "psk": "pw", "broker": "10.0.0.2",
           "port": 1883, "user": "alice", "password": "pw", "table": TABLE, "key": ""}
    cfg.update(kw)
    return cfg


def test_tls_is_port_8883_or_the_tls_key_and_never_without_the_ca(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dialbox_fw.core import config

    monkeypatch.chdir(tmp_path)  # the controller's flash
    assert not config.uses_tls(_fields())
    assert config.uses_tls(_fields(port=8883))
    assert config.uses_tls(_fields(tls=True)) and not config.uses_tls(_fields(port=8883, tls=False))
    assert config.check(_fields()) is None
    assert config.check(_fields(port=8883)) == "tls: no ca.der"  # refused, not unverified
    assert config.check(_fields(tls=True)) == "tls: no ca.der"
    assert config.check(_fields(port=8883, tls=False)) is None  # a plain listener on 8883
    assert config.check(_fields(ssid="", broker="", port=8883)) is None  # no MQTT at all
    (tmp_path / "ca.der").write_bytes(b"\x30")
    assert config.check(_fields(port=8883)) is None
    assert config.check(_fields(tls="yes")) == "bad tls"


def test_the_wifi_country_is_optional_and_checked() -> None:
    from dialbox_fw.core import config

    assert config.check(_fields(country="DE")) is None
    assert config.check(_fields(country="")) is None
    assert config.check(_fields(country="01")) is None  # ESP-IDF's world safe mode
    for bad in ("de", "DEU", "D", 49, "D-"):
        assert config.check(_fields(country=bad)) == "bad country"


def test_provisioning_keeps_the_keys_a_config_frame_cannot_carry(tmp_path: Path) -> None:
    from dialbox_fw.core import config

    path = tmp_path / "config.json"
    msg = {"t": "config", "seq": 1, **_fields(port=8884)}
    assert config.from_message(msg, str(path)) == _fields(port=8884)  # nothing to keep
    path.write_text(json.dumps(_fields(country="FR", tls=True, other=1)))
    cfg = config.from_message(msg, str(path))
    assert cfg == _fields(port=8884, country="FR", tls=True)
    path.write_text("not json")
    assert config.from_message(msg, str(path)) == _fields(port=8884)
