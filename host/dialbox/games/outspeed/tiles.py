"""Track tiles as data: amounts, routes, the two sides of a tile, and the TOML tile-set loader.

The file format is documented in docs/games/outspeed.md. A tile set is a TOML file with one
`[[tile]]` table per Track or Finish Line tile; each side ("3-4" and "5-6") lists its lit
routes ("red", "yellow", "green") with an optional condition, a cost line and a benefit line.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROUTES: tuple[str, ...] = ("red", "yellow", "green")
"""The three route lights, in right-wheel order: red = A, yellow = B, green = C."""
SIDES: tuple[str, ...] = ("3-4", "5-6")
DICE: tuple[str, ...] = ("yellow", "blue")
DATA = Path(__file__).parent / "data"


class TileFormatError(ValueError):
    """A tile-set file that does not follow the documented format; says where and why."""


@dataclass(frozen=True, slots=True)
class Amount:
    """A number printed on a tile: a fixed part plus route-colour counts, die rolls and X.

    The value is `fixed` + the number of players who programmed each colour in `colours`
    + one roll of each die in `dice` (its magnitude) + the centre-wheel X if `x`.
    """

    fixed: int = 0
    colours: tuple[str, ...] = ()
    dice: tuple[str, ...] = ()
    x: bool = False

    @property
    def is_zero(self) -> bool:
        return self.fixed == 0 and not self.colours and not self.dice and not self.x

    @property
    def is_random(self) -> bool:
        return bool(self.dice)

    def text(self) -> str:
        parts = [str(self.fixed)] if self.fixed or self.is_zero else []
        parts += self.colours
        parts += [f"{d} die" for d in self.dice]
        if self.x:
            parts.append("X")
        return " + ".join(parts)


ZERO = Amount()


def parse_amount(raw: object, where: str) -> Amount:
    """An amount from a tile file: an integer, or terms joined by '+' (see the format doc)."""
    if isinstance(raw, bool):
        raise TileFormatError(f"{where}: expected a number or an expression, got {raw!r}")
    if isinstance(raw, int):
        if raw < 0:
            raise TileFormatError(f"{where}: amounts are never negative, got {raw}")
        return Amount(fixed=raw)
    if not isinstance(raw, str) or not raw.strip():
        raise TileFormatError(f"{where}: expected a number or an expression, got {raw!r}")
    fixed = 0
    colours: list[str] = []
    dice: list[str] = []
    x = False
    for term in raw.split("+"):
        words = term.split()
        if len(words) == 1 and words[0].isdigit():
            fixed += int(words[0])
        elif len(words) == 1 and words[0] in ROUTES:
            colours.append(words[0])
        elif len(words) == 2 and words[0] in DICE and words[1] == "die":
            dice.append(words[0])
        elif len(words) == 1 and words[0] in ("X", "x"):
            if x:
                raise TileFormatError(f"{where}: X may appear only once in an amount")
            x = True
        else:
            raise TileFormatError(
                f"{where}: unknown term {term.strip()!r} in {raw!r} (terms: a number, "
                "red, yellow, green, yellow die, blue die, X)"
            )
    return Amount(fixed, tuple(colours), tuple(dice), x)


@dataclass(frozen=True, slots=True)
class Route:
    """One lit route on one side of a tile: condition, cost line and benefit line."""

    colour: str
    capacity: int | None = None
    """Player silhouettes: more takers than this and all of them lose their turn."""
    alone: bool = False
    """Tile 11's condition: a sole taker gains the benefit free; otherwise all pay, gain nothing."""
    fuel_cost: Amount = ZERO
    move: Amount = ZERO
    fuel_gain: Amount = ZERO
    bonus: Amount = ZERO

    @property
    def uses_x(self) -> bool:
        return self.fuel_cost.x or self.move.x or self.fuel_gain.x or self.bonus.x

    def condition_text(self) -> str:
        """The condition line in words ('' if none)."""
        if self.capacity is not None:
            return f"{self.capacity} silhouette{'s' if self.capacity != 1 else ''}"
        if self.alone:
            return "alone: free benefit, else pay and gain nothing"
        return ""

    def effect_text(self) -> str:
        """The cost and benefit lines in words."""
        gains = []
        if not self.move.is_zero:
            gains.append(f"move {self.move.text()}")
        if not self.fuel_gain.is_zero:
            gains.append(f"+{self.fuel_gain.text()} Fuel")
        if not self.bonus.is_zero:
            gains.append(f"{self.bonus.text()} Bonus")
        cost = "free" if self.fuel_cost.is_zero else f"pay {self.fuel_cost.text()} Fuel"
        return f"{cost} -> {', '.join(gains) or 'nothing'}"

    def text(self) -> str:
        cond = self.condition_text()
        return f"{self.colour}{f' [{cond}]' if cond else ''}: {self.effect_text()}"


@dataclass(frozen=True, slots=True)
class TileSide:
    """One printed side of a tile: the lit routes by colour (a light that is off is absent)."""

    routes: Mapping[str, Route]


@dataclass(frozen=True, slots=True)
class TrackTile:
    """A Track tile (1-12) or Finish Line tile (13-16) with its 3-4 and 5-6 player sides."""

    number: int
    title: str
    finish: bool
    sides: Mapping[str, TileSide]

    def side(self, name: str) -> TileSide:
        return self.sides[name]


@dataclass(frozen=True, slots=True)
class TileSet:
    """Every tile of a set by number, and whether the set is our own sample design."""

    name: str
    sample: bool
    tiles: Mapping[int, TrackTile]

    @property
    def track(self) -> list[int]:
        return sorted(n for n, t in self.tiles.items() if not t.finish)

    @property
    def finish(self) -> list[int]:
        return sorted(n for n, t in self.tiles.items() if t.finish)


_ROUTE_KEYS = {"capacity", "alone", "cost", "benefit"}


def _route(colour: str, raw: object, where: str) -> Route:
    if not isinstance(raw, dict):
        raise TileFormatError(f"{where}: a route is a table")
    extra = set(raw) - _ROUTE_KEYS
    if extra:
        raise TileFormatError(f"{where}: unknown key(s) {sorted(extra)}; known: capacity, "
                              "alone, cost, benefit")
    cap = raw.get("capacity")
    if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 1):
        raise TileFormatError(f"{where}.capacity: a number of silhouettes (1 or more)")
    alone = raw.get("alone", False)
    if not isinstance(alone, bool):
        raise TileFormatError(f"{where}.alone: true or false")
    if alone and cap is not None:
        raise TileFormatError(f"{where}: a route has silhouettes or 'alone', not both")
    cost = raw.get("cost", {})
    benefit = raw.get("benefit", {})
    if not isinstance(cost, dict) or set(cost) - {"fuel"}:
        raise TileFormatError(f"{where}.cost: a table with only 'fuel' (costs are Fuel)")
    if not isinstance(benefit, dict) or set(benefit) - {"move", "fuel", "bonus"}:
        raise TileFormatError(f"{where}.benefit: a table with 'move', 'fuel' and/or 'bonus'")
    route = Route(
        colour,
        cap,
        alone,
        parse_amount(cost.get("fuel", 0), f"{where}.cost.fuel"),
        parse_amount(benefit.get("move", 0), f"{where}.benefit.move"),
        parse_amount(benefit.get("fuel", 0), f"{where}.benefit.fuel"),
        parse_amount(benefit.get("bonus", 0), f"{where}.benefit.bonus"),
    )
    if route.uses_x and not (route.fuel_cost.x and route.move.x):
        raise TileFormatError(
            f"{where}: X means 'spend as many Fuel as zones you choose': it must appear in "
            "both cost.fuel and benefit.move"
        )
    return route


def _tile(raw: object, index: int) -> TrackTile:
    where = f"tile #{index + 1}"
    if not isinstance(raw, dict):
        raise TileFormatError(f"{where}: each [[tile]] is a table")
    number = raw.get("number")
    if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= 99:
        raise TileFormatError(f"{where}: 'number' must be the printed tile number")
    where = f"tile {number}"
    kind = raw.get("kind", "finish" if number >= 13 else "track")
    if kind not in ("track", "finish"):
        raise TileFormatError(f"{where}: kind is 'track' or 'finish', got {kind!r}")
    title = raw.get("title", f"Tile {number}")
    if not isinstance(title, str):
        raise TileFormatError(f"{where}: title must be text")
    extra = set(raw) - {"number", "kind", "title", *SIDES}
    if extra:
        raise TileFormatError(f"{where}: unknown key(s) {sorted(extra)}")
    sides: dict[str, TileSide] = {}
    for side in SIDES:
        rs = raw.get(side)
        if not isinstance(rs, dict) or not rs:
            raise TileFormatError(f"{where}: the {side} player side needs at least one route")
        bad = set(rs) - set(ROUTES)
        if bad:
            raise TileFormatError(
                f"{where}.{side}: routes are red, yellow, green; got {sorted(bad)}"
            )
        sides[side] = TileSide(
            {c: _route(c, rs[c], f"{where}.{side}.{c}") for c in ROUTES if c in rs}
        )
    return TrackTile(number, title, kind == "finish", sides)


def parse_tile_set(data: Mapping[str, Any], name: str = "tiles") -> TileSet:
    """A TileSet from parsed TOML data; TileFormatError names the tile and key at fault."""
    meta = data.get("set", {})
    if not isinstance(meta, dict):
        raise TileFormatError("[set] must be a table")
    raw_tiles = data.get("tile")
    if not isinstance(raw_tiles, list):
        raise TileFormatError("a tile set needs [[tile]] tables")
    tiles: dict[int, TrackTile] = {}
    for i, raw in enumerate(raw_tiles):
        t = _tile(raw, i)
        if t.number in tiles:
            raise TileFormatError(f"tile {t.number} appears twice")
        tiles[t.number] = t
    ts = TileSet(str(meta.get("name", name)), bool(meta.get("sample", False)), tiles)
    if len(ts.track) < 12 or len(ts.finish) < 1:
        raise TileFormatError(
            f"a tile set needs 12 Track tiles and at least 1 Finish Line tile; "
            f"{name} has {len(ts.track)} and {len(ts.finish)}"
        )
    return ts


_CACHE: dict[str, TileSet] = {}


def register_tile_set(name: str, tileset: TileSet) -> None:
    """Make a tile set built in code playable as option tile_set=name (tests, editors)."""
    _CACHE[name] = tileset


def load_tile_set(name: str) -> TileSet:
    """A bundled set by name ("sample") or a path to a .toml file; cached per name."""
    if name in _CACHE:
        return _CACHE[name]
    path = DATA / f"{name}_tiles.toml" if "/" not in name and not name.endswith(".toml") \
        else Path(name)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise TileFormatError(f"cannot read tile set {name!r}: {e.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise TileFormatError(f"{path.name}: not valid TOML: {e}") from None
    ts = parse_tile_set(data, path.name)
    _CACHE[name] = ts
    return ts
