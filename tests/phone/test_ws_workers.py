"""Phones at tables that worker processes own (`dialbox run --workers 2`): the supervisor's
table screen pairs and relays each phone to the worker that owns its table (docs/host.md,
"Phones"); a worker that dies drops its phones' links, and they resume at the new worker."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from dialbox.processes import stop_process
from tests.daemon.test_workers import _children as _workers
from tests.host.harness import wait_for
from tests.phone.ws_helpers import Phone, http, pair

ROOT = Path(__file__).resolve().parents[2]


def _config(work: Path) -> Path:
    lines = ["[host]", 'name = "wk"', f'journal = "{work / "journal.sqlite"}"',
             'log_level = "info"', "[serial]", "enabled = false",
             "[display]", 'host = "127.0.0.1"', "port = 0", "terminal = false",
             "[ledstrip]", 'backend = "none"']
    for name in ("t1", "t2"):
        lines += ["[[tables]]", f'name = "{name}"', 'game = "pipcycle"', "players = 2",
                  "seed = 4", "bots = [2]", "menu = false"]
    conf = work / "dialbox.toml"
    conf.write_text("\n".join(lines) + "\n")
    return conf


def _urls(log: Path) -> dict[str, str]:
    out = {}
    for line in log.read_text(errors="replace").splitlines():
        if ": table screen at " in line:
            name, url = line.split(": table screen at ")
            out[name.strip()] = url.strip().rstrip("/")
    return out


async def _code(base: str) -> str:
    for _ in range(1000):
        status, frame, _k = await http("GET", base + "/state.json")
        if status == 200 and frame["state"]["join"]:
            return str(frame["state"]["join"][0]["code"])
        await asyncio.sleep(0.02)
    raise AssertionError(f"{base}: no join code shown")


def test_a_phone_plays_at_a_table_a_worker_owns_and_resumes_after_the_worker_dies(
        tmp_path: Path) -> None:
    conf = _config(tmp_path)
    log = tmp_path / "run.log"
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "dialbox", "run", "--config", str(conf), "--workers", "2"],
            cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=out,
            stderr=subprocess.STDOUT)

    async def main() -> None:
        await wait_for(lambda: len(_urls(log)) == 2 or proc.poll() is not None,
                       what="two table screens")
        assert proc.poll() is None, log.read_text()
        base = _urls(log)["t2"]  # table t2 is worker 1's
        code = await _code(base)  # (the screen takes phones once its worker reported)
        # a bad request through the relay is refused by the worker, one line
        status, answer = await pair(base, "ZZZZZZ")
        assert status == 404 and "no such code" in answer["error"], answer
        status, answer = await pair(base, code)
        assert status == 200 and answer["table"] == "t2" and answer["seat"] == 0, answer
        from dialbox_protocol import codec

        key = codec.device_key(answer["key"])
        assert key is not None
        ws_url = "ws" + base[4:] + "/phone/link"
        p = Phone(ws_url, answer["uid"], key, play=True)
        await p.connect()
        try:
            welcome = await p.join()
            assert welcome["seat"] == 0 and welcome["table"] == "t2"
            view = json.loads((await p.expect("seatview"))["view"])
            assert view["game"] == "pipcycle" and isinstance(view["private"]["hands"][0], list)
            prompt = await p.expect("prompt", lambda f: f["sealed"])
            await p.expect("revealed", lambda f: f["pid"] == prompt["pid"])
            # the supervisor's screen shows the phone in the devices drawer
            for _ in range(500):
                _s, frame, _k = await http("GET", base + "/state.json")
                seat = frame["state"]["seats"][0]
                if seat["transport"] == "phone" and seat["online"]:
                    break
                await asyncio.sleep(0.02)
            assert seat["uid"] == answer["uid"] and seat["transport"] == "phone"

            # worker 1 dies: the relay closes the phone's WebSocket (try again)
            p.play = False
            worker = _workers(proc.pid)[1]
            os.kill(worker, signal.SIGKILL)
            await wait_for(lambda: p.closed is not None, what="the relayed link closed")
            assert p.closed is not None and p.closed[0] == 1013
        finally:
            await p.close()
        # the phone reconnects (the page backs off and retries) and resumes its seat, with
        # the lock it may hold (its snapshot)
        held = [(pid, c) for pid, (_sel, _n, c) in p.locks.items()
                if c and pid not in p.revealed]
        snap = (held[-1][0], "locked", held[-1][1]) if held else (None, "idle", None)
        for _ in range(200):
            again = Phone(ws_url, answer["uid"], key, play=True, locks=p.locks)
            again.revealed = list(p.revealed)
            await again.connect()
            try:
                welcome = await again.join(snapshot=snap)
                break
            except AssertionError:
                await again.close()  # the new worker is not up yet
                await asyncio.sleep(0.1)
        try:
            assert welcome["seat"] == 0
            await again.expect("seatview")
            # the game goes on with the phone: the next sealed prompt is answered
            mark = len(again.got)
            prompt = await again.expect("prompt", lambda f: f["sealed"], after=mark)
            await again.expect("revealed", lambda f: f["pid"] == prompt["pid"])
        finally:
            await again.close()

    try:
        asyncio.run(main())
    finally:
        stop_process(proc, 15)
    text = log.read_text(errors="replace")
    assert "Traceback" not in text, text[-3000:]
    assert "lost its sealed choice" not in text, text[-3000:]
