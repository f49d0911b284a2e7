"""Host daemon benchmarks: reveal latency beside the bare link round trip; many-table capacity.

    python -m bench.host                 # latency (pty + mosquitto) and capacity 10/50/100/200
    python -m bench.host latency         # only the latency part
    python -m bench.host capacity 10 50  # only these table counts

Reveal latency = from the last seat's lock to the moment every controller holds `revealed`
(commit -> alllocked -> reveal -> revealed: two round trips plus the host's work), measured
with 6 light controller doubles in the daemon's own process. Bare RTT = two plain clients
echoing one 48-byte message over the same kind of link in the same run (QoS 1 on MQTT).
Capacity runs the daemon as its own process (its RSS is read from /proc) and the
controllers in worker processes; clocks are CLOCK_MONOTONIC, shared by all processes.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path
from typing import Any

import gmqtt
import serial_asyncio_fast
from gmqtt.mqtt.constants import MQTTv311
from pydantic import Field

from dialbox.daemon.embedded import free_port, wait_port
from dialbox.doubles import ControllerDouble
from dialbox.engine import Ask, Flow, Game, GameOptions, Result, Wheel, wheels
from dialbox.engine.wheels import DIGIT_FACES, DIRECTION_FACES

ROOT = Path(__file__).resolve().parents[1]
SEATS = 6
TABLE = "bench"


class RoundsOptions(GameOptions):
    players: int = Field(6, ge=1, le=6)
    rounds: int = Field(100, ge=1)


class Rounds(Game):
    """Sealed rounds only: every seat dials a direction and a digit, again and again."""

    name = "bench-rounds"
    Options = RoundsOptions

    def setup(self) -> None:
        self.round = 0

    def snapshot(self) -> dict[str, Any]:
        return {"round": self.round}

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.snapshot()

    def flow(self) -> Flow:
        o = self.options
        assert isinstance(o, RoundsOptions)
        left, centre = Wheel.of(DIRECTION_FACES, (0, 2, 4, 6)), Wheel.of(DIGIT_FACES)
        for self.round in range(1, o.rounds + 1):
            yield self.sealed([Ask(s, "dial", "Dial", wheels(left, centre))
                               for s in range(o.players)])
        self.result = Result({s: 0 for s in range(o.players)}, [], "done")


GAME = "bench.host:Rounds"
WARM_UP = 2.0
"""Seconds at the start of a capacity run that are not counted (connections, first prompts)."""


def pct(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def fmt(xs: list[float]) -> str:
    return f"p50 {pct(xs, 50):6.2f} ms  p99 {pct(xs, 99):6.2f} ms  (n={len(xs)})"


# ---------------------------------------------------------------- bare round trips

async def bare_pty(n: int = 400) -> list[float]:
    """Echo 48 bytes over a pty: raw fd on one side, pyserial-asyncio-fast on the other."""
    master, slave = os.openpty()
    tty.setraw(slave)
    tty.setraw(master)
    os.set_blocking(master, False)
    path = os.ttyname(slave)
    loop = asyncio.get_running_loop()

    class Echo(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            self.t = transport

        def data_received(self, data: bytes) -> None:
            self.t.write(data)  # type: ignore[attr-defined]

    transport, _ = await serial_asyncio_fast.create_serial_connection(loop, Echo, path)
    got = bytearray()
    waiter: asyncio.Future[None] | None = None

    def readable() -> None:
        got.extend(os.read(master, 4096))
        if waiter is not None and len(got) >= 48 and not waiter.done():
            waiter.set_result(None)

    loop.add_reader(master, readable)
    msg = b"x" * 47 + b"\n"
    out = []
    try:
        for _ in range(n):
            got.clear()
            waiter = loop.create_future()
            t0 = time.perf_counter()
            os.write(master, msg)
            await waiter
            out.append((time.perf_counter() - t0) * 1000)
    finally:
        loop.remove_reader(master)
        transport.close()
        os.close(master)
        os.close(slave)
    return out


async def bare_mqtt(port: int, creds: dict[str, str], n: int = 400) -> list[float]:
    """Two plain clients (gmqtt, as the host uses it) echo one 48-byte message, QoS 1 both
    ways."""
    clients = []
    got: asyncio.Queue[bytes] = asyncio.Queue()
    for name in ("a", "b"):
        c = gmqtt.Client(f"bench-{name}")
        c.set_auth_credentials("host", creds["host"])
        await c.connect("127.0.0.1", port, version=MQTTv311)
        clients.append(c)
    a, b = clients

    def echo(client: Any, topic: str, payload: bytes, qos: int, props: Any) -> int:
        b.publish(f"dialbox/{TABLE}/echo/back", payload, qos=1)
        return 0

    def back(client: Any, topic: str, payload: bytes, qos: int, props: Any) -> int:
        got.put_nowait(payload)
        return 0

    b.on_message = echo
    a.on_message = back
    a.subscribe(f"dialbox/{TABLE}/echo/back", qos=1)
    b.subscribe(f"dialbox/{TABLE}/echo/there", qos=1)
    await asyncio.sleep(0.3)
    msg = b"x" * 48
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        a.publish(f"dialbox/{TABLE}/echo/there", msg, qos=1)
        await got.get()
        out.append((time.perf_counter() - t0) * 1000)
    for c in clients:
        await c.disconnect()
    return out


# ---------------------------------------------------------------- reveal latency

def bench_key(uid: str) -> bytes:
    """The device key of a benchmark double (derived from its uid, so the worker processes
    and the daemon's key store agree without passing keys around)."""
    import hashlib

    return hashlib.sha256(b"dialbox-bench|" + uid.encode()).digest()


def _daemon_config(work: Path, name: str, tables: list[str], serial_glob: str | None,
                   broker: tuple[int, dict[str, str]] | None) -> Path:
    from dialbox.sessions.keys import HEADER
    from dialbox_protocol.codec import b64

    uids = [f"c{i}" for i in range(SEATS)] + [f"{t}-c{i}" for t in tables for i in range(SEATS)]
    keys = work / f"{name}.keys"  # the doubles are paired: every hello proves its key
    keys.write_text(HEADER + "".join(f"{u} {b64(bench_key(u))}\n" for u in uids))
    keys.chmod(0o600)
    lines = ["[host]", 'name = "bench"', f'journal = "{work / (name + ".sqlite")}"',
             f'keys = "{keys}"', 'log_level = "warning"',
             # the daemon's own path is measured: no web screen, terminal view or LED strip
             "[display]", "web = false", "terminal = false", "[ledstrip]", 'backend = "none"',
             "[serial]"]
    lines += [f'ports = ["{serial_glob}"]', "usb = []"] if serial_glob else ["enabled = false"]
    if broker is not None:
        lines += ["[mqtt]", 'host = "127.0.0.1"', f"port = {broker[0]}", 'user = "host"',
                  f'password = "{broker[1]["host"]}"']
    for t in tables:
        lines += ["[[tables]]", f'name = "{t}"', f'game = "{GAME}"', f"players = {SEATS}",
                  'pairing = "auto"', "options = { rounds = 1000000 }"]
    conf = work / f"{name}.toml"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def _env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def _start_daemon(conf: Path) -> subprocess.Popen[bytes]:
    env = _env()
    prof = ["-m", "cProfile", "-o", os.environ["BENCH_PROFILE"]] if os.environ.get(
        "BENCH_PROFILE") else []
    return subprocess.Popen([sys.executable, *prof, "-m", "dialbox", "run", "--config",
                             str(conf)], cwd=ROOT, env=env)


async def reveal_latency(kind: str, work: Path, rounds: int,
                         broker: tuple[int, dict[str, str]] | None = None) -> list[float]:
    """The daemon runs as its own process; the 6 controllers run here, scripted."""
    uids = [f"c{i}" for i in range(SEATS)]
    if kind == "pty":
        conf = _daemon_config(work, kind, [TABLE], str(work / "links" / "*"), None)
        ds = [ControllerDouble(u, auto=False, link_dir=work / "links", key=bench_key(u))
              for u in uids]
    else:
        assert broker is not None
        port, creds = broker
        conf = _daemon_config(work, kind, [TABLE], None, broker)
        ds = [ControllerDouble(u, auto=False, mqtt={"host": "127.0.0.1", "port": port,
                               "table": TABLE, "user": u, "password": creds[u]},
                               key=bench_key(u))
              for u in uids]
    host = _start_daemon(conf)
    loop = asyncio.get_running_loop()
    done: dict[int, asyncio.Future[float]] = {}
    counts: dict[int, int] = {}
    held: dict[int, int] = {}

    def on_frame(msg: dict[str, Any]) -> None:
        pid = msg.get("pid")
        if msg["t"] == "status" and msg["state"] == "locked" and pid is not None:
            held[pid] = held.get(pid, 0) + 1  # the host holds one more commitment
        elif msg["t"] == "revealed":
            counts[pid] = counts.get(pid, 0) + 1
            if counts[pid] == SEATS and pid in done and not done[pid].done():
                done[pid].set_result(time.perf_counter())

    out: list[float] = []
    try:
        for d in ds:
            d.on_frame = on_frame
            await d.start()
        for r in range(rounds):
            await _until(lambda: all(d.prompt is not None and d.state == "idle" for d in ds)
                         and len({d.prompt["pid"] for d in ds if d.prompt}) == 1, 30)
            pid = ds[0].prompt["pid"]  # type: ignore[index]
            for d in ds[:-1]:
                d.lock()
            await _until(lambda pid=pid: held.get(pid, 0) >= SEATS - 1)
            done[pid] = loop.create_future()
            t0 = time.perf_counter()
            ds[-1].lock()
            t1 = await asyncio.wait_for(done[pid], 10)
            if r >= 5:  # warm-up rounds are not counted
                out.append((t1 - t0) * 1000)
    finally:
        for d in ds:
            await d.stop()
        host.terminate()
        host.wait(10)
    return out


async def _until(pred: Any, timeout: float = 10.0) -> None:
    end = time.perf_counter() + timeout
    while not pred():
        if time.perf_counter() > end:
            raise TimeoutError("benchmark stalled")
        await asyncio.sleep(0.0002)


class Mosquitto:
    """A local Mosquitto with generated users and ACLs, started and stopped by pid."""

    def __init__(self, work: Path, tables: dict[str, list[str]]) -> None:
        from dialbox.broker import write_broker_config

        self.port = free_port()
        files = write_broker_config(work / "broker", tables, port=self.port, bind="127.0.0.1",
                                    passwords={u: "pw-" + u for us in tables.values()
                                               for u in us} | {"host": "pw-host"})
        self.creds = files.credentials
        self.conf = files.conf
        with self.conf.open("a") as f:
            f.write("max_queued_messages 10000\n")
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.proc = subprocess.Popen([exe, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


async def latency() -> dict[str, Any]:
    rounds = int(os.environ.get("BENCH_ROUNDS", "300"))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        pty_bare = await bare_pty()
        pty_reveal = await reveal_latency("pty", work, rounds)
        broker = Mosquitto(work, {TABLE: [f"c{i}" for i in range(SEATS)]})
        try:
            await wait_port(broker.port)
            mqtt_bare = await bare_mqtt(broker.port, broker.creds)
            mqtt_reveal = await reveal_latency("mqtt", work, rounds,
                                               (broker.port, broker.creds))
        finally:
            broker.stop()
    for name, bare, rev, target in (("pty serial", pty_bare, pty_reveal, 10.0),
                                    ("mosquitto", mqtt_bare, mqtt_reveal, 20.0)):
        bound = 2 * pct(bare, 50) + 5
        print(f"{name:<11} bare RTT    {fmt(bare)}")
        print(f"{name:<11} reveal      {fmt(rev)}   target p99 <= {bound:.2f} ms "
              f"(2x bare + 5) and <= {target:.0f} ms: "
              f"{'met' if pct(rev, 99) <= min(bound, target) else 'NOT met'}")
        results[name] = {"bare_p50": pct(bare, 50), "bare_p99": pct(bare, 99),
                         "reveal_p50": pct(rev, 50), "reveal_p99": pct(rev, 99)}
    return results


# ---------------------------------------------------------------- capacity

async def _worker(spec: dict[str, Any]) -> None:
    """A worker process: many controller doubles; prints each lock/revealed time."""
    port, tables, seconds = spec["port"], spec["tables"], spec["seconds"]
    ds: list[ControllerDouble] = []
    marks: list[tuple[str, str, int, float]] = []

    def hook(d: ControllerDouble, table: str) -> None:
        def on_frame(msg: dict[str, Any]) -> None:
            if msg["t"] == "revealed":
                marks.append(("revealed", table, msg["pid"], time.perf_counter()))

        d.on_frame = on_frame
        real_lock = d.lock

        def lock() -> None:
            p = d.prompt
            real_lock()
            if p is not None:
                marks.append(("lock", table, p["pid"], time.perf_counter()))

        d.lock = lock  # type: ignore[method-assign]

    for table in tables:
        for i in range(SEATS):
            uid = f"{table}-c{i}"
            d = ControllerDouble(uid, auto=True, think=(0.6, 0.95), keep=2, mqtt={
                "host": "127.0.0.1", "port": port, "table": table, "user": uid,
                "password": "pw-" + uid}, key=bench_key(uid))
            hook(d, table)
            ds.append(d)

    async def sit_down(table_ds: list[ControllerDouble]) -> None:
        # tables start at different moments within a second, as at a real event (all in
        # phase, every table would lock in the same few hundred milliseconds)
        await asyncio.sleep(random.uniform(0, 1))
        await asyncio.gather(*(d.start() for d in table_ds))

    await asyncio.gather(*(sit_down(ds[k:k + SEATS]) for k in range(0, len(ds), SEATS)))
    gc.collect()
    gc.freeze()  # the doubles are long-lived: keep them out of the collector's full passes
    print(json.dumps({"ready": True}), flush=True)
    await asyncio.sleep(seconds)
    print(json.dumps({"marks": marks}), flush=True)
    for d in ds:
        await d.stop()


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def capacity(n_tables: int, seconds: float = 20.0, workers: int = 2) -> dict[str, Any]:
    names = [f"t{i:03d}" for i in range(n_tables)]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        broker = Mosquitto(work, {t: [f"{t}-c{i}" for i in range(SEATS)] for t in names})
        await wait_port(broker.port)
        conf = _daemon_config(work, "capacity", names, None, (broker.port, broker.creds))
        host = _start_daemon(conf)
        env = _env()
        procs = []
        try:
            for w in range(workers):
                spec = {"port": broker.port, "tables": names[w::workers], "seconds": seconds}
                prof = os.environ.get("BENCH_WORKER_PROFILE")
                procs.append(await asyncio.create_subprocess_exec(
                    sys.executable, *(["-m", "cProfile", "-o", f"{prof}.{w}"] if prof else []),
                    "-m", "bench.host", "_worker", json.dumps(spec),
                    cwd=ROOT, env=env, stdout=asyncio.subprocess.PIPE, limit=1 << 28))
            for p in procs:
                assert p.stdout is not None
                await p.stdout.readline()  # ready
            rss = []
            others = [broker.proc.pid, *(p.pid for p in procs)]
            cpu0, t0 = _cpu_s(host.pid), time.perf_counter()
            others0 = sum(_cpu_s(pid) for pid in others)
            for _ in range(int(seconds) - 1):
                await asyncio.sleep(1)
                rss.append(_rss_kb(host.pid))
            elapsed = time.perf_counter() - t0
            cpu = (_cpu_s(host.pid) - cpu0) / elapsed
            cpu_rest = (sum(_cpu_s(pid) for pid in others) - others0) / elapsed
            marks: list[list[Any]] = []
            for p in procs:
                assert p.stdout is not None
                line = await p.stdout.readline()
                marks += json.loads(line)["marks"]
                await p.wait()
        finally:
            host.terminate()
            host.wait(10)
            broker.stop()
    last_lock: dict[tuple[str, int], float] = {}
    last_rev: dict[tuple[str, int], float] = {}
    revs: dict[tuple[str, int], int] = {}
    for kind, table, pid, t in marks:
        key = (table, pid)
        if kind == "lock":
            last_lock[key] = max(last_lock.get(key, 0.0), t)
        else:
            last_rev[key] = max(last_rev.get(key, 0.0), t)
            revs[key] = revs.get(key, 0) + 1
    start = min(last_lock.values(), default=0.0) + WARM_UP
    lat = [(last_rev[k] - last_lock[k]) * 1000 for k in last_rev
           if revs[k] == SEATS and k in last_lock and last_lock[k] >= start]
    if os.environ.get("BENCH_DEBUG"):
        t0m = min(last_lock.values())
        for lo in range(0, int(seconds), 2):
            xs = [(last_rev[k] - last_lock[k]) * 1000 for k in last_rev
                  if revs[k] == SEATS and k in last_lock and lo <= last_lock[k] - t0m < lo + 2]
            if xs:
                print(f"  t={lo:2d}-{lo + 2:2d}s n={len(xs):4d} p50 {pct(xs, 50):7.2f} "
                      f"p99 {pct(xs, 99):7.2f} max {max(xs):7.2f}")
    prompts_per_s = len(lat) / (seconds - WARM_UP) / n_tables
    return {"tables": n_tables, "prompts": len(lat), "per_table_per_s": prompts_per_s,
            "p50": pct(lat, 50) if lat else None, "p99": pct(lat, 99) if lat else None,
            "rss_mb": max(rss) / 1024 if rss else None, "host_cpu": cpu,
            "rest_cpu": cpu_rest}


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args and args[0] == "_worker":
        asyncio.run(_worker(json.loads(args[1])))
        return
    what = args[0] if args else "all"
    if what in ("all", "latency"):
        asyncio.run(latency())
    if what in ("all", "capacity"):
        counts = [int(a) for a in args[1:]] or [10, 50, 100, 200]
        for n in counts:
            r = asyncio.run(capacity(n))
            print(f"capacity {r['tables']:4d} tables x {SEATS}: {r['prompts']:6d} reveals, "
                  f"{r['per_table_per_s']:.2f} prompts/s/table, reveal p50 "
                  f"{r['p50'] or 0:7.2f} ms p99 {r['p99'] or 0:7.2f} ms, "
                  f"host RSS {r['rss_mb'] or 0:6.1f} MB, host CPU {100 * r['host_cpu']:3.0f}% "
                  f"(controllers + broker {100 * r['rest_cpu']:3.0f}% of 200%)",
                  flush=True)


if __name__ == "__main__":
    main()
