"""A hostile controller in its own process, for the flood tests (tests/host/test_bounds.py)
and bench/bounds.py: oversized and bursty input on a pty or on its own MQTT topics.

    python -m tests.host.flood serial LINK_PATH [--seconds S] [--rate N]
    python -m tests.host.flood mqtt PORT TABLE UID PASSWORD [--big 1000000,4000000] ...

It prints one JSON line when it is ready (serial: the pty is linked at LINK_PATH) and one
with its counts when the flood is over, then waits for stdin to close (the link stays up
while the test looks at the daemon). Its own process, so neither its CPU nor its memory is
counted as the daemon's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
import tty
from typing import Any

from dialbox_protocol import codec


def _crc(body: bytes) -> bytes:
    return body + b"%08x\n" % codec.crc32(body)


def bad_frames() -> list[bytes]:
    """One of each kind of bad input, every one a single line: garbage, a bad CRC, an
    overlong line, a checked frame with bad fields (answered with an error), a frame only
    the host may send (answered too), a valid error report, a sessionless status."""
    frames = [
        b"x\n",
        b"\x00\xff garbage\n",
        b'["commit",9,1,"xx"]deadbeef\n',
        b"y" * 1500 + b"\n",
        _crc(b'["commit",7,"pid","c"]'),
        _crc(b'["reveal",8,1,[1,2,3,4,5],"n"]'),
        _crc(b'{"not":"an array"}'),
    ]
    for name, seq, args in (
        ("alllocked", 3, [1, []]),
        ("error", 0, [codec.E_JSON, "junk", 0]),
        ("status", 0, [None, "idle"]),
    ):
        try:
            frames.append(codec.encode(name, seq, args))
        except (ValueError, TypeError):
            pass  # the message table changed shape: the other kinds still flood
    return frames


def hello(uid: str) -> bytes | None:
    try:
        return codec.encode("hello", 0, [codec.PROTOCOL_VERSION, codec.TABLE_HASH, "0.1.0",
                                         "pico_w", uid, []])
    except (ValueError, TypeError):
        return None


def paced(rate: int, seconds: float, tick: float = 0.05) -> Any:
    """Yields batches of frames: `rate` frames a second for `seconds`, a batch each tick."""
    kinds = bad_frames()
    per_tick = max(1, int(rate * tick))
    start = time.monotonic()
    i = 0
    n = 0
    while True:
        t = time.monotonic() - start
        if t >= seconds:
            return
        batch = []
        for _ in range(per_tick):
            batch.append(kinds[i % len(kinds)])
            i += 1
        n += len(batch)
        yield batch
        wait = start + n / rate - time.monotonic()
        if wait > 0:
            time.sleep(wait)


def say(**kw: Any) -> None:
    print(json.dumps(kw), flush=True)


def serial_flood(args: argparse.Namespace) -> None:
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    path = args.link
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.unlink(path)
    os.symlink(os.ttyname(slave), path)
    say(ready=True, device=os.ttyname(slave))
    sys.stdin.readline()  # the test says go (the daemon has opened the port)
    sent = {"bytes": 0, "frames": 0, "big": 0}

    def write(data: bytes) -> None:
        view = memoryview(data)
        while view:  # blocking writes: the daemon's reading paces us
            n = os.write(master, view[:65536])
            view = view[n:]
        sent["bytes"] += len(data)

    start = time.monotonic()
    h = hello(args.uid)
    if h is not None:
        write(h)
    for size in args.big:
        write(b"z" * size + b"\n")  # one line of `size` bytes: a line reader must not keep it
        sent["big"] += 1
    for size in args.tiny:
        write(b"x\n" * (size // 2))  # `size` bytes of two-byte lines: a burst of bad frames
        sent["frames"] += size // 2
    for batch in paced(args.rate, args.seconds):
        write(b"".join(batch))
        sent["frames"] += len(batch)
    say(done=True, seconds=time.monotonic() - start, **sent)
    sys.stdin.readline()
    os.close(master)
    os.close(slave)


def mqtt_flood(args: argparse.Namespace) -> None:
    import paho.mqtt.client as paho

    up = f"dialbox/{args.table}/dev/{args.uid}/up"
    down = f"dialbox/{args.table}/dev/{args.uid}/down"
    status = f"dialbox/{args.table}/dev/{args.uid}/status"
    got = {"down": 0, "disconnects": 0}
    lock = threading.Lock()
    connected = threading.Event()

    def client(name: str) -> Any:
        # paho's loop thread reconnects by itself (same client id) if the broker drops us
        c = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id=name)
        c.username_pw_set(args.uid, args.password)
        c.will_set(status, b"offline", qos=1, retain=True)

        def on_connect(c: Any, _u: Any, _f: Any, rc: Any, _p: Any = None) -> None:
            c.subscribe(down, qos=0)
            c.publish(status, b"online", qos=1, retain=True)
            connected.set()

        def on_message(_c: Any, _u: Any, msg: Any) -> None:
            with lock:
                got["down"] += msg.payload.count(b"\n")

        def on_disconnect(*_a: Any) -> None:
            with lock:
                got["disconnects"] += 1
            connected.clear()

        c.on_connect = on_connect
        c.on_message = on_message
        c.on_disconnect = on_disconnect
        c.connect("127.0.0.1", args.port, keepalive=30)
        c.loop_start()
        if not connected.wait(10):
            raise SystemExit("rogue: no connection to the broker")
        return c

    c = client(args.uid)
    say(ready=True)
    sys.stdin.readline()
    sent = {"payloads": 0, "frames": 0, "big": 0, "oversize": 0}
    start = time.monotonic()
    for size in args.big:
        # `size` bytes of two-byte lines in one payload (the daemon used to log each); a
        # broker with a packet limit drops us for it, and paho comes back
        before = got["disconnects"]
        try:
            c.publish(up, b"x\n" * (size // 2), qos=0).wait_for_publish(30)
        except RuntimeError:
            pass  # "the connection was lost": the broker refused the packet
        sent["big"] += 1
        deadline = time.monotonic() + 0.5
        while got["disconnects"] == before and time.monotonic() < deadline:
            time.sleep(0.01)
        if not connected.wait(10):
            raise SystemExit("rogue: the broker did not take us back")
    for batch in paced(args.rate, args.seconds):
        # five frames a payload (whole frames, under 1 kB, as the protocol allows) and one
        # payload a tick just over the protocol's 1 kB
        for i in range(0, len(batch), 5):
            payload = b"".join(f for f in batch[i:i + 5] if len(f) < 200)
            c.publish(up, payload, qos=0)
            sent["payloads"] += 1
            sent["frames"] += payload.count(b"\n")
        c.publish(up, b"w" * 2000 + b"\n", qos=0)
        sent["oversize"] += 1
    time.sleep(0.5)  # the daemon's last answers
    with lock:
        say(done=True, seconds=time.monotonic() - start, **sent, **got)
    sys.stdin.readline()
    c.disconnect()
    c.loop_stop()


def main() -> None:
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="kind", required=True)
    s = sub.add_parser("serial")
    s.add_argument("link")
    m = sub.add_parser("mqtt")
    m.add_argument("port", type=int)
    m.add_argument("table")
    m.add_argument("uid")
    m.add_argument("password")
    s.add_argument("--uid", default="rogue")
    s.add_argument("--tiny", type=lambda v: [int(x) for x in v.split(",") if x],
                   default=[1_000_000])
    for q in (s, m):
        q.add_argument("--seconds", type=float, default=2.0)
        q.add_argument("--rate", type=int, default=10_000, help="bad frames a second")
        q.add_argument("--big", type=lambda v: [int(x) for x in v.split(",") if x],
                       default=[1_000_000, 4_000_000])
    args = p.parse_args()
    if args.kind == "serial":
        serial_flood(args)
    else:
        mqtt_flood(args)


if __name__ == "__main__":
    main()
