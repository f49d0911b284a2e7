"""PIP Cycle's board (games/pipcycle/board.js) in Debian's Chromium: the grid with its lines,
riders and labels, the card check in check order with the winner marked, a crash with its
marker and trophy, hands as card backs only. Screenshots land in
artifacts/displays/board-pipcycle-*.png (gitignored)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.public import SeatView, TableView, game_choices
from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.engine.registry import game_names
from dialbox.games.pipcycle import PipCycle
from dialbox.table import PLAYER_COLOURS
from tests.displays.helpers import artifacts, screen_page

pytestmark = [pytest.mark.timeout(120)]

CRASH_POSITION = {
    "riders": [{"seat": 0, "at": "c1", "facing": "N"}, {"seat": 0, "at": "g1", "facing": "N"},
               {"seat": 1, "at": "c9", "facing": "S"}, {"seat": 1, "at": "g9", "facing": "S"}],
    "hands": [["1H", "2D", "5S"], ["4C", "3H", "6D"]],
    "pile": ["2H", "3S", "4D", "5H", "6S", "1C", "2C", "3C"],
    "lines": [["e4", "e5", 0], ["e5", "f5", 1]], "starter": 1,
}
"""Two riders each, so a crash leaves the round going (a round-ending crash is cleared from
`crashes` before the next decision: the screen then only has it in `rounds`)."""


def played_until(game: PipCycle, done: Any, seed: int) -> PipCycle:
    """Random bots answer until `done(public view)` holds at a pending decision."""
    bots = {s: RandomBot(seed * 10 + s) for s in range(game.n)}
    for _ in range(500):
        if game.pending is not None and done(game.view(None)):
            return game
        assert game.pending is not None, "the game ended first"
        game.apply(answer_with_bots(game, bots))
    raise AssertionError("never reached")


def at_check(seed: int = 3, players: int = 2) -> PipCycle:
    """A game in the resolve phase of a card check, some of its cards resolved."""
    return played_until(PipCycle({"players": players, "seed": seed}),
                        lambda v: v["check"] and v["resolved"] and v["phase"] == "resolve", seed)


def after_crash(seed: int = 3) -> PipCycle:
    game = PipCycle.from_position({"players": 2, "seed": seed}, CRASH_POSITION)
    assert isinstance(game, PipCycle)
    return played_until(game, lambda v: v["crashes"], seed)


def table(game: PipCycle) -> TableView:
    seats = tuple(SeatView(seat=i, name=PLAYER_COLOURS[i][0], colour=PLAYER_COLOURS[i][1],
                           occupant="bot", status="waiting") for i in range(game.n))
    return TableView(stage="playing", game="pipcycle", games=game_choices(game_names()),
                     seats=seats, board=game.view(None))


def hand_cards(game: PipCycle) -> set[str]:
    """Every card in every hand, from each seat's own view."""
    return {c for s in range(game.n) for c in game.view(s)["hands"][s]}


PRETTY = {"H": "♥", "D": "♦", "S": "♠", "C": "♣"}
SHOWN_CARDS = """() => ({
  text: [...document.body.innerText.matchAll(/(\\d+)([♥♦♠♣])/g)].map(m => m[0]),
  attrs: [...document.querySelectorAll('[data-check-card]')].map(e => e.dataset.checkCard),
})"""
BOARD_FACTS = """() => {
  const q = (sel) => [...document.querySelectorAll('[data-board=pipcycle] ' + sel)];
  const top = (sel) => q(sel)[0].getBoundingClientRect().top;
  const n = q('text[data-row]').length;
  const svg = q('svg[data-grid]')[0].getBoundingClientRect();
  const d = (e) => e.dataset;
  return {
    check: q('[data-check-card]').map(e => [Number(d(e).seat), d(e).checkCard]),
    winners: q('[data-winner]').map(e => [Number(d(e).seat), d(e).checkCard, e.className]),
    hows: q('[data-check-card]').map(e => d(e).how),
    lines: q('[data-line]').map(e => [d(e).line, Number(d(e).seat), e.getAttribute('stroke')]),
    riders: q('[data-rider]').map(e => [Number(d(e).rider), Number(d(e).seat), d(e).at,
                                         d(e).facing, Number(d(e).pips)]),
    arrows: q('[data-rider] [data-arrow]').length,
    cols: q('text[data-col]').map(e => e.textContent),
    rows: q('text[data-row]').map(e => e.textContent),
    southBelowNorth: top('text[data-row="1"]') > top('text[data-row="' + n + '"]'),
    crashes: q('[data-crash]').map(e => [Number(d(e).crash), d(e).at, d(e).cause]),
    trophies: q('[data-player]').map(p => [...p.querySelectorAll('[data-trophy]')]
                                             .map(e => Number(d(e).trophy))),
    hands: q('[data-player]').map(p => [Number(d(p.querySelector('[data-hand-count]')).handCount),
                                         p.querySelectorAll('.pc-back').length]),
    reserve: q('[data-player]').map(p => p.querySelectorAll('[data-reserve-die]').length),
    svg: [svg.width, svg.height],
    text: document.querySelector('#board').innerText,
  };
}"""


def name(x: int, y: int) -> str:
    return f"{chr(97 + x)}{y + 1}"


SHOWING = """seq => window.dialbox.log.some(e => e.seq === seq)
  && document.querySelector('[data-board=pipcycle]') !== null"""
"""The page has drawn the state numbered `seq` (screen.js logs every render)."""


def expected_lines(view: dict[str, Any]) -> list[list[Any]]:
    return [[f"{name(x1, y1)}-{name(x2, y2)}", s, "#" + PLAYER_COLOURS[s][1]]
            for x1, y1, x2, y2, s in view["lines"]]


async def show(profile: Path, games: dict[str, PipCycle]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with screen_page(profile) as (page, feed, _frames, errors):
        for key, game in games.items():
            sent = feed.publish(table(game))
            await page.wait_for_function(SHOWING, arg=sent.seq)
            seen[key] = await page.evaluate(BOARD_FACTS)
            seen[key + "-cards"] = await page.evaluate(SHOWN_CARDS)
            await page.screenshot(path=artifacts() / f"board-pipcycle-{key}.png")
            if key == "check":  # the table's TV, and a phone held upright
                await page.set_viewport_size({"width": 1920, "height": 1080})
                seen["tv"] = await page.evaluate(BOARD_FACTS)
                await page.screenshot(path=artifacts() / "board-pipcycle-1080p.png")
                await page.set_viewport_size({"width": 390, "height": 844})
                seen["phone"] = await page.evaluate(BOARD_FACTS)
                await page.screenshot(path=artifacts() / "board-pipcycle-390.png",
                                      full_page=True)
                await page.set_viewport_size({"width": 1600, "height": 900})
        # every state of whole games, 2 and 3 players: each drawn without an error
        for players in (2, 3):
            game = PipCycle({"players": players, "seed": 7})
            bots = {s: RandomBot(70 + s) for s in range(players)}
            while game.pending is not None:
                game.apply(answer_with_bots(game, bots))
                sent = feed.publish(table(game))
            await page.wait_for_function(SHOWING, arg=sent.seq)
            seen[f"over-{players}"] = await page.inner_text("[data-board=pipcycle]")
        seen["errors"] = list(errors)
    return seen


def check_secrets(shown: dict[str, Any], game: PipCycle) -> None:
    """No card of any hand on the page: only the cards of the public card check.

    (After the played cards are reshuffled, a card of the check still on view may have been
    dealt again: the page shows it as the check card it was, not as anybody's.)"""
    view = game.view(None)
    public = {c for _s, c in (view["check"] or {"order": []})["order"]}
    hidden = hand_cards(game) - public
    assert hidden, "a test state with no cards in hand proves nothing"
    assert not {c[:-1] + PRETTY[c[-1]] for c in hidden} & set(shown["text"])
    assert not hidden & set(shown["attrs"])
    assert set(shown["attrs"]) <= public
    assert set(shown["text"]) <= {c[:-1] + PRETTY[c[-1]] for c in public}


def test_pipcycle_board_at_a_card_check_and_after_a_crash(tmp_path: Path) -> None:
    check, crash, three = at_check(), after_crash(), at_check(seed=5, players=3)
    seen = asyncio.run(show(tmp_path / "chromium-profile",
                            {"check": check, "crash": crash, "three": three}))
    assert seen["errors"] == []
    assert all("PIP Cycle with" in seen[f"over-{n}"] for n in (2, 3))  # the result

    # the card check: face up in check order, the winner marked, how each was resolved
    view = check.view(None)
    got = seen["check"]
    assert got["check"] == [list(x) for x in view["check"]["order"]]
    win_seat, win_card = view["check"]["winner"]
    assert [w[:2] for w in got["winners"]] == [[win_seat, win_card]]
    assert "win" in got["winners"][0][2].split()
    done = {(e["seat"], e["card"]): e["how"] for e in view["resolved"]}
    assert got["hows"] == [done.get((s, c), "pending") for s, c in view["check"]["order"]]
    # the grid: lines in their claimer's colour, riders with Pips and facing, labels
    assert got["lines"] == expected_lines(view)
    assert sorted(got["riders"]) == sorted([r["id"], r["seat"], r["at"], r["facing"], r["pips"]]
                                           for r in view["riders"])
    assert got["arrows"] == len(view["riders"])
    assert got["cols"] == list("abcdefghi") and got["rows"] == [str(k) for k in range(1, 10)]
    assert got["southBelowNorth"]
    assert got["hands"] == [[h, h] for h in view["hands"]]
    assert got["reserve"] == view["reserve"]
    assert f"card check · exchange {view['check']['exchange']}" in got["text"].lower()
    check_secrets(seen["check-cards"], check)

    # after a crash: the marker on its point, the trophy counted for the capturer
    view = crash.view(None)
    got = seen["crash"]
    assert got["crashes"] == [[c["rider"], c["at"], c["cause"]] for c in view["crashes"]]
    assert got["trophies"] == view["trophies"] and sum(map(len, got["trophies"])) == 1
    c = view["crashes"][0]
    assert got["trophies"][c["by"]] == [c["seat"]]
    assert "crashed" in got["text"] and f"at {c['at']}" in got["text"]
    assert got["lines"] == expected_lines(view)
    check_secrets(seen["crash-cards"], crash)

    # three players: an 11x11 grid, the third seat on the west edge
    got = seen["three"]
    assert got["cols"] == list("abcdefghijk") and len(got["rows"]) == 11
    assert len(got["hands"]) == 3
    check_secrets(seen["three-cards"], three)

    # sized to fit: the whole grid on a 1080p screen, and still a grid on a 390 px phone
    w, h = seen["tv"]["svg"]
    assert 600 <= h <= 1080 and abs(w - h) < 2
    w, h = seen["phone"]["svg"]
    assert 250 <= w <= 390
    assert all(re.fullmatch(r"\d+[♥♦♠♣]", t) for t in seen["check-cards"]["text"])
