"""PIP Cycle benchmark: random-bot games/s and resolved decisions/s beside python-chess plies/s.

Run with `python -m bench.pipcycle [--seconds S]` (or `python -m bench pipcycle`). Every
pending decision is answered with a uniformly random legal selection per seat (the engine's
own legality enumeration, `game.legal(ask)`), so the figure covers building prompts, checking
answers and resolving the rules; with events recorded (quiet=False, as the daemon runs) and
without (quiet=True, as bot playouts run). The RiderBot rate is whole games of RiderBot
against RandomBot. The machine load is printed at the start and the end: the host may be
shared, and a busy host gives lower figures.
"""

from __future__ import annotations

import argparse
import random
import time

from bench._peer import best_of, chess_rollouts, machine_load, random_playout
from dialbox.engine.bots import Bot, RandomBot, play_out
from dialbox.games.pipcycle import PipCycle, RiderBot

TARGET = 20_000


def pipcycle_rate(seconds: float, players: int, quiet: bool) -> tuple[float, float]:
    """(games/s, decisions/s) over about `seconds` of random `players`-player games."""
    rng = random.Random(1)
    games = decisions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        g = PipCycle({"players": players, "seed": games}, quiet=quiet)
        decisions += random_playout(g, rng)
        games += 1
        elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed


def rider_rate(seconds: float, players: int = 2) -> tuple[float, float]:
    """(games/s, decisions/s) of RiderBot (seat by game) against RandomBots, quiet."""
    games = decisions = 0
    start = time.perf_counter()
    elapsed = 0.0
    while elapsed < seconds:
        g = PipCycle({"players": players, "seed": games}, quiet=True)
        me = games % players
        bots: dict[int, Bot] = {p: RiderBot(games) if p == me else RandomBot(games * 7 + p)
                                for p in range(players)}
        decisions += play_out(g, bots)
        games += 1
        elapsed = time.perf_counter() - start
    return games / elapsed, decisions / elapsed


def grid_lengths(sizes: tuple[int, ...] = (7, 9, 11), games: int = 30) -> None:
    """How long RiderBot self-play lasts on each grid size (the `grid` default's evidence)."""
    for size in sizes:
        decisions, checks, rounds, escalations = [], 0, 0, 0
        causes: dict[str, int] = {}
        for seed in range(games):
            g = PipCycle({"players": 2, "seed": seed, "grid": size})
            decisions.append(play_out(g, {p: RiderBot(seed * 3 + p) for p in range(2)}))
            rounds += g.round
            checks += sum(1 for e in g.events if e.kind == "pipcycle.check")
            escalations += sum(1 for e in g.events if e.kind == "pipcycle.escalation")
            for r in g.rounds:
                for c in r["crashes"]:
                    causes[c["cause"]] = causes.get(c["cause"], 0) + 1
        crashes = sum(causes.values())
        print(f"grid {size}x{size}, {games} RiderBot games: {rounds / games:.2f} rounds/game, "
              f"{checks / rounds:.1f} exchanges/round, "
              f"{escalations / rounds:.2f} escalations/round, "
              f"median {sorted(decisions)[games // 2]} decisions/game; crashes: " + ", ".join(
                  f"{k} {100 * v / crashes:.0f}%" for k, v in sorted(causes.items())))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.pipcycle", description=__doc__)
    p.add_argument("--seconds", type=float, default=6.0,
                   help="time for the main measurement (best of 3 runs); the others take half")
    p.add_argument("--grids", action="store_true",
                   help="also play RiderBot games on 7x7, 9x9 and 11x11 grids (game lengths)")
    args, _ = p.parse_known_args(argv)  # `python -m bench pipcycle` passes its own names
    t = args.seconds / 3
    print(f"load at start: {machine_load()}")
    dps_2 = 0.0
    for n in (2, 3):
        for quiet in (False, True):
            span = t if (n, quiet) == (2, False) else t / 2
            gps, dps = best_of(3, lambda n=n, quiet=quiet, span=span:
                               pipcycle_rate(span, n, quiet))
            how = "quiet (no events, as bot playouts run)" if quiet else \
                "events recorded (as the daemon runs)"
            print(f"pipcycle {n} players, random legal answers, {how}, best of 3: "
                  f"{gps:,.0f} games/s, {dps:,.0f} resolved decisions/s")
            if (n, quiet) == (2, False):
                dps_2 = dps
    print(f"target >= {TARGET:,} resolved decisions/s (2 players, events recorded): "
          f"{'met' if dps_2 >= TARGET else 'NOT met'}")
    gps_r, dps_r = best_of(3, lambda: rider_rate(t / 2))
    print(f"pipcycle RiderBot vs RandomBot (2 players, quiet, best of 3): {gps_r:,.0f} games/s "
          f"({1000 / gps_r:.1f} ms/game), {dps_r:,.0f} decisions/s")
    try:
        pps = best_of(3, lambda: chess_rollouts(t))[1]
    except ImportError:
        print("python-chess not installed (pip install -e '.[test]'): no chess comparison")
    else:
        print(f"python-chess random rollouts (best of 3): {pps:,.0f} plies/s")
        print(f"ratio pipcycle decisions (2 players, events) / chess plies: {dps_2 / pps:.2f}")
    if args.grids:
        grid_lengths()
    print(f"load at end: {machine_load()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
