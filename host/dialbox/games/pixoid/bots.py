"""A heuristic Pixoid bot: Pixoid flees and takes Bonus cubes, Bugs close in. Seat view only."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from dialbox.engine import Ask, Selection
from dialbox.games.pixoid.board import Board


class PixoidBot:
    """Scores every legal move from what its seat's view shows, and plays the best one.

    Pixoid avoids Pix a Bug could reach or pass in one move, runs into no Bug, likes Bonus
    cubes, distance from the Bugs and room to move. A Bug plays the move whose path covers
    the most Pix Pixoid could move to, then the one that ends nearest him.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self._board: Board | None = None
        self._walls: Any = None
        self._reaches: dict[int, frozenset[int]] = {}

    def _board_of(self, view: Mapping[str, Any]) -> Board:
        data = view["board"]
        if self._board is None or self._walls != data["walls"]:
            self._board = Board.from_public(data)
            self._walls = data["walls"]
            self._reaches = {}
        return self._board

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        if ask.topic != "pixoid.move":
            return legal[self.rng.randrange(len(legal))]
        board = self._board_of(view)
        cubes: list[int] = list(view["cubes"])
        pixoid: int = view["pixoid"]
        turn: int = view["turns"][ask.seat]
        bugs = [cubes[s] for s in range(len(cubes)) if s != pixoid]
        if ask.seat == pixoid:
            score = self._flee(board, cubes[pixoid], bugs, set(view["bonus"]))
        else:
            score = self._chase(board, cubes[ask.seat], cubes[pixoid], bugs)
        best: list[Selection] = []
        top = float("-inf")
        for sel in legal:
            value = score((sel[0] // 2 + turn) % 4, sel[1])
            if value > top:
                top, best = value, [sel]
            elif value == top:
                best.append(sel)
        return best[self.rng.randrange(len(best))]

    def _reach(self, board: Board, pix: int) -> frozenset[int]:
        """Every Pix a cube on `pix` passes or stops on in one move."""
        found = self._reaches.get(pix)
        if found is None:
            found = self._reaches[pix] = frozenset(
                q for d in range(4) for q in board.rays[pix * 4 + d]
            )
        return found

    def _flee(self, board: Board, me: int, bugs: list[int], bonus: set[int]) -> Any:
        danger: set[int] = set()
        for b in bugs:
            danger |= self._reach(board, b)
        bug_set = set(bugs)
        n = board.size

        def score(d: int, k: int) -> float:
            value = 0.0
            end = me
            for q in board.path(me, d, k):
                end = q
                if q in bug_set:
                    return -1000.0
                if q in bonus:
                    value += 8
            if end in danger:
                value -= 100
            r, c = divmod(end, n)
            nearest = min(abs(r - br) + abs(c - bc) for br, bc in (divmod(b, n) for b in bugs))
            value += nearest + bin(board.open[end]).count("1") * 0.5
            return value

        return score

    def _chase(self, board: Board, me: int, target: int, bugs: list[int]) -> Any:
        bug_set = set(bugs)
        # Where Pixoid may stand after his move (running into a Bug ends the round anyway).
        landing: dict[int, int] = {}
        for d in range(4):
            for q in board.rays[target * 4 + d]:
                if q in bug_set:
                    break
                landing[q] = landing.get(q, 0) + 1
        landing[target] = landing.get(target, 0)
        n = board.size
        tr, tc = divmod(target, n)

        def score(d: int, k: int) -> float:
            path = board.path(me, d, k)
            covered = sum(landing.get(q, 0) for q in path)
            end = path[-1]
            r, c = divmod(end, n)
            threat = sum(landing.get(q, 0) for q in self._reach(board, end))
            return covered * 10 + threat - (abs(r - tr) + abs(c - tc))

        return score
