"""Outspeed benchmark: random-bot games/s and resolved decisions/s beside python-chess plies/s.

Run with `python -m bench.outspeed [--seconds S]`. Every pending decision is answered with a
uniformly random legal selection per seat (the engine's own legality enumeration), so the
figure covers building prompts, checking answers and resolving the rules.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from bench._peer import best_of, chess_rollouts, random_playout
from dialbox.games.outspeed import Outspeed

TARGET = 20_000


def outspeed_rate(seconds: float, players: int | None = None, quiet: bool = False,
                  ) -> tuple[float, float, int]:
    """(games/s, decisions/s, games) over about `seconds` of random 3-6 player games.

    quiet=True records no events (bot playouts); otherwise every event text is built, as the
    daemon does.
    """
    rng = random.Random(1)
    games = decisions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        n = players or 3 + games % 4
        g = Outspeed({"players": n, "seed": games}, quiet=quiet)
        decisions += random_playout(g, rng)
        games += 1
        elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed, games


def best(runs: int, measure: Callable[[], tuple[float, float, int]]) -> tuple[float, float, int]:
    """The best of several short runs: the figure least disturbed by other work on the host."""
    results = [measure() for _ in range(runs)]
    return max(results, key=lambda r: r[1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.outspeed", description=__doc__)
    p.add_argument("--seconds", type=float, default=6.0,
                   help="time for the main measurement (best of 3 runs); the others take half")
    args, _ = p.parse_known_args(argv)  # `python -m bench outspeed` passes its own names
    t = args.seconds / 3
    gps, dps, games = best(3, lambda: outspeed_rate(t))
    print(f"outspeed (3-6 players, random legal answers, best of 3): {gps:,.0f} games/s, "
          f"{dps:,.0f} resolved decisions/s "
          f"(target >= {TARGET:,}/s: {'met' if dps >= TARGET else 'NOT met'})")
    for n in (3, 6):
        gps_n, dps_n, _ = best(3, lambda n=n: outspeed_rate(t / 2, n))
        print(f"outspeed {n} players: {gps_n:,.0f} games/s, {dps_n:,.0f} decisions/s")
    gps_q, dps_q, _ = best(3, lambda: outspeed_rate(t / 2, quiet=True))
    print(f"outspeed quiet (no events, as bot playouts run): {gps_q:,.0f} games/s, "
          f"{dps_q:,.0f} decisions/s")
    try:
        pps = best_of(3, lambda: chess_rollouts(t))[1]
    except ImportError:
        print("python-chess not installed (pip install -e '.[test]'): no chess comparison")
        return 0
    print(f"python-chess random rollouts (best of 3): {pps:,.0f} plies/s")
    print(f"ratio outspeed decisions / chess plies: {dps / pps:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
