"""Stadium benchmark: full bot games per second and resolved decisions per second.

Run `python -m bench.stadium`. A resolved decision is one sealed simultaneous prompt or one
open prompt answered through `Game.apply` (every answer checked against the rules). The bots
read their seat's view for every question. python-chess random rollouts (plies/s) are measured
in the same run as a peer reference for a pure-Python rules library.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from dialbox.engine.bots import answer_with_bots
from dialbox.games.stadium import Stadium
from dialbox.games.stadium.bots import StadiumBot


def stadium_games(seconds: float, players: int, checked_legal: bool) -> tuple[int, int, float]:
    """Play full games until `seconds` pass; returns (games, decisions, elapsed)."""
    games = decisions = 0
    start = time.perf_counter()
    while True:
        game = Stadium({"players": players, "seed": games})
        bots = {s: StadiumBot(games * 7 + s) for s in range(players)}
        while (d := game.pending) is not None:
            if checked_legal:
                answers = answer_with_bots(game, bots)
            else:
                answers = {a.seat: bots[a.seat].decide(game.view(a.seat), a) for a in d.asks}
            game.apply(answers)
            decisions += 1
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games, decisions, elapsed


def chess_plies(seconds: float) -> tuple[int, float]:
    """Random legal-move rollouts with python-chess; returns (plies, elapsed)."""
    import chess

    rng = random.Random(1)
    plies = 0
    start = time.perf_counter()
    while True:
        board = chess.Board()
        while not board.is_game_over(claim_draw=False) and board.ply() < 300:
            board.push(rng.choice(list(board.legal_moves)))
            plies += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return plies, elapsed


def best_rate(run: Callable[[float], tuple[int, int, float]], seconds: float,
              repeats: int) -> tuple[float, float, float]:
    """Best of `repeats` slices (as timeit does: the machine's noise only slows runs down)."""
    best = (0.0, 0.0, 0.0)
    for _ in range(repeats):
        units, count, elapsed = run(seconds / repeats)
        rate = (units / elapsed, count / elapsed, count / max(units, 1))
        if rate[1] > best[1]:
            best = rate
    return best


def measure(seconds: float, repeats: int = 5,
            out: Callable[[str], None] = print) -> dict[str, float]:
    figures: dict[str, float] = {}
    for players in (4, 6):
        for checked in (False, True):
            games, decisions, per_game = best_rate(
                lambda s, p=players, c=checked: stadium_games(s, p, c), seconds, repeats)
            how = "bots + Game.legal()" if checked else "bots"
            key = f"stadium.{players}p" + (".legal" if checked else "")
            figures[key + ".games_per_s"] = games
            figures[key + ".decisions_per_s"] = decisions
            out(f"Stadium {players} players ({how}): {games:8.1f} games/s  "
                f"{decisions:9.0f} resolved decisions/s  ({per_game:.0f} decisions/game)")
    try:
        import chess  # noqa: F401
    except ImportError:
        out("python-chess is not installed (pip install -e '.[test]'): no peer reference")
    else:
        _, plies, _ = best_rate(lambda s: (1, *chess_plies(s)), seconds, repeats)
        figures["chess.plies_per_s"] = plies
        out(f"python-chess random rollouts (peer reference): {plies:9.0f} plies/s")
    return figures


def main(argv: list[str] | None = None) -> None:
    """Entry point; `python -m bench` calls it with no arguments (defaults)."""
    parser = argparse.ArgumentParser(prog="python -m bench.stadium", description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--repeats", type=int, default=5, help="slices per measurement (best)")
    args = parser.parse_args([] if argv is None else argv)
    measure(args.seconds, args.repeats)


if __name__ == "__main__":
    main(sys.argv[1:])
