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
from tests.displays.helpers import GAMES, Recorded, artifacts, chromium_page, screen_page

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
        # from SeatView.team, named by the view's team_names (Stadium: Starz, Sunz)
        assert seen["teams"] == ["Starz", "Sunz", "Starz", "Sunz"]


# ---------------------------------------------------------------- Stadium's Teams and Trials

STADIUM_FACTS = """() => {
  const root = document.querySelector('[data-board=stadium]').closest('.panel');
  const q = (sel) => [...root.querySelectorAll(sel)];
  const cube = root.querySelector('[data-cube-at]'), pitch = root.querySelector('[data-rugby]');
  return {
    teams: q('.team').map(e => ({ key: e.dataset.team, name: e.dataset.teamName,
      shape: e.dataset.shape, pattern: e.querySelector('[data-pattern]').dataset.pattern,
      emblem: e.querySelector('svg[data-shape]').dataset.shape, text: e.innerText })),
    bars: q('.fuel[data-seat]').map(e => {
      const fill = e.querySelector('.bar [data-pattern]');
      return { seat: Number(e.dataset.seat), team: e.dataset.team, pattern: fill.dataset.pattern,
        colour: getComputedStyle(fill).backgroundColor, inline: fill.style.background };
    }),
    rugby: pitch ? Number(pitch.dataset.rugby) : null,
    cubeAt: cube ? Number(cube.closest('[data-space]').dataset.space) : null,
    bar: q('[data-bar]').map(e => Number(e.dataset.bar)),
    vaulters: q('[data-vaulter]').map(e => Number(e.dataset.vaulter)),
    wagers: q('[data-wager]').map(e => [Number(e.dataset.seat), Number(e.dataset.wager)]),
    rolls: q('[data-roll]').map(e => [e.dataset.die, e.dataset.roll]),
    text: root.innerText,
  };
}"""

SCOPES = {"stadium": (".st-panel",), "outspeed": (".os-panel",),
          "pixoid": (".pixoid-", 'svg[data-board="pixoid"]')}
"""Each board's own CSS reaches only its own panel: every rule starts with its scope."""
BOARD_CSS = """() => Object.fromEntries([...document.querySelectorAll('style[data-board-style]')]
  .map(e => [e.dataset.boardStyle, [...e.sheet.cssRules].map(r => r.selectorText || r.cssText)]))"""
RESULT_PILLS = """() => [...document.querySelectorAll('#result *')].filter(e =>
  e.matches('.team, .badge:empty, .rteam:empty')
  || (!e.textContent.trim() && !e.matches('.dot')
      && parseFloat(getComputedStyle(e).borderLeftWidth) >= 4))
  .map(e => e.outerHTML)"""


def key_of(view: TableView) -> str:
    """The key of the Trial in play."""
    return str(((view.board or {}).get("trial") or {}).get("key"))


def this_trial(view: TableView) -> list[Any]:
    """The events since the Trial in play was revealed."""
    at = [k for k, e in enumerate(view.events) if e.kind == "stadium.reveal"]
    return list(view.events[at[-1] + 1:] if at else view.events)


def stadium_moments() -> dict[str, TableView]:
    """Moments of a rehearsal Stadium game (seed 2 has Pole Vault and Rugby): the Rugby cube
    pushed off the centre, the Pole Vault bar with a jump made, Golf with wagers and dice."""
    states = [s for s in Recorded("stadium", seed=2).play().states if s.board]
    found: dict[str, TableView] = {}
    for s in states:
        t = (s.board or {}).get("trial") or {}
        if t.get("key") == "rugby" and t.get("cube"):
            found["rugby"] = s
        jumped = any(x is not None for x in (s.board or {}).get("score", []))
        if t.get("key") == "pole_vault" and "rung" in t and jumped:
            found.setdefault("vault", s)
        kinds = {e.kind for e in this_trial(s)}
        if t.get("key") == "golf" and {"stadium.wagers", "dice.rolled"} <= kinds:
            found.setdefault("golf", s)
    assert set(found) == {"rugby", "vault", "golf"}, f"the recording lacks {set(found)}"
    return found


async def show_stadium(profile: Path, moments: dict[str, TableView],
                       over: TableView) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with screen_page(profile) as (page, feed, _frames, errors):
        for key, view in moments.items():
            sent = feed.publish(view)
            await page.wait_for_function(
                "seq => window.dialbox.log.some(e => e.seq === seq)", arg=sent.seq)
            await page.wait_for_selector(f'#board [data-trial-state="{key_of(view)}"]')
            seen[key] = await page.evaluate(STADIUM_FACTS)
            await page.screenshot(path=artifacts() / f"board-stadium-{key}.png")
        seen["css"] = await page.evaluate(BOARD_CSS)
        # A Pixoid game's final scores, on a page that has Stadium's board loaded too.
        feed.publish(over)
        await page.wait_for_selector("#result:not([hidden])")
        seen["pills"] = await page.evaluate(RESULT_PILLS)
        seen["errors"] = list(errors)
    return seen


def test_stadium_draws_its_teams_by_name_and_pattern_and_the_trial_in_play(tmp_path: Path) -> None:
    moments = stadium_moments()
    over = Recorded("pixoid", seed=1).play().states[-1]
    assert over.stage == "over" and over.result is not None
    seen = asyncio.run(show_stadium(tmp_path / "chromium-profile", moments, over))
    assert seen["errors"] == []

    colours = {name.lower() for name, _hex in PLAYER_COLOURS}
    seat_rgb = {"rgb({}, {}, {})".format(*bytes.fromhex(c)) for _n, c in PLAYER_COLOURS}
    for key, view in moments.items():
        b, got = view.board or {}, seen[key]
        keys = list(b["medals"])
        # Two Teams, each with its own name, emblem and pattern: no colour names them.
        assert [t["key"] for t in got["teams"]] == keys
        names = [t["name"] for t in got["teams"]]
        given = b.get("team_names") or b.get("teams")
        if isinstance(given, dict):  # by team key
            assert names == [given[k] for k in keys]
        elif given:
            assert names == [g if isinstance(g, str) else g["name"] for g in given]
        assert len(set(names)) == 2 and all(names) and not {n.lower() for n in names} & colours
        assert all(t["name"] in t["text"] for t in got["teams"])
        assert len({t["shape"] for t in got["teams"]}) == 2
        assert len({t["pattern"] for t in got["teams"]}) == 2
        assert all(t["emblem"] == t["shape"] for t in got["teams"])
        # Each Athlete's Energy bar in its Team's pattern, not in a colour of a seat.
        pattern = {t["key"]: t["pattern"] for t in got["teams"]}
        for bar in got["bars"]:
            seat = view.seats[bar["seat"]]
            assert bar["team"] == (seat.team if seat.team in keys else keys[bar["seat"] % 2])
            assert bar["pattern"] == pattern[bar["team"]]
            assert bar["colour"] not in seat_rgb and not bar["inline"].startswith("rgb")
        # This Trial's wagers and dice, from the latest events.
        wagers = [e for e in this_trial(view) if e.kind == "stadium.wagers"]
        if wagers:
            w = wagers[-1].data["wagers"]
            assert sorted(got["wagers"]) == sorted([int(s), v] for s, v in w.items())

    # The Rugby cube where the Trial has pushed it, off the centre.
    t = moments["rugby"].board["trial"]
    assert seen["rugby"]["rugby"] == t["cube"] != 0 and seen["rugby"]["cubeAt"] == t["cube"]
    # The Pole Vault bar at its rung, the Athletes still in.
    t = moments["vault"].board["trial"]
    assert seen["vault"]["bar"] == [t["rung"]]
    assert seen["vault"]["vaulters"] == list(t["vaulters"])
    # Golf: the dice rolled in this Trial.
    rolled = [[e.data["die"], e.data["label"]] for e in this_trial(moments["golf"])
              if e.kind == "dice.rolled"]
    assert seen["golf"]["rolls"] and seen["golf"]["rolls"] == rolled[-len(seen["golf"]["rolls"]):]

    # No board's CSS reaches outside its panel: the final scores of a Pixoid game show no
    # Stadium-style Team pill (an empty cell once took Stadium's `.team` card style).
    for game, scopes in SCOPES.items():
        rules = seen["css"][game]
        assert rules and all(r.startswith(scopes) for r in rules), (game, rules)
    assert seen["pills"] == []
