"""Rules engine benchmark: random-bot Pixoid games and turns per second, beside python-chess.

Run with `python -m bench.engine` (or `make bench` for every benchmark). One core, one
process; each figure is the best of three timed runs of about a second.
"""

from __future__ import annotations

import argparse
import sys
import time

from bench._peer import best_of, chess_rollouts
from dialbox.engine.bots import Bot, RandomBot, play_out
from dialbox.games.pixoid import Pixoid, PixoidBot


def pixoid_games(seconds: float, options: dict[str, object], bot: type = RandomBot,
                 ) -> tuple[float, float]:
    """(full games per second, resolved turns per second) for quiet bot playouts."""
    games = turns = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Pixoid({**options, "seed": seed}, quiet=True)
        bots: dict[int, Bot] = {p: bot(seed * 8 + p) for p in range(game.players)}
        play_out(game, bots)
        games += 1
        turns += sum(1 for answers in game.log if len(answers) > 1)
        seed += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, turns / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine")
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each timed run")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per figure (best kept)")
    args = parser.parse_args(argv or [])  # `python -m bench NAME` calls main() bare
    s, n = args.seconds, args.runs
    def pixoid(options: dict[str, object], bot: type = RandomBot) -> tuple[float, float]:
        return best_of(n, lambda: pixoid_games(s, options, bot))

    rows = [
        ("pixoid, 4 players, random bots", "turns", pixoid({"players": 4})),
        ("pixoid, 3 players, random bots", "turns", pixoid({"players": 3})),
        ("pixoid, short game, random bots", "turns", pixoid({"players": 4, "variant": "short"})),
        ("pixoid, 4 players, heuristic bots", "turns", pixoid({"players": 4}, PixoidBot)),
        ("python-chess random rollouts", "plies", best_of(n, lambda: chess_rollouts(s))),
    ]
    print(f"{'what':<36}{'games/s':>12}{'steps/s':>14}")
    for what, unit, (games, steps) in rows:
        print(f"{what:<36}{games:>12,.0f}{steps:>14,.0f} {unit}")


if __name__ == "__main__":
    main(sys.argv[1:])
