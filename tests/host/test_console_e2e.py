"""The console end to end: the real firmware (MicroPython unix port) on simulated controllers,
the daemon in its own process, SIGKILLed in the menu and in the middle of a game.

Pixoid is played to the end; from the controllers' menu the players choose Stadium (the
daemon is killed half-way through that menu, and the menu starts again), the daemon is
killed again mid-Stadium, Stadium is finished and a rematch is started with one press.
`dialbox history` then lists every game with its result, the replays reach every journaled
state hash, and every choice a controller locked is the one the game applied.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dialbox import history
from dialbox.console.console import segments
from dialbox.console.menu import toggles
from dialbox.engine.bots import Bot, LegalAnswers, RandomBot, SeatView
from dialbox.engine.decisions import Ask
from dialbox.engine.game import Game
from dialbox.engine.registry import game_info
from dialbox.engine.wheels import Selection
from dialbox.journal import Journal
from dialbox.journal.entries import (
    AppliedEntry,
    MenuEntry,
    Parsed,
    PidEntry,
    PromptEntry,
    SeatEntry,
    TableEntry,
    parse,
)
from dialbox.sim.hand import Hand, _wheel_line
from tests.host.harness import key_for

ROOT = Path(__file__).resolve().parents[2]
TABLE = "t1"
UIDS = ["con-a", "con-b"]


def _entries(journal: Path) -> list[tuple[int, Parsed]]:
    if not journal.exists():
        return []
    j = Journal(journal, readonly=True)
    try:
        return [(e.n, parse(e)) for e in j.entries(TABLE)]
    finally:
        j.close()


class JournalSeat:
    """What a person at the table knows of the game on now (the board, their own prompt),
    read back from the daemon's journal: the daemon runs in another process."""

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self._game: tuple[int, Game, int] | None = None

    def current(self) -> tuple[Game | None, int | None]:
        seg = segments(_entries(self.journal) or [(0, MenuEntry(first_pid=1))])[-1]
        n0, head = seg[0]
        if not isinstance(head, TableEntry):
            return None, None
        applied = [s for _n, s in seg if isinstance(s, AppliedEntry)]
        if self._game is None or self._game[0] != n0:
            self._game = (n0, game_info(head.game).game(head.options), 0)
        _n, game, done = self._game
        for step in applied[done:]:
            game.apply({seat: sel for seat, sel in step.answers})
        self._game = (n0, game, len(applied))
        prompts = [s.pid for _n, s in seg if isinstance(s, PromptEntry)]
        return game, prompts[-1] if prompts else None

    def ask(self, pid: int, seat: int) -> Ask | None:
        game, open_pid = self.current()
        if game is None or open_pid != pid or game.pending is None \
                or seat not in game.pending.seat_set:
            return None
        return game.pending.ask_for(seat)

    def choose(self, bot: Bot, ask: Ask) -> Selection:
        assert self._game is not None
        game = self._game[1]
        return bot.choose(SeatView(game, ask.answerer), ask, LegalAnswers(game, ask))


def _start(conf: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with log.open("ab") as out:
        return subprocess.Popen([sys.executable, "-m", "dialbox", "run", "--config", str(conf)],
                                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def _kill(proc: subprocess.Popen[bytes]) -> None:
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


async def _until(ok: Callable[[], bool], what: str, log: Path, timeout: float = 120) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not ok():
        if loop.time() > end:
            raise AssertionError(f"timed out waiting for {what}\n{log.read_text()[-3000:]}")
        await asyncio.sleep(0.05)


def _menu_pids(journal: Path) -> set[int]:
    """The prompt ids of the menu the table is in now (none while a game is on)."""
    segs = segments(_entries(journal))
    if not segs or not isinstance(segs[-1][0][1], MenuEntry):
        return set()
    return {s.pid for _n, s in segs[-1] if isinstance(s, PidEntry)}


def _heads(journal: Path) -> list[TableEntry | MenuEntry]:
    return [s[0][1] for s in segments(_entries(journal))]  # type: ignore[misc]


async def _keep_powered(sims: list[Any]) -> None:
    """A simulated controller whose firmware process stopped is powered on again, its flash
    kept (as a board's watchdog resets it; the demo does the same)."""
    while True:
        await asyncio.sleep(1.0)
        for sim in sims:
            if not sim.running:
                await asyncio.to_thread(sim.kill)
                await asyncio.to_thread(sim.start)


class Player:
    """A person using the menu on one simulated controller, reading its OLED."""

    def __init__(self, sim: Any, journal: Path, log: Path) -> None:
        self.sim, self.journal, self.log = sim, journal, log
        self.pids: list[int] = []

    async def menu(self, *, after: int = 0) -> int:
        """Wait until the controller shows a menu prompt (newer than `after`)."""
        def showing() -> bool:
            v = self.sim.view()
            return (v.state == "programming" and "press = lock" in v.lines
                    and v.pid is not None and v.pid > after
                    and v.pid in _menu_pids(self.journal))
        await _until(showing, f"a menu prompt on {self.sim.uid}", self.log)
        pid: int = self.sim.view().pid
        self.pids.append(pid)
        return pid

    async def dial(self, pos: int, label: str) -> None:
        """Turn wheel `pos` one detent at a time until the OLED shows `label` on it."""
        want = _wheel_line(pos, label)
        for _ in range(40):
            v = self.sim.view()
            if want in v.lines:
                return
            self.sim.turn(pos, 1)
            await _until(lambda v=v: self.sim.view().serial > v.serial, "a redraw", self.log,
                         10)
        raise AssertionError(f"{self.sim.uid}: wheel {pos} never showed {label!r}: "
                             f"{self.sim.view().lines}")

    async def press(self, pid: int) -> None:
        self.sim.press(100)
        await _until(lambda: self.sim.view().pid != pid
                     or self.sim.view().state != "programming",
                     f"{self.sim.uid} to lock its menu answer", self.log, 15)


@pytest.mark.micropython
@pytest.mark.timeout(600)
def test_pixoid_then_stadium_from_the_menu_through_two_sigkills_then_a_rematch(
        tmp_path: Path) -> None:
    from dialbox.sim import SimController

    journal = tmp_path / "journal.sqlite"
    conf = tmp_path / "dialbox.toml"
    conf.write_text("\n".join([
        "[host]", 'name = "e2e"', f'journal = "{journal}"',
        "[serial]", f'ports = ["{tmp_path / "flash" / "*" / "tty"}"]', "usb = []",
        "[display]", "web = false", "terminal = false", "[ledstrip]", 'backend = "none"',
        "[[tables]]", f'name = "{TABLE}"', 'game = "pixoid"', "players = 4", "seed = 5",
        "bots = [3, 4]", 'options = { variant = "short" }', 'pairing = "auto"',
        f"controllers = {json.dumps(UIDS)}", "menu = true",
    ]) + "\n")
    log = tmp_path / "daemon.log"
    sims = [SimController(u, runtime="micropython", auto=False,
                          state_dir=tmp_path / "flash" / u, key=key_for(tmp_path, u))
            for u in UIDS]

    async def main() -> None:
        proc = _start(conf, log)
        seat = JournalSeat(journal)
        hands = [asyncio.create_task(Hand(s, seat, RandomBot(i), pause=0, bounce=0.2,
                                          seed=i).run()) for i, s in enumerate(sims)]
        hands.append(asyncio.create_task(_keep_powered(sims)))
        a, b = (Player(s, journal, log) for s in sims)
        try:
            for s in sims:
                s.start()
            # 1. Pixoid, to the end: the table goes to its menu
            await _until(lambda: any(isinstance(h, MenuEntry) for h in _heads(journal)),
                         "the end of Pixoid", log, 240)
            # 2. the menu, killed half-way: Play, then the game page, then SIGKILL
            pid = await a.menu()
            assert "L Play" in a.sim.view().lines
            await a.press(pid)
            pid = await a.menu(after=pid)
            await a.dial(0, "Stadium")
            _kill(proc)
            proc = _start(conf, log)
            # 3. the daemon is back in the menu, from the idle question
            pid = await a.menu(after=pid)
            await a.dial(0, "Play")
            await a.press(pid)
            pid = await a.menu(after=pid)
            await a.dial(0, "Stadium")
            await a.press(pid)
            pid = await a.menu(after=pid)  # players, variant, bots
            await a.dial(0, "4")
            await a.press(pid)
            for _page in range(-(-len(toggles(game_info("stadium"))) // 3)):  # as they are
                pid = await a.menu(after=pid)
                await a.press(pid)
            vote = await b.menu()
            assert "L Yes" in b.sim.view().lines
            await b.press(vote)
            # 4. Stadium, killed in the middle
            def stadium_steps() -> int:
                segs = segments(_entries(journal))
                head = segs[-1][0][1]
                if not isinstance(head, TableEntry) or head.game != "stadium":
                    return -1
                return sum(isinstance(s, AppliedEntry) for _n, s in segs[-1])
            await _until(lambda: stadium_steps() >= 5, "Stadium under way", log, 240)
            _kill(proc)
            proc = _start(conf, log)
            await _until(lambda: isinstance(_heads(journal)[-1], MenuEntry)
                         and sum(isinstance(h, TableEntry) for h in _heads(journal)) == 2,
                         "the end of Stadium", log, 360)
            # 5. a rematch, one press
            pid = await a.menu(after=pid)
            await a.dial(0, "Rematch")
            await a.press(pid)
            await _until(lambda: isinstance(_heads(journal)[-1], TableEntry),
                         "the rematch", log, 60)
        finally:
            for h in hands:
                h.cancel()
            await asyncio.gather(*hands, return_exceptions=True)
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    try:
        asyncio.run(main())
    finally:
        for s in sims:
            s.stop()
    text = log.read_text()
    assert "Traceback" not in text, text[-3000:]

    heads = [h for h in _heads(journal) if isinstance(h, TableEntry)]
    assert [(h.game, h.how) for h in heads] == [
        ("pixoid", "config"), ("stadium", "menu"), ("stadium", "rematch")]
    assert heads[2].options["seed"] != heads[1].options["seed"]
    assert {k: v for k, v in heads[2].options.items() if k != "seed"} == \
        {k: v for k, v in heads[1].options.items() if k != "seed"}

    # every choice a controller locked is the one its game applied, in every game
    steps = _entries(journal)
    for seg in segments(steps):
        if not isinstance(seg[0][1], TableEntry):
            continue
        uid_of = {s.seat: s.uid for _n, s in seg if isinstance(s, SeatEntry) and s.uid}
        locks = {u: sim.locks for u, sim in zip(UIDS, sims, strict=True)}
        for _n, s in seg:
            if isinstance(s, AppliedEntry):
                for seat_, sel in s.answers:
                    uid = uid_of.get(seat_)
                    if uid in locks:
                        assert tuple(locks[uid][s.pid]) == tuple(sel), (uid, s.pid)

    # `dialbox history` lists both finished games with their results, and the rematch
    out = subprocess.run([sys.executable, "-m", "dialbox", "history", "--journal",
                          str(journal), "--json"], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert out.returncode == 0, out.stderr
    games = json.loads(out.stdout)["games"]
    assert [(g["number"], g["game"], g["finished"]) for g in games] == [
        (1, "pixoid", True), (2, "stadium", True), (3, "stadium", False)]
    j = Journal(journal, readonly=True)
    try:
        for g in games[:2]:
            over = [s for _n, s in segments(steps)[2 * g["number"] - 2] if s.kind == "over"]
            assert over and g["result"]["text"] == over[0].result["text"]  # type: ignore
            replay = history.replay(j, TABLE, g["number"])
            applied = [s for _n, s in segments(steps)[2 * g["number"] - 2]
                       if isinstance(s, AppliedEntry)]
            assert replay.hash_ok and replay.final_hash == applied[-1].hash
            assert len(replay.steps) == len(applied)
    finally:
        j.close()
    audit = subprocess.run([sys.executable, "-m", "dialbox", "audit", str(journal)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert audit.returncode == 0, audit.stdout + audit.stderr
