"""Shared by the game benchmarks: python-chess random rollouts (the peer reference) and best-of."""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dialbox.engine.game import Game


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


def random_playout(game: Game, rng: random.Random) -> int:
    """Play one game to its end with uniformly random legal answers (the engine's own
    legality enumeration, `game.legal(ask)`); returns the decisions resolved."""
    n = 0
    while True:
        d = game.pending
        if d is None:
            return n
        answers = {}
        for ask in d.asks:
            legal = list(game.legal(ask))
            answers[ask.seat] = legal[rng.randrange(len(legal))]
        game.apply(answers)
        n += 1


def machine_load() -> str:
    """The host's load averages, for readers judging how busy it was during a run."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1/5/15 min) on {os.cpu_count()} CPUs"
