"""Fights in Trial of the Gods: both Attack values, the comparison, Damage and Bonus Damage,
Enemy states and what a defeat gives, as pure functions and a JSON-able `Fight` record.

Everything comes in as plain numbers (the Attack Bonuses the player dials, the Enemy card's
Attack Value and dice count, the dice results), so this module needs neither the card packs
nor the die faces. Player tracks change through `tracks`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from dialbox.games.trial_of_the_gods.tracks import (
    DEFAULT_RULES,
    Change,
    TrackRules,
    Tracks,
    argonaut_defeated,
    monster_removed,
    suffer_damage,
    tame_monster,
)

MAX_CARDS = 3
"""A player plays up to 3 Action Cards in a Fight (0 is allowed)."""
BONUS_MARGIN = 4
"""Winning by at least this much inflicts 1 Bonus Damage."""

ACTIVATION: Literal["activation"] = "activation"
"""A die result that applies the Enemy's Skill instead of adding to its Attack."""
DieResult = int | Literal["activation"]

EnemyKind = Literal["argonaut", "monster"]
EnemyState = Literal["uninjured", "injured", "tamed", "defeated"]
ENEMY_STATES: tuple[EnemyState, ...] = get_args(EnemyState)
Side = Literal["player", "enemy"]
Reward = Literal["companion", "champion", "tamed", "removed"]
"""What a defeat gave: a Companion, a Champion Token (no free Companion Space), a Tamed
Monster (neutral Monster), or another player's Monster removed from the board."""


class FightError(ValueError):
    """Fight inputs the rules do not allow; the message is one line saying why."""


@dataclass(frozen=True, slots=True)
class Enemy:
    """The Enemy fought, as numbers read off its card and its Meeple.

    `state` is "tamed" for another player's Tamed Monster (a player's Cube on its Meeple);
    `owner` is then that player's seat, when known.
    """

    kind: EnemyKind
    attack: int
    dice: int
    laurels: int = 0
    name: str = ""
    state: EnemyState = "uninjured"
    owner: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in get_args(EnemyKind):
            raise FightError(f"unknown Enemy type {self.kind!r}")
        if self.state not in ENEMY_STATES:
            raise FightError(f"unknown Enemy state {self.state!r}")
        if self.state == "defeated":
            raise FightError("a defeated Enemy is no longer on the board")
        if self.state == "tamed" and self.kind != "monster":
            raise FightError("only Monsters are Tamed")
        if self.owner is not None and self.state != "tamed":
            raise FightError("an Enemy with an owner is a Tamed Monster")
        if self.dice < 0 or self.laurels < 0:
            raise FightError("dice and Laurels cannot be negative")

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "attack": self.attack, "dice": self.dice,
                "laurels": self.laurels, "state": self.state, "owner": self.owner}


@dataclass(frozen=True, slots=True)
class PlayerAttack:
    """The player's Attack: the Attack Bonuses of the cards played for them, what the cards
    played for their Fight Effect add, and other bonuses (Feats, Fight Effects' "+N", the
    Attack +1 Upgrade in `upgrade`)."""

    card_bonuses: tuple[int, ...] = ()
    effect_cards: int = 0
    effect_attack: int = 0
    bonus: int = 0
    upgrade: int = 0

    def __post_init__(self) -> None:
        if len(self.card_bonuses) + self.effect_cards > MAX_CARDS:
            raise FightError(f"at most {MAX_CARDS} Action Cards in a Fight")
        if self.effect_cards < 0 or any(b < 0 for b in self.card_bonuses):
            raise FightError("card counts and Attack Bonuses cannot be negative")

    @property
    def cards(self) -> int:
        return len(self.card_bonuses) + self.effect_cards

    @property
    def total(self) -> int:
        return sum(self.card_bonuses) + self.effect_attack + self.bonus + self.upgrade

    def to_json(self) -> dict[str, Any]:
        return {"card_bonuses": list(self.card_bonuses), "effect_cards": self.effect_cards,
                "effect_attack": self.effect_attack, "bonus": self.bonus,
                "upgrade": self.upgrade, "total": self.total}


def player_attack(card_bonuses: Sequence[int] = (), *, effect_cards: int = 0,
                  effect_attack: int = 0, bonus: int = 0,
                  tracks: Tracks | None = None) -> PlayerAttack:
    """The player's Attack from what they dial; `tracks` adds the Attack +1 Upgrade.

    >>> player_attack([2, 1], effect_cards=1, effect_attack=2).total
    5
    """
    upgrade = tracks.attack_bonus if tracks is not None else 0
    return PlayerAttack(tuple(card_bonuses), effect_cards, effect_attack, bonus, upgrade)


@dataclass(frozen=True, slots=True)
class EnemyAttack:
    """The Enemy's Attack: its card's Attack Value plus the numeric dice results (and any
    change its Skill makes, dialled in `skill`); `activations` counts Skill activations."""

    value: int
    dice: tuple[DieResult, ...]
    skill: int = 0

    @property
    def rolled(self) -> int:
        return sum(d for d in self.dice if isinstance(d, int))

    @property
    def activations(self) -> int:
        return sum(1 for d in self.dice if d == ACTIVATION)

    @property
    def total(self) -> int:
        return self.value + self.rolled + self.skill

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "dice": list(self.dice), "rolled": self.rolled,
                "activations": self.activations, "skill": self.skill, "total": self.total}


def enemy_attack(value: int, dice: Sequence[DieResult], skill: int = 0) -> EnemyAttack:
    """The Enemy's Attack from its Attack Value and the dice rolled for it.

    >>> a = enemy_attack(3, [2, "activation", 1])
    >>> a.total, a.activations
    (6, 1)
    """
    for d in dice:
        if d != ACTIVATION and (not isinstance(d, int) or isinstance(d, bool) or d < 0):
            raise FightError(f"a die result is a number >= 0 or {ACTIVATION!r}, not {d!r}")
    return EnemyAttack(value, tuple(dice), skill)


def winner(player: int, enemy: int) -> Side | None:
    """Who wins the comparison: the higher Attack; a tie has no winner (the Fight ends)."""
    if player == enemy:
        return None
    return "player" if player > enemy else "enemy"


@dataclass(frozen=True, slots=True)
class Damage:
    """The Damage the winner inflicts: 1, +1 Bonus Damage for a margin of 4 or more, and the
    extra Damage effects add."""

    regular: int = 0
    bonus: int = 0
    extra: int = 0

    @property
    def total(self) -> int:
        return self.regular + self.bonus + self.extra

    def to_json(self) -> dict[str, Any]:
        return {"regular": self.regular, "bonus": self.bonus, "extra": self.extra,
                "total": self.total}


def damage_dealt(winning: int, losing: int, extra: int = 0) -> Damage:
    """Damage from the winner's and loser's Attack values (no Damage on a tie).

    >>> damage_dealt(9, 5).total, damage_dealt(8, 5).total, damage_dealt(5, 5, extra=2).total
    (2, 1, 0)
    """
    if extra < 0:
        raise FightError("extra Damage cannot be negative")
    if winning <= losing:
        return Damage()
    return Damage(1, 1 if winning - losing >= BONUS_MARGIN else 0, extra)


def damage_enemy(state: EnemyState, damage: int) -> EnemyState:
    """An Enemy's state after `damage` Damage: the first injures, a second (or two at once)
    defeats; a Tamed Monster is defeated by any Damage.

    >>> damage_enemy("uninjured", 1), damage_enemy("injured", 1), damage_enemy("tamed", 1)
    ('injured', 'defeated', 'defeated')
    """
    if damage < 0:
        raise FightError("Damage cannot be negative")
    if state == "defeated":
        raise FightError("the Enemy is already defeated")
    if damage == 0:
        return state
    if state == "uninjured" and damage == 1:
        return "injured"
    return "defeated"


@dataclass(frozen=True, slots=True)
class Fight:
    """What the screen shows of one Fight and the state it leaves.

    `player` is the fighting player's tracks change; `owner` the change to the tracks of the
    player whose Tamed Monster was defeated, when given. `temple_claim` is True when the
    defeat happened on an Island whose Temple nobody holds: the player then claims it and
    picks an Upgrade (`tracks.claim_temple`).
    """

    enemy: Enemy
    player_attack: PlayerAttack
    enemy_attack: EnemyAttack
    winner: Side | None
    damage: Damage
    enemy_after: EnemyState
    player: Change
    reward: Reward | None = None
    owner: Change | None = None
    temple_claim: bool = False
    notes: tuple[str, ...] = ()

    @property
    def margin(self) -> int:
        return self.player_attack.total - self.enemy_attack.total

    @property
    def defeated(self) -> bool:
        return self.enemy_after == "defeated"

    @property
    def enemy_now(self) -> Enemy | None:
        """The Enemy as it stands after the Fight (None once defeated), for the next Fight."""
        if self.enemy_after == "defeated":
            return None
        return replace(self.enemy, state=self.enemy_after)

    def to_json(self, rules: TrackRules = DEFAULT_RULES) -> dict[str, Any]:
        before, after = self.player.before, self.player.after
        return {
            "enemy": self.enemy.to_json(),
            "player_attack": self.player_attack.to_json(),
            "enemy_attack": self.enemy_attack.to_json(),
            "margin": self.margin,
            "winner": self.winner,
            "damage": self.damage.to_json(),
            "enemy_state": {"before": self.enemy.state, "after": self.enemy_after},
            "reward": self.reward,
            "temple_claim": self.temple_claim,
            "vigor": {"before": before.vigor, "after": after.vigor},
            "dishonor_gained": after.dishonor - before.dishonor,
            "energy_gained": after.available - before.available,
            "discard_to": self.player.discard_to,
            "player": after.to_json(rules),
            "owner": self.owner.after.to_json(rules) if self.owner is not None else None,
            "notes": list(self.notes),
        }


def resolve_fight(
    tracks: Tracks,
    enemy: Enemy,
    attack: PlayerAttack,
    dice: Sequence[DieResult],
    *,
    skill_attack: int = 0,
    player_extra_damage: int = 0,
    enemy_extra_damage: int = 0,
    owner_tracks: Tracks | None = None,
    owner_monster: int | None = None,
    free_temple: bool = False,
    rules: TrackRules = DEFAULT_RULES,
) -> Fight:
    """Resolve one Fight from the numbers dialled and rolled.

    `dice` are the results rolled for the Enemy (numbers, or `ACTIVATION`); `skill_attack` is
    what its Skill's activations add to its Attack. `player_extra_damage` and
    `enemy_extra_damage` are the extra Damage effects give the winner (only the winner's
    counts). For another player's Tamed Monster, `owner_tracks` and `owner_monster` (its index
    in the owner's Tamed Monsters) mark its Meeple removed. `free_temple`: the Enemy stands
    on an Island whose Temple nobody has claimed.
    """
    theirs = enemy_attack(enemy.attack, dice, skill_attack)
    won = winner(attack.total, theirs.total)
    notes: list[str] = [f"Attack {attack.total} against {theirs.total}"]
    if theirs.activations:
        notes.append(f"{theirs.activations} Skill activation{'s' * (theirs.activations > 1)}")
    player = Change(tracks, tracks)
    enemy_after = enemy.state
    reward: Reward | None = None
    owner: Change | None = None
    if won is None:
        damage = Damage()
        notes.append("Tie: no winner, the Fight ends")
    elif won == "enemy":
        damage = damage_dealt(theirs.total, attack.total, enemy_extra_damage)
        notes.append(f"The Enemy wins: {damage.total} Damage to the player")
        player = suffer_damage(tracks, damage.total, rules)
    else:
        damage = damage_dealt(attack.total, theirs.total, player_extra_damage)
        enemy_after = damage_enemy(enemy.state, damage.total)
        notes.append(f"The player wins: {damage.total} Damage, the Enemy is {enemy_after}")
        if enemy_after == "defeated":
            if enemy.kind == "argonaut":
                player = argonaut_defeated(tracks, rules)
                reward = "companion" if player.after.companions > tracks.companions \
                    else "champion"
            elif enemy.state != "tamed":
                player = tame_monster(tracks, enemy.name, enemy.laurels, rules)
                reward = "tamed"
            else:
                reward = "removed"
                notes.append("Its Meeple leaves the game; its owner keeps the card's Laurels")
                if owner_tracks is not None and owner_monster is not None:
                    owner = monster_removed(owner_tracks, owner_monster, rules)
    notes.extend(player.notes)
    temple_claim = free_temple and enemy_after == "defeated"
    if temple_claim:
        notes.append("The Temple on this Island is free: claim it and choose an Upgrade")
    return Fight(enemy, attack, theirs, won, damage, enemy_after, player, reward, owner,
                 temple_claim, tuple(notes))


__all__ = [
    "ACTIVATION", "BONUS_MARGIN", "ENEMY_STATES", "MAX_CARDS", "Damage", "DieResult", "Enemy",
    "EnemyAttack", "EnemyKind", "EnemyState", "Fight", "FightError", "PlayerAttack", "Reward",
    "Side", "damage_dealt", "damage_enemy", "enemy_attack", "player_attack",
    "resolve_fight", "winner",
]
