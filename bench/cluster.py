"""A venue's clustered broker under load and under failure: three RabbitMQ nodes on this
machine, N tables of 6 controller doubles through `dialbox run`, the tables' node killed.

    python -m bench.cluster                 # 10, 20 and 40 tables (about 4 minutes)
    python -m bench.cluster 30 90           # other table counts

The cluster (dialbox.broker.rabbit_cluster: 3 nodes, their own epmd, cookie and ports; the
users and permissions `dialbox broker config --kind rabbitmq` writes) starts once. Then, for
each table count: a daemon (`python -m dialbox run`, with `--workers 2` where the daemon has
worker processes) and the controller doubles (rig processes of this module: `python -m
bench.cluster rig JSON`), everyone given the node list starting at node 1, so node 1 carries
the whole load (its CPU is the per-node figure; the other two show what a node costs idle in
the cluster). Every table plays about one sealed 6-seat prompt a second (bench.host's game and
think times).

1. steady: after a warm-up, a window of BENCH_CLUSTER_SECONDS (default 20): prompts/s per
   table, reveal latency (last lock to the 6th `revealed`, on the controllers' clock), the
   daemon's CPU and each broker node's CPU (utime + stime of its process tree).
2. failover: node 1 is SIGKILLed; the host and every controller move to node 2 (their next
   node) with the jittered backoff. Over BENCH_CLUSTER_FAILOVER seconds (default 15): how long
   until every table completed a prompt again, and the reveal latency through it. Node 1 is
   then started again (and the cluster waited for) before the next count.
3. integrity: the rig reports every selection each controller locked; the daemon's journal
   every answer it applied and every prompt it voided. Lost (a locked choice of a prompt that
   the table went past without applying or voiding it), changed (an applied answer that is
   not what that controller locked) and voided prompts must be 0.

Everything runs on 127.0.0.1. Figures are printed with the machine's load averages
(os.getloadavg) beside them: daemon, brokers and 6 x N doubles share the machine's cores.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from bench._peer import machine_load
from bench._rounds import GAME, SEATS, bench_key, password
from bench._stats import cpu_s, now, summary, tree
from bench.host import ROOT, finish, read_json, start_daemon, stop_daemon

COUNTS = (10, 20, 40)
SECONDS = 20.0
FAILOVER = 15.0
WARMUP = 5.0
THINK = (0.6, 0.95)
"""Seconds a controller takes to dial and lock (bench.host's capacity pace: about a prompt
per second and table)."""
RIG_PROCESSES = 2


def _env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


def uids_of(table: str) -> list[str]:
    return [f"{table}-c{i}" for i in range(SEATS)]


def has_workers() -> bool:
    """Whether this checkout's `dialbox run` has worker processes (`--workers`)."""
    out = subprocess.run([sys.executable, "-m", "dialbox", "run", "--help"], cwd=ROOT,
                         env=_env(), capture_output=True, text=True, check=False).stdout
    return "--workers" in out


def daemon_config(work: Path, tables: list[str], hosts: list[str]) -> Path:
    """bench.host's daemon config (paired doubles, no displays), on the cluster's nodes."""
    from dialbox.sessions.keys import HEADER
    from dialbox_protocol.codec import b64

    uids = [u for t in tables for u in uids_of(t)]
    keys = work / "keys"
    keys.write_text(HEADER + "".join(f"{u} {b64(bench_key(u))}\n" for u in uids))
    keys.chmod(0o600)
    lines = ["[host]", 'name = "bench"', f'journal = "{work / "journal.sqlite"}"',
             f'keys = "{keys}"', 'log_level = "warning"',
             "[display]", "web = false", "terminal = false", "[ledstrip]", 'backend = "none"',
             "[serial]", "enabled = false",
             "[mqtt]", f"hosts = {json.dumps(hosts)}", 'user = "host"',
             f'password = "{password("host")}"']
    for t in tables:
        lines += ["[[tables]]", f'name = "{t}"', f'game = "{GAME}"', f"players = {SEATS}",
                  'pairing = "auto"', "options = { rounds = 1000000 }"]
    conf = work / "dialbox.toml"
    conf.write_text("\n".join(lines) + "\n")
    return conf


# ---------------------------------------------------------------- the rig (its own process)

async def rig(spec: dict[str, Any]) -> None:
    """Auto-playing doubles on the cluster's nodes. Says `ready` once the host welcomed every
    one; on a line on stdin prints, per prompt, the last lock, the last `revealed` and how
    many of the table's controllers handled it, and every controller's locked selections."""
    from bench._host_rig import mark_prompts
    from dialbox.doubles import ControllerDouble

    hosts, tables = spec["hosts"], spec["tables"]
    think = tuple(spec.get("think", THINK))
    ds: list[ControllerDouble] = []
    marks: dict[tuple[str, int], list[float]] = {}

    def hook(d: ControllerDouble, table: str) -> None:
        mark_prompts(d, table, marks)

    for table in tables:
        for uid in uids_of(table):
            d = ControllerDouble(uid, auto=True, think=think, keep=2, key=bench_key(uid),
                                 mqtt={"hosts": hosts, "table": table, "user": uid,
                                       "password": password(uid)})
            hook(d, table)
            ds.append(d)

    async def sit_down(table_ds: list[ControllerDouble]) -> None:
        await asyncio.sleep(random.uniform(0, 1))  # not all in phase
        await asyncio.gather(*(d.start() for d in table_ds))

    await asyncio.gather(*(sit_down(ds[k:k + SEATS]) for k in range(0, len(ds), SEATS)))
    await asyncio.wait_for(asyncio.gather(*(d.welcomed.wait() for d in ds)), 300)
    print(json.dumps({"ready": True}), flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.readline)
    # every double stops before the locks are told: none locks after the count
    await asyncio.gather(*(d.stop() for d in ds))
    print(json.dumps({
        "prompts": [[t, pid, *m] for (t, pid), m in marks.items()],
        "locks": {d.uid: {str(pid): sel for pid, sel in d.locks.items()} for d in ds},
        "connects": sum(d.connects for d in ds), "roll_calls": sum(d.roll_calls for d in ds),
    }), flush=True)


# ---------------------------------------------------------------- the driver

async def spawn_rig(spec: dict[str, Any]) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bench.cluster", "rig", json.dumps(spec), cwd=ROOT, env=_env(),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 28)


def integrity(journal_path: Path, tables: list[str],
              locks: dict[str, dict[str, list[int]]]) -> dict[str, Any]:
    """Applied answers against what each controller locked (see the module)."""
    from dialbox.journal import Journal

    out: dict[str, Any] = {"applied": 0, "answers": 0, "changed": 0, "lost": 0, "voided": 0,
                           "examples": []}
    j = Journal(str(journal_path))
    try:
        for t in tables:
            entries = j.entries(t)
            seat_uid = {e.data["seat"]: e.data["uid"] for e in entries if e.kind == "seat"}
            applied: dict[int, dict[int, list[int]]] = {}
            for e in entries:
                if e.kind == "applied":
                    applied[e.data["pid"]] = {s: list(sel) for s, sel in e.data["answers"]}
                elif e.kind == "void":
                    out["voided"] += 1
            voided = {e.data["pid"] for e in entries if e.kind == "void"}
            last = max(applied, default=0)
            out["applied"] += len(applied)
            for pid, answers in applied.items():
                for seat, sel in answers.items():
                    out["answers"] += 1
                    uid = seat_uid.get(seat, "")
                    locked = locks.get(uid, {}).get(str(pid))
                    if locked != sel:
                        out["changed"] += 1
                        out["examples"].append(f"{t} prompt {pid} seat {seat + 1} ({uid}): "
                                               f"applied {sel}, locked {locked}")
            for uid in uids_of(t):
                for pid_s in locks.get(uid, {}):
                    pid = int(pid_s)
                    if pid < last and pid not in applied and pid not in voided:
                        out["lost"] += 1
                        out["examples"].append(f"{t} prompt {pid} ({uid}): locked "
                                               f"{locks[uid][pid_s]}, never applied")
    finally:
        j.close()
    return out


def _node_cpu(cluster: Any) -> list[float]:
    return [cpu_s(tree(n.pid)) if n.pid else 0.0 for n in cluster.nodes]


async def one_count(cluster: Any, n_tables: int, workers: int | None, seconds: float,
                    failover: float) -> dict[str, Any]:
    tables = [f"t{i:03d}" for i in range(n_tables)]
    hosts = cluster.mqtt_hosts(0)
    rigs = 1 if n_tables < 20 else RIG_PROCESSES
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        conf = daemon_config(work, tables, hosts)
        daemon = start_daemon(conf, workers)
        procs: list[asyncio.subprocess.Process] = []
        try:
            for w in range(rigs):
                procs.append(await spawn_rig({"hosts": hosts, "tables": tables[w::rigs],
                                              "think": THINK}))
            for p in procs:
                await read_json(p, 300, "ready")
            await asyncio.sleep(WARMUP)
            pids = tree(daemon.pid)
            others = [p.pid for p in procs]
            t0, host0, nodes0, rig0 = now(), cpu_s(pids), _node_cpu(cluster), cpu_s(others)
            load_steady = machine_load()
            await asyncio.sleep(seconds)
            t1, host1, nodes1, rig1 = now(), cpu_s(tree(daemon.pid)), _node_cpu(cluster), \
                cpu_s(others)
            await asyncio.to_thread(cluster.kill, 0)
            tk = now()
            await asyncio.sleep(failover)
            t2 = now()
            load_failover = machine_load()
            results: list[dict[str, Any]] = []
            for p in procs:
                assert p.stdin is not None
                p.stdin.write(b"stop\n")
                await p.stdin.drain()
            for p in procs:
                results.append(await read_json(p, 120, "prompts"))
        finally:
            await asyncio.gather(*(finish(p) for p in procs))
            stop_daemon(daemon)
        # node 1 comes back while the journal is read
        restarting = threading.Thread(target=cluster.restart, args=(0,), daemon=True)
        restarting.start()
        locks: dict[str, dict[str, list[int]]] = {}
        for r in results:
            locks.update(r["locks"])
        check = integrity(work / "journal.sqlite", tables, locks)
        await asyncio.to_thread(restarting.join)
    prompts = [row for r in results for row in r["prompts"]]
    complete = [(t, lock, rev) for t, _pid, lock, rev, n, *_hops in prompts
                if n >= SEATS and lock > 0]
    steady = [(rev - lock) * 1000 for _t, lock, rev in complete if t0 <= lock <= t1]
    done_steady = [1 for _t, _lock, rev in complete if t0 <= rev <= t1]
    through = [(rev - lock) * 1000 for _t, lock, rev in complete if tk - 1 <= lock <= t2]
    first_after: dict[str, float] = {}
    for t, _lock, rev in complete:
        if rev > tk and (t not in first_after or rev < first_after[t]):
            first_after[t] = rev
    recovered = [first_after[t] - tk for t in tables if t in first_after]
    window = t1 - t0
    n_done = len(done_steady)
    return {
        "tables": n_tables, "workers": workers, "seconds": window, "prompts": n_done,
        "per_table": n_done / window / n_tables, "steady": summary(steady) if steady else None,
        "host_cpu": (host1 - host0) / window,
        "host_ms": (host1 - host0) * 1000 / n_done if n_done else float("nan"),
        "nodes_cpu": [(b - a) / window for a, b in zip(nodes0, nodes1, strict=True)],
        "node1_ms": (nodes1[0] - nodes0[0]) * 1000 / n_done if n_done else float("nan"),
        "rig_cpu": (rig1 - rig0) / window, "load_steady": load_steady,
        "recovered": len(recovered), "recovery_max": max(recovered, default=float("nan")),
        "recovery_p50": summary([x * 1000 for x in recovered])["p50"] / 1000
        if recovered else float("nan"),
        "through": summary(through) if through else None, "load_failover": load_failover,
        "connects": sum(r["connects"] for r in results),
        "roll_calls": sum(r["roll_calls"] for r in results), **check,
    }


def print_row(r: dict[str, Any]) -> None:
    s = r["steady"] or {"p50": float("nan"), "p99": float("nan")}
    nodes = " / ".join(f"{100 * c:.0f}%" for c in r["nodes_cpu"])
    print(f"cluster {r['tables']:3d} tables x {SEATS} (--workers {r['workers'] or 1}): "
          f"{r['per_table']:.2f} prompts/s/table, reveal p50 {s['p50']:.1f} ms p99 "
          f"{s['p99']:.1f} ms over {r['seconds']:.0f} s; daemon CPU {100 * r['host_cpu']:.0f}% "
          f"= {r['host_ms']:.2f} ms/prompt; broker nodes 1/2/3 CPU {nodes} (node 1 carries "
          f"every table: {r['node1_ms']:.2f} ms/prompt); doubles {100 * r['rig_cpu']:.0f}%; "
          f"load {r['load_steady']}", flush=True)
    f = r["through"] or {"p50": float("nan"), "p99": float("nan"), "max": float("nan")}
    print(f"  node 1 SIGKILLed: {r['recovered']}/{r['tables']} tables completed a prompt "
          f"again, after {r['recovery_p50']:.2f} s (median) / {r['recovery_max']:.2f} s "
          f"(last table); reveal through the failover p50 {f['p50']:.1f} ms p99 "
          f"{f['p99']:.1f} ms max {f['max']:.0f} ms; {r['connects']} controller connects, "
          f"{r['roll_calls']} roll-call answers; load {r['load_failover']}", flush=True)
    ok = r["lost"] == 0 and r["changed"] == 0 and r["voided"] == 0
    print(f"  integrity: {r['applied']} prompts applied, {r['answers']} answers: "
          f"{r['lost']} lost, {r['changed']} changed, {r['voided']} voided: "
          f"{'OK' if ok else 'NOT OK'}", flush=True)
    for line in r["examples"][:10]:
        print(f"    {line}", flush=True)


async def run(counts: list[int], seconds: float, failover: float) -> list[dict[str, Any]]:
    from dialbox.broker.rabbit_cluster import RabbitCluster

    top = max(counts)
    tables = {f"t{i:03d}": uids_of(f"t{i:03d}") for i in range(top)}
    users = [u for us in tables.values() for u in us] + ["host"]
    workers = 2 if has_workers() else None
    t = now()
    cluster = RabbitCluster(tables, size=3, admin_user=None,
                            passwords={u: password(u) for u in users})
    await asyncio.to_thread(cluster.start)
    print(f"cluster: 3 RabbitMQ nodes up in {now() - t:.1f} s (MQTT ports "
          f"{', '.join(str(n.mqtt_port) for n in cluster.nodes)}); load {machine_load()}",
          flush=True)
    rows = []
    try:
        for n in counts:
            r = await one_count(cluster, n, workers, seconds, failover)
            print_row(r)
            rows.append(r)
    finally:
        await asyncio.to_thread(cluster.stop)
    bad = sum(r["lost"] + r["changed"] + r["voided"] for r in rows)
    print(f"cluster: lost or changed choices and voided prompts over every run: {bad} "
          f"({'OK' if bad == 0 else 'NOT OK'})", flush=True)
    return rows


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["rig"]:
        import resource

        _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        asyncio.run(rig(json.loads(argv[1])))
        return
    p = argparse.ArgumentParser(prog="python -m bench.cluster", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("counts", nargs="*", type=int, help=f"table counts (default {COUNTS})")
    args = p.parse_args(argv)
    seconds = float(os.environ.get("BENCH_CLUSTER_SECONDS") or SECONDS)
    failover = float(os.environ.get("BENCH_CLUSTER_FAILOVER") or FAILOVER)
    asyncio.run(run(args.counts or list(COUNTS), seconds, failover))


if __name__ == "__main__":
    main()
