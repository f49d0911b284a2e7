"""Trial of the Gods end-of-game rankings: scenarios from scenarios/scoring/*.toml, then units.

A scenario lists its players as [[player]] tables (the `Tally` fields; seats 0, 1, ... in that
order) and an [expect] table: `vp` (totals in seat order), `winner`, `decided_by` ("vp" when no
tie), optionally `tied_for_most`, `standings`, one table per ranking with `laurels`, `positions`
("-" = takes no part), `vp` and `ties` ("" = no tie rule) in seat order, [[expect.tiebreak]]
steps (`criterion`, `remaining`) and [[expect.note]] (`seat`, `ranking`, `contains`).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dialbox.engine import Result
from dialbox.games.trial_of_the_gods.scoring import (
    RANKINGS,
    TIEBREAK,
    Criterion,
    FinalScore,
    Ranking,
    Tally,
    break_tie,
    rank,
    score,
    score_json,
)

HERE = Path(__file__).parent / "scenarios" / "scoring"
FILES = sorted(HERE.glob("*.toml"))


def load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def tallies_of(case: dict[str, Any]) -> list[Tally]:
    tallies = [Tally.from_json(p) for p in case["player"]]
    assert [t.seat for t in tallies] == list(range(len(tallies))), "seats 0, 1, ... in order"
    return tallies


def test_scenarios_exist() -> None:
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_scenario_names_its_rule(path: Path) -> None:
    case = load(path)
    assert isinstance(case.get("title"), str) and case["title"].strip(), path.name
    assert isinstance(case.get("rule"), str) and len(case["rule"].split()) >= 8, path.name
    assert case.get("player") and case.get("expect"), path.name


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    case = load(path)
    expect = case["expect"]
    result = score(tallies_of(case))
    where = f"{path.name} ({case['title']})"
    seats = result.seats

    assert [result.vp[s] for s in seats] == expect["vp"], where
    assert result.winner.seat == expect["winner"], where
    assert result.winner.decided_by == Criterion(expect["decided_by"]), where
    if "tied_for_most" in expect:
        assert list(result.winner.tied_for_most) == expect["tied_for_most"], where
    if "standings" in expect:
        assert list(result.standings) == expect["standings"], where

    for r in RANKINGS:
        want = expect.get(r.value)
        if want is None:
            continue
        got = [result.ranking(r).of(s) for s in seats]
        if "laurels" in want:
            assert [p.laurels for p in got] == want["laurels"], f"{where}: {r} laurels"
        positions = [p.position if p.position is not None else "-" for p in got]
        assert positions == want["positions"], f"{where}: {r} positions"
        assert [p.vp for p in got] == want["vp"], f"{where}: {r} VP"
        if "ties" in want:
            assert [p.tie or "" for p in got] == want["ties"], f"{where}: {r} ties"

    steps = {s.criterion.value: s for s in result.winner.steps}
    for step in expect.get("tiebreak", []):
        assert step["criterion"] in steps, f"{where}: no {step['criterion']} step"
        assert list(steps[step["criterion"]].remaining) == step["remaining"], where

    for note in expect.get("note", []):
        text = result.ranking(note["ranking"]).of(note["seat"]).note
        assert note["contains"] in text, f"{where}: {note['contains']!r} not in {text!r}"

    # Whatever the scenario, the totals are the sum of the four sources and JSON round-trips.
    for s in seats:
        assert result.vp[s] == sum(p.vp for p in result.sources(s))
    assert json.loads(json.dumps(result.to_json())) == result.to_json()


def test_every_rule_has_a_scenario() -> None:
    """The brief's list of rules, each covered by at least one scenario file."""
    names = {p.stem for p in FILES}
    for needed in [
        "domination_vp", "exploration_vp", "olympics_vp", "devotion_vp", "laurel_minimum",
        "one_player", "two_players", "tie_dishonor_slides", "tie_equal_dishonor_shared",
        "four_player_game", "devotion_negative", "winner_tiebreak_dishonor",
        "winner_tiebreak_treasure", "winner_tiebreak_temples", "winner_tiebreak_companions",
        "winner_tiebreak_initiative",
    ]:
        assert needed in names


# --- units -------------------------------------------------------------------------------


def t(seat: int, **kw: int) -> Tally:
    kw.setdefault("initiative", seat)
    return Tally(seat=seat, **kw)


def test_vp_tables_and_order() -> None:
    assert RANKINGS == (Ranking.DOMINATION, Ranking.EXPLORATION, Ranking.OLYMPICS,
                        Ranking.DEVOTION)
    assert [r.vp_table for r in RANKINGS] == [(6, 4, 2), (6, 4, 2), (5, 3, 1), (5, 3, 1)]
    assert TIEBREAK == (Criterion.DISHONOR, Criterion.TREASURE, Criterion.TEMPLES,
                        Criterion.COMPANIONS, Criterion.INITIATIVE)


def test_tally_laurels() -> None:
    x = t(0, tamed_laurels=4, islands_plain=2, islands_fleece=3, champions=5, card_laurels=3,
          animae=4)
    assert [x.laurels(r) for r in RANKINGS] == [4, 8, 5, -1]
    assert x.treasure_tokens == 3
    assert t(0, islands_plain=2, islands_fleece=1, treasure_explorations=3).treasure_tokens == 3


def test_treasure_override_decides() -> None:
    # The tiebreak count can be given explicitly (e.g. a table counting every explored Island
    # that held a Treasure Token): it overrides the Fleece-island default.
    a = t(0, tamed_laurels=2, islands_plain=0)
    b = t(1, islands_plain=2, treasure_explorations=1)
    result = score([a, b])
    assert result.winner.seat == 1 and result.winner.decided_by is Criterion.TREASURE


@pytest.mark.parametrize(
    "kw, error",
    [
        ({"tamed_laurels": -1}, ValueError),
        ({"animae": -2}, ValueError),
        ({"initiative": -1}, ValueError),
        ({"islands_plain": 1, "treasure_explorations": 2}, ValueError),
        ({"temples": True}, TypeError),
        ({"companions": 1.0}, TypeError),
    ],
)
def test_tally_validation(kw: dict[str, Any], error: type[Exception]) -> None:
    kw.setdefault("initiative", 0)
    with pytest.raises(error):
        Tally(seat=0, **kw)


def test_score_validation() -> None:
    with pytest.raises(ValueError, match="no tallies"):
        score([])
    with pytest.raises(ValueError, match="duplicate seats"):
        score([t(0), t(0, initiative=1)])
    with pytest.raises(ValueError, match="Initiative"):
        score([t(0), t(1, initiative=0)])


def test_from_json_round_trip_and_unknown_keys() -> None:
    x = t(2, initiative=1, tamed_laurels=3, islands_fleece=2, animae=1, dishonor=4)
    assert Tally.from_json(x.to_json()) == x
    assert Tally.from_json(json.loads(json.dumps(x.to_json()))) == x
    with pytest.raises(ValueError, match="unknown"):
        Tally.from_json({"seat": 0, "initiative": 0, "laurel": 3})


def test_tallies_in_any_order() -> None:
    a, b, c = t(0, tamed_laurels=1), t(1, tamed_laurels=3), t(2, tamed_laurels=2)
    assert score([c, a, b]) == score([a, b, c])
    assert score([c, a, b]).seats == (0, 1, 2)


def test_rank_accepts_a_name_and_lists_best_first() -> None:
    r = rank("olympics", [t(0, champions=1), t(1), t(2, champions=4), t(3, champions=1)])
    assert r.ranking is Ranking.OLYMPICS
    assert [(p.seat, p.position, p.vp) for p in r.placements] == [
        (2, 1, 5), (0, 2, 2), (3, 2, 2), (1, None, 0),
    ]
    assert r.of(0).tied_with == (3,) and r.of(0).base_vp == 3
    with pytest.raises(KeyError):
        r.of(9)


def test_break_tie_single_player() -> None:
    assert break_tie([t(3)]) == (3, (), Criterion.VP)


def test_json_shape_for_a_screen() -> None:
    result = score([t(0, tamed_laurels=5, dishonor=1), t(1, tamed_laurels=5, dishonor=1),
                    t(2, champions=2, dishonor=1)])
    data = result.to_json()
    json.dumps(data)  # JSON-able as is
    assert [r["ranking"] for r in data["rankings"]] == [r.value for r in RANKINGS]
    assert data["rankings"][0]["vp_table"] == [6, 4, 2]
    p0 = data["players"][0]
    assert p0["seat"] == 0 and p0["vp"] == 5
    dom = p0["sources"][0]
    assert dom["ranking"] == "domination" and dom["position"] == 1 and dom["tie"] == "shared"
    assert dom["vp"] == 5 and dom["base_vp"] == 6 and dom["tied_with"] == [1]
    assert "6 - 1 = 5 VP" in dom["note"]
    w = data["winner"]
    assert w["seat"] == 0 and w["decided_by"] == "initiative"
    assert w["decided_by_label"] == "leftmost on the Initiative track"
    assert [s["criterion"] for s in w["steps"]] == [c.value for c in TIEBREAK]
    assert data["standings"] == [0, 1, 2]
    assert data["text"].startswith("Red wins with 5 VP (tie with Blue and Green broken by leftmost")
    assert score_json(p["tally"] for p in data["players"]) == data


def test_to_result_for_the_engine() -> None:
    result = score([t(0, tamed_laurels=1), t(1, tamed_laurels=2)])
    res = result.to_result()
    assert isinstance(res, Result)
    assert res.scores == {0: 4, 1: 6} and res.winners == [1]
    assert res.text == "Blue wins with 6 VP. Blue: 6, Red: 4."
    json.dumps(res.to_json())


def test_unranked_note_and_beyond_third_note() -> None:
    result = score([t(0, champions=4), t(1, champions=3), t(2, champions=2), t(3, champions=1),
                    t(4, card_laurels=1, animae=2)])
    assert result.ranking("olympics").of(3).position == 4
    assert "only the top three" in result.ranking("olympics").of(3).note
    dev = result.ranking(Ranking.DEVOTION).of(4)
    assert dev.position is None and not dev.ranked and dev.laurels == -1
    assert "at least 1" in dev.note


# --- properties ----------------------------------------------------------------------------

counts = st.integers(min_value=0, max_value=6)


@st.composite
def games(draw: st.DrawFn) -> list[Tally]:
    n = draw(st.integers(min_value=1, max_value=4))
    order = draw(st.permutations(range(n)))
    return [
        Tally(
            seat=s, initiative=order[s], tamed_laurels=draw(counts),
            islands_plain=draw(counts), islands_fleece=draw(counts), champions=draw(counts),
            card_laurels=draw(counts), animae=draw(counts), dishonor=draw(st.integers(0, 2)),
            temples=draw(st.integers(0, 2)), companions=draw(st.integers(0, 2)),
        )
        for s in range(n)
    ]


@given(games())
def test_properties(tallies: list[Tally]) -> None:
    result: FinalScore = score(tallies)
    for r in result.rankings:
        table = r.ranking.vp_table
        ranked = [p for p in r.placements if p.ranked]
        # Only players with a Laurel take part; better Laurels never get a worse position.
        assert all((p.laurels >= 1) == p.ranked for p in r.placements)
        for a in ranked:
            assert a.position is not None
            ahead = [b for b in ranked if b.laurels > a.laurels
                     or (b.laurels == a.laurels and result.tally(b.seat).dishonor
                         < result.tally(a.seat).dishonor)]
            assert a.position == len(ahead) + 1
            base = table[a.position - 1] if a.position <= 3 else 0
            assert a.vp == (max(base - 1, 0) if a.tie == "shared" else base)
        # No one gains more than #1's VP. (The ranking's total can exceed its table: players
        # sharing a position each gain its VP - 1, so four sharing #1 gain 4 x (6 - 1).)
        assert all(0 <= p.vp <= table[0] for p in r.placements)
    top = max(result.vp.values())
    assert result.vp[result.winner.seat] == top
    assert result.standings[0] == result.winner.seat
    assert sorted(result.standings) == sorted(result.seats)
    assert [result.vp[s] for s in result.standings] == sorted(result.vp.values(), reverse=True)
