"""Trial of the Gods public tracks: Vigor and its Limit, Hand Limit, Energy and Cubes, tokens,
Companions, Temples, Upgrades, Tamed Monsters and the controller's "+/- what" changes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dialbox.engine.wheels import LABEL_MAX
from dialbox.games.trial_of_the_gods.tracks import (
    ASSUMED_HAND_LIMITS,
    CUBES,
    ITEM_KEYS,
    ITEMS,
    UPGRADES,
    TamedMonster,
    TrackError,
    TrackRules,
    Tracks,
    activate_upgrade,
    apply,
    argonaut_defeated,
    change,
    claim_temple,
    gain_companion,
    gain_energy,
    heal,
    monster_removed,
    order_monster,
    raise_limit,
    restore_energy,
    spend_energy,
    start_tracks,
    suffer_damage,
    tame_monster,
)


def test_player_setup() -> None:
    t = start_tracks()
    assert (t.vigor, t.vigor_limit, t.available, t.exhausted) == (4, 5, 8, 0)
    assert t.pool == CUBES - 1 - 8
    assert t.hand_limit() == ASSUMED_HAND_LIMITS[3]
    assert start_tracks(TrackRules(start_vigor=5)).vigor == 5


def test_assumed_hand_limit_table_and_override() -> None:
    assert len(ASSUMED_HAND_LIMITS) == 10
    assert list(ASSUMED_HAND_LIMITS) == sorted(ASSUMED_HAND_LIMITS)
    rules = TrackRules(hand_limits=(1, 2, 3, 4, 5, 6, 7, 8, 9, 10))
    assert Tracks(vigor=3).hand_limit(rules) == 3
    with pytest.raises(ValueError, match="each Vigor square"):
        TrackRules(hand_limits=(4, 4))
    assert TrackRules.from_json(rules.to_json()) == rules
    with pytest.raises(ValueError, match="unknown"):
        TrackRules.from_json({"hand_limit": [1]})


# Damage, Dishonor, Hand Limit ----------------------------------------------------------------


def test_damage_moves_vigor_left() -> None:
    c = suffer_damage(Tracks(vigor=5), 2)
    assert c.after.vigor == 3 and c.after.dishonor == 0
    assert c.before.vigor == 5


def test_damage_at_vigor_one_gives_dishonor_each() -> None:
    c = suffer_damage(Tracks(vigor=2), 3)
    assert (c.after.vigor, c.after.dishonor) == (1, 2)
    c = suffer_damage(Tracks(vigor=1), 1)
    assert (c.after.vigor, c.after.dishonor) == (1, 1)


def test_damage_at_vigor_one_once_per_event_option() -> None:
    rules = TrackRules(dishonor_each_damage=False)
    assert suffer_damage(Tracks(vigor=1), 3, rules).after.dishonor == 1
    assert suffer_damage(Tracks(vigor=2), 3, rules).after.dishonor == 1
    assert suffer_damage(Tracks(vigor=3), 2, rules).after.dishonor == 0


def test_hand_limit_shrink_is_reported() -> None:
    # Assumed table: Vigor 5 -> 5 cards, Vigor 4 -> 4.
    c = suffer_damage(Tracks(vigor=5), 1)
    assert c.discard_to == 4
    assert any("discard down to 4" in n for n in c.notes)
    assert suffer_damage(Tracks(vigor=4), 1).discard_to is None  # 4 -> 3: still 4 cards
    assert suffer_damage(Tracks(vigor=1), 1).discard_to is None
    assert suffer_damage(Tracks(vigor=4), 0).after == Tracks(vigor=4)


def test_negative_damage_refused() -> None:
    with pytest.raises(TrackError, match="negative"):
        suffer_damage(start_tracks(), -1)


# Heal and the Limit Cube ---------------------------------------------------------------------


def test_heal_stops_at_the_limit() -> None:
    c = heal(Tracks(vigor=3), 5)
    assert c.after.vigor == 5
    assert any("Limit 5" in n for n in c.notes)
    assert heal(Tracks(vigor=5), 1).after.vigor == 5


def test_limit_cube_removed_beyond_ten() -> None:
    t = start_tracks()
    t = raise_limit(t).after
    assert t.vigor_limit == 7
    c = raise_limit(raise_limit(t).after)
    assert c.notes == ("Limit Cube removed: no Vigor limit",)
    assert c.after.vigor_limit is None and c.after.max_vigor == 10
    assert heal(c.after, 20).after.vigor == 10


def test_vigor_cannot_exceed_limit() -> None:
    with pytest.raises(TrackError, match="off the track"):
        Tracks(vigor=6)
    assert Tracks(vigor=6, limit_raises=1).vigor == 6


# Energy and Cubes ----------------------------------------------------------------------------


def test_spend_restore_gain() -> None:
    t = spend_energy(start_tracks(), 3).after
    assert (t.available, t.exhausted) == (5, 3)
    t = restore_energy(t, 5).after
    assert (t.available, t.exhausted) == (8, 0)
    t = gain_energy(t, 2).after
    assert (t.available, t.pool) == (10, 8)


def test_spending_more_than_available_is_refused() -> None:
    with pytest.raises(TrackError, match="cannot spend 9 Energy: only 8 available"):
        spend_energy(start_tracks(), 9)


def test_restore_reports_what_was_not_exhausted() -> None:
    c = restore_energy(Tracks(available=6, exhausted=2), 3)
    assert (c.after.available, c.after.exhausted) == (8, 0)
    assert any("only 2" in n for n in c.notes)


def test_cubes_limit_19() -> None:
    t = Tracks(available=10, exhausted=5, cubes_elsewhere=2)
    assert t.pool == 1
    c = gain_energy(t, 3)
    assert c.after.available == 11 and c.after.pool == 0
    assert any("2 Energy not gained" in n for n in c.notes)
    with pytest.raises(TrackError, match="19 Cubes"):
        Tracks(available=18, exhausted=1)


# Companions, Upgrades, Temples ---------------------------------------------------------------


def test_companion_raises_limit_and_spaces_run_out() -> None:
    t = gain_companion(start_tracks()).after
    assert (t.companions, t.vigor_limit) == (1, 7)
    t = gain_companion(t).after
    assert (t.companions, t.vigor_limit) == (2, 9)
    with pytest.raises(TrackError, match="no free Companion Space"):
        gain_companion(t)
    three = TrackRules(companion_spaces=3)
    assert gain_companion(t, three).after.vigor_limit is None


def test_argonaut_without_space_gives_champion() -> None:
    t = Tracks(companions=2, limit_raises=2)
    c = argonaut_defeated(t)
    assert (c.after.companions, c.after.champions, c.after.vigor_limit) == (2, 1, None)
    c = argonaut_defeated(t, TrackRules(limit_without_space=False))
    assert (c.after.champions, c.after.vigor_limit) == (1, 9)
    assert argonaut_defeated(start_tracks()).after.companions == 1


def test_upgrades_touching_tracks() -> None:
    t = activate_upgrade(start_tracks(), "energy").after
    assert (t.available, t.pool) == (10, 8)
    t = activate_upgrade(t, "vigor_limit").after
    assert t.vigor_limit == 7
    t = activate_upgrade(t, "attack").after
    t = activate_upgrade(t, "fervor").after
    t = activate_upgrade(t, "discovery").after
    assert (t.attack_bonus, t.fervor_bonus, t.discovery_bonus) == (1, 1, 1)
    with pytest.raises(TrackError, match="already active"):
        activate_upgrade(t, "attack")
    with pytest.raises(TrackError, match="unknown Upgrade"):
        activate_upgrade(t, "speed")  # type: ignore[arg-type]
    assert set(UPGRADES) == {"attack", "discovery", "fervor", "energy", "vigor_limit",
                             "blessing"}


def test_claim_temple_activates_an_upgrade() -> None:
    c = claim_temple(start_tracks(), "vigor_limit")
    assert (c.after.temples, c.after.upgrades, c.after.vigor_limit) == (1, ("vigor_limit",), 7)
    with pytest.raises(TrackError, match="12 Temples"):
        claim_temple(Tracks(temples=12), "attack")


# Tamed Monsters --------------------------------------------------------------------------------


def test_tame_order_and_remove_monster() -> None:
    t = tame_monster(start_tracks(), "Boar", 3).after
    assert (t.tamed_laurels, t.available, t.pool) == (3, 9, 9)
    t = order_monster(t, 0).after
    assert t.tamed[0].meeple == "placed" and t.pool == 8
    assert order_monster(t, 0).after == t  # moving it again costs no Cube
    t = monster_removed(t, 0).after
    assert t.tamed[0].meeple == "removed" and t.pool == 9 and t.tamed_laurels == 3
    with pytest.raises(TrackError, match="left the game"):
        order_monster(t, 0)
    with pytest.raises(TrackError, match="already removed"):
        monster_removed(t, 0)
    with pytest.raises(TrackError, match="no Tamed Monster number 2"):
        order_monster(t, 1)


def test_order_monster_needs_a_cube() -> None:
    t = Tracks(available=10, exhausted=8, tamed=(TamedMonster("Boar", 1),))
    with pytest.raises(TrackError, match="no Cube left"):
        order_monster(t, 0)


# The "+/- what" changes ------------------------------------------------------------------------


def test_item_labels_fit_a_wheel_face() -> None:
    assert all(1 <= len(i.label) <= LABEL_MAX for i in ITEMS)
    assert len({i.label for i in ITEMS}) == len(ITEMS)
    assert len(set(ITEM_KEYS)) == len(ITEMS)
    assert {"Vigor", "Energy", "Champ", "Dishonr"} <= {i.label for i in ITEMS}


@pytest.mark.parametrize(("key", "delta", "field", "value"), [
    ("vigor", 1, "vigor", 5), ("vigor", -3, "vigor", 1), ("damage", 2, "vigor", 2),
    ("limit", 1, "vigor_limit", 7), ("energy", 2, "available", 10), ("energy", -1, "available", 7),
    ("spend", 3, "exhausted", 3), ("champions", 2, "champions", 2), ("dishonor", 1, "dishonor", 1),
    ("companions", 1, "vigor_limit", 7), ("temples", 1, "temples", 1), ("islands", 2, "islands", 2),
    ("cubes", 2, "pool", 8),
])
def test_change_items(key: str, delta: int, field: str, value: int) -> None:
    assert getattr(change(start_tracks(), key, delta).after, field) == value


@pytest.mark.parametrize(("key", "delta", "message"), [
    ("vigor", 2, "cannot go past its Limit 5"),
    ("vigor", -4, "cannot go below 1"),
    ("damage", -1, "cannot be taken back"),
    ("limit", -1, "cannot go below square 5"),
    ("energy", 11, "only 10 Cubes left in the pool"),
    ("energy", -9, "only 8 Energy available"),
    ("spend", 9, "cannot spend 9 Energy: only 8 available"),
    ("spend", -1, "only 0 Energy is exhausted"),
    ("champions", -1, "Champion Tokens cannot go below 0"),
    ("dishonor", -1, "Dishonor Tokens cannot go below 0"),
    ("companions", 3, "no free Companion Space"),
    ("companions", -1, "Companions cannot go below 0"),
    ("temples", 13, "at most 12 Temples"),
    ("fleece", 1, "Golden Fleece Islands (1) exceed explored Islands (0)"),
    ("cubes", 11, "only 10 Cubes left"),
    ("speed", 1, "unknown track 'speed'"),
])
def test_impossible_changes_say_why(key: str, delta: int, message: str) -> None:
    with pytest.raises(TrackError, match=message.replace("(", r"\(").replace(")", r"\)")):
        change(start_tracks(), key, delta)


def test_lowering_the_limit_below_vigor_is_refused() -> None:
    t = Tracks(vigor=7, limit_raises=1)
    with pytest.raises(TrackError, match="lower Vigor first"):
        change(t, "limit", -1)
    with pytest.raises(TrackError, match="lower Vigor first"):
        change(Tracks(vigor=7, limit_raises=1, companions=1), "companions", -1)
    c = change(Tracks(vigor=5, limit_raises=3, companions=2), "companions", -1)
    assert (c.after.companions, c.after.vigor_limit) == (1, 9)  # the Cube goes back on 9


def test_apply_is_all_or_nothing() -> None:
    t = start_tracks()
    c = apply(t, [("spend", 2), ("champions", 1), ("dishonor", 1)])
    assert (c.after.exhausted, c.after.champions, c.after.dishonor) == (2, 1, 1)
    with pytest.raises(TrackError):
        apply(t, [("spend", 2), ("spend", 7)])
    assert change(t, "vigor", 0).after == t


def test_json_round_trip() -> None:
    t = tame_monster(claim_temple(Tracks(vigor=3, champions=2, islands=3, fleece=1),
                                  "attack").after, "Boar", 2).after
    data = json.loads(json.dumps(t.to_json()))
    assert data["hand_limit"] == t.hand_limit() and data["tamed_laurels"] == 2
    assert Tracks.from_json(data) == t
    with pytest.raises(TrackError, match="unknown track fields"):
        Tracks.from_json({"vigour": 3})
    assert json.loads(json.dumps(suffer_damage(t, 1).to_json()))["after"]["vigor"] == 2


@given(st.lists(st.tuples(st.sampled_from(ITEM_KEYS), st.integers(-3, 3)), max_size=30))
def test_dialled_changes_keep_tracks_valid(steps: list[tuple[str, int]]) -> None:
    """Any sequence of dialled changes either applies or is refused: the tracks stay legal."""
    t = start_tracks()
    for key, delta in steps:
        try:
            t = change(t, key, delta).after
        except TrackError:
            continue
        assert 1 <= t.vigor <= t.max_vigor
        assert t.pool >= 0 and t.available >= 0 and t.exhausted >= 0
        assert 0 <= t.companions <= 2 and t.fleece <= t.islands
        assert Tracks.from_json(t.to_json()) == t
