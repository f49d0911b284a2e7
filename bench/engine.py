"""Rules engine benchmark: random-bot Pixoid games and turns per second, and every registered
game quiet and loud, beside python-chess measured in the same run.

Run with `python -m bench.engine` (or `make bench` for every benchmark). One core, one
process; each figure is the best of three timed runs of about a second.

"Loud" is how the daemon runs a game: events emitted (`quiet=False`) and, like python-chess's
`legal_moves`, every legal answer enumerated before one is picked (`game.legal`); "quiet"
skips the events. Both pick uniformly among the legal answers (`_peer.random_playout`), so the
ratio to python-chess's random rollouts compares like with like: one decision = one ply.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from bench._peer import best_of, chess_rollouts, machine_load, random_playout
from dialbox.engine.bots import Bot, RandomBot, play_out
from dialbox.engine.registry import game_info, game_names
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


def game_rates(name: str, seconds: float, quiet: bool) -> tuple[float, float]:
    """(games per second, decisions per second) for uniformly random legal playouts of a
    registered game with its default options for 4 players (or its fewest), quiet or loud."""
    info = game_info(name)
    players = 4 if 4 in info.players else min(info.players)
    games = decisions = 0
    seed = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = info.game({"players": players, "seed": seed}, quiet=quiet)
        decisions += random_playout(game, random.Random(seed))
        games += 1
        seed += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed


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
    chess_plies = rows[-1][2][1]
    print()
    print("every game: uniformly random legal answers, 4 players (or the fewest), default")
    print(f"options; decisions/s, and ratios to python-chess's {chess_plies:,.0f} plies/s above")
    print(f"{'game':<20}{'quiet/s':>12}{'loud/s':>12}{'loud/quiet':>12}"
          f"{'quiet/chess':>13}{'loud/chess':>12}")
    for name in game_names():
        _g, quiet = best_of(n, lambda name=name: game_rates(name, s, True))  # type: ignore[misc]
        _g, loud = best_of(n, lambda name=name: game_rates(name, s, False))  # type: ignore[misc]
        print(f"{name:<20}{quiet:>12,.0f}{loud:>12,.0f}{loud / quiet:>12.2f}"
              f"{quiet / chess_plies:>13.2f}{loud / chess_plies:>12.2f}")
    print(f"machine load: {machine_load()}")


if __name__ == "__main__":
    main(sys.argv[1:])
