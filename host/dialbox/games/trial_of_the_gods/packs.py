"""Printed components as data: Olympics cards, Enemy cards, Hero cards' Olympics Skills, the Die.

The printed cards' contents are not published, so they live in TOML "pack" files that owners
can transcribe; the bundled `data/sample_pack.toml` is our own SAMPLE design (labelled
`sample = true`), not the printed cards. What the rulebook does state (the Stadion card's
prizes, the fields an Enemy card shows) is used as stated. The file format is documented in
docs/games/trial-of-the-gods.md ("Card packs") and in the comments of the sample pack.

Every loading error is one line naming the file, the card and the field at fault, e.g.
`my_pack.toml: olympics "Stadion": second.champions: a whole number >= 0, got 'one'`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dialbox.engine.chance import Die, DieFace

DATA = Path(__file__).parent / "data"

ACTION_SYMBOLS: tuple[str, ...] = ("sail", "restore", "order", "heal")
"""The four Action symbols printed with a number on Action Cards (N Sail, N Restore, ...).
An Olympics card's Discipline Symbols and a Hero card's Olympics Skills use these."""
BONUS_SYMBOLS: tuple[str, ...] = ("attack", "discovery")
"""The Attack Bonus and Discovery Bonus numbers of an Action Card: allowed as Tiebreaker
Symbols (an assumption: the rulebook only says tiebreakers are values on the cards)."""
SYMBOLS: tuple[str, ...] = ACTION_SYMBOLS + BONUS_SYMBOLS
"""The whole, fixed symbol vocabulary of pack files."""

ACTIVATION = "activation"
ACTIVATION_LABEL = "activ"
"""How an Activation face reads on a controller wheel (labels are at most 8 characters)."""
"""The Activation symbol: a die face without a number (DieFace.mark)."""

EnemyType = Literal["argonaut", "land_monster", "sea_monster"]
ENEMY_TYPES: tuple[EnemyType, ...] = ("argonaut", "land_monster", "sea_monster")
CALM_SEA = "calm_sea"
"""The `type` of a Calm Sea card: in the Sea Enemies deck, but an effect, not an Enemy."""
LEVELS: dict[object, int] = {1: 1, 2: 2, 3: 3, "I": 1, "II": 2, "III": 3}
PLACES: tuple[str, ...] = ("first", "second", "third")
"""The keys of an Olympics card's three prizes, best place first."""


class PackFormatError(ValueError):
    """A pack, die or hero file that does not follow the documented format; one line."""


@dataclass(frozen=True, slots=True)
class Prize:
    """What one place of an Olympics gives: Champion Tokens, optional Actions, the rest as text."""

    champions: int = 0
    """Champion Tokens gained."""
    text: str = ""
    """The rest of the prize in words, for the players to resolve on the board."""
    actions: Mapping[str, int] = field(default_factory=dict)
    """Actions the player may perform, by Action symbol: {"heal": 1} = 'may perform 1 Heal'."""

    def describe(self) -> str:
        parts = []
        if self.champions:
            s = "s" if self.champions != 1 else ""
            parts.append(f"gain {self.champions} Champion Token{s}")
        for sym, n in self.actions.items():
            s = "s" if n != 1 else ""
            parts.append(f"you may perform {n} {sym.capitalize()} Action{s}")
        if self.text:
            parts.append(self.text)
        return ", ".join(parts) or "nothing"


@dataclass(frozen=True, slots=True)
class OlympicsCard:
    """An Olympics card: the discipline of one Round's Olympics Phase."""

    name: str
    disciplines: tuple[str, ...]
    """Discipline Symbols: the Action symbols whose values on a played card count as Fervor."""
    tiebreakers: tuple[str, ...]
    """Tiebreaker Symbols, left to right."""
    prizes: tuple[Prize, Prize, Prize]
    """Prizes for 1st, 2nd and 3rd place."""


@dataclass(frozen=True, slots=True)
class EnemyCard:
    """An Enemy card: an Enemy Argonaut, a Land Monster or a Sea Monster."""

    name: str
    type: EnemyType
    level: int
    """1, 2 or 3 (printed I, II, III)."""
    attack: int
    """The printed Attack Value."""
    dice: int
    """How many Dice the Enemy rolls when Fighting."""
    laurels: int
    """Laurels for the Domination ranking."""
    skill: str
    """The Skill in words: what each Activation result does."""
    activation_attack: int | None = None
    """If the Skill is simply '+N Attack per Activation': N; None if the Skill is text only."""
    copies: int = 1
    """How many copies of the card the deck holds."""

    def rolled_attack(self, faces: Iterable[DieFace]) -> tuple[int, int]:
        """(Attack Value after the roll, Activations left for the players to resolve by text).

        Number faces add to the Attack Value; each Activation adds activation_attack when the
        Skill is numeric, otherwise it is counted for the players to apply the Skill text.
        """
        total, pending = self.attack, 0
        for face in faces:
            if face.mark == ACTIVATION:
                if self.activation_attack is None:
                    pending += 1
                else:
                    total += self.activation_attack
            else:
                total += face.value
        return total, pending


@dataclass(frozen=True, slots=True)
class CalmSeaCard:
    """A Calm Sea card of the Sea Enemies deck: no Monster appears, its effect applies."""

    name: str
    effect: str
    copies: int = 1


@dataclass(frozen=True, slots=True)
class HeroCard:
    """A Hero card, as far as the console needs it: its name and Olympics Skill symbols."""

    name: str
    olympics_skills: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Pack:
    """The cards of one pack file, and whether the pack is our own sample design."""

    name: str
    sample: bool
    source: str
    """The file name it was read from (for messages)."""
    olympics: tuple[OlympicsCard, ...] = ()
    enemies: tuple[EnemyCard, ...] = ()
    calm_seas: tuple[CalmSeaCard, ...] = ()
    heroes: tuple[HeroCard, ...] = ()
    note: str = ""

    def olympics_card(self, name: str) -> OlympicsCard:
        for card in self.olympics:
            if card.name == name:
                return card
        raise KeyError(name)

    def enemy(self, name: str) -> EnemyCard:
        for card in self.enemies:
            if card.name == name:
                return card
        raise KeyError(name)

    def hero(self, name: str) -> HeroCard:
        for card in self.heroes:
            if card.name == name:
                return card
        raise KeyError(name)

    def sea_deck(self) -> tuple[EnemyCard | CalmSeaCard, ...]:
        """The Sea Enemies deck, every copy listed: Sea Monsters and Calm Sea cards."""
        deck: list[EnemyCard | CalmSeaCard] = []
        for e in self.enemies:
            if e.type == "sea_monster":
                deck += [e] * e.copies
        for c in self.calm_seas:
            deck += [c] * c.copies
        return tuple(deck)


def olympics_cards_needed(rounds: int) -> int:
    """Olympics cards a game of `rounds` Rounds can use: the face-down card of the setup, one
    per Round, and the second card drawn (then shuffled back) at the last Dawn Phase."""
    return rounds + 2


# --- parsing -------------------------------------------------------------------------------

_OLYMPICS_KEYS = {"name", "disciplines", "tiebreakers", *PLACES}
_PRIZE_KEYS = {"champions", "text", "actions"}
_ENEMY_KEYS = {"name", "type", "level", "attack", "dice", "laurels", "skill",
               "activation_attack", "copies"}
_CALM_KEYS = {"name", "type", "effect", "copies"}
_HERO_KEYS = {"name", "olympics_skills"}
_PACK_KEYS = {"name", "sample", "note"}
_TOP_KEYS = {"pack", "olympics", "enemy", "hero"}


class _Where:
    """Builds one-line messages: '<file>: <card>: <field>: <what is wrong>'."""

    __slots__ = ("source", "card")

    def __init__(self, source: str, card: str) -> None:
        self.source = source
        self.card = card

    def error(self, key: str, msg: str) -> PackFormatError:
        parts = [self.source, self.card] + ([key] if key else [])
        return PackFormatError(": ".join([*parts, msg]))


def _unknown(raw: Mapping[str, Any], known: set[str], w: _Where, key: str = "") -> None:
    extra = sorted(set(raw) - known)
    if extra:
        raise w.error(key, f"unknown key(s) {', '.join(extra)}; known: "
                      f"{', '.join(sorted(known))}")


def _int(raw: Mapping[str, Any], key: str, w: _Where, *, low: int, high: int | None = None,
         default: int | None = None, prefix: str = "") -> int:
    name = f"{prefix}{key}"
    if key not in raw:
        if default is None:
            raise w.error(name, "missing")
        return default
    v = raw[key]
    if isinstance(v, bool) or not isinstance(v, int) or v < low or (high is not None and v > high):
        want = f"a whole number {low}-{high}" if high is not None else f"a whole number >= {low}"
        raise w.error(name, f"{want}, got {v!r}")
    return v


def _text(raw: Mapping[str, Any], key: str, w: _Where, *, required: bool = True,
          prefix: str = "") -> str:
    name = f"{prefix}{key}"
    if key not in raw:
        if required:
            raise w.error(name, "missing")
        return ""
    v = raw[key]
    if not isinstance(v, str) or (required and not v.strip()):
        raise w.error(name, f"text expected, got {v!r}")
    return v.strip()


def _symbols(raw: Mapping[str, Any], key: str, w: _Where, allowed: Sequence[str], *,
             nonempty: bool) -> tuple[str, ...]:
    v = raw.get(key, None if nonempty else [])
    if v is None:
        raise w.error(key, "missing")
    if not isinstance(v, list) or (nonempty and not v):
        raise w.error(key, f"a {'non-empty ' if nonempty else ''}list of symbols "
                      f"({', '.join(allowed)}), got {v!r}")
    for s in v:
        if s not in allowed:
            raise w.error(key, f"unknown symbol {s!r}; symbols: {', '.join(allowed)}")
    if len(set(v)) != len(v):
        raise w.error(key, f"a symbol is listed twice in {v!r}")
    return tuple(v)


def _name(raw: object, kind: str, index: int, source: str) -> tuple[Mapping[str, Any], _Where]:
    w = _Where(source, f"{kind} #{index + 1}")
    if not isinstance(raw, dict):
        raise w.error("", f"each [[{kind}]] is a table")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise w.error("name", f"text expected, got {name!r}")
    return raw, _Where(source, f'{kind} "{name.strip()}"')


def _prize(raw: Mapping[str, Any], place: str, w: _Where) -> Prize:
    if place not in raw:
        raise w.error(place, "missing (every Olympics card has prizes for first, second "
                      "and third; use {} for nothing)")
    p = raw[place]
    if not isinstance(p, dict):
        raise w.error(place, f"a table with champions / text / actions, got {p!r}")
    _unknown(p, _PRIZE_KEYS, w, place)
    champions = _int(p, "champions", w, low=0, default=0, prefix=f"{place}.")
    text = _text(p, "text", w, required=False, prefix=f"{place}.")
    acts = p.get("actions", {})
    if not isinstance(acts, dict):
        raise w.error(f"{place}.actions", f"a table of Action = count, got {acts!r}")
    actions: dict[str, int] = {}
    for sym in acts:
        if sym not in ACTION_SYMBOLS:
            raise w.error(f"{place}.actions", f"unknown Action {sym!r}; Actions: "
                          f"{', '.join(ACTION_SYMBOLS)}")
        actions[sym] = _int(acts, sym, w, low=1, prefix=f"{place}.actions.")
    return Prize(champions, text, actions)


def _olympics(raw_card: object, index: int, source: str) -> OlympicsCard:
    raw, w = _name(raw_card, "olympics", index, source)
    _unknown(raw, _OLYMPICS_KEYS, w)
    first, second, third = (_prize(raw, place, w) for place in PLACES)
    return OlympicsCard(
        name=raw["name"].strip(),
        disciplines=_symbols(raw, "disciplines", w, ACTION_SYMBOLS, nonempty=True),
        tiebreakers=_symbols(raw, "tiebreakers", w, SYMBOLS, nonempty=False),
        prizes=(first, second, third),
    )


def _enemy(raw_card: object, index: int, source: str) -> EnemyCard | CalmSeaCard:
    raw, w = _name(raw_card, "enemy", index, source)
    kind = raw.get("type")
    if kind == CALM_SEA:
        _unknown(raw, _CALM_KEYS, w)
        return CalmSeaCard(raw["name"].strip(), _text(raw, "effect", w),
                           _int(raw, "copies", w, low=1, default=1))
    if kind not in ENEMY_TYPES:
        raise w.error("type", f"one of {', '.join((*ENEMY_TYPES, CALM_SEA))}, got {kind!r}")
    _unknown(raw, _ENEMY_KEYS, w)
    if "level" not in raw:
        raise w.error("level", "missing")
    level = LEVELS.get(raw["level"]) if not isinstance(raw["level"], bool) else None
    if level is None:
        raise w.error("level", f"1, 2, 3 or \"I\", \"II\", \"III\", got {raw['level']!r}")
    act = raw.get("activation_attack")
    return EnemyCard(
        name=raw["name"].strip(),
        type=kind,
        level=level,
        attack=_int(raw, "attack", w, low=0),
        dice=_int(raw, "dice", w, low=0),
        laurels=_int(raw, "laurels", w, low=0),
        skill=_text(raw, "skill", w),
        activation_attack=None if act is None else _int(raw, "activation_attack", w, low=1),
        copies=_int(raw, "copies", w, low=1, default=1),
    )


def _hero(raw_card: object, index: int, source: str) -> HeroCard:
    raw, w = _name(raw_card, "hero", index, source)
    _unknown(raw, _HERO_KEYS, w)
    return HeroCard(raw["name"].strip(),
                    _symbols(raw, "olympics_skills", w, ACTION_SYMBOLS, nonempty=False))


def _cards(data: Mapping[str, Any], key: str, source: str) -> list[object]:
    v = data.get(key, [])
    if not isinstance(v, list):
        raise PackFormatError(f"{source}: {key}: cards are [[{key}]] tables")
    return v


def _unique(names: Iterable[str], kind: str, source: str) -> None:
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise PackFormatError(f'{source}: {kind} "{n}": name: the name is used twice '
                                  "(use copies = N for several copies)")
        seen.add(n)


def parse_pack(data: Mapping[str, Any], source: str = "pack") -> Pack:
    """A Pack from parsed TOML; PackFormatError names the file, card and field at fault."""
    extra = sorted(set(data) - _TOP_KEYS)
    if extra:
        raise PackFormatError(f"{source}: unknown table(s) {', '.join(extra)}; known: [pack], "
                              "[[olympics]], [[enemy]], [[hero]]")
    meta = data.get("pack")
    w = _Where(source, "[pack]")
    if not isinstance(meta, dict):
        raise PackFormatError(f"{source}: [pack]: missing (a pack starts with a [pack] table "
                              "holding name and sample)")
    _unknown(meta, _PACK_KEYS, w)
    name = _text(meta, "name", w)
    sample = meta.get("sample", False)
    if not isinstance(sample, bool):
        raise w.error("sample", f"true or false, got {sample!r}")
    note = _text(meta, "note", w, required=False)
    olympics = tuple(_olympics(c, i, source)
                     for i, c in enumerate(_cards(data, "olympics", source)))
    enemy_cards = [_enemy(c, i, source) for i, c in enumerate(_cards(data, "enemy", source))]
    heroes = tuple(_hero(c, i, source) for i, c in enumerate(_cards(data, "hero", source)))
    _unique((c.name for c in olympics), "olympics", source)
    _unique((c.name for c in enemy_cards), "enemy", source)
    _unique((c.name for c in heroes), "hero", source)
    if not olympics and not enemy_cards and not heroes:
        raise PackFormatError(f"{source}: the pack holds no cards ([[olympics]], [[enemy]], "
                              "[[hero]])")
    return Pack(
        name=name,
        sample=sample,
        source=source,
        olympics=olympics,
        enemies=tuple(c for c in enemy_cards if isinstance(c, EnemyCard)),
        calm_seas=tuple(c for c in enemy_cards if isinstance(c, CalmSeaCard)),
        heroes=heroes,
        note=note,
    )


def _read(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise PackFormatError(f"{path.name}: cannot read: {e.strerror}") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PackFormatError(f"{path.name}: not valid TOML: {e}") from None


def pack_path(name: str) -> Path:
    """A bundled pack by short name ("sample" = data/sample_pack.toml) or a path to a file."""
    if "/" in name or name.endswith(".toml"):
        return Path(name)
    return DATA / f"{name}_pack.toml"


def load_pack(name: str = "sample") -> Pack:
    """Read and check a pack: a bundled one by short name, or a .toml path."""
    path = pack_path(name)
    return parse_pack(_read(path), path.name)


# --- the Die -------------------------------------------------------------------------------

def parse_die(data: Mapping[str, Any], source: str = "die") -> Die:
    """The Die from parsed TOML: a [die] table with `faces`, numbers and "activation"."""
    raw = data.get("die")
    w = _Where(source, "[die]")
    if not isinstance(raw, dict):
        raise PackFormatError(f"{source}: [die]: missing")
    _unknown(raw, {"faces", "colour"}, w)
    faces = raw.get("faces")
    if not isinstance(faces, list) or len(faces) < 2:
        raise w.error("faces", f"a list of at least 2 faces, got {faces!r}")
    out: list[DieFace] = []
    for i, f in enumerate(faces):
        if f == ACTIVATION:
            out.append(DieFace(ACTIVATION_LABEL, 0, ACTIVATION))
        elif isinstance(f, int) and not isinstance(f, bool) and f >= 0:
            out.append(DieFace(str(f), f))
        else:
            raise w.error(f"faces[{i}]", f'a whole number >= 0 or "{ACTIVATION}", got {f!r}')
    colour = raw.get("colour", "ffffff")
    if not isinstance(colour, str) or len(colour) != 6:
        raise w.error("colour", f"six hex digits, got {colour!r}")
    return Die("die", colour, tuple(out))


def load_die(path: str | Path | None = None) -> Die:
    """The Die from data/die.toml (our documented assumption) or from an owner's file."""
    p = DATA / "die.toml" if path is None else Path(path)
    return parse_die(_read(p), p.name)


def is_activation(face: DieFace) -> bool:
    return face.mark == ACTIVATION
