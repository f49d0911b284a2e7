"""Each game's board renderer, loaded from its own package, drawn by Chromium.

The page loads the board.js of every game registered when it opened (one <script> each), and
on demand the board of a game registered later; a game without one gets its public view as a
key/value table. Screenshots of each 8Bit Box board in the middle of a game land in
artifacts/displays/board-<game>.png (gitignored).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import SeatView, TableView, game_choices
from dialbox.displays.screen import TableScreen
from dialbox.engine.bots import play_out
from dialbox.engine.registry import game_info, game_names, register, unregister
from dialbox.table import PLAYER_COLOURS
from tests.displays.helpers import GAMES, artifacts, chromium_page

pytestmark = [pytest.mark.timeout(120)]


def midgame(game: str, players: int = 4, decisions: int = 12) -> TableView:
    """A table in the middle of a game of `game`, played by its bots."""
    info = game_info(game)
    opts = {"players": players, "seed": 5}
    g = info.game(opts)
    bot = info.bot()
    play_out(g, {s: bot(50 + s) for s in range(info.seats(opts))}, max_decisions=decisions)
    teams = info.seat_teams(opts)
    seats = tuple(SeatView(seat=i, name=PLAYER_COLOURS[i][0], colour=PLAYER_COLOURS[i][1],
                           occupant="bot", status="waiting", team=teams[i])
                  for i in range(info.seats(opts)))
    return TableView(stage="playing", game=game, games=game_choices(game_names()),
                     seats=seats, board=g.view(None))


def trial_names() -> dict[str, str]:
    """Stadium's Trial names by key, from the data file beside its board.js."""
    board = game_info("stadium").board_js
    assert board is not None
    trials = json.loads(board.with_name("trial-summaries.json").read_text())["trials"]
    return {k: t["name"] for k, t in trials.items()}


async def show_boards(profile: Path) -> dict[str, Any]:
    feed = PublicFeed()
    screen = TableScreen(feed)
    server = asyncio.create_task(screen.serve())
    shots = artifacts()
    seen: dict[str, Any] = {}
    try:
        while not screen.server.started:
            await asyncio.sleep(0.01)
        async with chromium_page(profile) as (page, _frames, errors):
            await page.goto(screen.url)
            await page.wait_for_selector("#link.ok")
            seen["tags"] = await page.eval_on_selector_all(
                "script[data-board-game]", "els => els.map(e => e.dataset.boardGame)")

            # A game nobody registered: its public view, key by key.
            feed.publish(TableView(stage="playing", game="nosuchgame",
                                   board={"round": 3, "scores": [1, 2], "tile": {"n": 4}}))
            await page.wait_for_selector("[data-board=generic] tr[data-key=tile]")
            seen["generic"] = await page.eval_on_selector_all(
                "[data-board=generic] tr", "els => els.map(e => e.innerText)")
            await page.screenshot(path=shots / "board-generic.png")

            # A game registered after the page opened: its board.js is loaded on demand,
            # and it reads its own data file (tiny.json) through the URL it was loaded from.
            register("tinyboard", "tests.displays.tinyboard")
            try:
                feed.publish(midgame("tinyboard", players=2, decisions=1))
                await page.wait_for_selector("[data-board=tinyboard] [data-word=tiny]")
                seen["tiny"] = await page.inner_text("[data-board=tinyboard]")
                await page.screenshot(path=shots / "board-tinyboard.png")
            finally:
                unregister("tinyboard")

            # The 8Bit Box games: their boards come with the page, one <script> each.
            for game in GAMES:
                view = midgame(game)
                feed.publish(view)
                await page.wait_for_selector(f"[data-board={game}]")
                if game == "stadium":  # the Trial names come from trial-summaries.json
                    b = view.board or {}
                    names = trial_names()
                    expected = [names.get(k, k) for k in b["track"][:b["revealed"]]]
                    await page.wait_for_function(
                        """want => JSON.stringify([...document.querySelectorAll(
                             '[data-board=stadium] .trial:not(.back) .tn')]
                             .map(e => e.textContent)) === JSON.stringify(want)""",
                        arg=expected)
                    seen["stadium-track"] = expected
                    seen["teams"] = await page.eval_on_selector_all(
                        "#seats .seat .who .badge", "els => els.map(e => e.textContent)")
                seen[game] = await page.inner_text("#board")
                await page.screenshot(path=shots / f"board-{game}.png")
            seen["errors"] = list(errors)
    finally:
        screen.stop()
        await asyncio.wait_for(server, 10)
    return seen


def test_each_game_draws_its_own_board(tmp_path: Path) -> None:
    seen = asyncio.run(show_boards(tmp_path / "chromium-profile"))
    assert seen["errors"] == []
    assert seen["tags"] == [g for g in game_names() if game_info(g).board_js is not None]
    assert set(GAMES) <= set(seen["tags"]) and "tinyboard" not in seen["tags"]
    assert [row.split("\t")[0] for row in seen["generic"]] == ["round", "scores", "tile"]
    assert "1, 2" in seen["generic"][1] and '{"n":4}' in seen["generic"][2]
    assert "Tiny Board" in seen["tiny"] and "Red: " in seen["tiny"]
    for game in GAMES:
        assert game_info(game).title in seen[game]
        assert (artifacts() / f"board-{game}.png").stat().st_size > 10_000
    if "stadium" in GAMES:
        track = seen["stadium-track"]
        assert track and all(name in trial_names().values() for name in track)
        assert seen["teams"] == ["blue", "red", "blue", "red"]  # from SeatView.team
