"""One name per seat everywhere, and every reveal in the game's words, on the table screen.

Each registered game is played to its end by bots in a GameRunner (the daemon's own table),
seat 1's player called Ann; its state goes through the daemon's adapter
(`tablefeed.table_view`) to the page in Chromium. On the page that seat is called "Ann (Red)"
on its seat card, in every log line that names it and in the final scores, and no text says
"seat 3"; and every reveal card of the latest reveals says what the choice means."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.tablefeed import table_view
from dialbox.engine.registry import game_info, game_names
from dialbox.journal import Journal
from dialbox.runner import GameRunner
from dialbox.runner.settings import TableSettings
from dialbox.table import TableState
from tests.displays.helpers import screen_page

pytestmark = [pytest.mark.timeout(180)]

NAME = "Ann"
SEAT_NUMBER = re.compile(r"\b[Ss]eat \d")


def _final(game: str, tmp: Path) -> TableState:
    """A whole game of bots (they answer at once: it ends inside the constructor), its last
    public state with seat 0's player called Ann."""
    info = game_info(game)
    players = min(info.players)
    seats = info.seats({"players": players})
    settings = TableSettings(name="t", game=game, players=players, seed=3,
                             bots=list(range(seats)))
    journal = Journal(tmp / f"{game}.sqlite")
    try:
        runner = GameRunner(settings, journal)
        assert runner.game.over, game
        # seat 1 as a controller whose player took a name (bots have none)
        place = runner.table.seats[0]
        place.uid, place.bot, place.player = "ann-1", False, NAME
        return runner.state()
    finally:
        journal.close()


async def _look(profile: Path, finals: dict[str, TableState]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with screen_page(profile) as (page, feed, _frames, errors):
        for n, (game, state) in enumerate(finals.items()):
            got: dict[str, Any] = {"cards": []}
            # each of the latest reveals on its own (as a burst of reveals is shown)
            for r in (r for r in state.reveals if r.choices):
                view = table_view(state, reveal_of=r).model_copy(
                    update={"result": None, "stage": "playing", "seq": 1000 * n + r.pid})
                feed.publish(view)
                await page.wait_for_selector(f'#reveal[data-pid="{r.pid}"]')
                got["cards"].append(await page.eval_on_selector_all(
                    "#reveal .choice", """els => els.map(e => [e.querySelector('.name')
                        ? e.querySelector('.name').textContent : '',
                        (e.querySelector('.ctext') || {}).textContent || ''])"""))
            final = table_view(state).model_copy(update={"seq": 1000 * n + 999})
            feed.publish(final)
            await page.wait_for_selector("#result:not([hidden])")
            await page.wait_for_function(
                "g => document.querySelector('#game-title').textContent.length > 0", arg=game)
            got["card"] = await page.inner_text('#seats .seat[data-seat="0"] .who')
            got["log"] = await page.eval_on_selector_all(
                "#event-list li", "els => els.map(e => e.textContent)")
            got["result"] = await page.inner_text("#result")
            got["rname"] = await page.inner_text('#result .rscores li[data-seat="0"] .rname')
            got["events"] = [(e.text, e.data.get("named", [])) for e in final.events]
            seen[game] = got
        seen["errors"] = list(errors)
    return seen


def test_a_seat_is_named_one_way_everywhere_and_every_reveal_says_what_it_means(
        tmp_path: Path) -> None:
    finals = {g: _final(g, tmp_path) for g in game_names()}
    seen = asyncio.run(_look(tmp_path / "profile", finals))
    assert seen["errors"] == []
    label = f"{NAME} (Red)"
    checked = 0
    for game, got in seen.items():
        if game == "errors":
            continue
        # the seat card: the name, and the colour beside it
        assert NAME in got["card"] and "Red" in got["card"], (game, got["card"])
        # the final scores
        assert got["rname"] == label, (game, got["rname"])
        # every log line that names seat 1 (by the game's own spans) calls it Ann (Red)
        assert len(got["log"]) == len(got["events"]), game
        for text, (said, named) in zip(got["log"], got["events"], strict=True):
            if any(seat == 0 for _a, _b, seat in named):
                assert label in text, (game, said, text)
                checked += 1
        # no "seat 3" anywhere a player reads
        for text in [*got["log"], got["result"], got["card"]]:
            assert not SEAT_NUMBER.search(text), (game, text)
        # every reveal card: its seat as named everywhere else, and a meaning in words
        assert got["cards"], f"{game}: no reveal among the latest"
        for cards in got["cards"]:
            for name, meaning in cards:
                assert meaning.strip() and meaning.strip() != "-", (game, cards)
                if name.startswith(NAME):
                    assert name == label, (game, name)
    assert checked, "no log line named seat 1 in any game"
