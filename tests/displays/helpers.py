"""Helpers for the display tests: a rehearsal game recorded state by state, secrecy checks."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.rehearsal import Rehearsal
from dialbox.engine import Decision, Selection, game_names
from dialbox.paths import repo_root
from tests.browser import chromium_context

GAMES = [g for g in ("pixoid", "outspeed", "stadium") if g in game_names()]
"""The 8Bit Box games this checkout has (each arrives from its own branch)."""


class Recorded:
    """A rehearsal at full speed with every published state and every bot answer kept."""

    def __init__(self, game: str, seed: int = 1, players: int = 4, **kw: Any) -> None:
        self.feed = PublicFeed()
        self.states: list[TableView] = []
        self.answers: dict[int, Mapping[int, Selection]] = {}
        self.decisions: dict[int, Decision] = {}
        self.feed.listen(self.states.append)
        self.rehearsal = Rehearsal(
            self.feed, game, players=players, seed=seed, pace=0, controllers=2,
            drop_seat=1, on_answers=self.keep, **kw,
        )

    def keep(self, pid: int, decision: Decision, answers: Mapping[int, Selection]) -> None:
        self.decisions[pid] = decision
        self.answers[pid] = answers

    def play(self) -> Recorded:
        asyncio.run(self.rehearsal.run())
        return self


def assert_sealed_until_revealed(states: list[dict[str, Any]]) -> None:
    """In each state (as JSON): no choice of the current prompt before it is revealed."""
    for st in states:
        p = st["prompt"]
        if p is not None and p["phase"] != "revealed":
            assert p["choices"] == [], f"state {st['seq']}: choices before the reveal"
            r = st["reveal"]
            assert r is None or r["pid"] < p["pid"], f"state {st['seq']}: reveal of open prompt"
        if st["reveal"] is not None:
            assert st["reveal"]["phase"] == "revealed"


SCREEN_SIZE = {"width": 1600, "height": 900}


def artifacts() -> Path:
    """Where browser tests leave their screenshots (gitignored)."""
    path = repo_root() / "artifacts" / "displays"
    path.mkdir(parents=True, exist_ok=True)
    return path


READ_LOG = "() => window.dialbox.log"
"""What the page drew for each state it received (see screen.js)."""
CHOICES_SHOWN = """els => els.map(e => [Number(e.dataset.seat),
                                    e.querySelector('.ctext').textContent])"""
CHIP_STATUSES = "els => els.map(e => e.dataset.status)"


def table_frames(frames: list[str]) -> list[dict[str, Any]]:
    """The table states among the WebSocket frames a page received."""
    return [m["state"] for m in map(json.loads, frames) if m["type"] == "table"]


@contextlib.asynccontextmanager
async def chromium_page(profile: Path) -> AsyncIterator[tuple[Any, list[str], list[str]]]:
    """Debian's Chromium, headless with a fresh profile: a page, the WebSocket frames it
    receives (as text, in order) and the errors it throws. Closed on leaving."""
    frames: list[str] = []
    errors: list[str] = []
    async with chromium_context(profile, viewport=SCREEN_SIZE) as ctx:
        page = ctx.pages[0] if ctx.pages else await ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("websocket", lambda ws: ws.on(
            "framereceived", lambda payload: frames.append(str(payload))))
        yield page, frames, errors


@contextlib.asynccontextmanager
async def screen_page(profile: Path) -> AsyncIterator[tuple[Any, PublicFeed, list[str], list[str]]]:
    """A table screen on an ephemeral port, fed by a new feed, shown in Chromium and
    connected: (page, feed, WebSocket frames, page errors). Stopped on leaving."""
    from dialbox.displays.screen import TableScreen

    feed = PublicFeed()
    screen = TableScreen(feed)
    server = asyncio.create_task(screen.serve())
    try:
        while not screen.server.started:
            await asyncio.sleep(0.01)
        async with chromium_page(profile) as (page, frames, errors):
            await page.goto(screen.url)
            await page.wait_for_selector("#link.ok")
            yield page, feed, frames, errors
    finally:
        screen.stop()
        await asyncio.wait_for(server, 10)
