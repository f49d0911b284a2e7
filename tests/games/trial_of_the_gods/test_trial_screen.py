"""Trial of the Gods drawn for a terminal (games/trial_of_the_gods/screen.py): the clock, the
Initiative order, the tracks, the Olympics (who has locked a Competition, never its values
before the reveal; every player's values after it), the last fight and the final rankings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console

from dialbox.engine import get_game
from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.games.trial_of_the_gods import draw
from dialbox.games.trial_of_the_gods import scoring as S


def render(view: dict[str, Any], width: int = 160) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(draw(view))
    return console.export_text()


def game(players: int = 3, seed: int = 5) -> Any:
    return get_game("trial-of-the-gods")({"players": players, "seed": seed})


def played_until(g: Any, done: Callable[[dict[str, Any]], Any], seed: int = 5) -> Any:
    bots = {s: RandomBot(seed * 10 + s) for s in range(g.n)}
    for _ in range(1000):
        if g.pending is not None and done(g.view(None)):
            return g
        assert g.pending is not None, "the game ended first"
        g.apply(answer_with_bots(g, bots))
    raise AssertionError("never reached")


def played_out(g: Any, seed: int = 5) -> Any:
    bots = {s: RandomBot(seed * 10 + s) for s in range(g.n)}
    while g.pending is not None:
        g.apply(answer_with_bots(g, bots))
    return g


def name(seat: int) -> str:
    return PLAYER_COLOURS[seat][0]


def test_the_clock_initiative_and_tracks_in_an_adventure_turn() -> None:
    g = played_until(game(), lambda v: v["phase"] == "adventure" and v["passed"])
    view = g.view(None)
    text = render(view)
    assert f"round {view['round']} of 4" in text and "[ADVENTURE]" in text
    for p in ("Dawn", "Enemy", "Olympics", "Sunset"):
        assert f" {p} " in text
    order = [f"{k + 1}. {name(s)}" for k, s in enumerate(view["initiative"])]
    line = next(ln for ln in text.splitlines() if ln.startswith("Initiative:"))
    assert [line.index(o) for o in order] == sorted(line.index(o) for o in order)
    assert f"{name(view['active'])} (turn)" in line
    assert all(f"{name(s)} (passed)" in line for s in view["passed"])
    for s, t in enumerate(view["tracks"]):
        row = next(ln for ln in text.splitlines() if ln.startswith(f"│ {name(s)} "))
        cells = [c.strip() for c in row.strip("│").split("│")]
        assert cells[1].endswith(str(t["vigor"])) and cells[2] == str(t["vigor_limit"])
        assert cells[3] == str(t["hand_limit"])
        assert cells[4] == f"{t['available']} avail / {t['exhausted']} exh"
        assert cells[5:10] == [str(t[k]) for k in ("champions", "dishonor", "companions",
                                                   "temples", "islands")]


def test_a_sealed_competition_shows_locks_then_every_value_together() -> None:
    g = played_until(game(), lambda v: v["olympics"] is not None
                     and v["olympics"]["competitions"] == 1 and v["pending"]["sealed"])
    g.stage(1, (7, 8, 0))
    view = g.view(None)
    text = render(view)
    assert "Olympics, round 1: Competition 2 of 3" in text and "[OLYMPICS]" in text
    rows = {ln.split("│")[1].strip(): ln for ln in text.splitlines() if ln.startswith("│ ")}
    sealed = [c.strip() for c in rows["2"].strip("│").split("│")][1:]
    order = view["initiative"]
    assert sealed == ["locked" if s == 1 else "dialling…" for s in order]
    revealed = [c.strip() for c in rows["1"].strip("│").split("│")][1:]
    plays = view["competitions"][0]["plays"]
    for s, cell in zip(order, revealed, strict=True):
        assert cell.startswith(f"+{plays[str(s)]['fervor']}")
        assert all(f"{k} {n}" in cell for k, n in plays[str(s)]["values"].items())
    fervor = view["olympics"]["fervor"]
    assert "Fervor: " + "  ".join(f"{name(s)} {fervor[str(s)]}" for s in order) in text


def test_revealed_values_show_while_effects_are_chosen_and_the_screen_says_what_is_asked(
) -> None:
    g = played_until(game(), lambda v: v["olympics"] is not None and v["pending"]["sealed"]
                     and v["pending"]["asks"][0]["topic"] == "trial.competition")
    d = g.pending
    assert [f.label for f in d.asks[0].wheels[2].faces] == ["numbers", "effect"]
    chooser = g.initiative[-1]
    g.apply({s: (2, 1, 1 if s == chooser else 0) for s in d.seats})
    view = g.view(None)
    text = render(view)
    rows = {ln.split("│")[1].strip(): ln for ln in text.splitlines() if ln.startswith("│ ")}
    cells = [c.strip() for c in rows["1"].strip("│").split("│")][1:]
    order = view["initiative"]
    syms = view["olympics"]["disciplines"]
    for s, cell in zip(order, cells, strict=True):
        values = " ".join(f"{k} {n}" for k, n in zip(syms, (2, 1), strict=False))
        if s == chooser:
            assert cell == f"{values}: numbers or Effect?"
        else:
            assert cell.startswith(f"+{3 if len(syms) > 1 else 2}") and values in cell
    ask = view["pending"]["asks"][0]
    assert ask["seat"] == chooser and ask["topic"] == "trial.effect"
    assert f"Now: {name(chooser)}: {ask['text']}" in text


def test_the_olympics_ranking_and_the_last_fight() -> None:
    g = played_until(game(), lambda v: v["phase"] == "sunset" and v["olympics_result"])
    view = g.view(None)
    text = render(view)
    result = view["olympics_result"]
    assert f"Olympics of round {view['round']}" in text
    for k, s in enumerate(result["ranking"]):
        award = next(a for a in result["awards"] if a["seat"] == s)
        assert any(ln.startswith(f"│ {['1st', '2nd', '3rd', '4th'][k]} ") and name(s) in ln
                   and award["prize"][:30] in ln for ln in text.splitlines())
    fight = view["fights"][-1]
    assert f"Last fight (round {fight['round']})" in text
    assert f"Attack {fight['player_attack']['total']}" in text
    assert f"Attack {fight['enemy_attack']['total']}" in text
    assert f"Damage {fight['damage']['total']}" in text


def test_the_final_rankings_with_vp_sources_and_the_winner() -> None:
    view = played_out(game()).view(None)
    text = render(view)
    final = view["final"]
    assert "Final rankings" in text and "[END OF GAME]" in text
    for k, s in enumerate(final["standings"]):
        p = next(p for p in final["players"] if p["seat"] == s)
        place = ["1st", "2nd", "3rd", "4th"][k]  # in standings order
        row = next(ln for ln in text.splitlines() if ln.startswith(f"│ {place} ")
                   and f" {name(s)} " in ln and "VP" in ln)
        cells = [c.strip() for c in row.strip("│").split("│")]
        assert cells[-1] == str(p["vp"])
        assert [int(c.split(" VP")[0]) for c in cells[2:-1]] == [x["vp"] for x in p["sources"]]
    w = final["winner"]
    assert f"{name(w['seat'])} wins with {w['vp']} VP" in text


def test_a_tie_shows_the_step_that_broke_it() -> None:
    view = played_out(game()).view(None)
    tallies = [S.Tally(seat=s, initiative=s, tamed_laurels=d, islands_plain=e, islands_fleece=0,
                       champions=c, card_laurels=a, animae=0, dishonor=h, temples=1,
                       companions=0)
               for s, d, e, c, a, h in ((0, 4, 1, 2, 1, 3), (1, 2, 3, 1, 3, 1),
                                        (2, 0, 0, 0, 0, 0))]
    view["final"] = S.score(tallies).to_json()
    text = render(view)
    assert "Blue wins with 18 VP (tied with Red; decided by fewest Dishonor Tokens)" in text
    assert "fewest Dishonor Tokens: Red 3, Blue 1 -> Blue" in text


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_state_draws_for_1_to_4_players(players: int) -> None:
    g = game(players, seed=players)
    bots = {s: RandomBot(10 * players + s) for s in range(players)}
    phases = set()
    while g.pending is not None:
        view = g.view(None)
        phases.add(view["phase"])
        assert render(view, width=100)
        g.apply(answer_with_bots(g, bots))
    text = render(g.view(None), width=100)
    assert "Final rankings" in text
    assert phases == {"dawn", "adventure", "enemy", "olympics", "sunset", "end"}
