"""The Olympics Phase: Fervor, Competitions, Olympics Skills dice, ranking ties, prizes."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from dialbox.engine.chance import DieFace
from dialbox.games.trial_of_the_gods.olympics import (
    COMPETITIONS,
    CardPlay,
    Olympics,
    OlympicsError,
    TiebreakNeeded,
    TieQuery,
    add_skill_rolls,
    adjust_fervor,
    awards,
    begin,
    card_fervor,
    champions_gained,
    dial_symbols,
    finish,
    play_competition,
    ranking,
    skill_dice,
    skill_fervor,
    symbol_total,
    tiebreak_needs,
    with_card_values,
)
from dialbox.games.trial_of_the_gods.packs import (
    ACTIVATION,
    OlympicsCard,
    Prize,
    load_die,
    load_pack,
)

CARD = OlympicsCard(
    name="Test",
    disciplines=("sail", "heal"),
    tiebreakers=("restore", "attack"),
    prizes=(Prize(2, "first text"), Prize(1), Prize(0, actions={"heal": 1})),
)
PLAYERS = ("red", "green", "blue", "purple")
ONE = DieFace("1", 1)
TWO = DieFace("2", 2)
THREE = DieFace("3", 3)
ACT = DieFace(ACTIVATION, 0, ACTIVATION)


def cp(sail: int = 0, heal: int = 0, **more: int) -> CardPlay:
    return CardPlay({"sail": sail, "heal": heal, **more})


def olympics(totals: Mapping[str, tuple[CardPlay, CardPlay, CardPlay]],
             initiative: tuple[str, ...] = PLAYERS) -> Olympics:
    ol = begin(CARD, initiative)
    for i in range(COMPETITIONS):
        ol = play_competition(ol, {p: totals[p][i] for p in initiative})
    return ol


def flat(fervor: int, **more: int) -> tuple[CardPlay, CardPlay, CardPlay]:
    """Three cards worth `fervor` in total, all on the first card; the `more` symbols are on the
    first card too and dialled as 0 on the other two (so their totals are known)."""
    zero = dict.fromkeys(more, 0)
    return (cp(sail=fervor, **more), cp(**zero), cp(**zero))


# --- Fervor ----------------------------------------------------------------------------------

def test_card_fervor_sums_the_discipline_symbols_only() -> None:
    assert dial_symbols(CARD) == ("sail", "heal")
    assert card_fervor(CARD, cp(sail=2, heal=1, restore=3, attack=4)) == 3
    assert card_fervor(CARD, cp()) == 0


def test_olympics_effect_replaces_the_numbers() -> None:
    play = CardPlay({"sail": 3, "heal": 2}, effect_fervor=1)
    assert play.used_effect and card_fervor(CARD, play) == 1
    assert card_fervor(CARD, CardPlay(effect_fervor=4)) == 4  # numbers need not be dialled


def test_missing_discipline_value_is_an_error() -> None:
    with pytest.raises(OlympicsError, match="heal"):
        card_fervor(CARD, CardPlay({"sail": 1}))


def test_card_play_checks_its_values() -> None:
    with pytest.raises(OlympicsError, match="unknown symbol 'run'"):
        CardPlay({"run": 1})
    with pytest.raises(OlympicsError, match="sail"):
        CardPlay({"sail": -1})
    with pytest.raises(OlympicsError, match="effect_fervor"):
        CardPlay(effect_fervor=-2)


def test_bonus_first_then_three_competitions() -> None:
    ol = begin(CARD, ("a", "b"), {"a": 2})
    assert dict(ol.fervor) == {"a": 2, "b": 0}
    ol = play_competition(ol, {"a": cp(sail=1), "b": cp(sail=2, heal=2)})
    ol = play_competition(ol, {"a": CardPlay(effect_fervor=3), "b": cp()})
    ol = play_competition(ol, {"a": cp(heal=1), "b": cp(sail=1)})
    assert dict(ol.fervor) == {"a": 2 + 1 + 3 + 1, "b": 4 + 0 + 1}
    assert ol.competitions_played == 3
    with pytest.raises(OlympicsError, match="all 3 Competitions"):
        play_competition(ol, {"a": cp(), "b": cp()})


def test_every_player_plays_each_competition() -> None:
    ol = begin(CARD, ("a", "b"))
    with pytest.raises(OlympicsError, match="every player plays one card"):
        play_competition(ol, {"a": cp()})
    with pytest.raises(OlympicsError, match="unknown player"):
        begin(CARD, ("a",), {"z": 1})
    with pytest.raises(OlympicsError, match="once"):
        begin(CARD, ("a", "a"))


def test_functions_leave_their_input_unchanged() -> None:
    ol = begin(CARD, ("a", "b"))
    after = play_competition(ol, {"a": cp(sail=3), "b": cp()})
    assert dict(ol.fervor) == {"a": 0, "b": 0} and ol.competitions_played == 0
    assert after.fervor["a"] == 3


def test_adjust_fervor_never_below_zero() -> None:
    ol = begin(CARD, ("a", "b"), {"a": 1})
    assert adjust_fervor(ol, "a", -3).fervor["a"] == 0
    assert adjust_fervor(ol, "b", 2).fervor["b"] == 2
    with pytest.raises(OlympicsError, match="unknown player 'z'"):
        adjust_fervor(ol, "z", 1)


# --- Olympics Skills dice ----------------------------------------------------------------------

def test_one_die_per_argonaut_with_a_matching_symbol() -> None:
    argonauts = [("sail", "heal"), ("order",), ("heal",), ()]
    assert skill_dice(CARD, argonauts) == 2  # two symbols on one Hero still give one die
    assert skill_dice(CARD, []) == 0
    heroes = load_pack().heroes
    stadion = load_pack().olympics_card("Stadion")  # disciplines: sail
    # Jason, Phalerus and Atalanta show Sail
    assert skill_dice(stadion, [h.olympics_skills for h in heroes]) == 3


def test_skill_fervor_counts_ones_and_activations() -> None:
    assert skill_fervor([ONE, TWO, THREE, ACT]) == 2
    assert skill_fervor([TWO, THREE]) == 0
    assert skill_fervor([]) == 0
    die = load_die()
    assert skill_fervor(die.faces) == sum(
        1 for f in die.faces if f.mark == ACTIVATION or f.value == 1
    )


def test_add_skill_rolls() -> None:
    ol = begin(CARD, ("a", "b"))
    ol = add_skill_rolls(ol, "b", [ONE, ACT, TWO])
    assert dict(ol.fervor) == {"a": 0, "b": 2}


# --- ranking and ties ----------------------------------------------------------------------------

def test_ranking_by_fervor() -> None:
    ol = olympics({"red": flat(3), "green": flat(7), "blue": flat(5), "purple": flat(1)})
    assert ranking(ol) == ("green", "blue", "red", "purple")
    assert tiebreak_needs(ol) == ()  # no tie: nothing to ask although tiebreakers are unknown


def test_tie_broken_by_first_tiebreaker_symbol() -> None:
    ol = olympics({
        "red": (cp(sail=2, restore=1), cp(sail=2, restore=1), cp(restore=0)),
        "green": (cp(sail=4, restore=3), cp(restore=0), cp(restore=0)),
        "blue": flat(9, restore=0),
        "purple": flat(1, restore=5),
    })
    assert ol.fervor["red"] == ol.fervor["green"] == 4
    assert symbol_total(ol, "red", "restore") == 2
    assert ranking(ol) == ("blue", "green", "red", "purple")


def test_tie_broken_by_second_tiebreaker_symbol() -> None:
    ol = olympics({
        "red": flat(4, restore=2, attack=1),
        "green": flat(4, restore=2, attack=3),
        "blue": flat(4, restore=1, attack=9),
        "purple": flat(0, restore=0, attack=0),
    })
    # restore: red 2, green 2, blue 1 -> blue third; attack splits red and green.
    assert ranking(ol) == ("green", "red", "blue", "purple")


def test_tie_on_all_symbols_goes_to_initiative() -> None:
    plays = {p: flat(4, restore=1, attack=1) for p in PLAYERS}
    assert ranking(olympics(plays)) == PLAYERS
    initiative = ("purple", "blue", "red", "green")
    assert ranking(olympics(plays, initiative)) == initiative


def test_card_fervor_with_skills_decides_before_tiebreakers() -> None:
    ol = olympics({p: flat(4, restore=0, attack=0) for p in PLAYERS})
    ol = add_skill_rolls(ol, "purple", [ACT])
    assert ranking(ol)[0] == "purple"


def test_tiebreak_needs_asks_only_tied_players_only_when_needed() -> None:
    ol = olympics({"red": flat(5), "green": flat(3), "blue": flat(5), "purple": flat(1)})
    needs = tiebreak_needs(ol)
    assert needs == (
        TieQuery("red", "restore", (0, 1, 2), ("red", "blue")),
        TieQuery("blue", "restore", (0, 1, 2), ("red", "blue")),
    )
    with pytest.raises(TiebreakNeeded) as e:
        ranking(ol)
    assert e.value.queries == needs

    # Answer restore: still tied (1 each), so now, and only now, attack is asked.
    for p in ("red", "blue"):
        for i in range(3):
            ol = with_card_values(ol, p, i, {"restore": 1 if i == 0 else 0})
    needs = tiebreak_needs(ol)
    assert {(q.player, q.symbol) for q in needs} == {("red", "attack"), ("blue", "attack")}

    for i in range(3):
        ol = with_card_values(ol, "red", i, {"attack": 0})
        ol = with_card_values(ol, "blue", i, {"attack": 2 if i == 2 else 0})
    assert tiebreak_needs(ol) == ()
    assert ranking(ol) == ("blue", "red", "green", "purple")


def test_first_symbol_that_splits_the_tie_ends_the_questions() -> None:
    ol = olympics({"red": flat(5), "green": flat(5), "blue": flat(2), "purple": flat(2, restore=1)})
    # purple's restore is known but blue's is not: only blue is asked for the blue/purple tie.
    needs = tiebreak_needs(ol)
    assert {(q.player, q.symbol) for q in needs} == {
        ("red", "restore"), ("green", "restore"), ("blue", "restore"),
    }
    assert all(q.competitions == (0, 1, 2) for q in needs)
    for p, v in (("red", 2), ("green", 1), ("blue", 0)):
        for i in range(3):
            ol = with_card_values(ol, p, i, {"restore": v if i == 0 else 0})
    assert tiebreak_needs(ol) == ()  # attack never asked: restore split both ties
    assert ranking(ol) == ("red", "green", "purple", "blue")


def test_only_unknown_cards_are_asked() -> None:
    card = OlympicsCard("Sail tie", ("sail", "heal"), ("sail", "restore"),
                        (Prize(1), Prize(), Prize()))
    ol = begin(card, ("a", "b"))
    # a used numbers on every card: its sail total is known. b used an Olympics Effect once.
    ol = play_competition(ol, {"a": cp(sail=2), "b": CardPlay(effect_fervor=2)})
    ol = play_competition(ol, {"a": cp(heal=1), "b": cp(sail=1)})
    ol = play_competition(ol, {"a": cp(), "b": cp()})
    assert ol.fervor["a"] == ol.fervor["b"] == 3
    assert tiebreak_needs(ol) == (TieQuery("b", "sail", (0,), ("a", "b")),)
    ol = with_card_values(ol, "b", 0, {"sail": 3})  # the effect card also shows 3 Sail
    assert ranking(ol) == ("b", "a")


def test_with_card_values_checks_the_card() -> None:
    ol = begin(CARD, ("a", "b"))
    with pytest.raises(OlympicsError, match="no card from Competition 1"):
        with_card_values(ol, "a", 0, {"restore": 1})


def test_no_tiebreakers_means_initiative() -> None:
    card = OlympicsCard("Plain", ("sail",), (), (Prize(1), Prize(), Prize()))
    ol = begin(card, ("a", "b", "c"))
    for _ in range(3):
        ol = play_competition(ol, {p: CardPlay({"sail": 1}) for p in ("a", "b", "c")})
    assert tiebreak_needs(ol) == ()
    assert ranking(ol) == ("a", "b", "c")


# --- prizes, Initiative, reset -------------------------------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_prizes_for_the_top_three_only(n: int) -> None:
    order = PLAYERS[:n]
    won = awards(CARD, order)
    assert [a.player for a in won] == list(order[:3])
    assert [a.place for a in won] == list(range(1, min(n, 3) + 1))
    assert [a.prize for a in won] == list(CARD.prizes[: min(n, 3)])
    expected = {"red": 2, "green": 1, "blue": 0}
    assert champions_gained(won) == {p: expected[p] for p in order[:3]}


def test_stadion_awards() -> None:
    stadion = load_pack().olympics_card("Stadion")
    won = awards(stadion, ("b", "a", "d", "c"))
    assert [(a.player, a.prize.champions) for a in won] == [("b", 2), ("a", 1), ("d", 0)]
    assert all("Exploration Token" in a.prize.text for a in won)


def test_finish_sets_initiative_and_resets_ranking_tokens() -> None:
    ol = olympics({"red": flat(1), "green": flat(6), "blue": flat(4), "purple": flat(2)})
    result = finish(ol)
    assert result.ranking == ("green", "blue", "purple", "red")
    assert result.initiative == result.ranking
    assert dict(result.fervor) == {p: 0 for p in PLAYERS}
    assert [(a.player, a.place) for a in result.awards] == [
        ("green", 1), ("blue", 2), ("purple", 3),
    ]


def test_finish_needs_three_competitions_and_the_tiebreaks() -> None:
    ol = begin(CARD, ("a", "b"))
    with pytest.raises(OlympicsError, match="0 of 3"):
        finish(ol)
    tied = olympics({p: flat(2) for p in PLAYERS})
    with pytest.raises(TiebreakNeeded):
        finish(tied)
