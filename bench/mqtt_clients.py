"""Why the host speaks MQTT through gmqtt: CPU per message of each client library.

    python -m bench.mqtt_clients

One Mosquitto; `mosquitto_pub` floods N small messages onto `mb/in`; the client under test
(in its own process) takes each and publishes it again on `mb/out`, where `mosquitto_sub`
counts them. Printed: the client process's CPU time per message in + out, at QoS 0 and 1,
for aiomqtt (paho underneath, as DESIGN.md first chose) and for gmqtt (what the host uses).
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dialbox.daemon.embedded import free_port, wait_port

N = int(os.environ.get("BENCH_MESSAGES", "20000"))


async def _aiomqtt(port: int, qos: int, n: int) -> float:
    import aiomqtt

    tasks: set[asyncio.Task[None]] = set()
    quiet = logging.getLogger("bench.aiomqtt")
    quiet.setLevel(logging.ERROR)  # it warns whenever more than ten publishes are pending
    async with aiomqtt.Client("127.0.0.1", port, identifier="mb", logger=quiet) as c:
        await c.subscribe("mb/in", qos=qos)
        print("ready", flush=True)
        got, t0 = 0, 0.0
        async for m in c.messages:
            if not got:
                t0 = time.process_time()
            got += 1
            t = asyncio.ensure_future(c.publish("mb/out", m.payload, qos=qos))
            tasks.add(t)
            t.add_done_callback(tasks.discard)
            if got == n:
                break
        await asyncio.gather(*tasks)
        return time.process_time() - t0


async def _gmqtt(port: int, qos: int, n: int) -> float:
    import gmqtt
    from gmqtt.mqtt.constants import MQTTv311

    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    state = {"got": 0, "t0": 0.0}

    def on_message(client: gmqtt.Client, topic: str, payload: bytes, q: int, p: object) -> int:
        if not state["got"]:
            state["t0"] = time.process_time()
        state["got"] += 1
        client.publish("mb/out", payload, qos=qos)
        if state["got"] == n and not done.done():
            done.set_result(None)
        return 0

    c = gmqtt.Client("mb")
    c.on_message = on_message
    await c.connect("127.0.0.1", port, version=MQTTv311)
    c.subscribe("mb/in", qos=qos)
    await asyncio.sleep(0.3)
    print("ready", flush=True)
    await done
    cpu = time.process_time() - state["t0"]
    await asyncio.sleep(0.3)  # let the last PUBACKs come in
    await c.disconnect()
    return cpu


def _client(kind: str, port: int, qos: int, n: int) -> None:
    fn = _gmqtt if kind == "gmqtt" else _aiomqtt
    cpu = asyncio.run(fn(port, qos, n))
    print(f"{cpu / n * 1e6:.1f}", flush=True)


def _run(kind: str, port: int, qos: int) -> float:
    sub = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-t", "mb/out", "-q", str(qos),
                            "-C", str(N)], stdout=subprocess.DEVNULL)
    cut = subprocess.Popen([sys.executable, "-m", "bench.mqtt_clients", "_client", kind,
                            str(port), str(qos), str(N)], stdout=subprocess.PIPE, text=True,
                           cwd=Path(__file__).resolve().parents[1])
    try:
        assert cut.stdout is not None
        assert cut.stdout.readline().strip() == "ready"
        lines = "".join("x" * 60 + "\n" for _ in range(N))
        subprocess.run(["mosquitto_pub", "-p", str(port), "-t", "mb/in", "-q", str(qos), "-l"],
                       input=lines, text=True, check=True)
        out = float(cut.stdout.readline())
        cut.wait(30)
        sub.wait(30)
        return out
    finally:
        for p in (cut, sub):
            if p.poll() is None:
                p.kill()
                p.wait()


def main() -> None:
    args = sys.argv[1:]
    if args and args[0] == "_client":
        _client(args[1], int(args[2]), int(args[3]), int(args[4]))
        return
    if shutil.which("mosquitto_pub") is None:
        print("mosquitto-clients are not installed: skipped")
        return
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        conf = Path(tmp) / "mosquitto.conf"
        conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\n"
                        "set_tcp_nodelay true\nmax_queued_messages 100000\n")
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        broker = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        try:
            asyncio.run(wait_port(port))
            for kind in ("aiomqtt", "gmqtt"):
                for qos in (0, 1):
                    us = _run(kind, port, qos)
                    print(f"{kind:8s} QoS {qos}: {us:6.1f} us CPU per message in + out "
                          f"({N} messages)", flush=True)
        finally:
            broker.terminate()
            broker.wait(10)


if __name__ == "__main__":
    main()
