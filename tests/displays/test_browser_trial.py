"""Trial of the Gods' board (games/trial_of_the_gods/board.js) in Debian's Chromium: the clock,
the Initiative order, the tracks, an Olympics Competition being dialled (who has locked, never a
value) and revealed (every player's values together), and the final rankings with where each VP
came from and the winner's tiebreak. Screenshots land in artifacts/displays/board-trial-*.png
(gitignored)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.public import SeatView, TableView, game_choices
from dialbox.engine import get_game
from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.engine.registry import game_names
from dialbox.games.trial_of_the_gods import scoring as S
from dialbox.table import PLAYER_COLOURS
from tests.displays.helpers import artifacts, screen_page
from tests.displays.test_browser_pipcycle import played_until

pytestmark = [pytest.mark.timeout(180)]

GAME = "trial-of-the-gods"


def new_game(players: int = 3, seed: int = 5) -> Any:
    return get_game(GAME)({"players": players, "seed": seed})


def at_sealed_competition(competition: int, players: int = 3, seed: int = 5) -> Any:
    """A game at its first sealed Competition numbered `competition`, waiting for the dials."""
    return played_until(new_game(players, seed), lambda v: (
        v["olympics"] is not None and v["olympics"]["competitions"] == competition - 1
        and v["pending"]["sealed"]), seed)


def finished(players: int = 3, seed: int = 5) -> Any:
    game = new_game(players, seed)
    bots = {s: RandomBot(seed * 10 + s) for s in range(players)}
    while game.pending is not None:
        game.apply(answer_with_bots(game, bots))
    return game


def table(board: dict[str, Any]) -> TableView:
    n = len(board["tracks"])
    seats = tuple(SeatView(seat=i, name=PLAYER_COLOURS[i][0], colour=PLAYER_COLOURS[i][1],
                           occupant="bot", status="waiting") for i in range(n))
    return TableView(stage="playing", game=GAME, games=game_choices(game_names()), seats=seats,
                     board=board)


def tied_final() -> dict[str, Any]:
    """An end-of-game count with two players tied on VP, broken by Dishonor."""
    def tally(seat: int, dom: int, explore: int, champ: int, cards: int, dishonor: int) -> S.Tally:
        return S.Tally(seat=seat, initiative=seat, tamed_laurels=dom, islands_plain=explore,
                       islands_fleece=0, champions=champ, card_laurels=cards, animae=0,
                       dishonor=dishonor, temples=1, companions=0)

    # 6 + 4 + 5 + 3 = 18 against 4 + 6 + 3 + 5 = 18; the third player scores nothing
    tallies = [tally(0, 4, 1, 2, 1, 3), tally(1, 2, 3, 1, 3, 1), tally(2, 0, 0, 0, 0, 0)]
    return S.score(tallies).to_json()


SHOWING = """seq => window.dialbox.log.some(e => e.seq === seq)
  && document.querySelector('[data-board="trial-of-the-gods"]') !== null"""
"""The page has drawn the state numbered `seq` (screen.js logs every render)."""

FACTS = """() => {
  const root = document.querySelector('[data-board="trial-of-the-gods"]');
  const q = (sel) => [...root.querySelectorAll(sel)];
  const d = (e) => e.dataset;
  const rect = root.getBoundingClientRect();
  return {
    phase: d(root).phase, round: Number(d(root).round), rounds: Number(d(root).rounds),
    current: q('[data-phase-step][data-current]').map(e => d(e).phaseStep),
    steps: q('[data-phase-step]').map(e => d(e).phaseStep),
    initiative: q('[data-initiative]').map(e => d(e).initiative),
    chips: q('[data-initiative] [data-seat]').map(e => Number(d(e).seat)),
    tracks: q('[data-player]').map(p => {
      const t = (k) => p.querySelector('[data-track="' + k + '"]');
      return {
        seat: Number(d(p).player),
        vigor: Number(d(t('vigor')).value), limit: d(t('vigor')).limit,
        hand: Number(d(t('vigor')).handLimit),
        available: Number(d(t('energy')).available), exhausted: Number(d(t('energy')).exhausted),
        champions: Number(d(t('champions')).value), dishonor: Number(d(t('dishonor')).value),
        companions: Number(d(t('companions')).value), temples: Number(d(t('temples')).value),
        islands: Number(d(t('islands')).value), laurels: Number(d(t('tamed')).laurels),
        tamed: [...p.querySelectorAll('[data-monster]')].map(e => d(e).monster),
      };
    }),
    fervor: q('[data-fervor]').map(e => [Number(d(e).fervor), Number(d(e).value)]),
    revealed: q('tr[data-competition][data-revealed="1"]').map(r => [Number(d(r).competition),
      [...r.querySelectorAll('td[data-seat]')].map(c => [Number(d(c).seat),
        Number(d(c).playFervor), c.querySelector('[data-values]').textContent])]),
    sealed: q('tr[data-competition][data-revealed="0"]').map(r => [Number(d(r).competition),
      [...r.querySelectorAll('td[data-lock-seat]')].map(c => [Number(d(c).lockSeat), d(c).status]),
      [...r.querySelectorAll('td[data-lock-seat]')].map(c => c.innerText).join(' ')]),
    choosing: q('td[data-status="choosing"]').map(c => [Number(d(c).seat),
      c.querySelector('[data-values]').textContent]),
    asking: q('[data-asking] [data-ask-seats]').map(e => [d(e).askSeats, e.innerText]),
    olympics: q('[data-olympics]').map(e => d(e).olympics),
    fight: q('[data-fight]').map(e => d(e).winnerSide),
    attacks: q('[data-attack]').map(e => [d(e).attack, Number(e.textContent)]),
    dice: q('[data-die]').map(e => d(e).die),
    damage: q('[data-damage]').map(e => Number(d(e).damage)),
    final: q('[data-final-table] tr[data-standing]').map(r => [Number(d(r).seat),
      Number(d(r).vp), [...r.querySelectorAll('td[data-ranking]')].map(c => [d(c).ranking,
        Number(d(c).vp), d(c).position])]),
    notes: q('[data-note]').map(e => e.textContent),
    winner: q('[data-winner]').map(e => [Number(d(e).winner), d(e).decidedBy, e.innerText]),
    tiebreak: q('[data-step]').map(e => d(e).step),
    width: rect.width,
    font: parseFloat(getComputedStyle(root).fontSize),
    cardWidth: q('[data-player]').map(e => e.getBoundingClientRect().width),
    text: root.innerText,
  };
}"""


async def show(profile: Path, boards: dict[str, dict[str, Any]],
               whole: list[tuple[int, int]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    async with screen_page(profile) as (page, feed, _frames, errors):
        for key, board in boards.items():
            sent = feed.publish(table(board))
            await page.wait_for_function(SHOWING, arg=sent.seq)
            seen[key] = await page.evaluate(FACTS)
            await page.screenshot(path=artifacts() / f"board-trial-{key}.png", full_page=True)
            if key in ("revealed", "final"):  # the table's TV, and a phone held upright
                await page.set_viewport_size({"width": 1920, "height": 1080})
                seen[key + "-tv"] = await page.evaluate(FACTS)
                await page.screenshot(path=artifacts() / f"board-trial-{key}-1080p.png")
                await page.set_viewport_size({"width": 390, "height": 844})
                seen[key + "-phone"] = await page.evaluate(FACTS)
                await page.screenshot(path=artifacts() / f"board-trial-{key}-390.png",
                                      full_page=True)
                await page.set_viewport_size({"width": 1600, "height": 900})
        # every state of whole games: each drawn without an error
        for players, seed in whole:
            game = new_game(players, seed)
            bots = {s: RandomBot(seed * 10 + s) for s in range(players)}
            while game.pending is not None:
                game.apply(answer_with_bots(game, bots))
                sent = feed.publish(table(game.view(None)))
            await page.wait_for_function(SHOWING, arg=sent.seq)
            seen[f"over-{players}"] = await page.evaluate(FACTS)
        seen["errors"] = list(errors)
    return seen


def expected_tracks(view: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for s in view["initiative"]:
        t = view["tracks"][s]
        out.append({"seat": s, "vigor": t["vigor"],
                    "limit": "none" if t["vigor_limit"] is None else str(t["vigor_limit"]),
                    "hand": t["hand_limit"], "available": t["available"],
                    "exhausted": t["exhausted"], "champions": t["champions"],
                    "dishonor": t["dishonor"], "companions": t["companions"],
                    "temples": t["temples"], "islands": t["islands"],
                    "laurels": t["tamed_laurels"], "tamed": [m["name"] for m in t["tamed"]]})
    return out


def test_trial_board_olympics_reveal_and_final_rankings(tmp_path: Path) -> None:
    # Competition 1 being dialled: one seat has locked (its dial staged, unrevealed)
    first = at_sealed_competition(1)
    staged = (7, 8, 0)
    first.stage(0, staged)
    first_view = first.view(None)
    assert first_view["pending"]["locked"] == [0] and first_view["pending"]["mine"] == {}
    # Competition 2 being dialled, Competition 1 revealed; two seats locked
    second = at_sealed_competition(2)
    second.stage(2, (6, 9, 0))
    second.stage(1, (5, 9, 0))
    second_view = second.view(None)
    # Competition 1 revealed: the last in Initiative chooses numbers or its card's Effect
    effects = at_sealed_competition(1)
    chooser = effects.initiative[-1]
    effects.apply({s: (3, 1, 1 if s == chooser else 0) for s in range(effects.n)})
    effects_view = effects.view(None)
    end = finished()
    end_view = end.view(None)
    tie_view = {**end_view, "final": tied_final()}
    seen = asyncio.run(show(tmp_path / "chromium-profile", {
        "sealed": first_view, "effects": effects_view, "revealed": second_view,
        "final": end_view, "tie": tie_view,
    }, whole=[(1, 3), (4, 4)]))
    assert seen["errors"] == []

    # the clock, Initiative and tracks
    got = seen["revealed"]
    assert got["phase"] == "olympics" and got["current"] == ["olympics"]
    assert got["steps"] == ["dawn", "adventure", "enemy", "olympics", "sunset"]
    assert (got["round"], got["rounds"]) == (second_view["round"], 4)
    assert got["initiative"] == [",".join(map(str, second_view["initiative"]))]
    assert got["chips"] == second_view["initiative"]
    assert got["tracks"] == expected_tracks(second_view)
    fervor = second_view["olympics"]["fervor"]
    assert sorted(got["fervor"]) == sorted([int(k), v] for k, v in fervor.items())

    # before any reveal: who has locked, never a value
    got = seen["sealed"]
    assert got["revealed"] == []
    [(number, locks, text)] = got["sealed"]
    assert number == 1
    assert dict(locks) == {0: "locked", 1: "dialling", 2: "dialling"}
    assert text and not re.search(r"\d", text)  # no value (7 and 8 were dialled), only locks

    # after Competition 1: every player's values together, Competition 2 still sealed
    got = seen["revealed"]
    [reveal] = second_view["competitions"]
    [(number, cells)] = got["revealed"]
    assert number == 1 and len(cells) == 3
    for seat, fervor_gained, values in cells:
        play = reveal["plays"][str(seat)]
        assert fervor_gained == play["fervor"]
        for symbol, n in play["values"].items():
            assert f"{symbol} {n}" in values
    [(number, locks, text)] = got["sealed"]
    assert number == 2 and dict(locks) == {0: "dialling", 1: "locked", 2: "locked"}
    assert text.count("locked") == 2 and not re.search(r"\d", text)
    assert got["olympics"] == ["live"]

    # revealed, one Effect still to choose: every dialled value shows at once; the chooser's
    # Fervor waits for the choice; the screen says who is asked what
    got = seen["effects"]
    syms = effects_view["olympics"]["disciplines"]
    dialled = " · ".join(f"{k} {n}" for k, n in zip(syms, (3, 1), strict=False))
    assert got["choosing"] == [[chooser, dialled]]
    [(number, cells)] = got["revealed"]
    assert number == 1 and sorted(c[0] for c in cells) == [0, 1, 2]
    assert all(values == dialled for _s, _f, values in cells)
    gained = 3 + (1 if len(syms) > 1 else 0)
    assert {s: f for s, f, _v in cells if s != chooser} == {
        s: gained for s in range(3) if s != chooser}
    [(seats, text)] = got["asking"]
    assert seats == str(chooser) and PLAYER_COLOURS[chooser][0] in text
    assert "Use the numbers, or the Effect's Fervor?" in text
    assert got["sealed"] == []

    # the last fight: both Attack values, the dice, the winner, the Damage
    fight = second_view["fights"][-1]
    assert got["fight"] == [fight["winner"] or "none"]
    assert got["attacks"] == [["player", fight["player_attack"]["total"]],
                              ["enemy", fight["enemy_attack"]["total"]]]
    assert got["dice"] == [str(d) for d in fight["enemy_attack"]["dice"]]
    assert got["damage"] == [fight["damage"]["total"]]

    # the final rankings: the table in standings order with each VP's source, the winner
    final = end_view["final"]
    got = seen["final"]
    assert got["phase"] == "end" and got["current"] == ["end"]
    sources = {p["seat"]: p for p in final["players"]}
    assert got["final"] == [
        [s, sources[s]["vp"], [[x["ranking"], x["vp"],
                                "none" if x["position"] is None else str(x["position"])]
                               for x in sources[s]["sources"]]]
        for s in final["standings"]]
    assert all(sum(vp for _k, vp, _p in row[2]) == row[1] for row in got["final"])
    w = final["winner"]
    [(seat, decided, text)] = got["winner"]
    assert (seat, decided) == (w["seat"], w["decided_by"])
    assert f"{PLAYER_COLOURS[w['seat']][0]} wins" in text
    notes = [x["note"] for p in final["players"] for x in p["sources"] if x["note"]]
    assert sorted(got["notes"]) == sorted(notes)
    assert "olympics of round 4" in got["text"].lower()

    # a tie on VP: the winner with the tiebreak step that decided it
    tie = tied_final()
    got = seen["tie"]
    [(seat, decided, text)] = got["winner"]
    assert (seat, decided) == (tie["winner"]["seat"], "dishonor") and decided != "vp"
    assert got["tiebreak"] == [st["criterion"] for st in tie["winner"]["steps"]] != []
    assert "fewest Dishonor Tokens" in text

    # sized to fit: large on a 1080p screen, still readable columns on a 390 px phone
    for key in ("revealed", "final"):
        tv, phone = seen[key + "-tv"], seen[key + "-phone"]
        assert tv["width"] >= 1000 and tv["font"] >= 16
        assert 300 <= phone["width"] <= 390
        assert min(phone["cardWidth"]) >= 280

    # whole games of 1 and 4 players drawn to the end
    for n in (1, 4):
        got = seen[f"over-{n}"]
        assert got["phase"] == "end" and len(got["final"]) == n and len(got["winner"]) == 1
