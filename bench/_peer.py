"""Shared by the game benchmarks: python-chess random rollouts (the peer reference) and best-of."""

from __future__ import annotations

import random
import time
from collections.abc import Callable


def chess_rollouts(seconds: float) -> tuple[float, float]:
    """(random games per second, plies per second) with python-chess: legal moves + push."""
    import chess

    rng = random.Random(1)
    games = plies = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        board = chess.Board()
        while not board.is_game_over():
            moves = list(board.legal_moves)
            board.push(moves[rng.randrange(len(moves))])
            plies += 1
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, plies / elapsed


def best_of(runs: int, measure: Callable[[], tuple[float, float]]) -> tuple[float, float]:
    """The best of several short runs: the figure least disturbed by other work on the host."""
    results = [measure() for _ in range(runs)]
    return max(r[0] for r in results), max(r[1] for r in results)
