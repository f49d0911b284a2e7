"""A player's public tracks in Trial of the Gods: Vigor and its Limit, Hand Limit, Energy,
tokens, Companions, Temples, Tamed Monsters and Exploration Tokens, and the small named
changes that move them.

Pure and JSON-able: a `Tracks` value never changes; every change returns a `Change` holding
the new value and one-line notes for the screen. Changes the rules allow "up to" a number
(Heal, Restore, a Cube taken from an empty pool) do what they can and say what they could not;
a change that cannot be made at all raises `TrackError` with a one-line reason.

Numbers not printed in the rulebook text are assumptions a table can override through
`TrackRules` (see `ASSUMED_HAND_LIMITS` and `COMPANION_SPACES`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, cast, get_args

VIGOR_MIN = 1
VIGOR_MAX = 10
"""The Vigor Track's squares."""
LIMIT_START = 5
"""The Limit Cube starts on square 5 (the Captain Space shows it)."""
LIMIT_STEP = 2
"""Each Companion gained and the Vigor Limit +2 Upgrade move the Limit Cube 2 squares right."""
CUBES = 19
"""Coloured Cubes per player, for every use (Energy, the Vigor Indicator, markers)."""
ISLANDS = 12
"""Islands on the Game Board (one Temple each): bounds Temples and Exploration Tokens."""

START_VIGOR = 4
"""Player Setup puts the Vigor Indicator on square 4 (the Limit Cube goes on 5)."""
START_ENERGY = 8
"""Player Setup puts 8 Cubes in the Available Energy slot."""

ASSUMED_HAND_LIMITS: tuple[int, ...] = (3, 3, 4, 4, 5, 5, 6, 6, 7, 7)
"""ASSUMPTION, not from the rulebook text: the Hand Limit printed under Vigor squares 1..10
(index 0 is Vigor 1). The rulebook says the value under the Vigor Indicator is the Hand Limit
but does not give the numbers; a table that owns the board passes its own through
`TrackRules(hand_limits=...)`."""

COMPANION_SPACES = 2
"""ASSUMPTION: Companion Spaces per Player Board. The rulebook text does not give the number;
each player gets 2 Companion Meeples (8 in the box for 4 players), so 2 spaces."""

Upgrade = Literal["attack", "discovery", "fervor", "energy", "vigor_limit", "blessing"]
UPGRADES: tuple[Upgrade, ...] = get_args(Upgrade)
UPGRADE_NAMES: dict[Upgrade, str] = {
    "attack": "Attack +1",
    "discovery": "Discovery +1",
    "fervor": "Fervor +1",
    "energy": "Energy +2",
    "vigor_limit": "Vigor Limit +2",
    "blessing": "Blessing",
}

Meeple = Literal["ready", "placed", "removed"]
"""Where a Tamed Monster's Meeple is: beside the Player Board, on the Game Board (with one of
the player's Cubes on it), or removed from the game after another player defeated it."""


class TrackError(ValueError):
    """A change the tracks cannot make; the message is one line saying why."""


@dataclass(frozen=True, slots=True)
class TrackRules:
    """The numbers a table may set; the defaults are the rulebook's and our documented
    assumptions."""

    hand_limits: tuple[int, ...] = ASSUMED_HAND_LIMITS
    companion_spaces: int = COMPANION_SPACES
    start_vigor: int = START_VIGOR
    dishonor_each_damage: bool = True
    """True: at Vigor 1 every further Damage gives a Dishonor Token. False: one Dishonor Token
    per Damage event (one Fight's Damage, one Enemy in the Enemy Phase) however many Damage."""
    limit_without_space: bool = True
    """An Argonaut defeated with no free Companion Space: the steps are still performed except
    the Hero Card (a Champion Token instead). True: that includes moving the Limit Cube."""

    def __post_init__(self) -> None:
        if len(self.hand_limits) != VIGOR_MAX or any(h < 0 for h in self.hand_limits):
            raise ValueError("hand_limits: one Hand Limit (>= 0) for each Vigor square 1..10")
        if self.companion_spaces < 0:
            raise ValueError("companion_spaces cannot be negative")
        if not VIGOR_MIN <= self.start_vigor <= LIMIT_START:
            raise ValueError(f"start_vigor must be {VIGOR_MIN}..{LIMIT_START} (the Limit Cube)")

    def to_json(self) -> dict[str, Any]:
        return {
            "hand_limits": list(self.hand_limits),
            "companion_spaces": self.companion_spaces,
            "start_vigor": self.start_vigor,
            "dishonor_each_damage": self.dishonor_each_damage,
            "limit_without_space": self.limit_without_space,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TrackRules:
        unknown = set(data) - set(cls().to_json())
        if unknown:
            raise ValueError(f"unknown track rules: {sorted(unknown)}")
        args = dict(data)
        if "hand_limits" in args:
            args["hand_limits"] = tuple(args["hand_limits"])
        return cls(**args)


DEFAULT_RULES = TrackRules()


@dataclass(frozen=True, slots=True)
class TamedMonster:
    """A Monster this player defeated while it was neutral: its card counts `laurels` for
    Domination whatever happens to its Meeple."""

    name: str
    laurels: int
    meeple: Meeple = "ready"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "laurels": self.laurels, "meeple": self.meeple}


@dataclass(frozen=True, slots=True)
class Tracks:
    """One player's public tracks. Build the starting ones with `start_tracks()`."""

    vigor: int = START_VIGOR
    limit_raises: int = 0
    """How many times the Limit Cube moved 2 squares right (Companions, Vigor Limit +2)."""
    available: int = START_ENERGY
    exhausted: int = 0
    cubes_elsewhere: int = 0
    """Cubes of this player's colour on the table for other uses the console does not track
    (markers placed by effects); Tamed Monster markers are counted from `tamed`."""
    champions: int = 0
    dishonor: int = 0
    companions: int = 0
    temples: int = 0
    islands: int = 0
    """Islands holding one of this player's Exploration Tokens."""
    fleece: int = 0
    """Of those, Islands whose Treasure Token shows a Golden Fleece part (known at the end)."""
    tamed: tuple[TamedMonster, ...] = ()
    upgrades: tuple[Upgrade, ...] = ()
    """Active Upgrades, in the order they were activated."""

    def __post_init__(self) -> None:
        problem = self._problem()
        if problem:
            raise TrackError(problem)

    def _problem(self) -> str:
        counts = ("vigor", "limit_raises", "available", "exhausted", "cubes_elsewhere",
                  "champions", "dishonor", "companions", "temples", "islands", "fleece")
        for name in counts:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                return f"{name} must be a whole number"
            if value < 0:
                return f"{name} cannot be negative"
        if not VIGOR_MIN <= self.vigor <= self.max_vigor:
            return f"Vigor {self.vigor} is off the track (1..{self.max_vigor})"
        if self.pool < 0:
            return f"more than {CUBES} Cubes in use"
        if self.temples > ISLANDS:
            return f"at most {ISLANDS} Temples"
        if self.islands > ISLANDS:
            return f"at most {ISLANDS} Islands with Exploration Tokens"
        if self.fleece > self.islands:
            return f"Golden Fleece Islands ({self.fleece}) exceed explored Islands ({self.islands})"
        if len(set(self.upgrades)) != len(self.upgrades):
            return "an Upgrade is active twice"
        for u in self.upgrades:
            if u not in UPGRADES:
                return f"unknown Upgrade {u!r}"
        for m in self.tamed:
            if m.laurels < 0 or m.meeple not in get_args(Meeple):
                return f"bad Tamed Monster {m.name!r}"
        return ""

    # Derived values -------------------------------------------------------------------------

    @property
    def vigor_limit(self) -> int | None:
        """The square of the Limit Cube, or None once it moved beyond 10 and was removed."""
        square = LIMIT_START + LIMIT_STEP * self.limit_raises
        return square if square <= VIGOR_MAX else None

    @property
    def max_vigor(self) -> int:
        """The highest Vigor allowed now: the Limit Cube, or square 10 without it."""
        limit = self.vigor_limit
        return VIGOR_MAX if limit is None else limit

    def hand_limit(self, rules: TrackRules = DEFAULT_RULES) -> int:
        """The Hand Limit printed under the Vigor Indicator (see `ASSUMED_HAND_LIMITS`)."""
        return rules.hand_limits[self.vigor - 1]

    @property
    def placed_monsters(self) -> int:
        return sum(1 for m in self.tamed if m.meeple == "placed")

    @property
    def pool(self) -> int:
        """Cubes left in the pool: 19 less the Vigor Indicator, Energy and markers."""
        used = 1 + self.available + self.exhausted + self.cubes_elsewhere + self.placed_monsters
        return CUBES - used

    @property
    def tamed_laurels(self) -> int:
        """Laurels for the Domination ranking (every Tamed Monster card, removed or not)."""
        return sum(m.laurels for m in self.tamed)

    @property
    def attack_bonus(self) -> int:
        return 1 if "attack" in self.upgrades else 0

    @property
    def discovery_bonus(self) -> int:
        return 1 if "discovery" in self.upgrades else 0

    @property
    def fervor_bonus(self) -> int:
        return 1 if "fervor" in self.upgrades else 0

    # JSON -----------------------------------------------------------------------------------

    def to_json(self, rules: TrackRules = DEFAULT_RULES) -> dict[str, Any]:
        """Stored fields plus derived ones for the screen (`from_json` ignores those)."""
        return {
            "vigor": self.vigor,
            "limit_raises": self.limit_raises,
            "available": self.available,
            "exhausted": self.exhausted,
            "cubes_elsewhere": self.cubes_elsewhere,
            "champions": self.champions,
            "dishonor": self.dishonor,
            "companions": self.companions,
            "temples": self.temples,
            "islands": self.islands,
            "fleece": self.fleece,
            "tamed": [m.to_json() for m in self.tamed],
            "upgrades": list(self.upgrades),
            "vigor_limit": self.vigor_limit,
            "hand_limit": self.hand_limit(rules),
            "pool": self.pool,
            "tamed_laurels": self.tamed_laurels,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tracks:
        derived = {"vigor_limit", "hand_limit", "pool", "tamed_laurels"}
        fields = set(cls().to_json()) - derived
        unknown = set(data) - fields - derived
        if unknown:
            raise TrackError(f"unknown track fields: {sorted(unknown)}")
        args = {k: v for k, v in data.items() if k in fields}
        if "tamed" in args:
            args["tamed"] = tuple(
                TamedMonster(str(m["name"]), int(m["laurels"]), m.get("meeple", "ready"))
                for m in args["tamed"]
            )
        if "upgrades" in args:
            args["upgrades"] = tuple(args["upgrades"])
        return cls(**args)


def start_tracks(rules: TrackRules = DEFAULT_RULES) -> Tracks:
    """A player's tracks after Player Setup."""
    return Tracks(vigor=rules.start_vigor)


@dataclass(frozen=True, slots=True)
class Change:
    """The result of one change: the tracks after it, one-line notes for the screen, and the
    new Hand Limit when it shrank (the player must discard down to it)."""

    before: Tracks
    after: Tracks
    notes: tuple[str, ...] = ()
    discard_to: int | None = None

    def then(self, nxt: Change) -> Change:
        """This change followed by `nxt` (which must start from this one's result)."""
        discard = nxt.discard_to if nxt.discard_to is not None else self.discard_to
        return Change(self.before, nxt.after, self.notes + nxt.notes, discard)

    def to_json(self, rules: TrackRules = DEFAULT_RULES) -> dict[str, Any]:
        return {
            "before": self.before.to_json(rules),
            "after": self.after.to_json(rules),
            "notes": list(self.notes),
            "discard_to": self.discard_to,
        }


def _change(before: Tracks, after: Tracks, *notes: str, rules: TrackRules) -> Change:
    shrank = after.hand_limit(rules) < before.hand_limit(rules)
    out_notes = tuple(n for n in notes if n)
    discard_to = None
    if shrank:
        discard_to = after.hand_limit(rules)
        out_notes += (f"Hand Limit now {discard_to}: discard down to {discard_to} cards",)
    return Change(before, after, out_notes, discard_to)


def _count(n: int, what: str) -> None:
    if n < 0:
        raise TrackError(f"{what}: a negative amount ({n})")


# Vigor ----------------------------------------------------------------------------------------


def suffer_damage(t: Tracks, damage: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """`damage` Damage in one event: each moves Vigor 1 left; at Vigor 1 the rest become
    Dishonor Tokens (one each, or one for the event: `TrackRules.dishonor_each_damage`)."""
    _count(damage, "Damage")
    steps = min(damage, t.vigor - VIGOR_MIN)
    rest = damage - steps
    dishonor = rest if rules.dishonor_each_damage else min(rest, 1)
    after = replace(t, vigor=t.vigor - steps, dishonor=t.dishonor + dishonor)
    notes = []
    if steps:
        notes.append(f"{damage} Damage: Vigor {t.vigor} -> {after.vigor}")
    if dishonor:
        notes.append(f"Vigor at 1: +{dishonor} Dishonor Token{'s' * (dishonor > 1)}")
    return _change(t, after, *notes, rules=rules)


def heal(t: Tracks, n: int = 1, rules: TrackRules = DEFAULT_RULES) -> Change:
    """N Heal: Vigor up to `n` squares right, never past the Limit Cube (square 10 without)."""
    _count(n, "Heal")
    steps = min(n, t.max_vigor - t.vigor)
    after = replace(t, vigor=t.vigor + steps)
    notes = [f"Heal {steps}: Vigor {t.vigor} -> {after.vigor}" if steps else ""]
    if steps < n:
        notes.append(f"Vigor stops at its Limit {t.max_vigor}")
    return _change(t, after, *notes, rules=rules)


def raise_limit(t: Tracks, rules: TrackRules = DEFAULT_RULES) -> Change:
    """The Limit Cube moves 2 squares right; beyond square 10 it is removed (no limit)."""
    after = replace(t, limit_raises=t.limit_raises + 1)
    if after.vigor_limit is None:
        note = "Limit Cube removed: no Vigor limit" if t.vigor_limit is not None else ""
    else:
        note = f"Vigor Limit {t.vigor_limit} -> {after.vigor_limit}"
    return _change(t, after, note, rules=rules)


# Energy ---------------------------------------------------------------------------------------


def gain_energy(t: Tracks, n: int = 1, rules: TrackRules = DEFAULT_RULES) -> Change:
    """+n Energy: Cubes from the pool to Available; without a Cube in the pool an Effect
    placing one cannot be performed, so only what the pool holds is gained."""
    _count(n, "Energy")
    got = min(n, t.pool)
    after = replace(t, available=t.available + got)
    notes = [f"+{got} Energy" if got else ""]
    if got < n:
        notes.append(f"no Cube left in the pool: {n - got} Energy not gained")
    return _change(t, after, *notes, rules=rules)


def spend_energy(t: Tracks, n: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """Spend n Energy: Available to Exhausted. Refused when not enough is available."""
    _count(n, "Spend")
    if n > t.available:
        raise TrackError(f"cannot spend {n} Energy: only {t.available} available")
    after = replace(t, available=t.available - n, exhausted=t.exhausted + n)
    return _change(t, after, f"Spent {n} Energy" if n else "", rules=rules)


def restore_energy(t: Tracks, n: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """Restore up to n Energy: Exhausted to Available (no more than is exhausted)."""
    _count(n, "Restore")
    got = min(n, t.exhausted)
    after = replace(t, available=t.available + got, exhausted=t.exhausted - got)
    notes = [f"Restored {got} Energy" if got else ""]
    if got < n:
        notes.append(f"only {t.exhausted} Energy was exhausted")
    return _change(t, after, *notes, rules=rules)


# Companions, Temples, Upgrades ----------------------------------------------------------------


def gain_companion(t: Tracks, rules: TrackRules = DEFAULT_RULES) -> Change:
    """A Companion in a free Companion Space; the Limit Cube moves 2 right."""
    if t.companions >= rules.companion_spaces:
        raise TrackError(f"no free Companion Space ({t.companions} of {rules.companion_spaces})")
    step = _change(t, replace(t, companions=t.companions + 1), "+1 Companion", rules=rules)
    return step.then(raise_limit(step.after, rules))


def argonaut_defeated(t: Tracks, rules: TrackRules = DEFAULT_RULES) -> Change:
    """A defeated Enemy Argonaut: a Companion if a Companion Space is free, else a Champion
    Token (and the Limit Cube still moves when `rules.limit_without_space`)."""
    if t.companions < rules.companion_spaces:
        return gain_companion(t, rules)
    step = _change(t, replace(t, champions=t.champions + 1),
                   "no free Companion Space: +1 Champion Token", rules=rules)
    if rules.limit_without_space:
        step = step.then(raise_limit(step.after, rules))
    return step


def activate_upgrade(t: Tracks, upgrade: Upgrade, rules: TrackRules = DEFAULT_RULES) -> Change:
    """Activate one Upgrade; Energy +2 and Vigor Limit +2 act on the tracks at once."""
    if upgrade not in UPGRADES:
        raise TrackError(f"unknown Upgrade {upgrade!r}")
    if upgrade in t.upgrades:
        raise TrackError(f"the {UPGRADE_NAMES[upgrade]} Upgrade is already active")
    step = _change(t, replace(t, upgrades=t.upgrades + (upgrade,)),
                   f"Upgrade {UPGRADE_NAMES[upgrade]} active", rules=rules)
    if upgrade == "energy":
        step = step.then(gain_energy(step.after, 2, rules))
    elif upgrade == "vigor_limit":
        step = step.then(raise_limit(step.after, rules))
    return step


def claim_temple(t: Tracks, upgrade: Upgrade, rules: TrackRules = DEFAULT_RULES) -> Change:
    """A Temple claimed after a defeat on its Island: +1 Temple and the chosen Upgrade."""
    if t.temples >= ISLANDS:
        raise TrackError(f"already {ISLANDS} Temples")
    step = _change(t, replace(t, temples=t.temples + 1), "+1 Temple", rules=rules)
    return step.then(activate_upgrade(step.after, upgrade, rules))


# Tamed Monsters -------------------------------------------------------------------------------


def tame_monster(t: Tracks, name: str, laurels: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """A neutral Monster defeated: its card joins the Tamed Monsters and +1 Energy."""
    _count(laurels, "Laurels")
    monster = TamedMonster(name, laurels)
    step = _change(t, replace(t, tamed=t.tamed + (monster,)),
                   f"Tamed {name or 'a Monster'} ({_plural(laurels, 'Laurel')})", rules=rules)
    return step.then(gain_energy(step.after, 1, rules))


def _monster(t: Tracks, index: int) -> TamedMonster:
    if not 0 <= index < len(t.tamed):
        raise TrackError(f"no Tamed Monster number {index + 1}")
    return t.tamed[index]


def _with_monster(t: Tracks, index: int, meeple: Meeple) -> Tracks:
    tamed = list(t.tamed)
    tamed[index] = replace(tamed[index], meeple=meeple)
    return replace(t, tamed=tuple(tamed))


def order_monster(t: Tracks, index: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """Order: a Tamed Monster to the Game Board with one of the player's Cubes on it."""
    m = _monster(t, index)
    if m.meeple == "removed":
        raise TrackError(f"{m.name or 'that Monster'} was defeated and left the game")
    if m.meeple == "placed":
        return _change(t, t, f"{m.name or 'Monster'} moves to another Zone", rules=rules)
    if t.pool < 1:
        raise TrackError("no Cube left in the pool to mark the Tamed Monster")
    return _change(t, _with_monster(t, index, "placed"),
                   f"{m.name or 'Monster'} placed on the board", rules=rules)


def monster_removed(t: Tracks, index: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """This player's Tamed Monster was defeated by another player: its Meeple leaves the
    game (its Cube back to the pool); its card still counts for Domination."""
    m = _monster(t, index)
    if m.meeple == "removed":
        raise TrackError(f"{m.name or 'that Monster'} was already removed")
    return _change(t, _with_monster(t, index, "removed"),
                   f"{m.name or 'Monster'} removed; its {_plural(m.laurels, 'Laurel')} still count",
                   rules=rules)


# The controller's "+/- what" changes -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Item:
    """One "+/- what" a player can dial: `label` fits a wheel face (8 characters)."""

    key: str
    label: str
    plus: str
    minus: str


ITEMS: tuple[Item, ...] = (
    Item("vigor", "Vigor", "Heal 1 (up to the Limit)", "Vigor 1 left (a correction, no Dishonor)"),
    Item("damage", "Damage", "suffer 1 Damage", ""),
    Item("limit", "Limit", "Limit Cube 2 right", "Limit Cube 2 left (a correction)"),
    Item("energy", "Energy", "+1 Energy from the pool", "1 Available Cube back to the pool"),
    Item("spend", "Spend", "spend 1 Energy", "restore 1 Energy"),
    Item("champions", "Champ", "+1 Champion Token", "-1 Champion Token"),
    Item("dishonor", "Dishonr", "+1 Dishonor Token", "-1 Dishonor Token"),
    Item("companions", "Compan", "+1 Companion (Limit +2)", "-1 Companion (Limit -2)"),
    Item("temples", "Temples", "+1 Temple", "-1 Temple"),
    Item("islands", "Explore", "+1 Exploration Token", "-1 Exploration Token"),
    Item("fleece", "Fleece", "+1 Golden Fleece Island", "-1 Golden Fleece Island"),
    Item("cubes", "Cubes", "1 Cube from the pool to the board", "1 Cube back to the pool"),
)
ITEM_KEYS = tuple(i.key for i in ITEMS)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _counter(t: Tracks, name: str, delta: int, label: str, rules: TrackRules) -> Change:
    value = cast(int, getattr(t, name)) + delta
    if value < 0:
        raise TrackError(f"{label} cannot go below 0")
    try:
        after = replace(t, **cast(dict[str, Any], {name: value}))
    except TrackError as e:
        raise TrackError(f"{label} {delta:+d}: {e}") from None
    return _change(t, after, f"{label} {delta:+d}", rules=rules)


def change(t: Tracks, key: str, delta: int, rules: TrackRules = DEFAULT_RULES) -> Change:
    """Apply one dialled "+/- what" (`key` from `ITEMS`, `delta` a signed count). Strict:
    a change that cannot be made in full raises `TrackError` and changes nothing."""
    if key not in ITEM_KEYS:
        raise TrackError(f"unknown track {key!r}")
    if delta == 0:
        return Change(t, t)
    n = abs(delta)
    up = delta > 0
    if key == "vigor":
        if up and t.vigor + n > t.max_vigor:
            raise TrackError(f"Vigor cannot go past its Limit {t.max_vigor}")
        if not up and t.vigor - n < VIGOR_MIN:
            raise TrackError("Vigor cannot go below 1")
        if up:
            return heal(t, n, rules)
        return _change(t, replace(t, vigor=t.vigor - n), f"Vigor {t.vigor} -> {t.vigor - n}",
                       rules=rules)
    if key == "damage":
        if not up:
            raise TrackError("Damage cannot be taken back: use Vigor +")
        return suffer_damage(t, n, rules)
    if key == "limit":
        if up:
            step = Change(t, t)
            for _ in range(n):
                step = step.then(raise_limit(step.after, rules))
            return step
        lowered = t.limit_raises - n
        if lowered < 0:
            raise TrackError(f"the Limit Cube cannot go below square {LIMIT_START}")
        cap = min(LIMIT_START + LIMIT_STEP * lowered, VIGOR_MAX)
        if t.vigor > cap:
            raise TrackError(f"Vigor {t.vigor} is above Limit {cap}: lower Vigor first")
        after = replace(t, limit_raises=lowered)
        return _change(t, after, f"Vigor Limit -> {after.vigor_limit}", rules=rules)
    if key == "energy":
        if up:
            if t.pool < n:
                raise TrackError(f"only {_plural(t.pool, 'Cube')} left in the pool")
            return gain_energy(t, n, rules)
        if t.available < n:
            raise TrackError(f"only {t.available} Energy available")
        return _change(t, replace(t, available=t.available - n), f"-{n} Energy", rules=rules)
    if key == "spend":
        if up:
            return spend_energy(t, n, rules)
        if t.exhausted < n:
            raise TrackError(f"only {t.exhausted} Energy is exhausted")
        return restore_energy(t, n, rules)
    if key == "companions":
        if up:
            if t.companions + n > rules.companion_spaces:
                raise TrackError(
                    f"no free Companion Space ({t.companions} of {rules.companion_spaces})")
            step = Change(t, t)
            for _ in range(n):
                step = step.then(gain_companion(step.after, rules))
            return step
        if t.companions < n:
            raise TrackError("Companions cannot go below 0")
        limit = change(t, "limit", -n, rules)
        return _change(t, replace(limit.after, companions=t.companions - n),
                       f"Companions {delta:+d}", *limit.notes, rules=rules)
    if key == "cubes":
        if up and t.pool < n:
            raise TrackError(f"only {_plural(t.pool, 'Cube')} left in the pool")
        return _counter(t, "cubes_elsewhere", delta, "Cubes on the board", rules)
    if key == "islands" and not up and t.islands - n < t.fleece:
        raise TrackError("lower Golden Fleece Islands first")
    names = {"champions": "Champion Tokens", "dishonor": "Dishonor Tokens",
             "temples": "Temples", "islands": "Exploration Tokens",
             "fleece": "Golden Fleece Islands"}
    return _counter(t, key, delta, names[key], rules)


def apply(t: Tracks, changes: Sequence[tuple[str, int]],
          rules: TrackRules = DEFAULT_RULES) -> Change:
    """Several dialled changes in order, as one `Change` (all or nothing)."""
    step = Change(t, t)
    for key, delta in changes:
        step = step.then(change(step.after, key, delta, rules))
    return step


__all__ = [
    "ASSUMED_HAND_LIMITS", "COMPANION_SPACES", "CUBES", "DEFAULT_RULES", "ISLANDS", "ITEMS",
    "ITEM_KEYS", "LIMIT_START", "LIMIT_STEP", "START_ENERGY", "START_VIGOR", "UPGRADES",
    "UPGRADE_NAMES", "VIGOR_MAX", "VIGOR_MIN", "Change", "Item", "Meeple", "TamedMonster",
    "TrackError", "TrackRules", "Tracks", "Upgrade", "activate_upgrade", "apply",
    "argonaut_defeated", "change", "claim_temple", "gain_companion", "gain_energy", "heal",
    "monster_removed", "order_monster", "raise_limit", "restore_energy", "spend_energy",
    "start_tracks", "suffer_damage", "tame_monster",
]
