"""`dialbox devices`: list the controllers connected to this machine's serial ports."""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "devices", help="list connected controllers (USB serial, or the ports you name)",
        description="Finds USB serial controllers by VID/PID (and any PORT paths or globs), "
        "asks each for its hello and prints its unique id, firmware and board. Ports a "
        "running daemon holds show as busy.",
    )
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


def run(args: argparse.Namespace) -> int:
    from dialbox.transports.serial import DEFAULT_USB, present_ports

    async def main() -> list[dict[str, Any]]:
        ports = present_ports(args.ports, DEFAULT_USB)
        return list(await asyncio.gather(*(probe(p, args.timeout) for p in ports.values())))

    rows = asyncio.run(main())
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("no controllers found (USB VID/PID 2e8a:0005, 303a:1001, or the ports given)")
        return 0
    for r in rows:
        if "uid" in r:
            print(f"{r['port']:<32} {r['uid']:<20} fw {r['fw']:<10} {r['board']}")
        else:
            print(f"{r['port']:<32} {r['error']}")
    return 0
