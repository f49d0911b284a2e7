"""Stadium's printed components as data: Trial tiles and dice, the bundled samples or a file.

Options `tiles` and `dice` name a bundled set ("sample": `sample_tiles.json`,
`sample_dice.json` beside this module) or a path to a JSON file in the same format
(docs/games/stadium.md, "Data formats"). A file that breaks the format raises ComponentError,
whose one-line message names the file and the field at fault.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from dialbox.engine import Die, DieFace
from dialbox_protocol.codec import MAX_FACES

HERE = Path(__file__).parent
SAMPLE = "sample"
"""The bundled set of each kind: dialbox's sample transcription (see the files' "about")."""

KINDS = ("standard", "rest", "final")
"""Tile backs, in the order the track deal draws them (docs/rules-notes.md, "The track")."""
TALKS = ("allowed", "forbidden", "numbers only")
MEDAL_RULES = ("three", "gold", "none")
DIE_NAMES = ("white", "green", "yellow", "blue", "red")
"""The five dice of the box; the rules name them, so every dice file has exactly these."""
DIE_ABBREVIATIONS = {"white": "Wht", "green": "Grn", "yellow": "Yel", "blue": "Blu", "red": "Red"}
"""Re-roll faces are labelled die + face, with no spaces (e.g. "Yel-3", "Blu+4")."""
MARKS = ("", "intercept")
MAX_LABEL = 8 - 3
"""A face label fits a re-roll face: 8 characters on the controller, 3 for the die."""
MAX_WEIGHTS = 9
"""Weightlifting weights: one digit colour each on the centre wheel, after '-'."""


class ComponentError(Exception):
    """A tiles or dice file that cannot be read or breaks the format (file and field named)."""


@dataclass(frozen=True, slots=True)
class TrialTile:
    """One Trial tile: its name, back (kind), communication rule, Medals and printed numbers."""

    key: str
    name: str
    kind: str
    talk: str
    medals: str
    passes_first_player: bool
    summary: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)
    samples: tuple[str, ...] = ()

    def number(self, name: str) -> Any:
        return self.numbers[name]


@dataclass(frozen=True, slots=True)
class TileSet:
    """The track layout (tile backs in playing order) and the Trial tiles by key."""

    name: str
    layout: tuple[str, ...]
    tiles: Mapping[str, TrialTile]

    def of_kind(self, kind: str) -> list[str]:
        """The keys of the tiles with this back, in file order."""
        return [key for key, tile in self.tiles.items() if tile.kind == kind]


# ------------------------------------------------------------ the format of a tile's numbers

Check = Callable[[Any], str | None]
"""A printed number's rule: None if `value` is fine, else what it should be."""


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def whole(low: int) -> Check:
    def check(value: Any) -> str | None:
        return None if _whole(value) and value >= low else f"expected a whole number >= {low}"
    return check


def wholes(low: int, distinct: bool = False, most: int = 100) -> Check:
    def check(value: Any) -> str | None:
        if (isinstance(value, list) and 0 < len(value) <= most
                and all(_whole(v) and v >= low for v in value)
                and (not distinct or len(set(value)) == len(value))):
            return None
        return (f"expected a list of 1 to {most} {'different ' if distinct else ''}"
                f"whole numbers >= {low}")
    return check


def die_names(value: Any) -> str | None:
    if isinstance(value, list) and 0 < len(value) < MAX_FACES and all(
            v in DIE_NAMES for v in value):
        return None
    return f"expected a non-empty list of dice from {', '.join(DIE_NAMES)}"


def die_rows(value: Any) -> str | None:
    if isinstance(value, list) and value and all(die_names(row) is None for row in value):
        return None
    return f"expected a non-empty list of non-empty lists of dice from {', '.join(DIE_NAMES)}"


def weights(value: Any) -> str | None:
    rows_ok = isinstance(value, list) and 0 < len(value) <= MAX_WEIGHTS and all(
        isinstance(r, list) and len(r) == 3 and all(_whole(v) for v in r) and r[0] > 0
        and r[1] <= r[2] for r in value)
    if rows_ok and all(a[0] < b[0] for a, b in zip(value, value[1:], strict=False)):
        return None
    return (f"expected 1 to {MAX_WEIGHTS} rows [weight, lowest, highest green face], "
            "weights above 0 and increasing")


NUMBERS: dict[str, dict[str, Check]] = {
    "track_cycling": {},
    "relay": {},
    "medley_relay": {},
    "hundred_meters": {"rest_gain": whole(0)},
    "beach_volleyball": {"rest_gain": whole(0)},
    "equestrian": {"obstacles": wholes(0)},
    "golf": {"holes": wholes(0, distinct=True, most=MAX_FACES - 1)},
    "weightlifting": {"weights": weights},
    "archery": {"dice": die_names},
    "pole_vault": {"rungs": wholes(0)},
    "team_gymnastics": {},
    "anti_doping": {"dope_gain": whole(0), "rest_gain": whole(0)},
    "basketball": {"points_to_win": whole(1), "score_margin": whole(0)},
    "fencing": {"wins_in_a_row": whole(1), "dice_by_wager": die_rows},
    "rugby": {"spaces_to_goal": whole(1)},
    "taekwondo": {"attack_damage": whole(1)},
}
"""Every Trial tile by key, with the printed numbers its rules read and their format."""

_FIXED: dict[str, Check] = {
    "name": lambda v: None if isinstance(v, str) and v.strip() else "expected a name",
    "kind": lambda v: None if v in KINDS else f"expected one of {', '.join(KINDS)}",
    "talk": lambda v: None if v in TALKS else f"expected one of {', '.join(TALKS)}",
    "medals": lambda v: None if v in MEDAL_RULES else f"expected one of {', '.join(MEDAL_RULES)}",
    "passes_first_player": lambda v: None if isinstance(v, bool) else "expected true or false",
}
_OPTIONAL: dict[str, Check] = {
    "summary": lambda v: None if isinstance(v, str) else "expected a line of text",
    "samples": lambda v: None if isinstance(v, list) and all(isinstance(s, str) for s in v)
    else "expected a list of field names",
}


# ------------------------------------------------------------ reading files

def source(name: str, what: str) -> tuple[Path, str]:
    """The file behind option value `name` ("tiles" or "dice") and how messages call it."""
    if "/" in name or name.endswith(".json"):
        return Path(name).expanduser(), name
    path = HERE / f"{name}_{what}.json"
    if not path.is_file():
        bundled = sorted(p.name.removesuffix(f"_{what}.json") for p in HERE.glob(f"*_{what}.json"))
        raise ComponentError(f"no bundled {what} set {name!r} (bundled: {', '.join(bundled)}); "
                             f"or give the path to a .json file")
    return path, path.name


def read(name: str, what: str, fields: tuple[str, ...]) -> tuple[dict[str, Any], str]:
    """The JSON object (with only these fields) in the file behind `name`, and the file's
    name for messages."""
    path, label = source(name, what)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ComponentError(f"{label}: cannot read the {what} file: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ComponentError(f"{label}: not valid JSON: {e.msg} (line {e.lineno}, "
                             f"column {e.colno})") from None
    if not isinstance(raw, dict):
        raise ComponentError(f"{label}: expected a JSON object")
    extra = sorted(set(raw) - set(fields))
    if extra:
        raise ComponentError(f"{label}: {extra[0]}: not a field of a {what} file "
                             f"(fields: {', '.join(fields)})")
    return raw, label


def _tile(key: str, raw: Any, fail: Callable[[str, str], ComponentError]) -> TrialTile:
    where = f"tiles.{key}"
    if key not in NUMBERS:
        raise fail(where, f"not a Stadium Trial (Trials: {', '.join(sorted(NUMBERS))})")
    if not isinstance(raw, dict):
        raise fail(where, "expected an object")
    numbers = NUMBERS[key]
    for name in [*_FIXED, *numbers]:
        if name not in raw:
            raise fail(f"{where}.{name}", "missing")
    for name, value in raw.items():
        check = _FIXED.get(name) or _OPTIONAL.get(name) or numbers.get(name)
        if check is None:
            known = ", ".join([*_FIXED, *_OPTIONAL, *numbers])
            raise fail(f"{where}.{name}", f"not a field of this tile (fields: {known})")
        problem = check(value)
        if problem is not None:
            raise fail(f"{where}.{name}", problem)
    samples = tuple(raw.get("samples", ()))
    for name in samples:
        if name not in numbers:
            raise fail(f"{where}.samples", f"{name!r} is not a printed number of this tile")
    return TrialTile(key, raw["name"], raw["kind"], raw["talk"], raw["medals"],
                     raw["passes_first_player"], raw.get("summary", ""),
                     {name: raw[name] for name in numbers}, samples)


@cache
def load_tiles(name: str = SAMPLE) -> TileSet:
    """The tile set behind option `tiles`: a bundled set by name or a path (read once)."""
    raw, label = read(name, "tiles", ("about", "layout", "tiles"))

    def fail(where: str, problem: str) -> ComponentError:
        return ComponentError(f"{label}: {where}: {problem}")

    tiles_raw = raw.get("tiles")
    if not isinstance(tiles_raw, dict) or not tiles_raw:
        raise fail("tiles", "expected an object of Trial tiles by key")
    tiles = {key: _tile(key, t, fail) for key, t in tiles_raw.items()}
    layout = raw.get("layout")
    if not isinstance(layout, list) or not 1 <= len(layout) <= 10 or any(
            k not in KINDS for k in layout):
        raise fail("layout", f"expected 1 to 10 tile backs ({', '.join(KINDS)})")
    ts = TileSet(name, tuple(layout), tiles)
    for kind in KINDS:
        have, need = len(ts.of_kind(kind)), layout.count(kind)
        if have < need:
            raise fail("layout", f"needs {need} {kind} tiles; the file has {have}")
    return ts


def _face(raw: Any, where: str, fail: Callable[[str, str], ComponentError]) -> DieFace:
    if not (isinstance(raw, list) and len(raw) in (2, 3) and isinstance(raw[0], str)
            and 0 < len(raw[0]) <= MAX_LABEL and " " not in raw[0] and _whole(raw[1])):
        raise fail(where, f"expected [label, value] or [label, value, mark]: a label of 1 to "
                          f"{MAX_LABEL} characters without spaces, a whole number")
    mark = raw[2] if len(raw) == 3 else ""
    if mark not in MARKS:
        raise fail(where, f"unknown mark {mark!r} (marks: {', '.join(m for m in MARKS if m)})")
    return DieFace(raw[0], raw[1], mark)


@cache
def load_dice(name: str = SAMPLE) -> Mapping[str, Die]:
    """The dice behind option `dice`: a bundled set by name or a path (read once)."""
    raw, label = read(name, "dice", ("about", "dice"))

    def fail(where: str, problem: str) -> ComponentError:
        return ComponentError(f"{label}: {where}: {problem}")

    dice_raw = raw.get("dice")
    if not isinstance(dice_raw, dict):
        raise fail("dice", "expected an object of dice by name")
    for die in dice_raw:
        if die not in DIE_NAMES:
            raise fail(f"dice.{die}", f"not a Stadium die (dice: {', '.join(DIE_NAMES)})")
    dice: dict[str, Die] = {}
    for die in DIE_NAMES:
        d = dice_raw.get(die)
        where = f"dice.{die}"
        if not isinstance(d, dict):
            raise fail(where, "missing")
        colour = d.get("colour")
        if not (isinstance(colour, str) and len(colour) == 6
                and all(c in "0123456789abcdefABCDEF" for c in colour)):
            raise fail(f"{where}.colour", "expected six hex digits (rrggbb)")
        faces = d.get("faces")
        if not isinstance(faces, list) or not 0 < len(faces) <= MAX_FACES:
            raise fail(f"{where}.faces", f"expected a list of 1 to {MAX_FACES} faces")
        extra = sorted(set(d) - {"colour", "faces", "sample"})
        if extra:
            raise fail(f"{where}.{extra[0]}", "not a field of a die (fields: colour, faces, "
                                              "sample)")
        if not isinstance(d.get("sample", False), bool):
            raise fail(f"{where}.sample", "expected true or false")
        parsed = tuple(_face(f, f"{where}.faces[{i}]", fail) for i, f in enumerate(faces))
        for i, face in enumerate(parsed):
            first = next(f for f in parsed if f.label == face.label)
            if first != face:
                raise fail(f"{where}.faces[{i}]", f"label {face.label!r} already stands for "
                                                  f"another value or mark on this die")
        dice[die] = Die(die, colour.lower(), parsed)
    return dice
