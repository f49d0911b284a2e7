"""Host daemon benchmarks: reveal latency beside the bare link's round trip, many-table
capacity, and the daemon's memory in a steady state.

    python -m bench.host                   # all: latency (pty, mqtt), capacity 10 50 100 200,
                                           #   rss at 4 tables (about 10 minutes)
    python -m bench.host latency [pty|mqtt]
    python -m bench.host capacity [N ...] [--workers W]
    python -m bench.host rss [N] [--workers W]

Three kinds of process, never mixed: this one starts the others, reads /proc and prints; the
daemon (`python -m dialbox run`, with its worker processes if it has any) is measured; the
rig (`python -m bench._host_rig`: the controller doubles, the bare echo client and every
timestamp, CLOCK_MONOTONIC) measures. The far end of the bare echo (`python -m bench._echo`)
is a process of its own too, standing in for the daemon's end of the link.

Latency: one table, 6 scripted controllers. Each round the rig locks 5 seats, waits until the
host holds their commitments, times BARE_PER_ROUND bare echo round trips over the same kind
of link (a pty pair opened with pyserial-asyncio-fast; or two plain gmqtt clients through the
same Mosquitto, a controller user and a host user, at the frames' QoS), then locks the 6th
seat and times until all 6 controllers have handled `revealed` (commit -> alllocked ->
reveals -> revealed: two round trips plus the host's work). Bare and reveal figures thus come
from the same seconds of machine load.

Capacity: N tables x 6 auto-playing controller doubles (rig processes: 1 below 20 tables,
else 2) over one Mosquitto, each table about one prompt per second. After a warm-up, the
daemon's CPU (utime + stime of its process tree, /proc/PID/stat) over a window is divided by
the prompts completed in that window (all 6 controllers handled `revealed`).

RSS: a few tables of fast players (a lock 0-20 ms after each prompt), warmed up until every
table has played more prompts than the daemon ever keeps in memory per table, then at least
2 minutes in which the daemon's RSS (VmRSS, summed over its process tree) is sampled every
second and fitted by least squares against the prompts completed so far (and against time).

Environment: BENCH_ROUNDS (latency rounds, default 1000), BENCH_CAPACITY_SECONDS (capacity
window, default 30), BENCH_SECONDS (rss window, default 120), BENCH_WARMUP (seconds at
least not counted: capacity 5, rss 10), BENCH_WARM_PROMPTS (rss: prompts every table plays
first; default 2 x the daemon's HISTORY_KEPT + 100), BENCH_RSS_TABLES (default 4),
BENCH_WORKERS (`dialbox run --workers`, capacity and rss), BENCH_PROFILE=F (cProfile of the
daemon to F), BENCH_DEBUG=1 (capacity and rss latency in 5 s slices).
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import json
import os
import platform
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench._peer import machine_load
from bench._rounds import ECHO_TABLE, ECHO_UID, GAME, SEATS, bench_key, password
from bench._stats import cpu_s, fmt_ms, least_squares, now, pct, rss_kb, summary, tree

ROOT = Path(__file__).resolve().parents[1]
TABLE = "bench"
ROUNDS = 1000
WARM_ROUNDS = 10
"""Latency rounds played first and not counted (links, caches, the first prompts)."""
BARE_PER_ROUND = 2
CAPACITY_COUNTS = (10, 50, 100, 200)
CAPACITY_SECONDS = 30.0
CAPACITY_WARMUP = 5.0
CAPACITY_THINK = (0.6, 0.95)
"""Seconds a capacity controller takes to dial and lock (uniform): about a prompt per second
and table, a lively table of people."""
RSS_TABLES = 4
RSS_SECONDS = 120.0
RSS_WARMUP = 10.0
RSS_THINK = (0.0, 0.02)
"""Fast players for the RSS run. The daemon keeps a table's recent history in memory between
HISTORY_KEPT and twice that many prompts (trimmed in chunks): only once every table has played
more than twice HISTORY_KEPT is the run a steady state, which at a lively table's pace (about
one prompt a second) would take more than half an hour."""
RSS_WARM_MAX = 420.0
"""Seconds the RSS run's warm-up may take at most (then it is measured anyway, and says so)."""
RIG_PROCESSES = 2
# targets (issue 17): printed as met / NOT met, never asserted
REVEAL_BARE_FACTOR, REVEAL_SLACK_MS = 2.0, 2.0
CAPACITY_TABLES, CAPACITY_P99_MS = 200, 50.0
RSS_KB_PER_1000 = 1.0
CPU_MS_PER_PROMPT = 1.5


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def _float_env(name: str, default: float) -> float:
    return float(os.environ.get(name) or default)


# ---------------------------------------------------------------- broker and daemon

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def wait_port(port: int, timeout: float = 10.0) -> None:
    end = now() + timeout
    while True:
        try:
            _r, w = await asyncio.open_connection("127.0.0.1", port)
            w.close()
            return
        except OSError:
            if now() > end:
                raise RuntimeError(f"nothing listens on port {port}") from None
            await asyncio.sleep(0.025)


class Mosquitto:
    """A local Mosquitto with generated users and ACLs, started and stopped by pid. Every
    password is bench._host_rig.password(user)."""

    def __init__(self, work: Path, tables: dict[str, list[str]]) -> None:
        from dialbox.broker import write_broker_config

        self.port = free_port()
        users = {u for us in tables.values() for u in us} | {"host"}
        files = write_broker_config(work / "broker", tables, port=self.port, bind="127.0.0.1",
                                    passwords={u: password(u) for u in users})
        self.conf = files.conf
        with self.conf.open("a") as f:
            f.write("max_queued_messages 10000\n")
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        self.proc = subprocess.Popen([exe, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)

    async def ready(self) -> Mosquitto:
        await wait_port(self.port)
        return self

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


def daemon_config(work: Path, name: str, tables: list[str], serial_glob: str | None,
                  broker_port: int | None) -> Path:
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
    if broker_port is not None:
        lines += ["[mqtt]", 'host = "127.0.0.1"', f"port = {broker_port}", 'user = "host"',
                  f'password = "{password("host")}"']
    for t in tables:
        lines += ["[[tables]]", f'name = "{t}"', f'game = "{GAME}"', f"players = {SEATS}",
                  'pairing = "auto"', "options = { rounds = 1000000 }"]
    conf = work / f"{name}.toml"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def start_daemon(conf: Path, workers: int | None = None) -> subprocess.Popen[bytes]:
    prof = os.environ.get("BENCH_PROFILE")
    cmd = [sys.executable, *(["-m", "cProfile", "-o", prof] if prof else []),
           "-m", "dialbox", "run", "--config", str(conf)]
    if workers is not None:
        cmd += ["--workers", str(workers)]
    return subprocess.Popen(cmd, cwd=ROOT, env=_env())


def stop_daemon(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


async def spawn_rig(mode: str, spec: dict[str, Any]) -> asyncio.subprocess.Process:
    """A rig process (bench._host_rig MODE), or the bare echo's far end (mode "echo":
    bench._echo)."""
    args = ["bench._echo"] if mode == "echo" else ["bench._host_rig", mode]
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", *args, json.dumps(spec), cwd=ROOT, env=_env(),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 28)


async def read_json(proc: asyncio.subprocess.Process, timeout: float,
                    key: str | None = None) -> dict[str, Any]:
    """The next JSON line of a rig process (the next one holding `key`, if given)."""
    assert proc.stdout is not None
    end = now() + timeout
    while True:
        line = await asyncio.wait_for(proc.stdout.readline(), max(0.0, end - now()))
        if not line:
            await proc.wait()
            raise RuntimeError(f"a rig process ended (exit {proc.returncode}) before it "
                               "reported")
        out: dict[str, Any] = json.loads(line)
        if key is None or key in out:
            return out


async def finish(proc: asyncio.subprocess.Process) -> None:
    """Tell a rig process to stop (a line on its stdin) and wait for it."""
    if proc.returncode is None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(b"stop\n")
            await proc.stdin.drain()
            proc.stdin.close()
            await asyncio.wait_for(proc.wait(), 20)
        except (TimeoutError, BrokenPipeError, ConnectionResetError):
            proc.kill()
            await proc.wait()


# ---------------------------------------------------------------- latency

LINKS = {"pty": "pty serial", "mqtt": "mosquitto"}


async def latency(kind: str, rounds: int) -> dict[str, Any]:
    """One link kind: the daemon, the echo peer and the rig, each its own process."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        broker = None
        spec: dict[str, Any] = {"kind": kind, "rounds": rounds, "warmup": WARM_ROUNDS,
                                "bare_per_round": BARE_PER_ROUND, "table": TABLE}
        if kind == "pty":
            conf = daemon_config(work, kind, [TABLE], str(work / "links" / "*"), None)
            spec |= {"links": str(work / "links"), "echo_link": str(work / "echo" / "link")}
            echo_spec = {"kind": "pty", "link": spec["echo_link"]}
        else:
            broker = await Mosquitto(work, {TABLE: [f"c{i}" for i in range(SEATS)],
                                            ECHO_TABLE: [ECHO_UID]}).ready()
            conf = daemon_config(work, kind, [TABLE], None, broker.port)
            spec["port"] = broker.port
            # the echo table's host user (generated broker config: host-TABLE, the host's
            # password) reads the controller `echo`'s up topic and writes its down topic
            echo_spec = {"kind": "mqtt", "port": broker.port, "user": f"host-{ECHO_TABLE}",
                         "password": password("host"),
                         "root": f"dialbox/{ECHO_TABLE}/dev/{ECHO_UID}"}
        daemon = start_daemon(conf)
        procs: list[asyncio.subprocess.Process] = []
        try:
            echo = await spawn_rig("echo", echo_spec)
            procs.append(echo)
            rig = await spawn_rig("latency", spec)
            procs.append(rig)
            await read_json(rig, 60, "ready")  # links up, the echo answers
            await read_json(echo, 10, "ready")
            await read_json(rig, 60, "counting")  # the warm-up rounds are over
            pids = tree(daemon.pid)
            cpu0, t0 = cpu_s(pids), now()
            result = await read_json(rig, 60 + rounds * 0.5, "reveal_ms")
            cpu1, t1 = cpu_s(pids), now()
        finally:
            await asyncio.gather(*(finish(p) for p in procs))
            stop_daemon(daemon)
            if broker is not None:
                broker.stop()
    rev, bare = result["reveal_ms"], result["bare_ms"]
    return {"link": LINKS[kind], "qos": result["qos"], "reveal": summary(rev),
            "bare": summary(bare), "rev": rev, "bare_ms": bare, "seconds": t1 - t0,
            "cpu_ms_per_prompt": (cpu1 - cpu0) * 1000 / len(rev), "daemon_procs": len(pids),
            "load": machine_load(),
            "hops": hops(result.get("rows", []), float("-inf"), float("inf"))}


def print_latency(r: dict[str, Any]) -> bool:
    name, rev, bare = r["link"], r["reveal"], r["bare"]
    bound = REVEAL_BARE_FACTOR * bare["p99"] + REVEAL_SLACK_MS
    ok: bool = rev["p99"] <= bound
    qos = f", QoS {r['qos']} as the frames" if name == "mosquitto" else ""
    print(f"latency {name}: {rev['n']} rounds x {SEATS} seats, {BARE_PER_ROUND} bare round "
          f"trips per round interleaved{qos}; load {r['load']}")
    print(f"  {name:<11} bare RTT  {fmt_ms(r['bare_ms'])}")
    print(f"  {name:<11} reveal    {fmt_ms(r['rev'])}")
    print(f"  {name:<11} reveal / bare RTT (same run): p50 {rev['p50'] / bare['p50']:.1f}x  "
          f"p99 {rev['p99'] / bare['p99']:.1f}x")
    print(f"  {name:<11} host CPU {r['cpu_ms_per_prompt']:.3f} ms per prompt "
          f"({r['daemon_procs']} daemon process(es), {r['seconds']:.1f} s)")
    print_hops(r, f"  {name:<11} ")
    print(f"  {name:<11} target reveal p99 {rev['p99']:.3f} ms <= {REVEAL_BARE_FACTOR:g} x "
          f"bare RTT p99 + {REVEAL_SLACK_MS:g} ms = {bound:.3f} ms: {met(ok)}", flush=True)
    return ok


# ---------------------------------------------------------------- capacity and RSS

async def table_run(n_tables: int, warmup: float, seconds: float, workers: int | None,
                    sample_rss: bool, think: tuple[float, float] = CAPACITY_THINK,
                    warm_prompts: int = 0, warm_max: float = RSS_WARM_MAX) -> dict[str, Any]:
    """N tables for a warm-up (at least `warmup` seconds and, with `warm_prompts`, until
    every table completed that many prompts, at most `warm_max` s) and then `seconds`: the
    daemon's CPU over that window, its RSS every second, the prompts the rig saw."""
    names = [f"t{i:03d}" for i in range(n_tables)]
    rigs = 1 if n_tables < 20 else RIG_PROCESSES  # a few tables need no second process
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        broker = await Mosquitto(work, {t: [f"{t}-c{i}" for i in range(SEATS)]
                                        for t in names}).ready()
        conf = daemon_config(work, "capacity", names, None, broker.port)
        daemon = start_daemon(conf, workers)
        procs: list[asyncio.subprocess.Process] = []
        samples: list[tuple[float, int]] = []
        by_pid: list[dict[int, int]] = []  # each sample's RSS per daemon process
        try:
            for w in range(rigs):
                procs.append(await spawn_rig("capacity", {
                    "port": broker.port, "tables": names[w::rigs], "think": think,
                    "warm_prompts": warm_prompts}))
            for p in procs:
                await read_json(p, 120, "ready")  # every double welcomed by the host
            started = now()
            warm_least = None
            if warm_prompts:
                try:
                    warm_least = min([(await read_json(p, max(0.0, started + warm_max - now()),
                                                       "warm"))["warm"] for p in procs])
                except TimeoutError:
                    warm_least = None  # measured anyway: print_rss says it was not warm
            await asyncio.sleep(max(0.0, started + warmup - now()))
            warm_s = now() - started
            pids = tree(daemon.pid)
            others = [broker.proc.pid, *(p.pid for p in procs)]
            t0, cpu0, rest0 = now(), cpu_s(pids), cpu_s(others)
            while True:
                pids_now = tree(daemon.pid)
                by_pid.append({pid: rss_kb([pid]) for pid in pids_now})
                samples.append((now(), sum(by_pid[-1].values())))
                if (t := now()) >= t0 + seconds:
                    break
                await asyncio.sleep(min(1.0, t0 + seconds - t))
            t1, cpu1, rest1 = now(), cpu_s(pids), cpu_s(others)
            if tree(daemon.pid) != pids:
                print(f"  (the daemon's processes changed during the run: {pids} -> "
                      f"{tree(daemon.pid)}; CPU of the gone ones is not counted)")
            prompts: list[list[Any]] = []
            for p in procs:
                assert p.stdin is not None
                p.stdin.write(b"stop\n")
                await p.stdin.drain()
            for p in procs:
                prompts += (await read_json(p, 60, "prompts"))["prompts"]
        finally:
            await asyncio.gather(*(finish(p) for p in procs))
            stop_daemon(daemon)
            broker.stop()
    # a prompt is complete once all 6 controllers of its table handled `revealed`
    complete = [(lock, rev) for _t, _pid, lock, rev, n, *_hops in prompts
                if n >= SEATS and lock > 0]
    done = sorted(rev for _lock, rev in complete)
    in_window = [rev for rev in done if t0 <= rev <= t1]
    lat = [(rev - lock) * 1000 for lock, rev in complete if t0 <= lock <= t1]
    n = len(in_window)
    out = {"tables": n_tables, "workers": workers, "daemon_procs": len(pids), "think": think,
           "warm_s": warm_s, "warm_prompts": warm_prompts, "warm_least": warm_least,
           "seconds": t1 - t0, "prompts": n, "per_table_per_s": n / (t1 - t0) / n_tables,
           "lat": lat, "host_cpu": (cpu1 - cpu0) / (t1 - t0),
           "cpu_ms_per_prompt": (cpu1 - cpu0) * 1000 / n if n else float("nan"),
           "rest_cpu": (rest1 - rest0) / (t1 - t0), "rss_kb": [kb for _t, kb in samples],
           "rss_by_pid": (by_pid[0], by_pid[-1]), "daemon_pid": daemon.pid,
           "load": machine_load(), "hops": hops(prompts, t0, t1)}
    if sample_rss:
        xs = [bisect.bisect_right(done, t) - bisect.bisect_right(done, t0) for t, _kb in samples]
        ys = [float(kb) for _t, kb in samples]
        slope, _a, err = least_squares([float(x) for x in xs], ys)
        per_s, _a, _err = least_squares([t - t0 for t, _kb in samples], ys)
        out |= {"fit_prompts": xs, "slope_kb_per_1000": slope * 1000,
                "slope_err": err * 1000, "kb_per_min": per_s * 60}
    if os.environ.get("BENCH_DEBUG"):
        for lo in range(0, int(seconds), 5):
            xs2 = [(rev - lock) * 1000 for lock, rev in complete
                   if lo <= lock - t0 < lo + 5]
            if xs2:
                print(f"  t={lo:3d}-{lo + 5:3d}s n={len(xs2):5d} p50 {pct(xs2, 50):7.2f} "
                      f"p99 {pct(xs2, 99):7.2f} max {max(xs2):7.2f}")
    return out


HOPS = ("host+broker to alllocked", "rig's alllocked turn", "host+broker to revealed",
        "rig's revealed turn")


def hops(prompts: list[list[Any]], t0: float, t1: float) -> dict[str, tuple[float, float]]:
    """Where the reveals whose last lock fell in [t0, t1] spent their time, p50 and p99 of
    each hop in ms: last lock -> first `alllocked` handled (the host's turn, the broker both
    ways), first -> last `alllocked` handled (the rig's turn through the table's doubles),
    last `alllocked` -> first `revealed` (the reveals to the host, its turn, back), first ->
    last `revealed` (the rig again). The four add up to the reveal latency."""
    spans: list[list[float]] = [[], [], [], []]
    for _t, _pid, lock, rev, n, *rest in prompts:
        if n < SEATS or lock <= 0 or not t0 <= lock <= t1 or len(rest) < 3 or not rest[0]:
            continue
        all_first, all_last, rev_first = rest[:3]
        for i, (a, b) in enumerate(((lock, all_first), (all_first, all_last),
                                    (all_last, rev_first), (rev_first, rev))):
            spans[i].append((b - a) * 1000)
    return {name: (pct(xs, 50), pct(xs, 99)) for name, xs in zip(HOPS, spans, strict=True)
            if xs}


def print_hops(r: dict[str, Any], indent: str) -> None:
    if r.get("hops"):
        print(f"{indent}where the reveal's time went, p50 / p99: " + "; ".join(
            f"{name} {a:.2f} / {b:.2f} ms" for name, (a, b) in r["hops"].items()), flush=True)


def print_capacity(r: dict[str, Any]) -> None:
    lat = r["lat"]
    s = summary(lat) if lat else {"p50": float("nan"), "p99": float("nan"),
                                  "max": float("nan")}
    cpu_ok = r["cpu_ms_per_prompt"] <= CPU_MS_PER_PROMPT
    workers = "default" if r["workers"] is None else r["workers"]
    print(f"capacity {r['tables']:4d} tables x {SEATS}: {r['prompts']:6d} prompts in "
          f"{r['seconds']:.1f} s, {r['per_table_per_s']:.2f} prompts/s/table, reveal p50 "
          f"{s['p50']:6.2f} ms p99 {s['p99']:6.2f} ms max {s['max']:6.2f} ms; host CPU "
          f"{100 * r['host_cpu']:3.0f}% = {r['cpu_ms_per_prompt']:.3f} ms/prompt (target <= "
          f"{CPU_MS_PER_PROMPT:g} ms: {met(cpu_ok)}), host RSS {max(r['rss_kb']) / 1024:.1f} "
          f"MB ({r['daemon_procs']} daemon process(es), --workers {workers}); controllers + "
          f"broker {100 * r['rest_cpu']:3.0f}% of {100 * (os.cpu_count() or 1)}%; load "
          f"{r['load']}", flush=True)
    print_hops(r, "  ")
    if r["tables"] == CAPACITY_TABLES:
        print(f"capacity target {CAPACITY_TABLES} tables x {SEATS}, reveal p99 "
              f"{s['p99']:.2f} ms <= {CAPACITY_P99_MS:g} ms (rig on the same machine): "
              f"{met(s['p99'] <= CAPACITY_P99_MS)}", flush=True)


def print_cpu_fit(rows: list[dict[str, Any]]) -> None:
    """The daemon's CPU (cores) against prompts per second over the capacity rows: the
    marginal CPU of a prompt (slope) and what the daemon uses at rest (intercept)."""
    xs = [r["prompts"] / r["seconds"] for r in rows]
    ys = [r["host_cpu"] for r in rows]
    if max(xs) - min(xs) < 1e-9:
        return
    slope, rest, err = least_squares(xs, ys)
    print(f"capacity host CPU fitted over the {len(rows)} rows: {slope * 1000:.3f} ms per "
          f"prompt (standard error {err * 1000:.3f}) + {100 * rest:.1f}% of a core whatever "
          f"the prompts (timers, heartbeats, links)", flush=True)


def print_rss(r: dict[str, Any], kept: str, history: int) -> None:
    kb = r["rss_kb"]
    slope, err = r["slope_kb_per_1000"], r["slope_err"]
    ok = slope < RSS_KB_PER_1000
    lo, hi = r["think"]
    warm = f"warm-up {r['warm_s']:.0f} s"
    if r["warm_prompts"]:
        if r["warm_least"] is None:
            warm += (f", cut at {RSS_WARM_MAX:g} s before every table had played "
                     f"{r['warm_prompts']} prompts")
        else:
            warm += f", until every table had played {r['warm_prompts']} prompts"
    print(f"rss {r['tables']} tables x {SEATS}, controllers locking {lo:g}-{hi:g} s after "
          f"each prompt: {warm}; then {len(kb)} samples over "
          f"{r['seconds']:.1f} s, {r['prompts']} prompts ({r['per_table_per_s']:.2f}/s/table), "
          f"host CPU {r['cpu_ms_per_prompt']:.3f} ms/prompt; load {r['load']}")
    steady = r["warm_least"] is not None and r["warm_prompts"] > history
    print(f"  {kept} per table: {'steady state' if steady else 'NOT a steady state'}")
    print(f"  host RSS {kb[0]} KB at start, {kb[-1]} KB at end (min {min(kb)}, max {max(kb)}; "
          f"{r['daemon_procs']} daemon process(es))")
    first, last = r["rss_by_pid"]
    if len(first) > 1:
        print("  by process, start -> end: " + ", ".join(
            f"{'supervisor' if pid == r['daemon_pid'] else f'worker {pid}'} {first[pid]} -> "
            f"{last.get(pid, 0)} KB" for pid in sorted(first)))
    xs = r["fit_prompts"]
    quarters = [round(q * (len(kb) - 1) / 4) for q in range(5)]
    print("  RSS over the window: " + ", ".join(
        f"{kb[i] / 1024:.2f} MB at {xs[i]} prompts" for i in quarters))
    half = len(kb) // 2
    if len(kb) - half >= 3 and xs[-1] > xs[half]:
        late, _a, late_err = least_squares([float(x) for x in xs[half:]],
                                           [float(y) for y in kb[half:]])
        print(f"  second half alone: {late * 1000:+.3f} KB per 1,000 prompts (standard error "
              f"{late_err * 1000:.3f})")
    print(f"  RSS growth {slope:+.3f} KB per 1,000 prompts (least squares over the "
          f"{len(kb)} samples, standard error {err:.3f}); target < {RSS_KB_PER_1000:g} KB per "
          f"1,000 prompts: {met(ok)}")
    print(f"  against time: {r['kb_per_min']:+.1f} KB per minute", flush=True)


def history_kept() -> tuple[str, int]:
    """What the daemon keeps in memory per table, in words, and the number of prompts a table
    plays before the window: twice HISTORY_KEPT, whatever the daemon's trimming (its
    histories hold HISTORY_KEPT plus at most TRIM_SLACK since 2026-12-01, up to twice
    HISTORY_KEPT before), so daemons of either kind are warmed alike."""
    try:
        from dialbox.runner.prompts import HISTORY_KEPT
    except ImportError:
        return "the daemon's histories: bound unknown, 1000 assumed, up to 2000", 2000
    try:
        from dialbox.engine.game import TRIM_SLACK
        most = HISTORY_KEPT + min(TRIM_SLACK, HISTORY_KEPT)
    except ImportError:  # a daemon from before TRIM_SLACK
        most = 2 * HISTORY_KEPT
    return (f"the daemon keeps {HISTORY_KEPT} to {most} prompts of history "
            "(dialbox.runner.prompts.HISTORY_KEPT)", 2 * HISTORY_KEPT)


# ---------------------------------------------------------------- main

def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench.host", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", nargs="?", default="all",
                   choices=("all", "latency", "capacity", "rss"))
    p.add_argument("args", nargs="*", help="latency: pty and/or mqtt; capacity: table "
                   "counts; rss: one table count")
    p.add_argument("--workers", type=int, default=None,
                   help="passed to `dialbox run --workers` in capacity and rss runs (env "
                   "BENCH_WORKERS; default: the daemon's own default)")
    return p


def main(argv: list[str] | None = None) -> None:
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    workers = args.workers
    if workers is None and os.environ.get("BENCH_WORKERS"):
        workers = int(os.environ["BENCH_WORKERS"])
    what = args.what
    started = now()
    print(f"bench.host: {what}; Python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs; load {machine_load()}", flush=True)
    targets: list[str] = []
    if what in ("all", "latency"):
        rounds = int(os.environ.get("BENCH_ROUNDS") or ROUNDS)
        kinds = args.args if what == "latency" and args.args else ["pty", "mqtt"]
        for kind in kinds:
            if kind not in LINKS:
                raise SystemExit(f"bench.host latency: no link {kind!r} (pty, mqtt)")
            r = asyncio.run(latency(kind, rounds))
            ok = print_latency(r)
            targets.append(f"reveal p99 <= 2 x bare RTT p99 + 2 ms over {r['link']}: "
                           f"{met(ok)} ({r['reveal']['p99']:.2f} vs "
                           f"{2 * r['bare']['p99'] + 2:.2f} ms)")
    if what in ("all", "capacity"):
        counts = [int(a) for a in args.args] if what == "capacity" and args.args \
            else list(CAPACITY_COUNTS)
        seconds = _float_env("BENCH_CAPACITY_SECONDS", CAPACITY_SECONDS)
        warmup = _float_env("BENCH_WARMUP", CAPACITY_WARMUP)
        rows = []
        for n in counts:
            r = asyncio.run(table_run(n, warmup, seconds, workers, sample_rss=False))
            print_capacity(r)
            rows.append(r)
            if n == CAPACITY_TABLES:
                p99 = pct(r["lat"], 99) if r["lat"] else float("nan")
                targets.append(f"{CAPACITY_TABLES} tables x {SEATS} reveal p99 <= "
                               f"{CAPACITY_P99_MS:g} ms: {met(p99 <= CAPACITY_P99_MS)} "
                               f"({p99:.2f} ms)")
            targets.append(f"host CPU per prompt <= {CPU_MS_PER_PROMPT:g} ms at {n} tables: "
                           f"{met(r['cpu_ms_per_prompt'] <= CPU_MS_PER_PROMPT)} "
                           f"({r['cpu_ms_per_prompt']:.3f} ms)")
        if len(rows) >= 2:
            print_cpu_fit(rows)
    if what in ("all", "rss"):
        n = int(args.args[0]) if what == "rss" and args.args else int(
            os.environ.get("BENCH_RSS_TABLES") or RSS_TABLES)
        seconds = _float_env("BENCH_SECONDS", RSS_SECONDS)
        warmup = _float_env("BENCH_WARMUP", RSS_WARMUP)
        kept, history = history_kept()
        warm_prompts = int(os.environ.get("BENCH_WARM_PROMPTS") or history + 100)
        r = asyncio.run(table_run(n, warmup, seconds, workers, sample_rss=True,
                                  think=RSS_THINK, warm_prompts=warm_prompts))
        print_rss(r, kept, history)
        targets.append(f"RSS growth < {RSS_KB_PER_1000:g} KB per 1,000 prompts: "
                       f"{met(r['slope_kb_per_1000'] < RSS_KB_PER_1000)} "
                       f"({r['slope_kb_per_1000']:+.3f} KB)")
    print(f"targets ({now() - started:.0f} s in all; load {machine_load()}):")
    for t in targets:
        print(f"  {t}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
