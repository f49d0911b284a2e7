"""End to end over a real Mosquitto with the generated ACLs: play, broker loss, security."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiomqtt

from dialbox.lockbox import Phase
from dialbox.table import TableState
from dialbox.transports.mqtt import split_payload
from dialbox_protocol import codec
from tests.host.harness import (
    TABLE,
    Broker,
    Cable,
    check_integrity,
    key_for,
    mqtt_doubles,
    running_daemon,
    table_config,
    wait_for,
)

UIDS = ["ctl-a", "ctl-b", "ctl-c"]


async def _admin(broker: Broker, seen: list[tuple[str, bytes]], ready: asyncio.Event) -> None:
    async with aiomqtt.Client("127.0.0.1", broker.port, username="admin",
                              password=broker.creds["admin"], identifier="admin") as c:
        await c.subscribe("#", qos=1)
        ready.set()
        async for m in c.messages:
            assert isinstance(m.payload, bytes)
            seen.append((str(m.topic), m.payload))


def _assert_sealed_until_all_locked(seen: list[tuple[str, bytes]]) -> int:
    """An admin on `#` sees no selection of a sealed prompt before that prompt's all-locked:
    no reveal frame, no `revealed` frame and no public state naming its choices."""
    sealed = _sealed_pids(seen)
    all_locked: set[int] = set()
    reveals = 0
    for topic, payload in seen:
        if topic.endswith("/state"):
            rev = json.loads(payload).get("revealed")
            if rev and rev["choices"] and rev["pid"] in sealed:
                assert rev["pid"] in all_locked, f"state shows {rev['pid']} before all-locked"
            continue
        if topic.endswith("/status"):
            continue
        for frame in split_payload(payload):  # a payload holds one or more frames
            msg = codec.decode_frame(frame)
            assert isinstance(msg, dict), (topic, payload)
            if msg["t"] == "alllocked":
                all_locked.add(msg["pid"])
            elif msg["t"] == "reveal" and msg["pid"] in sealed:
                assert msg["pid"] in all_locked, f"reveal of {msg['pid']} before all-locked"
                reveals += 1
            elif msg["t"] == "revealed" and msg["pid"] in sealed and msg["choices"]:
                assert msg["pid"] in all_locked
    return reveals


def _sealed_pids(seen: list[tuple[str, bytes]]) -> set[int]:
    out = set()
    for topic, payload in seen:
        if topic.endswith("/down"):
            for frame in split_payload(payload):
                m = codec.decode_frame(frame)
                if isinstance(m, dict) and m["t"] == "prompt" and m["sealed"]:
                    out.add(m["pid"])
    return out


async def _game(tmp_path: Path) -> None:
    broker = Broker(tmp_path, UIDS)
    await broker.start()
    seen: list[tuple[str, bytes]] = []
    ready = asyncio.Event()
    spy = asyncio.create_task(_admin(broker, seen, ready))
    try:
        await ready.wait()
        cfg = table_config(tmp_path, players=4, uids=UIDS, bots=[4],
                           mqtt=broker.host_mqtt(), options={"rounds": 3})
        async with running_daemon(cfg) as daemon, mqtt_doubles(broker, UIDS) as ds:
            runner = daemon.runners[TABLE]
            await asyncio.wait_for(runner.finished.wait(), 60)
            check_integrity(daemon.journal, ds)
            await asyncio.sleep(0.2)  # let the spy drain what the broker already sent
        assert _assert_sealed_until_all_locked(seen) >= 9
        states = [json.loads(p) for t, p in seen if t == f"dialbox/{TABLE}/state"]
        assert states and states[-1]["over"]
        for t, p in seen:  # every retained state is a TableState (its validators held)
            if t == f"dialbox/{TABLE}/state":
                TableState.model_validate_json(p)
        for s in states:  # the public state names no selection of an open prompt
            if s["prompt"] is not None:
                assert "sel" not in json.dumps(s["prompt"])
    finally:
        spy.cancel()
        broker.stop()


def test_full_game_over_mosquitto_and_admin_sees_nothing_early(tmp_path: Path) -> None:
    asyncio.run(_game(tmp_path))


async def _broker_restart(tmp_path: Path) -> None:
    uids = UIDS[:2]
    broker = Broker(tmp_path, uids)
    await broker.start()
    try:
        cfg = table_config(tmp_path, players=2, uids=uids, mqtt=broker.host_mqtt(),
                           options={"rounds": 2})
        async with running_daemon(cfg) as daemon, mqtt_doubles(broker, uids, auto=False) as ds:
            a, b = ds
            runner = daemon.runners[TABLE]
            for d in ds:
                await wait_for(lambda d=d: d.prompt is not None, what="pairing prompt")
                d.lock()
            await wait_for(lambda: runner.box is not None and runner.box.sealed
                           and all(d.prompt and d.prompt["pid"] == runner.box.pid for d in ds))
            pid = runner.box.pid  # type: ignore[union-attr]
            a.lock()  # a locks, then the broker dies before b has locked
            await wait_for(lambda: runner.box is not None and runner.box.locked(0))
            broker.stop()
            await wait_for(lambda: not daemon.hubs[TABLE].connected.is_set(), what="host sees loss")
            b.lock()  # b locks while the broker is down: the commit waits in b
            await broker.start()
            await wait_for(lambda: runner.box is not None and runner.box.phase != Phase.OPEN
                           or any(r["pid"] == pid for r in a.revealed), what="all locked")
            await wait_for(lambda: all(any(r["pid"] == pid for r in d.revealed) for d in ds),
                           what="both see the reveal")
            # after locking: the broker dies between the reveal and the next lock
            await wait_for(lambda: runner.box is not None and not runner.box.sealed)
            winner = a if runner.box.seats == (0,) else b  # type: ignore[union-attr]
            await wait_for(lambda: winner.prompt is not None
                           and winner.prompt["pid"] == runner.box.pid)  # type: ignore[union-attr]
            broker.stop()
            winner.lock()
            await broker.start()
            await wait_for(lambda: runner.box is not None and runner.box.sealed
                           and all(d.prompt and d.prompt["pid"] == runner.box.pid for d in ds),
                           what="round 2")
            a.lock()
            b.lock()
            await wait_for(lambda: runner.box is not None and not runner.box.sealed, what="open 2")
            winner = a if runner.box.seats == (0,) else b  # type: ignore[union-attr]
            await wait_for(lambda: winner.prompt is not None
                           and winner.prompt["pid"] == runner.box.pid)  # type: ignore[union-attr]
            winner.lock()
            await asyncio.wait_for(runner.finished.wait(), 60)
            assert check_integrity(daemon.journal, ds) == 4
            assert daemon.hubs[TABLE].connects >= 3
    finally:
        broker.stop()


def test_broker_restarts_before_and_after_locking_lose_nothing(tmp_path: Path) -> None:
    asyncio.run(_broker_restart(tmp_path))


async def _security(tmp_path: Path) -> None:
    broker = Broker(tmp_path, UIDS)
    await broker.start()
    got: list[tuple[str, bytes]] = []
    ready = asyncio.Event()
    host_view = asyncio.create_task(_as_host(broker, got, ready))
    try:
        await ready.wait()
        frame = codec.encode("commit", 1, [5, "A" * 22])
        async with aiomqtt.Client("127.0.0.1", broker.port, username="ctl-a",
                                  password=broker.creds["ctl-a"]) as a:
            # ctl-a may not write ctl-b's topics (nor the host's); the broker drops it
            await a.publish(f"dialbox/{TABLE}/dev/ctl-b/up", frame, qos=1)
            await a.publish(f"dialbox/{TABLE}/dev/ctl-b/status", b"online", qos=1, retain=True)
            await a.publish(f"dialbox/{TABLE}/host/status", b"offline", qos=1)
            await a.publish(f"dialbox/{TABLE}/dev/ctl-a/up", b"marker", qos=1)
            await wait_for(lambda: any(p == b"marker" for _t, p in got), what="marker")
        assert [t for t, _p in got] == [f"dialbox/{TABLE}/dev/ctl-a/up"]
        # ... and may not read them either
        async with aiomqtt.Client("127.0.0.1", broker.port, username="ctl-a",
                                  password=broker.creds["ctl-a"]) as a:
            await a.subscribe(f"dialbox/{TABLE}/dev/ctl-b/down", qos=1)
            await a.subscribe(f"dialbox/{TABLE}/dev/ctl-a/down", qos=1)
            async with aiomqtt.Client("127.0.0.1", broker.port, username="host",
                                      password=broker.creds["host"]) as h:
                await h.publish(f"dialbox/{TABLE}/dev/ctl-b/down", b"secret", qos=1)
                await h.publish(f"dialbox/{TABLE}/dev/ctl-a/down", b"mine", qos=1)
            async for m in a.messages:
                assert m.payload == b"mine"
                break
        # a wrong password is refused outright
        try:
            async with aiomqtt.Client("127.0.0.1", broker.port, username="ctl-a",
                                      password="wrong"):
                raise AssertionError("a wrong password was accepted")
        except aiomqtt.MqttError:
            pass
    finally:
        host_view.cancel()
        broker.stop()


async def _as_host(broker: Broker, got: list[tuple[str, Any]], ready: asyncio.Event) -> None:
    async with aiomqtt.Client("127.0.0.1", broker.port, username="host",
                              password=broker.creds["host"]) as c:
        await c.subscribe(f"dialbox/{TABLE}/#", qos=1)
        ready.set()
        async for m in c.messages:
            if m.retain:
                continue
            got.append((str(m.topic), m.payload))


def test_broker_acl_refuses_a_controller_on_another_controllers_topics(tmp_path: Path) -> None:
    asyncio.run(_security(tmp_path))


async def _spoof(tmp_path: Path) -> None:
    broker = Broker(tmp_path, UIDS)
    await broker.start()
    try:
        cfg = table_config(tmp_path, players=2, uids=UIDS, mqtt=broker.host_mqtt())
        async with running_daemon(cfg) as daemon, mqtt_doubles(broker, ["ctl-a"]) as (a,):
            runner = daemon.runners[TABLE]
            await wait_for(lambda: runner.table.seat_of("ctl-a") is not None or a.prompt
                           is not None, what="a welcomed")
            # ctl-c, on its own topics, claims to be ctl-b in its hello
            from dialbox.doubles import ControllerDouble

            liar = ControllerDouble("ctl-b", mqtt=broker.device("ctl-c"))
            liar.mqtt = {**broker.device("ctl-c")}
            liar.uid = "ctl-b"
            # topics are derived from the credentials' uid, the hello from .uid
            await _start_on_topic(liar, "ctl-c")
            await wait_for(lambda: any(e["code"] == codec.E_SPOOF for e in liar.errors),
                           what="spoof refused")
            assert runner.table.seat_of("ctl-b") is None
            await liar.stop()
    finally:
        broker.stop()


async def _start_on_topic(d: Any, topic_uid: str) -> None:
    real_uid = d.uid
    d.uid = topic_uid
    original = d._mqtt_session

    async def session() -> None:
        d.uid = topic_uid
        task = asyncio.ensure_future(original())
        await d.connected.wait()
        d.uid = real_uid  # the hello now claims another id
        await task

    d._mqtt_session = session
    await d.start()


def test_spoofed_uid_over_mqtt_is_refused(tmp_path: Path) -> None:
    asyncio.run(_spoof(tmp_path))


async def _wifi_loss(tmp_path: Path) -> None:
    """Each controller reaches the broker through its own cuttable cable: a cut is a WiFi
    loss (no DISCONNECT; the broker publishes the controller's last will)."""
    from dialbox.doubles import ControllerDouble

    uids = UIDS[:2]
    broker = Broker(tmp_path, uids)
    await broker.start()
    cables = [Cable(broker.port), Cable(broker.port)]
    for c in cables:
        await c.start()
    ds = [ControllerDouble(u, auto=False, seed=i, mqtt={**broker.device(u), "port": c.port},
                           key=key_for(tmp_path, u))
          for i, (u, c) in enumerate(zip(uids, cables, strict=True))]
    try:
        cfg = table_config(tmp_path, players=2, uids=uids, mqtt=broker.host_mqtt(),
                           options={"rounds": 1})
        async with running_daemon(cfg) as daemon:
            for d in ds:
                await d.start()
            a, b = ds
            runner = daemon.runners[TABLE]
            for d in ds:
                await wait_for(lambda d=d: d.prompt is not None, what="pairing prompt")
                d.lock()
            await wait_for(lambda: runner.box is not None and runner.box.sealed
                           and all(d.prompt and d.prompt["pid"] == runner.box.pid for d in ds))
            box = runner.box
            assert box is not None
            cables[1].cut()  # b's WiFi drops before it locked
            await wait_for(lambda: not runner.table.seats[1].online, what="b's last will")
            a.lock()
            await wait_for(lambda: box.locked(0))
            cables[0].cut()  # a's WiFi drops after it locked
            await wait_for(lambda: not runner.table.seats[0].online, what="a's last will")
            await cables[1].mend()
            await wait_for(lambda: b.welcomed.is_set() and b.prompt is not None
                           and b.prompt["pid"] == box.pid and runner.table.seats[1].online,
                           what="b resumed")
            b.turn(1, 4)
            b.lock()
            await wait_for(lambda: box.phase == Phase.ALL_LOCKED)
            await cables[0].mend()
            await wait_for(lambda: box.complete, what="both revealed")
            await wait_for(lambda: runner.box is not None and not runner.box.sealed)
            winner = a if runner.box.seats == (0,) else b  # type: ignore[union-attr]
            await wait_for(lambda: winner.prompt is not None
                           and winner.prompt["pid"] == runner.box.pid)  # type: ignore[union-attr]
            winner.lock()
            await asyncio.wait_for(runner.finished.wait(), 30)
            assert check_integrity(daemon.journal, ds) == 2
    finally:
        for d in ds:
            await d.stop()
        for c in cables:
            await c.close()
        broker.stop()


def test_controller_wifi_loss_before_and_after_locking_loses_nothing(tmp_path: Path) -> None:
    asyncio.run(_wifi_loss(tmp_path))


def _make_certs(d: Path) -> tuple[Path, Path, Path]:
    import subprocess

    d.mkdir(parents=True, exist_ok=True)
    ca_key, ca, key, csr, crt = (d / n for n in ("ca.key", "ca.crt", "srv.key", "srv.csr",
                                                 "srv.crt"))
    run = lambda *a: subprocess.run(a, check=True, capture_output=True)  # noqa: E731
    run("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=dialbox test CA", "-keyout", str(ca_key), "-out", str(ca))
    run("openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
        "-keyout", str(key), "-out", str(csr))
    ext = d / "san.ext"
    ext.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "x509", "-req", "-in", str(csr), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-days", "2", "-extfile", str(ext), "-out", str(crt))
    return ca, crt, key


async def _tls(tmp_path: Path) -> None:
    import shutil
    import subprocess

    from dialbox.broker import write_broker_config
    from dialbox.daemon.embedded import free_port, wait_port

    ca, crt, key = _make_certs(tmp_path / "certs")
    port, tls_port = free_port(), free_port()
    files = write_broker_config(tmp_path / "broker", {TABLE: ["ctl-a"]}, port=port,
                                bind="127.0.0.1", tls_cert=str(crt), tls_key=str(key),
                                tls_ca=str(ca), tls_port=tls_port)
    proc = subprocess.Popen([shutil.which("mosquitto") or "/usr/sbin/mosquitto", "-c",
                             str(files.conf)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        await wait_port(tls_port)
        cfg = table_config(tmp_path, players=1, mqtt={
            "host": "127.0.0.1", "port": tls_port, "user": "host",
            "password": files.credentials["host"], "tls_ca": str(ca)})
        async with running_daemon(cfg) as daemon:
            await asyncio.wait_for(daemon.hubs[TABLE].connected.wait(), 10)
            import ssl

            tls = ssl.create_default_context(cafile=str(ca))
            async with aiomqtt.Client("127.0.0.1", tls_port, username="ctl-a",
                                      password=files.credentials["ctl-a"],
                                      tls_context=tls) as c:
                await c.subscribe(f"dialbox/{TABLE}/host/status", qos=1)
                async for m in c.messages:
                    assert m.payload == b"online"  # the host's retained availability
                    break
    finally:
        proc.terminate()
        proc.wait(10)


def test_broker_config_with_tls_serves_the_host_and_controllers(tmp_path: Path) -> None:
    asyncio.run(_tls(tmp_path))


async def _devices(tmp_path: Path) -> None:
    from dialbox.cli.devices import on_broker
    from dialbox.daemon.config import parse_config

    broker = Broker(tmp_path, UIDS)
    await broker.start()
    try:
        cfg = parse_config(table_config(tmp_path, players=3, uids=UIDS,
                                        mqtt=broker.host_mqtt()), "test")
        async with mqtt_doubles(broker, UIDS[:2]) as (a, b):
            await b.stop()  # b leaves cleanly: its retained availability says offline
            rows = await on_broker(cfg, 2.0)
        assert {(r["table"], r["uid"], r["online"]) for r in rows} == {
            (TABLE, "ctl-a", True), (TABLE, "ctl-b", False)}  # ctl-c was never seen
        wrong = parse_config(table_config(tmp_path, players=3, uids=UIDS, mqtt={
            **broker.host_mqtt(), "password": "not-the-password"}), "test")
        rows = await on_broker(wrong, 2.0)
        assert len(rows) == 1 and "cannot reach the broker" in rows[0]["error"]
    finally:
        broker.stop()


def test_devices_lists_the_controllers_the_broker_knows(tmp_path: Path) -> None:
    asyncio.run(_devices(tmp_path))
