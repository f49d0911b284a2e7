"""PIP Cycle's rules in pieces: the grid's Movement programs and their crash statuses, the
cards, option and position validation, saving and replay, and refused answers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dialbox.engine import INACTIVE, IllegalChoice, InvalidOptions, InvalidPosition, get_game
from dialbox.engine.bots import RandomBot, play_out
from dialbox.games.pipcycle import PipCycle
from dialbox.games.pipcycle import cards as C
from dialbox.games.pipcycle import grid as G

N, E, S, W = range(4)
BASE: dict[str, Any] = {
    "riders": [{"seat": 0, "at": "c3", "facing": "N"}, {"seat": 1, "at": "g7", "facing": "S"}],
    "hands": [["5H", "1C"], ["4D", "2S"]],
    "pile": ["3H", "3D"],
}


def pt(text: str) -> G.Point:
    return G.parse(text, 9)


def ln(a: str, b: str) -> G.Line:
    return G.line_between(pt(a), pt(b))


def by_label(start: str, facing: int, ap: int, claimed: list[G.Line] | None = None,
             occupied: list[str] | None = None) -> dict[str, G.Outcome]:
    outs = G.programs(pt(start), facing, ap, 9, claimed or [], [pt(p) for p in occupied or []])
    return {"".join(o.legs): o for o in outs}


# ------------------------------------------------------------------ the grid


def test_points_and_lines_are_named_as_on_the_screen() -> None:
    assert G.name((2, 3)) == "c4" and pt("c4") == (2, 3) and G.parse(" K11 ", 11) == (10, 10)
    assert G.line_ends(ln("c4", "c3")) == ((2, 2), (2, 3))
    assert ln("c3", "d3") == ln("d3", "c3") == (2, 2, 0)
    with pytest.raises(ValueError, match="there is no point j1 on a 9x9 grid"):
        pt("j1")
    with pytest.raises(ValueError, match="is not a point"):
        pt("33")
    with pytest.raises(ValueError, match="c3 and d4 are not joined by a line"):
        ln("c3", "d4")


def test_start_points_are_each_players_own_edge() -> None:
    assert [G.name(p) for p in G.start_points(0, 2, 9)] == [f"{c}1" for c in "abcdefghi"]
    assert [G.name(p) for p in G.start_points(1, 2, 9)] == [f"{c}9" for c in "abcdefghi"]
    west = [G.name(p) for p in G.start_points(1, 3, 11)]
    assert west == [f"a{r}" for r in range(2, 11)]
    south, north = G.start_points(0, 3, 11), G.start_points(2, 3, 11)
    assert len(south) == len(north) == 10 and not set(south) & set(north)
    assert (0, 0) not in south and (0, 10) not in north


@pytest.mark.parametrize(("pips", "ap"), [(1, 1), (2, 2), (3, 3), (4, 4), (5, 4), (6, 4)])
def test_action_points_from_pips(pips: int, ap: int) -> None:
    assert G.ap_for(pips) == ap


def test_program_counts_per_ap_and_every_program_moves() -> None:
    assert {ap: len(tree) for ap, tree in G.TREES.items()} == {1: 1, 2: 4, 3: 10, 4: 23}
    assert [n.text for n in G.TREES[1]] == ["F"]
    assert [n.text for n in G.TREES[2]] == ["F", "LF", "RF", "FF"]
    for ap, tree in G.TREES.items():
        texts = [n.text for n in tree]
        assert len(set(texts)) == len(texts)
        for i, node in enumerate(tree):
            assert node.cost <= ap and node.text.endswith("F")  # at least one Forward
            assert node.cost == sum({"F": 1, "LF": 2, "RF": 2, "UF": 3}[leg] for leg in node.legs)
            assert node.parent < i  # parents come first
            if node.parent >= 0:
                assert tree[node.parent].legs == node.legs[:-1]
        # every program of fewer AP is in the bigger tree too ("fewer AP" allowed)
        if ap > 1:
            assert {n.text for n in G.TREES[ap - 1]} <= set(texts)


def test_an_open_grid_offers_every_program_and_none_crashes() -> None:
    outs = by_label("e5", N, 4)
    assert len(outs) == 23
    assert [k for k, o in outs.items() if o.crash] == ["FUF"]  # its own line (below)
    assert [G.name(p) for p in outs["FFFF"].path] == ["e5", "e6", "e7", "e8", "e9"]
    o = outs["LFRF"]
    assert [G.name(p) for p in o.path] == ["e5", "d5", "d6"] and o.facing == N
    assert o.lines == (ln("e5", "d5"), ln("d5", "d6")) and o.cost == 4
    assert outs["UF"].end == pt("e4") and outs["UF"].facing == S


def test_leaving_the_grid_is_a_crash_listed_once() -> None:
    outs = by_label("a3", N, 3)
    assert outs["LF"].crash == "edge" and outs["LF"].hit == (-1, 2)
    assert outs["LF"].path == (pt("a3"),) and outs["LF"].lines == ()
    assert "LFF" not in outs  # programs extending a crash are not listed again
    assert outs["FLF"].crash == "edge" and outs["FLF"].lines == (ln("a3", "a4"),)
    assert outs["FLF"].label == "FLF!" and outs["FF"].crash is None


def test_a_claimed_line_crashes_including_one_claimed_earlier_in_the_same_movement() -> None:
    outs = by_label("c3", N, 3, claimed=[ln("c4", "c5")])
    assert outs["FF"].crash == "line" and outs["FF"].hit == ln("c4", "c5")
    assert outs["FF"].lines == (ln("c3", "c4"),) and outs["FF"].end == pt("c4")
    assert "FFF" not in outs and outs["FRF"].crash is None
    own = G.programs(pt("e5"), N, 4, 9, [], [])
    fuf = next(o for o in own if o.legs == ("F", "UF"))
    # about-turn and back along e5-e6, the line this Movement has just drawn
    assert fuf.crash == "line" and fuf.hit == ln("e5", "e6") and fuf.lines == (ln("e5", "e6"),)


def test_straight_through_a_rider_is_barred_but_arriving_and_turning_out_is_not() -> None:
    outs = by_label("c3", N, 4, occupied=["c4"])
    assert outs["F"].crash == "occupied" and outs["F"].hit == pt("c4")
    assert not {"FF", "FFF", "FFFF", "FFLF", "FFRF"} & set(outs)
    assert outs["FLF"].crash is None and [G.name(p) for p in outs["FLF"].path] == \
        ["c3", "c4", "b4"]
    assert outs["FRFF"].crash is None
    assert outs["FUF"].crash == "line"  # about-turn back along the line it arrived by
    st = G.statuses(pt("c3"), N, 4, 9, {}, {pt("c4")})
    texts = [n.text for n in G.TREES[4]]
    assert st[texts.index("FF")] == G.BARRED and st[texts.index("F")] == G.OCCUPIED


def test_a_boxed_in_rider_has_only_crashes() -> None:
    outs = by_label("a1", N, 2, claimed=[ln("a1", "a2"), ln("a1", "b1")])
    assert set(outs) == {"F", "LF", "RF"} and all(o.crash for o in outs.values())
    assert {k: o.crash for k, o in outs.items()} == {"F": "line", "LF": "edge", "RF": "line"}


def test_end_turns_cost_and_labels() -> None:
    assert [(t[0], t[2]) for t in G.END_TURNS] == [("-", 0), ("L", 1), ("R", 1), ("U", 2)]


# ------------------------------------------------------------------ the cards


def test_suit_powers_and_their_wraps() -> None:
    assert [C.apply_suit("2H", p) for p in range(1, 7)] == [2, 3, 4, 5, 6, 1]
    assert [C.apply_suit("2D", p) for p in range(1, 7)] == [6, 1, 2, 3, 4, 5]
    assert [C.apply_suit("2S", p) for p in range(1, 7)] == [6, 5, 4, 3, 2, 1]
    assert [C.apply_suit("2C", p) for p in range(1, 7)] == [1, 2, 3, 4, 5, 6]
    assert all(C.apply_suit("1S", C.apply_suit("1S", p)) == p for p in range(1, 7))


def test_decay_is_exactly_one_and_wraps() -> None:
    assert [C.decay(p) for p in range(1, 7)] == [6, 1, 2, 3, 4, 5]


def test_deck_and_card_check_order() -> None:
    assert len(C.deck(6, "HDSC")) == 24 and len(C.deck(9, "HDSC")) == 36
    assert C.deck(2, "HC") == ["1H", "1C", "2H", "2C"]
    assert C.rank("12D") == 12 and C.suit("12D") == "D"
    hand = ["5C", "1S", "5H", "5S", "2D", "5D"]
    assert sorted(hand, key=C.check_key) == ["1S", "2D", "5H", "5D", "5S", "5C"]
    assert C.pretty("5H") == "5\u2665"


# ------------------------------------------------------------------ options


def test_defaults_and_the_prototype() -> None:
    two, three = PipCycle({"players": 2}), PipCycle({"players": 3})
    assert (two.size, len(two.full_deck)) == (9, 24)
    assert (three.size, len(three.full_deck)) == (11, 36)
    assert "9C" in three.full_deck and "7H" not in two.full_deck
    assert get_game("pipcycle") is PipCycle
    game = PipCycle({"players": 2, "grid": 7, "ranks": 4, "suits": "sh"})
    assert game.size == 7 and game.full_deck == [f"{r}{s}" for r in range(1, 5) for s in "HS"]
    assert PipCycle({"players": 2, "physical_dice": True}).pending is not None


@pytest.mark.parametrize(("opts", "message"), [
    ({"players": 4}, "pipcycle: players: Input should be less than or equal to 3"),
    ({"players": 1}, "pipcycle: players: Input should be greater than or equal to 2"),
    ({"players": 2, "grid": 4}, "pipcycle: grid: Input should be greater than or equal to 5"),
    ({"players": 2, "grid": 16}, "pipcycle: grid: Input should be less than or equal to 15"),
    ({"players": 2, "ranks": 0}, "pipcycle: ranks: Input should be greater than or equal to 1"),
    ({"players": 2, "ranks": 14}, "pipcycle: ranks: Input should be less than or equal to 13"),
    ({"players": 2, "suits": "HX"}, "pipcycle: suits: .*a selection of H, D, S and C"),
    ({"players": 2, "suits": "HH"}, "pipcycle: suits: .*each at most once"),
    ({"players": 2, "suits": ""}, "pipcycle: suits: "),
    ({"players": 2, "ranks": 1, "suits": "HD"}, "a deck of 2 cards is too small for 2 players"),
    ({"players": 3, "ranks": 2}, "a deck of 8 cards is too small for 3 players"),
    ({"players": 2, "variant": "turbo"}, "PIP Cycle has no variant 'turbo'"),
    ({"players": 2, "capture": "me"}, "pipcycle: capture: Input should be 'cause' or 'winner'"),
    ({"players": 2, "target": 0}, "pipcycle: target: "),
    ({"players": 2, "speed": 3}, "pipcycle: speed: Extra inputs are not permitted"),
])
def test_bad_options_say_why_on_one_line(opts: dict[str, Any], message: str) -> None:
    with pytest.raises(InvalidOptions, match=message) as err:
        PipCycle(opts)
    assert "\n" not in str(err.value)


# ------------------------------------------------------------------ positions


@pytest.mark.parametrize(("change", "field", "why"), [
    ({"hands": [["5H"]]}, "hands", "one hand per player"),
    ({"hands": [["1H", "2H", "3H", "4H"], []]}, "hands.0", "at most 3 cards"),
    ({"hands": [["7H"], []]}, "hands.0.0", "'7H' is not a card of this deck"),
    ({"pile": ["5H"]}, "pile.0", "5H is named twice"),
    ({"lines": [["c1", "c2", 0], ["c2", "c1", 1]]}, "lines.1", "claimed twice"),
    ({"lines": [["c1", "c2", 5]]}, "lines.0", "there is no seat 5"),
    ({"lines": [["c1", "d2", 0]]}, "lines.0", "c1 and d2 are not joined"),
    ({"riders": [{"seat": 0, "at": "c3", "facing": "N"}, {"seat": 1, "at": "c3",
                                                         "facing": "S"}]},
     "riders.1.at", "two riders on c3"),
    ({"riders": [{"seat": 0, "at": "c3", "facing": "N"}, {"seat": 2, "at": "c5",
                                                         "facing": "S"}]},
     "riders.1.seat", "there is no seat 2"),
    ({"riders": [{"seat": 0, "at": "c3", "facing": "N", "pips": 7},
                 {"seat": 1, "at": "g7", "facing": "S"}]}, "riders.0.pips", "less than or"),
    ({"riders": [{"seat": 0, "at": "c3", "facing": "N"}]}, "riders", "seat 1 has no rider"),
    ({"trophies": [[0], []]}, "trophies.0", "never captures its own die"),
    ({"trophies": [[1, 1, 1], []]}, "riders", "seat 1 has more than 3 dice"),
    ({"lost": [1]}, "lost", "one count per player"),
    ({"lost": [-2, 0]}, "lost", "a count of dice lost is 0 or more"),
    ({"starter": 2}, "starter", "there is no seat 2"),
    ({"round": 0}, "round", "greater than or equal to 1"),
    ({"colour": "red"}, "colour", "Extra inputs"),
])
def test_a_bad_position_names_its_field(change: dict[str, Any], field: str, why: str) -> None:
    with pytest.raises(InvalidPosition) as err:
        PipCycle.from_position({"players": 2}, {**BASE, **change})
    text = str(err.value)
    assert text.startswith(f"pipcycle position: {field}: "), text
    assert why in text and "\n" not in text


def test_a_position_counts_unnamed_cards_as_played_and_dice_in_reserve() -> None:
    game = PipCycle.from_position({"players": 2}, {**BASE, "trophies": [[1], []]})
    assert isinstance(game, PipCycle)
    assert sorted(game.played) == sorted(set(game.full_deck) - {"5H", "1C", "4D", "2S",
                                                                 "3H", "3D"})
    assert game.pile == ["3D", "3H"]  # top card last internally: 3H is drawn first
    assert game.reserve == [2, 1] and game.phase == "play"


# ------------------------------------------------------------------ saving and refusals


@pytest.mark.parametrize("players", [2, 3])
def test_save_and_replay_reach_the_same_state(players: int) -> None:
    game = PipCycle({"players": players, "seed": 21})
    play_out(game, {p: RandomBot(p + 5) for p in range(players)}, max_decisions=40)
    saved = json.loads(json.dumps(game.to_json()))
    again = PipCycle.from_json(saved)
    assert again.state_hash() == game.state_hash() == saved["hash"]
    assert again.log == game.log
    play_out(game, {p: RandomBot(p) for p in range(players)})
    assert game.over and PipCycle.from_json(game.to_json()).state_hash() == game.state_hash()


def test_a_position_game_saves_its_position_and_replays() -> None:
    game = PipCycle.from_position({"players": 2, "seed": 2}, BASE)
    play_out(game, {0: RandomBot(1), 1: RandomBot(2)}, max_decisions=30)
    saved = json.loads(json.dumps(game.to_json()))
    assert saved["position"]["hands"] == BASE["hands"]
    assert PipCycle.from_json(saved).state_hash() == game.state_hash()


def _move_game(pips: int, lines: list[list[Any]] | None = None) -> PipCycle:
    pos = {"riders": [{"seat": 0, "at": "c3", "facing": "N", "pips": pips},
                      {"seat": 1, "at": "c4", "facing": "S", "pips": 2}],
           "hands": [["6H", "1C", "2C"], ["1H", "2H", "3H"]], "lines": lines or []}
    game = PipCycle.from_position({"players": 2}, pos)
    assert isinstance(game, PipCycle)
    game.apply({0: (INACTIVE, 0, INACTIVE), 1: (INACTIVE, 0, INACTIVE)})  # 6H beats 1H
    d = game.pending
    assert d is not None and d.asks[0].topic == "pipcycle.move"
    return game


def _face(game: PipCycle, label: str) -> int:
    d = game.pending
    assert d is not None
    wheel = d.asks[0].wheels[0]
    assert wheel is not None
    return [f.label for f in wheel.faces].index(label)


def test_illegal_movement_answers_are_refused_in_the_rules_words() -> None:
    game = _move_game(3)
    with pytest.raises(IllegalChoice, match="FLF uses 3 AP: turning at the end too needs 4, "
                                            "the rider has 3"):
        game.apply({0: (_face(game, "FLF"), INACTIVE, 1)})
    with pytest.raises(IllegalChoice, match="F crashes: a crashed rider does not turn"):
        game.apply({0: (_face(game, "F!"), INACTIVE, 2)})
    with pytest.raises(IllegalChoice, match="RF uses 2 AP: turning at the end too needs 4, "
                                            "the rider has 3") as err:
        game.apply({0: (_face(game, "RF"), INACTIVE, 3)})
    assert err.value.seat == 0
    with pytest.raises(IllegalChoice, match="there is no face 40 on this wheel"):
        game.apply({0: (40, INACTIVE, 0)})
    with pytest.raises(IllegalChoice, match="wheel 2 is not used in this choice"):
        game.apply({0: (0, 0, 0)})
    game.apply({0: (_face(game, "FRF"), INACTIVE, 0)})  # arriving and turning out is fine
    assert [r.at for r in game.riders] == [pt("d4"), pt("c4")]


def test_the_legal_movement_answers_are_exactly_the_allowed_ones() -> None:
    game = _move_game(2)
    d = game.pending
    assert d is not None
    legal = list(game.legal(d.asks[0]))
    wheel = d.asks[0].wheels[0]
    assert wheel is not None and [f.label for f in wheel.faces] == ["F!", "LF", "RF"]
    # F crash: ahead only; LF and RF use both AP: no end turn
    assert sorted(legal) == [(0, INACTIVE, 0), (1, INACTIVE, 0), (2, INACTIVE, 0)]
    for sel in legal:
        game.check(d.asks[0], sel)


def test_placing_on_an_occupied_start_point_is_refused() -> None:
    pos = {"riders": [{"seat": 0, "at": "c1", "facing": "N"}, {"seat": 1, "at": "g9",
                                                               "facing": "S"}],
           "hands": [["5H"], ["4D"]]}
    game = PipCycle.from_position({"players": 2}, pos)
    assert isinstance(game, PipCycle)
    game.apply({0: (INACTIVE, 0, INACTIVE), 1: (INACTIVE, 0, INACTIVE)})
    game.apply({0: (_face(game, "RF"), INACTIVE, 0)})  # 5H wins; the deck then runs out
    d = game.pending
    assert d is not None and {a.topic for a in d.asks} == {"pipcycle.place"}
    with pytest.raises(IllegalChoice, match="a rider is already on g9"):
        game.apply({0: (INACTIVE, 0, INACTIVE), 1: (INACTIVE, 6, INACTIVE)})


def test_three_players_cause_capture_of_an_own_trail_crash_is_nobodys() -> None:
    pos = {"riders": [{"seat": 0, "at": "e5", "facing": "N", "pips": 4},
                      {"seat": 1, "at": "a6", "facing": "E"},
                      {"seat": 2, "at": "g11", "facing": "S"}],
           "hands": [["9H"], ["1H"], ["2H"]], "pile": ["3H", "3D", "3S"]}
    game = PipCycle.from_position({"players": 3}, pos)
    assert isinstance(game, PipCycle)
    game.apply({s: (INACTIVE, 0, INACTIVE) for s in range(3)})
    game.apply({0: (_face(game, "FUF!"), INACTIVE, 0)})
    assert game.lost == [1, 0, 0] and game.trophies == [[], [], []]
    assert game.rounds[-1]["crashes"][0]["by"] is None and game.round == 2
