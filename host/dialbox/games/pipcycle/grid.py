"""PIP Cycle's grid: points, lines, edges, and Movement programs with their outcomes.

Points are (x, y): x is the column (a, b, c ... from the west), y the row (1, 2, 3 ... from
the south). A line joins two orthogonally adjacent points. A rider faces N, E, S or W.

A Movement program is a sequence of legs; a leg is a turn (none, Left, Right or about, U)
followed by one Forward. Its cost in AP is one per Forward and one per quarter turn; after the
last leg the rider may turn once more ("end turn"). `programs()` lists the outcomes a rider
can reach with its AP: programs that crash the same way are listed once (the shortest).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache

FACINGS = "NESW"
STEP = ((0, 1), (1, 0), (0, -1), (-1, 0))
"""(dx, dy) of one Forward for each facing (N is up: y grows to the north)."""

LEGS = (("F", 0, 1), ("LF", 3, 2), ("RF", 1, 2), ("UF", 2, 3))
"""(label, quarter turns clockwise before the Forward, AP cost)."""
END_TURNS = (("-", 0, 0), ("L", 3, 1), ("R", 1, 1), ("U", 2, 2))
"""The turn after the last Forward: (label, quarter turns clockwise, AP cost)."""

CRASH_MARK = "!"
"""Marks a program that crashes on the controller's wheel (labels are at most 8 characters)."""

Point = tuple[int, int]
Line = tuple[int, int, int]
"""(x, y, d): the line from (x, y) to its east neighbour (d=0) or north neighbour (d=1)."""

EDGES = {2: ("S", "N"), 3: ("S", "W", "N")}
"""Each seat's starting edge by player count (seats clockwise round the grid)."""
INWARD = {"S": 0, "W": 1, "N": 2, "E": 3}
"""The facing into the grid from each edge."""


def ap_for(pips: int) -> int:
    """Action Points from a Pip Value: 1, 2, 3, then 4 for 4-6."""
    return min(pips, 4)


@cache
def name(p: Point) -> str:
    """A point as the screen labels it: column letter and row number, e.g. "c4"."""
    return f"{chr(97 + p[0])}{p[1] + 1}"


def parse(text: str, size: int) -> Point:
    """The point named `text` (ValueError naming it if it is not on a `size` grid)."""
    t = text.strip().lower()
    if len(t) < 2 or not t[0].isalpha() or not t[1:].isdigit():
        raise ValueError(f"{text!r} is not a point (a column letter and a row number, e.g. c4)")
    x, y = ord(t[0]) - 97, int(t[1:]) - 1
    if not (0 <= x < size and 0 <= y < size):
        raise ValueError(f"there is no point {text} on a {size}x{size} grid")
    return x, y


def line_between(a: Point, b: Point) -> Line:
    """The line joining two adjacent points (ValueError if they are not adjacent)."""
    (x1, y1), (x2, y2) = sorted((a, b))
    if (x2 - x1, y2 - y1) == (1, 0):
        return x1, y1, 0
    if (x2 - x1, y2 - y1) == (0, 1):
        return x1, y1, 1
    raise ValueError(f"{name(a)} and {name(b)} are not joined by a line")


def line_ends(line: Line) -> tuple[Point, Point]:
    x, y, d = line
    return (x, y), ((x + 1, y) if d == 0 else (x, y + 1))


def edge_points(edge: str, size: int) -> list[Point]:
    """The points along one edge, west to east (or south to north for W and E)."""
    last = size - 1
    if edge == "S":
        return [(x, 0) for x in range(size)]
    if edge == "N":
        return [(x, last) for x in range(size)]
    if edge == "W":
        return [(0, y) for y in range(size)]
    return [(last, y) for y in range(size)]


def start_points(seat: int, players: int, size: int) -> list[Point]:
    """The points `seat` may start a rider on: its own edge, without the corners it shares
    with another player's edge (3-player grid; docs/rules-notes.md)."""
    edges = EDGES[players]
    own = edge_points(edges[seat], size)
    others = {p for s, e in enumerate(edges) if s != seat for p in edge_points(e, size)}
    return [p for p in own if p not in others]


@dataclass(frozen=True, slots=True)
class Node:
    """One Movement program in the tree of programs a rider with some AP can run."""

    parent: int
    """The program this one extends by one leg (-1: none, it is one leg long)."""
    turn: int
    """Quarter turns clockwise before this leg's Forward."""
    cost: int
    legs: tuple[str, ...]
    text: str


def _tree(ap: int) -> tuple[Node, ...]:
    nodes: list[Node] = []

    def grow(parent: int, legs: tuple[str, ...], cost: int) -> None:
        for label, turn, c in LEGS:
            if cost + c <= ap:
                nodes.append(Node(parent, turn, cost + c, (*legs, label), "".join((*legs, label))))
                grow(len(nodes) - 1, (*legs, label), cost + c)

    grow(-1, (), 0)
    # cheapest first (then shorter, then as the legs read); parents stay before children
    order = sorted(range(len(nodes)), key=lambda i: (nodes[i].cost, len(nodes[i].legs),
                                                     nodes[i].legs))
    where = {old: new for new, old in enumerate(order)}
    return tuple(Node(where.get(nodes[i].parent, -1), nodes[i].turn, nodes[i].cost,
                      nodes[i].legs, nodes[i].text) for i in order)


TREES = {ap: _tree(ap) for ap in range(1, 5)}
"""Every program for 1-4 AP (up to 23), cheapest first."""

OK, EDGE, CLAIMED, OCCUPIED, BARRED = range(5)
"""A program's status: it ends well; it crashes leaving the grid; it crashes on a claimed
line; it ends on another rider's point (a crash if the Movement stops there); it cannot be
run (it goes straight through a rider, or a shorter program it extends already crashed)."""
CRASH_CAUSE = {EDGE: "edge", CLAIMED: "line", OCCUPIED: "occupied"}


def _ancestors(tree: tuple[Node, ...], i: int) -> tuple[int, ...]:
    out = []
    q = tree[i].parent
    while q >= 0:
        out.append(q)
        q = tree[q].parent
    return tuple(out)


_FLAT = {ap: tuple((n.parent, n.turn, _ancestors(t, i)) for i, n in enumerate(t))
         for ap, t in TREES.items()}
"""Per AP, each program as (parent, turn, ancestors): what `statuses` walks."""


def statuses(start: Point, facing: int, ap: int, size: int, claimed: Mapping[Line, int],
             occupied: set[Point]) -> tuple[int, ...]:
    """The status of every program of TREES[ap] for a rider at `start` facing `facing`.

    The programs are walked cheapest first, each from the point its parent program reached
    (the hot path of every Movement prompt, so written for speed)."""
    flat = _FLAT[ap]
    count = len(flat)
    status = [OK] * count
    where: list[tuple[int, int, int]] = [(0, 0, 0)] * count
    lns: list[Line | None] = [None] * count
    sx, sy = start
    for i in range(count):
        p, turn, ancestors = flat[i]
        if p < 0:
            x, y, f = sx, sy, facing
        else:
            ps = status[p]
            if ps != OK and (ps != OCCUPIED or turn == 0):
                # its parent crashed, or it would go straight through a stationary rider
                status[i] = BARRED
                continue
            x, y, f = where[p]
        f = (f + turn) & 3
        if f == 0:
            nx, ny, ln = x, y + 1, (x, y, 1)
        elif f == 1:
            nx, ny, ln = x + 1, y, (x, y, 0)
        elif f == 2:
            nx, ny, ln = x, y - 1, (x, y - 1, 1)
        else:
            nx, ny, ln = x - 1, y, (x - 1, y, 0)
        if nx < 0 or ny < 0 or nx >= size or ny >= size:
            status[i] = EDGE
            continue
        if ln in claimed:
            status[i] = CLAIMED
            continue
        for q in ancestors:
            if lns[q] == ln:
                status[i] = CLAIMED
                break
        else:
            lns[i] = ln
            where[i] = (nx, ny, f)
            if (nx, ny) in occupied:
                status[i] = OCCUPIED
    return tuple(status)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Where a Movement program takes a rider."""

    legs: tuple[str, ...]
    cost: int
    path: tuple[Point, ...]
    """Every point reached, the start first."""
    lines: tuple[Line, ...]
    """The lines travelled (claimed), in order."""
    facing: int
    crash: str | None
    """Why the rider crashes: "line" (a claimed line), "edge" (off the grid), "occupied"
    (ends its Movement on another rider's point); None if it does not."""
    hit: Point | Line | None = None
    """The claimed line or occupied point it crashed on."""

    @property
    def label(self) -> str:
        text = "".join(self.legs)
        return f"{text}{CRASH_MARK}" if self.crash else text

    @property
    def end(self) -> Point:
        return self.path[-1]


def outcome(start: Point, facing: int, ap: int, index: int, status: tuple[int, ...]) -> Outcome:
    """The whole outcome of program `index` of TREES[ap] (given its statuses)."""
    tree = TREES[ap]
    chain = []
    i = index
    while i >= 0:
        chain.append(tree[i])
        i = tree[i].parent
    chain.reverse()
    x, y = start
    f = facing
    path, lines = [start], []
    hit: Point | Line | None = None
    for k, node in enumerate(chain):
        f = (f + node.turn) & 3
        dx, dy = STEP[f]
        nx, ny = x + dx, y + dy
        if k == len(chain) - 1 and status[index] in (EDGE, CLAIMED):
            hit = (nx, ny) if status[index] == EDGE else \
                (min(x, nx), min(y, ny), 1 if dx == 0 else 0)
            break
        lines.append((min(x, nx), min(y, ny), 1 if dx == 0 else 0))
        x, y = nx, ny
        path.append((x, y))
    if status[index] == OCCUPIED:
        hit = (x, y)
    node = tree[index]
    return Outcome(node.legs, node.cost, tuple(path), tuple(lines), f,
                   CRASH_CAUSE.get(status[index]), hit)


def programs(start: Point, facing: int, ap: int, size: int, claimed: Mapping[Line, int] |
             Iterable[Line], occupied: Iterable[Point]) -> list[Outcome]:
    """Every distinct outcome of a Movement of at most `ap` AP from `start` facing `facing`.

    A program that goes straight through a point where another rider stands is not listed
    (the rules forbid it); a program that crashes is listed, once per distinct crash (the
    programs that extend it are not). Ordered by cost, then as the legs read.
    """
    taken = claimed if isinstance(claimed, Mapping) else dict.fromkeys(claimed, 0)
    st = statuses(start, facing, ap, size, taken, set(occupied))
    return [outcome(start, facing, ap, i, st) for i, s in enumerate(st) if s != BARRED]
