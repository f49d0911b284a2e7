"""A SIGKILLed daemon restarts into the same table, game and prompt with every commitment kept."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dialbox.journal import Journal
from dialbox.processes import stop_process
from dialbox.runner.replay import audit
from tests.host.harness import TABLE, check_integrity, doubles, key_for, table_config

ROOT = Path(__file__).resolve().parents[2]


def _toml(cfg: dict[str, Any]) -> str:
    def val(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, list):
            return "[" + ", ".join(val(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k} = {val(x)}" for k, x in v.items()) + "}"
        return str(v)

    out = []
    for section in ("host", "serial"):
        out.append(f"[{section}]")
        out += [f"{k} = {val(v)}" for k, v in cfg[section].items()]
    for t in cfg["tables"]:
        out.append("[[tables]]")
        out += [f"{k} = {val(v)}" for k, v in t.items()]
    return "\n".join(out) + "\n"


def _start(conf: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("ab") as out:
        return subprocess.Popen(
            [sys.executable, "-m", "dialbox", "run", "--config", str(conf)],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )


def _over(journal: Path) -> bool:
    if not journal.exists():
        return False
    j = Journal(journal)
    try:
        return any(e.kind == "over" for e in j.entries(TABLE))
    finally:
        j.close()


async def _kill_and_restart(tmp_path: Path) -> None:
    uids = ["ctl-a", "ctl-b", "ctl-c"]
    cfg = table_config(tmp_path, players=4, uids=uids, bots=[4], options={"rounds": 12})
    conf = tmp_path / "dialbox.toml"
    conf.write_text(_toml(cfg))
    log = tmp_path / "daemon.log"
    journal = tmp_path / "journal.sqlite"
    rng = random.Random(2024)
    kills = 0
    async with doubles(tmp_path, uids, think=(0.0, 0.08)) as ds:
        proc = _start(conf, log)
        try:
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 90
            while not _over(journal):
                assert loop.time() < deadline, log.read_text()[-3000:]
                if kills < 5:
                    await asyncio.sleep(rng.uniform(0.05, 0.4))
                    if _over(journal):
                        break
                    os.kill(proc.pid, signal.SIGKILL)
                    proc.wait()
                    kills += 1
                    proc = _start(conf, log)
                else:
                    await asyncio.sleep(0.05)
        finally:
            stop_process(proc, 10)
        j = Journal(journal)
        try:
            n = check_integrity(j, ds)
            assert n >= 12
            assert audit(TABLE, j.entries(TABLE)).steps == n  # `dialbox audit` says OK
            assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
        finally:
            j.close()
    assert kills >= 3


def test_sigkill_at_random_points_loses_nothing(tmp_path: Path) -> None:
    asyncio.run(_kill_and_restart(tmp_path))


@pytest.mark.micropython
def test_sigkill_with_the_real_firmware_loses_nothing(tmp_path: Path) -> None:
    """The same with the firmware under the MicroPython unix port: every decision applied
    once, in order, with a verified reveal from each controller seat; nothing voided."""
    from dialbox.sim import SimController

    uids = ["mp-a", "mp-b", "mp-c"]
    cfg = table_config(tmp_path, players=4, uids=uids, bots=[4], pairing="auto",
                       options={"rounds": 8, "forbid_n9": False})
    cfg["serial"] = {"ports": [str(tmp_path / "flash" / "*" / "tty")], "usb": []}
    conf = tmp_path / "dialbox.toml"
    conf.write_text(_toml(cfg))
    log = tmp_path / "daemon.log"
    journal = tmp_path / "journal.sqlite"
    rng = random.Random(7)
    sims = [SimController(u, runtime="micropython", auto=True, state_dir=tmp_path / "flash" / u,
                          key=key_for(tmp_path, u))
            for u in uids]
    proc = _start(conf, log)
    kills = 0
    try:
        for s in sims:
            s.start()
        deadline = time.monotonic() + 120
        while not _over(journal):
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(rng.uniform(0.3, 1.0) if kills < 3 else 0.1)
            if kills < 3 and not _over(journal):
                os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
                kills += 1
                proc = _start(conf, log)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for s in sims:
            s.stop()
    j = Journal(journal)
    try:
        entries = j.entries(TABLE)
        assert not [e for e in entries if e.kind == "void"]
        applied = [e.data["decision"] for e in entries if e.kind == "applied"]
        assert applied == sorted(set(applied)) and len(applied) == 16
        seats = {e.data["seat"] for e in entries if e.kind == "seat" and not e.data["bot"]}
        for e in entries:
            if e.kind == "applied" and len(e.data["answers"]) > 1:  # sealed rounds
                revealed = {r.data["seat"] for r in entries
                            if r.kind == "reveal" and r.data["pid"] == e.data["pid"]}
                assert seats <= revealed
    finally:
        j.close()
    assert kills == 3 and "Traceback" not in log.read_text()
