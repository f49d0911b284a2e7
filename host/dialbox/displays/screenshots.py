"""Screenshots of the table screen: every registered game at three moments and three sizes.

    python -m dialbox.displays.screenshots docs/screens

plays each registered game on a rehearsal table (bots, at full speed), picks three moments
(`lock`: a sealed prompt with every seat locked, half-way through the game; `reveal`: that
prompt revealed; `result`: the final scores), serves the table screen, and has Debian's
Chromium (headless, through Playwright: the `test` extra) draw each moment at a phone
(390 x 844), a laptop (1280 x 800) and a TV (1920 x 1080) size. Each picture is a JPEG
(quality 70) named `<game>-<moment>-<w>x<h>.jpg`. The layout tests use the same moments.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.rehearsal import Rehearsal
from dialbox.displays.screen import TableScreen
from dialbox.engine import game_names
from dialbox.engine.registry import game_info

SIZES: tuple[tuple[int, int], ...] = ((390, 844), (1280, 800), (1920, 1080))
"""A phone held upright, a laptop, a 1080p TV."""
MOMENTS = ("lock", "reveal", "result")
QUALITY = 70
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]

DRAWN = "seq => window.dialbox.log.some(e => e.seq === seq)"
"""The page has drawn the state numbered `seq` (screen.js logs every render)."""
SETTLED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"
"""Two frames: the page has laid itself out again (and refitted) after a resize."""


def players_for(game: str) -> int:
    """Four players where the game takes four, else as many as it takes."""
    counts = game_info(game).players
    return 4 if 4 in counts else max(counts)


async def play(game: str, seed: int = 1) -> list[TableView]:
    """Every state a rehearsal table publishes for a whole game of `game` (bots, full speed;
    two seats shown as simulated controllers, one of which drops offline once)."""
    feed = PublicFeed()
    states: list[TableView] = []
    feed.listen(states.append)
    table = Rehearsal(feed, game, players=players_for(game), seed=seed, pace=0,
                      controllers=2, drop_seat=1)
    await table.run()
    return states


def moments(states: Sequence[TableView]) -> dict[str, list[TableView]]:
    """The lock, reveal and result moments of a recorded game, each as the states to show in
    order (the moment last): the sealed prompt with every seat locked nearest the middle of
    the game (one that is revealed), after the state that opened it (so the screen has seen
    that prompt open, as a screen following the table has); the state that shows its reveal;
    the last state (the final scores)."""
    revealed = {s.prompt.pid: i for i, s in enumerate(states)
                if s.prompt is not None and s.prompt.phase == "revealed"
                and s.reveal is not None and s.reveal.pid == s.prompt.pid}
    locked = [(i, s) for i, s in enumerate(states)
              if s.prompt is not None and s.prompt.phase == "alllocked" and s.prompt.sealed
              and s.prompt.pid in revealed]
    if not locked:
        raise ValueError("no sealed prompt of this game was locked and revealed")
    middle = len(states) / 2
    i, lock = min(locked, key=lambda x: abs(x[0] - middle))
    assert lock.prompt is not None
    pid = lock.prompt.pid
    opened = next(s for s in states if s.prompt is not None and s.prompt.pid == pid)
    result = states[-1]
    if result.stage != "over" or result.result is None:
        raise ValueError("the recorded game did not end")
    return {"lock": [opened, lock], "reveal": [states[revealed[pid]]], "result": [result]}


async def show(page: Any, feed: PublicFeed, views: Sequence[TableView]) -> TableView:
    """Publish `views` in order to the page's screen and wait until the page has drawn the
    last; it, as published."""
    sent = [feed.publish(v) for v in views]
    await page.wait_for_function(DRAWN, arg=sent[-1].seq)
    return sent[-1]


async def resize(page: Any, width: int, height: int) -> None:
    """A new viewport, and the page laid out and fitted again for it."""
    await page.set_viewport_size({"width": width, "height": height})
    await page.evaluate(SETTLED)


@contextlib.asynccontextmanager
async def screen_page(profile: Path | None = None) -> AsyncIterator[tuple[Any, PublicFeed]]:
    """A table screen on a fresh feed, and Chromium's page showing it (live)."""
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        raise SystemExit("screenshots need Playwright: pip install -e '.[test]'") from None
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    feed = PublicFeed()
    screen = TableScreen(feed)
    server = asyncio.create_task(screen.serve())
    try:
        while not screen.server.started:
            await asyncio.sleep(0.01)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                               args=CHROMIUM_ARGS)
            try:
                w, h = SIZES[-1]
                page = await browser.new_page(viewport={"width": w, "height": h})
                await page.goto(screen.url)
                await page.wait_for_selector("#link.ok")
                yield page, feed
            finally:
                await browser.close()
    finally:
        screen.stop()
        await asyncio.wait_for(server, 10)


async def shoot(out: Path, games: Sequence[str] | None = None,
                quality: int = QUALITY) -> list[Path]:
    """Every game at every moment and size, into `out`; the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    chosen = list(games) if games else game_names()
    recorded = {g: moments(await play(g)) for g in chosen}
    async with screen_page() as (page, feed):
        for game, shots in recorded.items():
            for moment in MOMENTS:
                await show(page, feed, shots[moment])
                for w, h in SIZES:
                    await resize(page, w, h)
                    path = out / f"{game}-{moment}-{w}x{h}.jpg"
                    await page.screenshot(path=str(path), type="jpeg", quality=quality,
                                          animations="disabled")
                    written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m dialbox.displays.screenshots",
        description="Screenshots of the table screen: every game at its lock, reveal and "
                    "result moments, at 390x844, 1280x800 and 1920x1080 (JPEG).")
    ap.add_argument("out", type=Path, help="folder for <game>-<moment>-<w>x<h>.jpg")
    ap.add_argument("--game", action="append", choices=game_names(),
                    help="only this game (again for more); default: every registered game")
    ap.add_argument("--quality", type=int, default=QUALITY, help="JPEG quality (default 70)")
    args = ap.parse_args(argv)
    written = asyncio.run(shoot(args.out, args.game, args.quality))
    print(f"{len(written)} screenshots in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
