"""`dialbox run --workers N` (issue 17, part 2): tables spread over worker processes under a
supervisor, a SIGKILLed worker restarted into its tables, the displays and `dialbox devices`
seeing every table, and no process left behind.

Real processes: the supervisor is `python -m dialbox run`, its workers are its children,
Mosquitto runs with the generated users and ACLs, the controllers are protocol doubles over
MQTT in this process; every process is stopped by pid.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from dialbox.cli import main
from dialbox.daemon.config import load_config, parse_config
from dialbox.daemon.workers import assign, plan_workers, worker_data
from dialbox.doubles import ControllerDouble
from dialbox.journal import Journal
from dialbox.journal.entries import TableEntry
from dialbox.processes import stop_process
from dialbox.runner import GameRunner
from dialbox.runner.replay import audit
from tests.host.games import DUEL
from tests.host.harness import Broker, check_integrity, key_for, wait_for

ROOT = Path(__file__).resolve().parents[2]
TABLES = ["t1", "t2", "t3", "t4"]
UIDS = {t: [f"{t}-a", f"{t}-b"] for t in TABLES}
ROUNDS = 10


class Brokers(Broker):
    """The harness's Mosquitto, with the users and ACLs of several tables."""

    def __init__(self, work: Path, tables: dict[str, list[str]]) -> None:
        from dialbox.broker import write_broker_config
        from dialbox.daemon.embedded import free_port

        self.work = work
        self.port = free_port()
        self.files = write_broker_config(work / "broker", tables, port=self.port,
                                         bind="127.0.0.1")
        self.creds = self.files.credentials
        self.proc = None


def _config(work: Path, mqtt: dict[str, Any] | None, rounds: int = ROUNDS,
            bots: bool = False, web: bool = True) -> Path:
    lines = ["[host]", 'name = "wk"', f'journal = "{work / "journal.sqlite"}"',
             'log_level = "info"', "[serial]", "enabled = false",
             "[display]", 'host = "127.0.0.1"', "port = 0", "terminal = false",
             f"web = {'true' if web else 'false'}", "[ledstrip]", 'backend = "none"']
    if mqtt is not None:
        lines += ["[mqtt]"] + [f"{k} = {json.dumps(v)}" for k, v in mqtt.items()]
    for i, t in enumerate(TABLES):
        who = 'bots = [1, 2]' if bots else f"controllers = {json.dumps(UIDS[t])}"
        lines += ["[[tables]]", f'name = "{t}"', f'game = "{DUEL}"', "players = 2",
                  f"seed = {i}", who, f"options = {{ rounds = {rounds} }}", "menu = false"]
    conf = work / "dialbox.toml"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def _start(conf: Path, log: Path, *extra: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the workers import the test game too
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "dialbox", "run", "--config", str(conf), *extra],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def _children(pid: int) -> dict[int, int]:
    """Worker index -> pid of the live (not zombie) children of `pid`."""
    out: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            argv = (d / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z" and b"--worker" in argv:
            out[int(argv[argv.index(b"--worker") + 1])] = int(d.name)
    return out


def _alive(pid: int) -> bool:
    """A process that runs (a zombie, dead and waiting for its reaper, does not)."""
    try:
        return (Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]) != "Z"
    except OSError:
        return False


def _journal(path: Path) -> dict[str, list[Any]]:
    if not path.exists():
        return {}
    j = Journal(path, readonly=True)
    try:
        return {t: j.entries(t) for t in TABLES}
    finally:
        j.close()


def _count(path: Path, table: str, kind: str) -> int:
    return sum(1 for e in _journal(path).get(table, []) if e.kind == kind)


def _urls(log: Path) -> dict[str, str]:
    out = {}
    for line in log.read_text(errors="replace").splitlines():
        if ": table screen at " in line:
            name, url = line.split(": table screen at ")
            out[name.strip()] = url.strip()
    return out


def _screen(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + "state.json", timeout=5) as r:
        frame: dict[str, Any] = json.loads(r.read())
    return frame["state"]  # type: ignore[no-any-return]


def _duel_scores(entries: list[Any]) -> dict[str, int]:
    """The scores a Duel's applied answers dictate: each sealed round, the highest digit
    (the lower seat on a tie) scores it."""
    scores = {"0": 0, "1": 0}
    for e in entries:
        if e.kind == "applied" and len(e.data["answers"]) == 2:
            seat, sel = max(e.data["answers"], key=lambda a: (a[1][1], -a[0]))
            scores[str(seat)] += sel[1]
    return scores


async def _four_tables_two_workers(work: Path) -> None:
    broker = Brokers(work, UIDS)
    await broker.start()
    conf = _config(work, broker.host_mqtt())
    log = work / "dialbox.log"
    journal = work / "journal.sqlite"
    doubles = [ControllerDouble(u, mqtt=broker.device(u, t), seed=i, key=key_for(work, u),
                                think=(0.0, 0.04))
               for t in TABLES for i, u in enumerate(UIDS[t])]
    sup = _start(conf, log, "--workers", "2")
    seen: set[int] = set()
    try:
        for d in doubles:
            await d.start()

        def tail() -> str:
            return log.read_text(errors="replace")[-4000:]

        await wait_for(lambda: len(_children(sup.pid)) == 2, 60, "two workers\n" + tail())
        first = _children(sup.pid)
        seen |= set(first.values())
        # worker 1 holds t2 and t4 (round-robin): kill it in the middle of t2's game
        await wait_for(lambda: _count(journal, "t2", "applied") >= 3, 60, "t2 under way")
        assert _count(journal, "t2", "over") == 0
        os.kill(first[1], signal.SIGKILL)
        await wait_for(lambda: _children(sup.pid).get(1, first[1]) != first[1], 30,
                       "worker 1 restarted\n" + tail())
        assert _children(sup.pid)[0] == first[0]  # the other worker went on
        seen |= set(_children(sup.pid).values())
        await wait_for(lambda: all(_count(journal, t, "over") for t in TABLES), 60,
                       "every game over\n" + tail())
        assert "worker 1 (tables t2, t4) was killed by SIGKILL: restarting it" in tail()

        # nothing acknowledged lost: every applied answer is what its controller locked,
        # each decision once; the whole game replays to every journaled state hash
        entries = _journal(journal)
        by_table = {t: [d for d in doubles if d.uid in UIDS[t]] for t in TABLES}
        j = Journal(journal, readonly=True)
        try:
            for t in TABLES:
                n = check_integrity(j, by_table[t], t)
                assert n == 2 * ROUNDS
                assert audit(t, entries[t]).steps == n
        finally:
            j.close()

        # the supervisor's screens show all four tables, to the end the answers dictate
        urls = _urls(log)
        assert sorted(urls) == TABLES

        def screens_over() -> bool:
            return all(_screen(urls[t])["stage"] == "over" for t in TABLES)

        await wait_for(lambda: screens_over(), 30, "every screen shows the end")
        for t in TABLES:
            state = await asyncio.to_thread(_screen, urls[t])
            assert state["table"] == t
            assert sorted(s["uid"] for s in state["seats"]) == UIDS[t]
            assert state["result"]["scores"] == _duel_scores(entries[t])

        # `dialbox devices --config` lists the controllers of every table (from the broker)
        out = await asyncio.to_thread(subprocess.run, [
            sys.executable, "-m", "dialbox", "devices", "--config", str(conf), "--json"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
            timeout=60, check=True)
        rows = json.loads(out.stdout)
        listed = {(r["table"], r["uid"]) for r in rows if "uid" in r}
        assert listed == {(t, u) for t in TABLES for u in UIDS[t]}
        assert all(r["online"] for r in rows if "uid" in r)

        # SIGTERM stops everything: the supervisor exits 0 and no worker is left
        sup.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(sup.wait, 30) == 0
        assert not [p for p in seen if _alive(p)]
        assert "Traceback" not in log.read_text(errors="replace"), tail()

        # the same journal, as one process (`--workers 1`) opens it: the same games, over
        j = Journal(journal)
        try:
            for table in load_config(conf).tables:
                runner = GameRunner(table.settings(), j)
                result = runner.state().result
                assert runner.game.over and result is not None
                assert {str(k): v for k, v in result.scores.items()} == _duel_scores(
                    entries[table.name])
        finally:
            j.close()
    finally:
        stop_process(sup, 10)
        for p in seen:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
        for d in doubles:
            await d.stop()
        broker.stop()


def test_four_tables_on_two_workers_survive_a_killed_worker(tmp_path: Path) -> None:
    asyncio.run(_four_tables_two_workers(tmp_path))


def test_workers_die_with_a_killed_supervisor(tmp_path: Path) -> None:
    """No orphans: SIGKILL the supervisor (it cannot stop anyone) and its workers die too."""
    conf = _config(tmp_path, None, rounds=2, bots=True, web=False)
    log = tmp_path / "dialbox.log"
    sup = _start(conf, log, "--workers", "2")
    pids: dict[int, int] = {}
    try:
        async def up() -> None:
            await wait_for(lambda: len(_children(sup.pid)) == 2, 60,
                           "two workers\n" + log.read_text(errors="replace"))

        asyncio.run(up())
        pids = _children(sup.pid)
        sup.kill()
        sup.wait()

        async def gone() -> None:
            await wait_for(lambda: not [p for p in pids.values() if _alive(p)], 30,
                           "the workers to die")

        asyncio.run(gone())
    finally:
        stop_process(sup, 5)
        for p in pids.values():
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def test_a_worker_that_cannot_run_its_tables_stops_the_supervisor(tmp_path: Path) -> None:
    """A journal the worker refuses (here: t2's written by a newer dialbox, format 99) ends
    `dialbox run` with one line and status 1, as without workers, instead of restarting the
    worker for ever."""
    conf = _config(tmp_path, None, rounds=2, bots=True, web=False)
    j = Journal(tmp_path / "journal.sqlite")
    j.record("t2", TableEntry(format=99, game="pixoid", options={"players": 4}, first_pid=1))
    j.close()
    log = tmp_path / "dialbox.log"
    sup = _start(conf, log, "--workers", "2")
    try:
        assert sup.wait(60) == 1
    finally:
        stop_process(sup, 5)
    text = log.read_text(errors="replace")
    assert "dialbox run: the journal of table t2 is format 99" in text
    assert "Traceback" not in text


def test_bad_worker_counts_are_one_line(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    conf = _config(tmp_path, None, bots=True)
    for bad in ("0", "abc", "-2", "1.5"):
        assert main(["run", "--config", str(conf), "--workers", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--workers takes a whole number" in err, err
        assert "Traceback" not in err
    # more workers than tables: lowered, with a one-line note
    assert main(["run", "--config", str(conf), "--workers", "9", "--check"]) == 0
    err = capsys.readouterr().err
    assert err == "dialbox run: 9 workers asked for 4 table(s): running 4\n"
    # [host] workers = 0 is a config error with its place
    conf.write_text(conf.read_text().replace('name = "wk"', 'name = "wk"\nworkers = 0'))
    assert main(["run", "--config", str(conf), "--check"]) == 2
    assert "host.workers" in capsys.readouterr().err


def test_tables_go_round_robin_and_serial_stays_with_worker_0() -> None:
    data: dict[str, Any] = {
        "serial": {"ports": ["/dev/dialbox/*"]},
        "mqtt": {"host": "127.0.0.1"},
        "tables": [{"name": t, "game": DUEL, "players": 2, "menu": False}
                   for t in TABLES + ["t5"]],
    }
    cfg = parse_config(data)
    assert assign([t.name for t in cfg.tables], 2) == [["t1", "t3", "t5"], ["t2", "t4"]]
    w0, w1 = (parse_config(worker_data(data, i, names)) for i, names in enumerate(
        assign([t.name for t in cfg.tables], 2)))
    assert [t.name for t in w0.tables] == ["t1", "t3", "t5"] and w0.serial.enabled
    assert [t.name for t in w1.tables] == ["t2", "t4"] and not w1.serial.enabled
    assert w1.mqtt == cfg.mqtt and w1.host == cfg.host
    # defaults: one per core with MQTT (never more than tables), 1 for serial only
    assert plan_workers(cfg, None)[0] == min(len(os.sched_getaffinity(0)), 5)
    serial_only = cfg.model_copy(update={"mqtt": None})
    assert plan_workers(serial_only, None) == (1, None)
    assert plan_workers(serial_only, 3) == (3, None)


def test_a_worker_asks_the_kernel_to_kill_it_with_its_parent() -> None:
    """PR_SET_PDEATHSIG is SIGKILL in a worker (Linux): it cannot outlive the supervisor,
    even one that could not send it anything."""
    code = (
        "import ctypes, os\n"
        "from dialbox.daemon.workers import _die_with_parent\n"
        "assert _die_with_parent(os.getppid()) and not _die_with_parent(os.getppid() + 1)\n"
        "sig = ctypes.c_int()\n"
        "ctypes.CDLL(None).prctl(2, ctypes.byref(sig), 0, 0, 0)  # PR_GET_PDEATHSIG\n"
        "print(sig.value)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.strip() == str(int(signal.SIGKILL))
