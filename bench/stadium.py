"""Stadium benchmark: full bot games per second and resolved decisions per second.

Run `python -m bench.stadium` (or `make bench` for every benchmark). A resolved decision is one
sealed simultaneous prompt or one open prompt answered through `Game.apply`, every answer
checked against the rules; die rolls from the RNG are not prompts. Bots are driven by
`dialbox.engine.bots.play_out`, reading their seat's view. python-chess random rollouts
(plies/s) are measured in the same run as a peer reference. Each figure is the best of a few
timed runs (other work on the machine only slows a run down).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from bench._peer import best_of, chess_rollouts
from dialbox.engine.bots import Bot, RandomBot, play_out
from dialbox.games.stadium import Stadium
from dialbox.games.stadium.bots import StadiumBot


def stadium_games(seconds: float, players: int, bot: Callable[[int], Bot],
                  quiet: bool = True) -> tuple[float, float]:
    """(games per second, resolved decisions per second) for full bot games."""
    games = decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        game = Stadium({"players": players, "seed": games}, quiet=quiet)
        decisions += play_out(game, {s: bot(games * 7 + s) for s in range(players)})
        games += 1
    elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed


def main(argv: list[str] | None = None) -> None:
    """Entry point; `python -m bench` calls it with no arguments (defaults)."""
    parser = argparse.ArgumentParser(prog="python -m bench.stadium", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of each timed run")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per figure (best kept)")
    args = parser.parse_args([] if argv is None else argv)
    s, n = args.seconds, args.runs

    def stadium(players: int, bot: Callable[[int], Bot], quiet: bool = True
                ) -> tuple[float, float]:
        return best_of(n, lambda: stadium_games(s, players, bot, quiet))

    rows = [
        ("stadium, 4 players, heuristic bots", "decisions", stadium(4, StadiumBot)),
        ("stadium, 6 players, heuristic bots", "decisions", stadium(6, StadiumBot)),
        ("stadium, 4 players, random bots", "decisions", stadium(4, RandomBot)),
        ("stadium, 4 players, heuristic, events", "decisions", stadium(4, StadiumBot, False)),
    ]
    try:
        peer = best_of(n, lambda: chess_rollouts(s))
        rows.append(("python-chess random rollouts", "plies", peer))
    except ImportError:
        print("python-chess is not installed (pip install -e '.[test]'): no peer reference")
    print(f"{'what':<40}{'games/s':>10}{'steps/s':>12}")
    for what, unit, (games, steps) in rows:
        print(f"{what:<40}{games:>10,.0f}{steps:>12,.0f} {unit}")


if __name__ == "__main__":
    main(sys.argv[1:])
