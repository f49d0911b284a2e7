"""Phones and hardware at one table, end to end: the real daemon with its table screen (in
this process), two phone pages in Chromium (390x844, touch) that joined with the screen's
join codes, and simulated controllers running the real firmware under the MicroPython unix
port, play a whole game of every registered game.

Each phone is played through its page as a person would: when it shows a question, the seat's
bot (given only that seat's view and the legal answers, as the runner gives bot seats) picks
an answer; the faces each wheel allows are read from the page and must be exactly those the
rules allow; the wheels are turned with their buttons to the answer and the lock button is
tapped. The first phone reloads its page right after its first sealed lock (the other phone
holds back meanwhile, so the prompt is still open): its lock survives (the snapshot after
the reload carries the same commitment, its reveal hashes to it). Every WebSocket frame a
phone's Chromium sent is captured (Playwright, "framesent"): none before that prompt's
`alllocked` carries a selection or a nonce, and every answer the game applied for a phone's
seat is the one that phone revealed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import game_names
from dialbox.engine.bots import Bot, LegalAnswers, SeatView
from dialbox.engine.decisions import Ask
from dialbox.engine.registry import game_info
from dialbox.engine.wheels import INACTIVE
from dialbox.sim import SimController
from dialbox.sim.hand import Hand, RunnerSeat, detents_between
from dialbox_protocol import codec
from tests.host.harness import key_for
from tests.phone.page_helpers import chromium
from tests.phone.ws_helpers import TABLE, join_code, served

pytestmark = [pytest.mark.micropython]

GAMES: dict[str, tuple[int, dict[str, Any]]] = {
    "pixoid": (4, {"variant": "short"}),
    "outspeed": (4, {"variant": "first-game"}),
    "stadium": (4, {}),
    "pipcycle": (3, {"grid": 5}),  # at most 3 players: two phones and one controller
    "trial-of-the-gods": (4, {"variant": "basic"}),
}
"""Players and options per game: short variants where a game has them. A game registered
later plays with up to 4 players and its default options."""
PHONES = 2
GAME_TIMEOUT = 480.0
STATE_JS = """() => { const d = window.dialboxPhone; const c = d && d.ctl;
  return c ? { state: d.state, pid: c.prompt ? c.prompt.pid : null, seat: c.seat,
               sealed: c.prompt ? c.prompt.sealed : null } : null; }"""
ALLOWED_JS = """i => [...document.querySelectorAll(`.wheel[data-wheel='${i}'] [role=option]`)]
  .map(o => o.getAttribute('aria-disabled') !== 'true')"""


def case(game: str) -> tuple[int, dict[str, Any]]:
    if game in GAMES:
        return GAMES[game]
    return min(4, max(game_info(game).players)), {}


class SeatBots:
    """The game's bot of whichever seat answers (the seat a controller takes is known only
    once it has pressed for it)."""

    def __init__(self, console: Any) -> None:
        self.console = console
        self.bots: dict[int, Bot] = {}

    def choose(self, view: SeatView, ask: Ask, legal: LegalAnswers) -> Any:
        seat = ask.answerer
        if seat not in self.bots:
            self.bots[seat] = self.console.bot_factory(seat)
        return self.bots[seat].choose(view, ask, legal)


@dataclass
class PhonePlayer:
    """One phone page played by its seat's bot, every WebSocket frame kept."""

    name: str
    page: Any
    seat_src: RunnerSeat
    bot: Any
    errors: list[str] = field(default_factory=list)
    """The page's uncaught errors."""
    frames: list[tuple[str, str]] = field(default_factory=list)
    done: dict[int, float] = field(default_factory=dict)
    locked: int = 0
    reload_first: bool = False
    reloaded_pid: int | None = None
    wait_for: asyncio.Event | None = None
    """Set: lock no sealed prompt before it is set (or 20 s have passed)."""
    reloaded: asyncio.Event | None = None
    """Set once this phone is back from its reload."""
    checked_wheels: int = 0

    def listen(self) -> None:
        def on_ws(ws: Any) -> None:
            ws.on("framesent", lambda p: self.frames.append(("out", str(p))))
            ws.on("framereceived", lambda p: self.frames.append(("in", str(p))))
        self.page.on("websocket", on_ws)

    async def state(self) -> dict[str, Any] | None:
        got: dict[str, Any] | None = await self.page.evaluate(STATE_JS)
        return got

    async def run(self) -> None:
        while True:
            await asyncio.sleep(0.03)
            st = await self.state()
            if not st or st["state"] != "programming" or st["pid"] is None:
                continue
            pid, seat = st["pid"], st["seat"]
            if time.monotonic() - self.done.get(pid, -99.0) < 3.0:
                continue
            ask = self.seat_src.ask(pid, seat)
            if ask is None:
                continue
            if self.wait_for is not None and st["sealed"]:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wait_for.wait(), 20)
                self.wait_for = None
            await self.play(pid, ask, bool(st["sealed"]))

    async def play(self, pid: int, ask: Ask, sealed: bool) -> None:
        sel = self.seat_src.choose(self.bot, ask)
        for i, wheel in enumerate(ask.wheels):
            allowed_shown: list[bool] = await self.page.evaluate(ALLOWED_JS, i)
            if wheel is None:
                assert allowed_shown == [], f"{self.name}: wheel {i} shown but unused"
                continue
            # the page offers exactly the faces the rules allow now
            assert len(allowed_shown) == len(wheel.faces), (self.name, pid, i)
            assert {k for k, ok in enumerate(allowed_shown) if ok} == set(wheel.allowed), \
                (self.name, pid, i, allowed_shown, sorted(wheel.allowed))
            self.checked_wheels += 1
            if sel[i] == INACTIVE:
                continue
            current = int(await self.page.get_attribute(
                f".wheel[data-wheel='{i}'] .window", "data-index") or -1)
            d = detents_between(wheel.allowed, current, sel[i])
            if d:
                button = "next" if d > 0 else "prev"
                await self.page.evaluate(
                    """([i, b, n]) => { const el = document.querySelector(
                         `.wheel[data-wheel='${i}'] .turn.${b}`);
                         for (let k = 0; k < n; k++) el.click(); }""", [i, button, abs(d)])
            await self.page.wait_for_function(
                """([i, want, pid]) => { const c = window.dialboxPhone.ctl;
                     if (!c.prompt || c.prompt.pid !== pid) return true;
                     return document.querySelector(`.wheel[data-wheel='${i}'] .window`)
                       .dataset.index === String(want); }""", arg=[i, sel[i], pid])
        st = await self.state()
        if not st or st["pid"] != pid or st["state"] != "programming":
            return
        await self.page.tap("#lock")
        await self.page.wait_for_function(
            "pid => { const d = window.dialboxPhone; return d.state !== 'programming'"
            " || !d.ctl.prompt || d.ctl.prompt.pid !== pid; }", arg=pid)
        self.done[pid] = time.monotonic()
        self.locked += 1
        if sealed and self.reload_first and self.reloaded_pid is None:
            self.reloaded_pid = pid
            await self.page.reload()
            await self.page.wait_for_function(
                "() => window.dialboxPhone && window.dialboxPhone.ctl"
                " && window.dialboxPhone.ctl.session.online")
            if self.reloaded is not None:
                self.reloaded.set()  # back, locked: the held phone may go on

    def decoded(self) -> list[tuple[str, dict[str, Any]]]:
        out = []
        for d, text in self.frames:
            m = codec.decode_frame(text.encode())
            assert isinstance(m, dict), f"{self.name}: a frame that does not decode: {text!r}"
            out.append((d, m))
        return out


def sealed_problems(p: PhonePlayer, uid: str) -> tuple[list[str], dict[int, list[int]]]:
    """What a phone sent that it should not have, and the selection it revealed per prompt."""
    frames = p.decoded()
    problems: list[str] = []
    sealed: dict[int, bool] = {}
    live: dict[int, bool] = {}
    all_locked: set[int] = set()
    commits: dict[int, str] = {}
    reveals: dict[int, tuple[int, list[int], str]] = {}
    outs = [(k, m) for k, (d, m) in enumerate(frames) if d == "out"]
    for k, (d, m) in enumerate(frames):
        t = m["t"]
        if d == "in":
            if t == "prompt":
                sealed[m["pid"]] = m["sealed"]
                live[m["pid"]] = m["live"]
            elif t == "alllocked":
                all_locked.add(m["pid"])
            continue
        if t == "commit":
            commits[m["pid"]] = m["commitment"]
        elif t == "snapshot" and m["commitment"] is not None:
            if commits.get(m["pid"]) not in (None, m["commitment"]):
                problems.append(f"{p.name}: snapshot commitment differs for {m['pid']}")
        elif t == "reveal":
            pid = m["pid"]
            if sealed.get(pid, True) and pid not in all_locked:
                problems.append(f"{p.name}: reveal of sealed prompt {pid} before alllocked")
            reveals.setdefault(pid, (k, m["sel"], m["nonce"]))
        elif t == "dial" and (sealed.get(m["pid"], True) or not live.get(m["pid"])):
            problems.append(f"{p.name}: dial for a prompt that is not live: {m}")
        elif t not in ("hello", "ack", "pong", "status", "uncommit", "error", "snapshot"):
            problems.append(f"{p.name}: unexpected frame {m}")
    for pid, (k, sel, nonce) in reveals.items():
        if not sealed.get(pid, False):
            continue
        if not codec.verify_reveal(commits.get(pid, ""), sel, nonce, pid, uid):
            problems.append(f"{p.name}: reveal of {pid} does not match its commitment")
        early = [m for j, m in outs if j < k and m.get("pid") == pid
                 and ("sel" in m or nonce in json.dumps(m))]
        if early:
            problems.append(f"{p.name}: prompt {pid}'s choice left before its reveal: {early}")
    return problems, {pid: sel for pid, (_k, sel, _n) in reveals.items()}


@pytest.mark.timeout(GAME_TIMEOUT + 120)
@pytest.mark.parametrize("game", game_names())
def test_two_phones_and_two_controllers_play_a_whole_game(tmp_path: Path, game: str) -> None:
    players, options = case(game)
    sims_n = min(2, players - PHONES)
    uids = [f"sim-{c}" for c in "ab"[:sims_n]]
    cfg = {
        "host": {"name": "phone-e2e", "journal": str(tmp_path / "journal.sqlite")},
        "serial": {"ports": [str(tmp_path / "flash" / "*" / "tty")], "usb": []},
        "tables": [{"name": TABLE, "pairing": "press", "menu": False, "game": game,
                    "players": players, "seed": 3, "options": options,
                    "bots": list(range(PHONES + sims_n + 1, players + 1))}],
    }
    sims = [SimController(u, runtime="micropython", state_dir=tmp_path / "flash" / u,
                          key=key_for(tmp_path, u)) for u in uids]

    async def run() -> dict[str, Any]:
        async with served(cfg) as s:
            console = s.console
            seat_src = RunnerSeat(console)
            bots = SeatBots(console)
            players_: list[PhonePlayer] = []
            tasks: list[asyncio.Task[None]] = []
            errors: list[str] = []
            async with contextlib.AsyncExitStack() as stack:
                reloaded = asyncio.Event()
                for n in range(PHONES):
                    page, errs = await stack.enter_async_context(
                        chromium(tmp_path / f"phone-{n}"))
                    p = PhonePlayer(f"phone{n}", page, seat_src, bots, errors=errs,
                                    reload_first=n == 0, reloaded=reloaded,
                                    wait_for=reloaded if n == 1 else None)
                    p.listen()
                    code = await join_code(s)
                    await page.goto(f"{s.url}/phone?code={code}")
                    await page.wait_for_function(
                        "() => window.dialboxPhone && window.dialboxPhone.ctl"
                        " && window.dialboxPhone.ctl.seat !== null")
                    players_.append(p)
                await asyncio.gather(*(asyncio.to_thread(sim.start) for sim in sims))
                try:
                    hands = [Hand(sim, seat_src, bots, pause=0.0, bounce=0.0, seed=i)
                             for i, sim in enumerate(sims)]
                    tasks += [asyncio.create_task(h.run()) for h in hands]
                    tasks += [asyncio.create_task(p.run()) for p in players_]

                    end = time.monotonic() + GAME_TIMEOUT
                    while not (console.runner is not None and console.runner.finished.is_set()):
                        for t in tasks:
                            if t.done() and (exc := t.exception()) is not None:
                                raise exc
                        assert time.monotonic() < end, f"{game} did not finish in time"
                        await asyncio.sleep(0.2)
                    for p in players_:
                        await p.page.wait_for_selector("body[data-state='revealed']")
                finally:
                    for t in tasks:
                        t.cancel()
                    await asyncio.gather(*tasks, return_exceptions=True)
                    await asyncio.gather(*(asyncio.to_thread(sim.stop) for sim in sims))
                uids_of = {p.name: await p.page.evaluate("() => window.dialboxPhone.ctl.uid")
                           for p in players_}
                seats_of = {p.name: await p.page.evaluate("() => window.dialboxPhone.ctl.seat")
                            for p in players_}
                entries = s.daemon.journal.entries(TABLE)
                return {"players": players_, "uids": uids_of, "seats": seats_of,
                        "hands": [h.stats for h in hands],
                        "result": console.game.result, "entries": entries,
                        "errors": errors + [e for p in players_ for e in p.errors]}

    out = asyncio.run(run())
    assert out["errors"] == []
    assert out["result"] is not None, f"{game}: no result"
    phones: list[PhonePlayer] = out["players"]
    assert all(p.locked > 0 for p in phones), [p.locked for p in phones]
    assert all(p.checked_wheels > 0 for p in phones)
    applied = [e for e in out["entries"] if e.kind == "applied"]
    assert applied
    problems: list[str] = []
    for p in phones:
        bad, revealed = sealed_problems(p, out["uids"][p.name])
        problems += bad
        seat = out["seats"][p.name]
        for e in applied:
            for answer_seat, sel in e.data["answers"]:
                shown = revealed.get(e.data["pid"])
                if answer_seat == seat and shown is not None and list(sel) != list(shown):
                    problems.append(f"{p.name}: prompt {e.data['pid']} applied {sel}, "
                                    f"revealed {shown}")
    assert not problems, "\n".join(problems[:20])
    # the reload: the snapshot after it carried the commitment locked before it
    first = phones[0]
    assert first.reloaded_pid is not None, "the first phone never locked a sealed prompt"
    frames = first.decoded()
    pid = first.reloaded_pid
    commit = next(m["commitment"] for d, m in frames
                  if d == "out" and m["t"] == "commit" and m["pid"] == pid)
    hellos = [k for k, (d, m) in enumerate(frames) if d == "out" and m["t"] == "hello"]
    assert len(hellos) >= 2, "the reload opened a new link"
    after = [m for d, m in frames[hellos[1]:] if d == "out" and m["t"] == "snapshot"]
    assert after and after[0]["pid"] == pid and after[0]["commitment"] == commit, after[:1]
    reveal = next(m for d, m in frames if d == "out" and m["t"] == "reveal" and m["pid"] == pid)
    assert codec.verify_reveal(commit, reveal["sel"], reveal["nonce"], pid,
                               out["uids"][first.name])
    all_locked_at = [k for k, (d, m) in enumerate(frames)
                     if d == "in" and m["t"] == "alllocked" and m["pid"] == pid]
    print(f"{game}: {len(applied)} decisions applied; phones locked "
          f"{[p.locked for p in phones]}, controllers {[h.prompts for h in out['hands']]}; "
          f"reloaded on prompt {pid}")
    # mid-prompt: that prompt was all locked only after the page came back
    assert all_locked_at and all_locked_at[0] > hellos[1], "alllocked came before the reload"
    assert all(h.prompts > 0 for h in out["hands"]), out["hands"]
