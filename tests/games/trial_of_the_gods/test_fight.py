"""Trial of the Gods Fights: scenarios from scenarios/fights/*.toml, then units.

A scenario has optional [rules] (`TrackRules` fields), [tracks] (the fighting player's starting
`Tracks` fields; Player Setup otherwise), [owner] (the tracks of the owner of a Tamed Monster),
an [enemy] (`Enemy` fields) and one [[fight]] per Fight, in order. A fight gives `cards` (the
Attack Bonuses of the cards played for them), `effect_cards`, `effect_attack`, `bonus`,
`upgrades` (Upgrades to activate first), `dice` (numbers or "activation"), `skill_attack`,
`player_extra_damage`, `enemy_extra_damage`, `owner_monster`, `free_temple`, and may replace
the Enemy with its own [fight.enemy]; otherwise the Enemy carries on as the last Fight left it,
and the player's tracks always carry on. [fight.expect] checks the record and the tracks after
it; "none" stands for no value (TOML has no null), `vigor_limit = "removed"` for a Limit Cube
gone beyond square 10, and an unknown key fails.
"""

from __future__ import annotations

import doctest
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from dialbox.games.trial_of_the_gods import fight as fight_module
from dialbox.games.trial_of_the_gods.fight import (
    ACTIVATION,
    Damage,
    Enemy,
    FightError,
    PlayerAttack,
    damage_dealt,
    damage_enemy,
    enemy_attack,
    player_attack,
    resolve_fight,
    winner,
)
from dialbox.games.trial_of_the_gods.tracks import (
    TrackRules,
    Tracks,
    activate_upgrade,
    start_tracks,
    tame_monster,
)

HERE = Path(__file__).parent / "scenarios" / "fights"
FILES = sorted(HERE.glob("*.toml"))

FIGHT_KEYS = {
    "cards", "effect_cards", "effect_attack", "bonus", "upgrades", "dice", "skill_attack",
    "player_extra_damage", "enemy_extra_damage", "owner_monster", "free_temple", "enemy",
    "expect",
}


def load(path: Path) -> dict[str, Any]:
    with path.open("rb") as f:
        return tomllib.load(f)


def _none(key: str, value: Any) -> Any:
    """"none" is no value; a `vigor_limit` of "removed" means the Limit Cube left the track."""
    if value == "none" or (key == "vigor_limit" and value == "removed"):
        return None
    return value


def observed(fight: Any, tracks: Tracks, owner: Tracks | None, rules: TrackRules,
             key: str) -> Any:
    """The value a scenario's expect key names, read off the Fight record and tracks."""
    record = fight.to_json(rules)
    if key == "note":
        return record["notes"]
    by_record: dict[str, Any] = {
        "player_attack": record["player_attack"]["total"],
        "enemy_attack": record["enemy_attack"]["total"],
        "activations": record["enemy_attack"]["activations"],
        "margin": record["margin"],
        "winner": record["winner"],
        "damage": record["damage"]["total"],
        "bonus_damage": record["damage"]["bonus"],
        "extra_damage": record["damage"]["extra"],
        "enemy_state": record["enemy_state"]["after"],
        "reward": record["reward"],
        "temple_claim": record["temple_claim"],
        "discard_to": record["discard_to"],
        "energy_gained": record["energy_gained"],
        "dishonor_gained": record["dishonor_gained"],
    }
    if key in by_record:
        return by_record[key]
    by_tracks: dict[str, Any] = {
        "vigor": tracks.vigor,
        "vigor_limit": tracks.vigor_limit,
        "hand_limit": tracks.hand_limit(rules),
        "dishonor": tracks.dishonor,
        "champions": tracks.champions,
        "companions": tracks.companions,
        "available": tracks.available,
        "exhausted": tracks.exhausted,
        "pool": tracks.pool,
        "tamed": len(tracks.tamed),
        "tamed_laurels": tracks.tamed_laurels,
    }
    if key in by_tracks:
        return by_tracks[key]
    if key.startswith("owner_"):
        assert owner is not None, "no [owner] tracks in this scenario"
        if key == "owner_meeple":
            return owner.tamed[0].meeple
        return observed(fight, owner, None, rules, key.removeprefix("owner_"))
    raise AssertionError(f"unknown expect key {key!r}")


def run(case: dict[str, Any], where: str) -> None:
    rules = TrackRules.from_json(case.get("rules", {}))
    tracks = Tracks.from_json({"vigor": rules.start_vigor, **case.get("tracks", {})})
    owner = Tracks.from_json(case["owner"]) if "owner" in case else None
    enemy: Enemy | None = Enemy(**case["enemy"])
    for n, step in enumerate(case["fight"], 1):
        here = f"{where} fight {n}"
        assert set(step) <= FIGHT_KEYS, f"{here}: unknown keys {set(step) - FIGHT_KEYS}"
        if "enemy" in step:
            enemy = Enemy(**step["enemy"])
        assert enemy is not None, f"{here}: the Enemy was already defeated"
        for upgrade in step.get("upgrades", []):
            tracks = activate_upgrade(tracks, upgrade, rules).after
        attack = player_attack(step.get("cards", []), effect_cards=step.get("effect_cards", 0),
                               effect_attack=step.get("effect_attack", 0),
                               bonus=step.get("bonus", 0), tracks=tracks)
        fight = resolve_fight(
            tracks, enemy, attack, step["dice"],
            skill_attack=step.get("skill_attack", 0),
            player_extra_damage=step.get("player_extra_damage", 0),
            enemy_extra_damage=step.get("enemy_extra_damage", 0),
            owner_tracks=owner, owner_monster=step.get("owner_monster"),
            free_temple=step.get("free_temple", False), rules=rules,
        )
        tracks = fight.player.after
        if fight.owner is not None:
            owner = fight.owner.after
        json.dumps(fight.to_json(rules))  # the screen's record is plain JSON
        for key, want in step.get("expect", {}).items():
            got = observed(fight, tracks, owner, rules, key)
            if key == "note":
                assert any(want in note for note in got), f"{here}: no note with {want!r}: {got}"
            else:
                assert got == _none(key, want), f"{here}: {key} is {got!r}, expected {want!r}"
        enemy = fight.enemy_now


def test_scenarios_exist() -> None:
    assert len(FILES) >= 13


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_scenario_names_its_rule(path: Path) -> None:
    case = load(path)
    assert isinstance(case.get("title"), str) and case["title"].strip(), path.name
    assert isinstance(case.get("rule"), str) and len(case["rule"].split()) >= 12, path.name
    assert case.get("enemy") and case.get("fight"), path.name
    assert all(f.get("expect") for f in case["fight"]), f"{path.name}: a fight expects nothing"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    case = load(path)
    run(case, f"{path.name} ({case['title']})")


def test_every_rule_has_a_scenario() -> None:
    """The brief's list of Fight rules, each covered by a scenario file."""
    wanted = {
        "won_with_damage", "bonus_damage", "extra_damage", "tie_ends_fight", "player_loses",
        "dishonor_at_vigor_one", "hand_limit_shrinks", "injured_then_defeated",
        "two_damage_at_once", "tamed_enemy_defeated_by_one", "argonaut_to_companion",
        "no_companion_space", "monster_tamed",
    }
    assert wanted <= {p.stem for p in FILES}


# Units -----------------------------------------------------------------------------------------


def test_doctests() -> None:
    assert doctest.testmod(fight_module).failed == 0


def test_player_attack_sums_cards_effects_and_upgrade() -> None:
    t = activate_upgrade(start_tracks(), "attack").after
    a = player_attack([2, 3], effect_cards=1, effect_attack=2, bonus=1, tracks=t)
    assert (a.cards, a.upgrade, a.total) == (3, 1, 9)
    assert player_attack().total == 0  # 0 cards is allowed


def test_player_attack_refuses_a_fourth_card() -> None:
    with pytest.raises(FightError, match="at most 3"):
        player_attack([1, 1, 1], effect_cards=1)
    with pytest.raises(FightError, match="negative"):
        PlayerAttack((-1,))


def test_enemy_attack_adds_numbers_and_counts_activations() -> None:
    a = enemy_attack(4, [2, ACTIVATION, 0, ACTIVATION], skill=1)
    assert (a.rolled, a.activations, a.total) == (2, 2, 7)
    with pytest.raises(FightError, match="die result"):
        enemy_attack(4, ["skull"])  # type: ignore[list-item]
    with pytest.raises(FightError, match="die result"):
        enemy_attack(4, [-1])


def test_comparison() -> None:
    assert winner(5, 4) == "player"
    assert winner(4, 5) == "enemy"
    assert winner(4, 4) is None


@pytest.mark.parametrize(("win", "lose", "extra", "total"), [
    (5, 4, 0, 1), (7, 4, 0, 1), (8, 4, 0, 2), (12, 1, 0, 2), (5, 4, 2, 3), (4, 4, 3, 0),
])
def test_damage_dealt(win: int, lose: int, extra: int, total: int) -> None:
    assert damage_dealt(win, lose, extra).total == total


def test_damage_dealt_refuses_negative_extra() -> None:
    with pytest.raises(FightError):
        damage_dealt(5, 1, -1)
    assert Damage().total == 0


@pytest.mark.parametrize(("state", "damage", "after"), [
    ("uninjured", 0, "uninjured"), ("uninjured", 1, "injured"), ("uninjured", 2, "defeated"),
    ("uninjured", 3, "defeated"), ("injured", 1, "defeated"), ("tamed", 1, "defeated"),
    ("injured", 0, "injured"), ("tamed", 0, "tamed"),
])
def test_damage_enemy(state: Any, damage: int, after: str) -> None:
    assert damage_enemy(state, damage) == after


def test_damage_enemy_refuses_a_defeated_enemy() -> None:
    with pytest.raises(FightError, match="already defeated"):
        damage_enemy("defeated", 1)


def test_enemy_checks_itself() -> None:
    with pytest.raises(FightError, match="only Monsters"):
        Enemy("argonaut", 3, 1, state="tamed")
    with pytest.raises(FightError, match="owner"):
        Enemy("monster", 3, 1, owner=2)
    with pytest.raises(FightError, match="no longer on the board"):
        Enemy("monster", 3, 1, state="defeated")


def test_enemy_wins_extra_damage_counts_only_for_it() -> None:
    t = start_tracks()
    fight = resolve_fight(t, Enemy("monster", 5, 1), player_attack([1]), [1],
                          player_extra_damage=3, enemy_extra_damage=1)
    assert fight.winner == "enemy" and fight.damage.total == 3  # 1 + Bonus (6 vs 1) + 1
    assert fight.player.after.vigor == 1 and fight.player.after.dishonor == 0
    assert fight.enemy_now == Enemy("monster", 5, 1)


def test_skill_attack_changes_the_enemy_attack() -> None:
    fight = resolve_fight(start_tracks(), Enemy("monster", 2, 2), player_attack([3]),
                          [1, ACTIVATION], skill_attack=1)
    assert fight.enemy_attack.total == 4 and fight.winner == "enemy"
    assert any("Skill activation" in n for n in fight.notes)


def test_tamed_enemy_without_owner_tracks_still_removed() -> None:
    fight = resolve_fight(start_tracks(), Enemy("monster", 1, 1, laurels=2, state="tamed"),
                          player_attack([3]), [0])
    assert fight.reward == "removed" and fight.owner is None
    assert fight.player.after == start_tracks()  # no Energy, no Laurels for the winner
    assert fight.enemy_now is None


def test_owner_keeps_laurels_of_removed_monster() -> None:
    owner = tame_monster(start_tracks(), "Hydra", 4).after
    fight = resolve_fight(start_tracks(), Enemy("monster", 1, 1, laurels=4, state="tamed",
                                                owner=1),
                          player_attack([3]), [0], owner_tracks=owner, owner_monster=0)
    assert fight.owner is not None
    assert fight.owner.after.tamed_laurels == 4
    assert fight.owner.after.tamed[0].meeple == "removed"


def test_no_temple_claim_without_a_defeat() -> None:
    fight = resolve_fight(start_tracks(), Enemy("monster", 1, 1), player_attack([3]), [0],
                          free_temple=True)
    assert fight.enemy_after == "injured" and not fight.temple_claim


def test_fight_record_is_json() -> None:
    fight = resolve_fight(start_tracks(), Enemy("argonaut", 1, 2, name="Sample"),
                          player_attack([3, 3]), [0, ACTIVATION])
    record = json.loads(json.dumps(fight.to_json()))
    assert record["enemy_attack"]["dice"] == [0, "activation"]
    assert record["winner"] == "player" and record["damage"]["total"] == 2
    assert record["reward"] == "companion"
    assert record["player"]["vigor_limit"] == 7
