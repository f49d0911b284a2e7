"""`dialbox devices`: list the controllers on this machine's serial ports, and with --config
the ones the broker knows for the daemon's tables (their retained availability)."""

from __future__ import annotations

import argparse
import asyncio
import json
import ssl
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "devices", help="list connected controllers (USB serial, or the ports you name; "
        "MQTT with --config)",
        description="Finds USB serial controllers by VID/PID (and any PORT paths or globs), "
        "asks each for its hello and prints its unique id, firmware and board. Ports a "
        "running daemon holds show as busy. With --config, also asks the daemon's MQTT broker "
        "which controllers of its tables are online or offline (their retained availability).",
    )
    p.add_argument("--config", "-c", default=None,
                   help="the daemon's TOML config: list the MQTT controllers of its tables")
    p.add_argument("ports", nargs="*", help="extra ports or globs (e.g. /dev/pts/3)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--timeout", type=float, default=2.0, help="seconds to wait for a hello")
    p.set_defaults(func=run)


async def probe(path: str, timeout: float) -> dict[str, Any]:
    """Open `path`, send identify (bounded retries), report the hello or the problem."""
    from dialbox.transports import PortUnavailable
    from dialbox.transports.serial import SerialLink
    from dialbox_protocol.frames import ProtocolError, to_frame
    from dialbox_protocol.models import Hello, Identify

    row: dict[str, Any] = {"port": path}
    try:
        link = await SerialLink.open(path)
    except PortUnavailable as e:
        row["error"] = str(e)
        return row

    async def hello() -> dict[str, Any]:
        async for parsed in link:
            if isinstance(parsed, Hello):
                return {"uid": parsed.uid, "fw": parsed.fw, "board": parsed.board,
                        "caps": parsed.caps}
            if isinstance(parsed, ProtocolError) and parsed.message_type == "hello":
                return {"error": parsed.describe()}
        return {"error": "port closed"}

    waiter = asyncio.ensure_future(hello())
    try:
        for _ in range(max(1, int(timeout / 0.25))):
            await link.send(to_frame(Identify(host="dialbox-devices")))
            done, _ = await asyncio.wait({waiter}, timeout=0.25)
            if done:
                row.update(waiter.result())
                break
        else:
            row["error"] = "no hello: not a dialbox controller"
    finally:
        waiter.cancel()
        await link.close()
    return row


async def on_broker(config: Any, timeout: float) -> list[dict[str, Any]]:
    """The controllers whose retained availability the broker holds for the config's tables
    (rows: table, uid, online), or one row with the error."""
    import gmqtt
    from gmqtt.mqtt.constants import MQTTv311
    from gmqtt.mqtt.handler import MQTTConnectError

    from dialbox.transports.mqtt import ONLINE, BrokerClient, Topics

    m = config.mqtt
    host, port = m.nodes()[0]  # (a clustered broker: its first node; see docs/host.md, "Venue")
    where = f"{host}:{port}"
    topics = {t.name: Topics(t.name) for t in config.tables}
    rows: dict[tuple[str, str], bool] = {}

    def on_message(_c: Any, topic: str, payload: bytes, _q: int, _p: Any) -> int:
        for name, t in topics.items():
            dev = t.parse_dev(topic)
            if dev is not None and dev[1] == "status":
                rows[(name, dev[0])] = bytes(payload) == ONLINE
        return 0

    client = BrokerClient(f"dialbox-devices-{id(rows):x}", clean_session=True)
    if m.user is not None:
        client.set_auth_credentials(m.user, m.password)
    client.on_message = on_message
    tls = ssl.create_default_context(cafile=m.tls_ca) if m.tls_ca else False
    try:
        await asyncio.wait_for(client.connect(host, port, ssl=tls, version=MQTTv311),
                               timeout)
    except (OSError, MQTTConnectError, TimeoutError) as e:
        return [{"broker": where, "error": f"cannot reach the broker: {e or type(e).__name__}"}]
    try:
        client.subscribe([gmqtt.Subscription(f"{t.root}/dev/+/status", qos=1)
                          for t in topics.values()])
        await asyncio.sleep(min(timeout, 1.0))  # retained messages follow the SUBACK
    finally:
        await client.disconnect()
    return [{"broker": where, "table": table, "uid": uid, "online": online}
            for (table, uid), online in sorted(rows.items())]


def missing_ports(patterns: list[str]) -> list[str]:
    """What is wrong with the ports and globs named on the command line that match nothing
    ("/dev/ttyNOPE: no such port", "/dev/pts/9*: no port matches")."""
    import glob
    import os

    out = []
    for p in patterns:
        if glob.has_magic(p):
            if not glob.glob(p):
                out.append(f"{p}: no port matches")
        elif not os.path.exists(p):
            out.append(f"{p}: no such port")
    return out


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import Failure
    from dialbox.transports.serial import DEFAULT_USB, present_ports

    if not args.timeout > 0:
        raise Failure(f"--timeout {args.timeout}: seconds, more than 0")
    config = None
    if args.config:
        from dialbox.cli import config as load_config

        config = load_config(args.config)
        if config.mqtt is None:
            raise Failure(f"{args.config} has no [mqtt] section (serial controllers are "
                          "listed without --config)")
    missing = missing_ports(args.ports)
    if missing:
        raise Failure("; ".join(missing))

    async def main() -> list[dict[str, Any]]:
        ports = present_ports(args.ports, DEFAULT_USB)
        rows = list(await asyncio.gather(*(probe(p, args.timeout) for p in ports.values())))
        if config is not None:
            rows += await on_broker(config, args.timeout)
        return rows

    rows = asyncio.run(main())
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no controllers found (USB VID/PID 2e8a:0005, 303a:1001, or the ports given)")
        return 0
    for r in rows:
        if "broker" in r:
            if "error" in r:
                print(f"{'mqtt ' + r['broker']:<32} {r['error']}")
            else:
                state = "online" if r["online"] else "offline"
                print(f"{'mqtt ' + r['table']:<32} {r['uid']:<20} {state}")
        elif "uid" in r:
            print(f"{r['port']:<32} {r['uid']:<20} fw {r['fw']:<10} {r['board']}")
        else:
            print(f"{r['port']:<32} {r['error']}")
    return 0
