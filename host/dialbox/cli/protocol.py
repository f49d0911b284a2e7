"""`dialbox protocol`: inspect the wire protocol (message table, decode frames)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from dialbox_protocol import codec


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "protocol", help="show the protocol's message table or decode frames"
    )
    p.add_argument(
        "frames", nargs="*", help="frames to decode (default: read lines from stdin if piped)"
    )
    p.add_argument("--table", action="store_true", help="print the message table and its hash")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dialbox_protocol.frames import parse_frame

    if args.table or (not args.frames and sys.stdin.isatty()):
        print(f"dialbox protocol v{codec.PROTOCOL_VERSION}, message table {codec.TABLE_HASH}")
        for name, direction, reliable, fields in codec.MESSAGES:
            arrow = {"d": "host -> ctrl", "u": "ctrl -> host", "b": "both"}[direction]
            fs = ", ".join(f for f, _t in fields)
            print(f"  {name:<10} {arrow:<13} {'reliable' if reliable else '        '}  {fs}")
        return 0
    # bytes, as a serial port gives them: a line that is not UTF-8 is a bad frame, not a crash
    lines = ([f.encode("utf-8", "surrogateescape") for f in args.frames]
             or [line.rstrip(b"\r\n") for line in sys.stdin.buffer])
    bad = 0
    for line in lines:
        result = parse_frame(line)
        print(result.describe())
        bad += 0 if result.ok else 1
    return 1 if bad else 0
