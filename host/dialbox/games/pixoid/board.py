"""The Circuit Board: Pix, walls, Starting Pix and Bonus cube Pix, read from tile data files.

A tile side (or a whole board) is drawn as text, one Pix per character (see
docs/games/pixoid.md for the full format)::

    S . . .|.
      -
    . . B . .

Pix rows alternate with wall rows. In a Pix row the character after a Pix is `|` for a
wall on its right (space: open). In a wall row the character under a Pix is `-` for a
wall below it. Pix marks: `.` a Pix, `S` a red Starting Pix, `B` a Bonus cube Pix.
Four tile sides, each drawn with the board's outer border on its top and left, are turned
into the four corners of the square.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
"""Directions on the board as drawn (up = towards the top of the screen), clockwise."""
DIRECTION_WORDS = ("up", "right", "down", "left")
MAX_DISTANCE = 9
"""The centre wheel's highest digit: the farthest one move can go."""

CORNERS = ("nw", "ne", "se", "sw")
"""The order of tile sides in a layout, and the quarter turns that put each in place."""

_MARKS = {".": 0, "S": 1, "B": 2}


class BoardError(ValueError):
    """A tile or board file that does not describe a playable Circuit Board."""


@dataclass(frozen=True, slots=True)
class TileSide:
    """One side of a Circuit Board tile (or a whole board), in its own frame."""

    size: int
    walls: tuple[int, ...]
    """Per Pix (row-major), a bit mask of the sides with a wall: bit d for direction d."""
    starts: frozenset[int]
    bonus: frozenset[int]

    def turned(self, quarters: int) -> TileSide:
        """This side turned clockwise by `quarters` quarter turns."""
        side = self
        for _ in range(quarters % 4):
            side = side._turned_once()
        return side

    def _turned_once(self) -> TileSide:
        n = self.size

        def moved(p: int) -> int:
            r, c = divmod(p, n)
            return c * n + (n - 1 - r)

        walls = [0] * (n * n)
        for p, mask in enumerate(self.walls):
            walls[moved(p)] = ((mask << 1) | (mask >> 3)) & 0b1111
        return TileSide(
            n,
            tuple(walls),
            frozenset(moved(p) for p in self.starts),
            frozenset(moved(p) for p in self.bonus),
        )


def parse_side(text: str, where: str = "tile") -> TileSide:
    """Read the text drawing of a tile side or a whole board; BoardError says what is wrong."""
    lines = text.strip("\n").split("\n")
    pix_rows = lines[0::2]
    wall_rows = lines[1::2]
    n = len(pix_rows)
    if n < 2:
        raise BoardError(f"{where}: a drawing needs at least 2 rows of Pix")
    walls = [0] * (n * n)
    starts: set[int] = set()
    bonus: set[int] = set()
    for r, row in enumerate(pix_rows):
        line_no = 2 * r + 1
        if len(row.rstrip()) > 2 * n or len(row.rstrip()) < 2 * n - 1:
            raise BoardError(
                f"{where}, line {line_no}: a row of a {n}-row drawing has {n} Pix "
                f"({2 * n - 1} characters, one more for a wall on the right edge)"
            )
        for c in range(n):
            mark = row[2 * c]
            if mark not in _MARKS:
                raise BoardError(
                    f"{where}, line {line_no}, column {2 * c + 1}: {mark!r} is not a Pix mark "
                    "('.' Pix, 'S' Starting Pix, 'B' Bonus cube Pix)"
                )
            p = r * n + c
            if mark == "S":
                starts.add(p)
            elif mark == "B":
                bonus.add(p)
            gap = row[2 * c + 1] if 2 * c + 1 < len(row) else " "
            if gap == "|":
                walls[p] |= 1 << RIGHT
                if c + 1 < n:
                    walls[p + 1] |= 1 << LEFT
            elif gap != " ":
                raise BoardError(
                    f"{where}, line {line_no}, column {2 * c + 2}: between two Pix only "
                    f"'|' (wall) or a space (open) may stand, not {gap!r}"
                )
        below = wall_rows[r] if r < len(wall_rows) else ""
        for i, ch in enumerate(below):
            if ch == " ":
                continue
            if ch != "-" or i % 2 or i >= 2 * n:
                raise BoardError(
                    f"{where}, line {line_no + 1}, column {i + 1}: a wall row has '-' under "
                    f"a Pix (odd columns) or spaces, not {ch!r}"
                )
            p = r * n + i // 2
            walls[p] |= 1 << DOWN
            if r + 1 < n:
                walls[p + n] |= 1 << UP
    if len(wall_rows) > n:
        raise BoardError(f"{where}: more wall rows than Pix rows")
    return TileSide(n, tuple(walls), frozenset(starts), frozenset(bonus))


@dataclass(frozen=True, slots=True)
class TileSet:
    """A set of double-sided Circuit Board tiles read from a TOML file."""

    name: str
    note: str
    sample: bool
    size: int
    sides: Mapping[str, TileSide]
    """Side name ("1a", "1b", "2a", ...) -> the side, drawn for the north-west corner."""

    @property
    def tiles(self) -> list[str]:
        return sorted({name[:-1] for name in self.sides})


def tiles_text(source: str) -> str:
    """The TOML text of a tile set: shipped in this package by name, or a file path."""
    if source.endswith(".toml") or "/" in source:
        try:
            return Path(source).read_text()
        except OSError as e:
            raise BoardError(f"cannot read tile file {source}: {e.strerror}") from None
    return _shipped_text(source)


@functools.lru_cache(maxsize=8)
def _shipped_text(name: str) -> str:
    try:
        return resources.files(__package__).joinpath(f"tiles/{name}.toml").read_text()
    except FileNotFoundError:
        raise BoardError(f"no shipped tile set named {name!r}") from None


def load_tiles(source: str) -> TileSet:
    """A tile set by name (shipped in this package) or by path to a TOML file."""
    return _parsed_tiles(tiles_text(source), source)


@functools.lru_cache(maxsize=16)
def _parsed_tiles(text: str, source: str) -> TileSet:
    return parse_tiles(text, source)


@functools.lru_cache(maxsize=64)
def build_board(text: str, source: str, layout: tuple[str, ...] | None) -> Board:
    """A board from tile-set text and a layout, or (layout None) from a whole-board drawing.

    Boards are immutable, so the same text and layout always give the same shared object.
    """
    if layout is None:
        return Board(parse_side(text, source), "custom board")
    tiles = _parsed_tiles(text, source)
    name = f"{tiles.name}: " + " ".join(
        f"{c.upper()} {t}" for c, t in zip(CORNERS, layout, strict=True)
    )
    return Board(assemble(tiles, layout), name)


def parse_tiles(text: str, where: str = "tiles") -> TileSet:
    try:
        data: dict[str, Any] = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BoardError(f"{where}: not valid TOML: {e}") from None
    tiles = data.get("tiles")
    if not isinstance(tiles, dict) or not tiles:
        raise BoardError(f"{where}: no [tiles.<id>] tables")
    sides: dict[str, TileSide] = {}
    size = 0
    for tile_id, tile in sorted(tiles.items()):
        if not isinstance(tile, dict) or set(tile) - {"a", "b"} or not tile:
            raise BoardError(f"{where}: tile {tile_id} has sides 'a' and/or 'b' only")
        for side_name, drawing in sorted(tile.items()):
            side = parse_side(str(drawing), f"{where}: tile {tile_id}{side_name}")
            if size and side.size != size:
                raise BoardError(f"{where}: tile {tile_id}{side_name} is not {size} Pix wide")
            size = side.size
            sides[f"{tile_id}{side_name}"] = side
    return TileSet(
        str(data.get("name", where)),
        str(data.get("note", "")),
        bool(data.get("sample", False)),
        size,
        sides,
    )


def assemble(tiles: TileSet, layout: Sequence[str]) -> TileSide:
    """Four tile sides (north-west, north-east, south-east, south-west) as one square."""
    if len(layout) != 4:
        raise BoardError(f"a layout names 4 tile sides (NW NE SE SW), not {len(layout)}")
    ids = [name[:-1] for name in layout]
    if len(set(ids)) != 4:
        raise BoardError(f"layout {' '.join(layout)} uses a tile twice")
    for name in layout:
        if name not in tiles.sides:
            raise BoardError(
                f"tile set {tiles.name!r} has no tile side {name!r} "
                f"(it has {', '.join(sorted(tiles.sides))})"
            )
    n = tiles.size
    big = 2 * n
    walls = [0] * (big * big)
    starts: set[int] = set()
    bonus: set[int] = set()
    origins = ((0, 0), (0, n), (n, n), (n, 0))
    for quarter, (name, (r0, c0)) in enumerate(zip(layout, origins, strict=True)):
        side = tiles.sides[name].turned(quarter)
        for p, mask in enumerate(side.walls):
            r, c = divmod(p, n)
            walls[(r0 + r) * big + c0 + c] |= mask
        starts.update((r0 + p // n) * big + c0 + p % n for p in side.starts)
        bonus.update((r0 + p // n) * big + c0 + p % n for p in side.bonus)
    return TileSide(big, tuple(walls), frozenset(starts), frozenset(bonus))


class Board:
    """A playable Circuit Board: walls closed all round, rays precomputed for fast moves."""

    __slots__ = ("size", "walls", "starts", "bonus", "open", "rays", "name")

    def __init__(self, side: TileSide, name: str = "board") -> None:
        n = side.size
        self.size = n
        self.name = name
        walls = list(side.walls)
        # Walls are shared by the two Pix they separate, and the outer border is a wall.
        for p in range(n * n):
            r, c = divmod(p, n)
            if r == 0:
                walls[p] |= 1 << UP
            if r == n - 1:
                walls[p] |= 1 << DOWN
            if c == 0:
                walls[p] |= 1 << LEFT
            if c == n - 1:
                walls[p] |= 1 << RIGHT
        for p in range(n * n):
            for d in range(4):
                if walls[p] >> d & 1:
                    q = self._step(p, d)
                    if q >= 0:
                        walls[q] |= 1 << ((d + 2) % 4)
        self.walls: tuple[int, ...] = tuple(walls)
        self.starts: tuple[int, ...] = tuple(sorted(side.starts))
        """Starting Pix in reading order; they are lettered A, B, C, ... in that order."""
        self.bonus: tuple[int, ...] = tuple(sorted(side.bonus))
        self.open: tuple[int, ...] = tuple(~w & 0b1111 for w in walls)
        """Per Pix, the bit mask of directions with no wall."""
        for p, mask in enumerate(self.open):
            if not mask:
                raise BoardError(f"{name}: Pix {self.pix_name(p)} is walled in on all four sides")
        rays: list[tuple[int, ...]] = []
        for p in range(n * n):
            for d in range(4):
                ray: list[int] = []
                q = p
                while len(ray) < MAX_DISTANCE and not self.walls[q] >> d & 1:
                    q = self._step(q, d)
                    ray.append(q)
                rays.append(tuple(ray))
        self.rays: tuple[tuple[int, ...], ...] = tuple(rays)
        """rays[p * 4 + d]: the Pix a move from p in direction d passes, in order, up to
        the next wall (or MAX_DISTANCE Pix)."""

    def _step(self, p: int, d: int) -> int:
        r, c = divmod(p, self.size)
        r += (-1, 0, 1, 0)[d]
        c += (0, 1, 0, -1)[d]
        return r * self.size + c if 0 <= r < self.size and 0 <= c < self.size else -1

    def pix_name(self, p: int) -> str:
        """Column letter and row number from the top-left, e.g. "c4"."""
        r, c = divmod(p, self.size)
        return f"{chr(ord('a') + c)}{r + 1}"

    def pix_at(self, name: str) -> int:
        """The Pix named like "c4"; ValueError if there is none."""
        name = name.strip().lower()
        try:
            c = ord(name[0]) - ord("a")
            r = int(name[1:]) - 1
        except (IndexError, ValueError):
            raise ValueError(f"{name!r} is not a Pix name like 'c4'") from None
        if not (0 <= r < self.size and 0 <= c < self.size):
            raise ValueError(f"there is no Pix {name} on a {self.size}x{self.size} board")
        return r * self.size + c

    def path(self, p: int, d: int, distance: int) -> tuple[int, ...]:
        """The Pix a move passes (the last is where it stops), walls respected."""
        return self.rays[p * 4 + d][:distance]

    def public(self) -> dict[str, Any]:
        """The board as players see it (for views and displays)."""
        return {
            "name": self.name,
            "size": self.size,
            "walls": self.walls,
            "starts": self.starts,
            "bonus_pix": self.bonus,
        }

    @classmethod
    def from_public(cls, data: Mapping[str, Any]) -> Board:
        """Rebuild the board from a view (what a bot may do with its seat's view)."""
        n = int(data["size"])
        side = TileSide(
            n,
            tuple(int(w) for w in data["walls"]),
            frozenset(int(p) for p in data["starts"]),
            frozenset(int(p) for p in data["bonus_pix"]),
        )
        return cls(side, str(data.get("name", "board")))
