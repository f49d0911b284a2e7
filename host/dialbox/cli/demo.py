"""`dialbox demo`: the embedded default: a whole table on this one machine."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from typing import Any

from dialbox.engine.registry import canonical_name


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "demo",
        help="run a full simulated table on this machine (the embedded default)",
        description="Runs the host daemon, simulated controllers (the real firmware under "
        "the MicroPython unix port, connected over pseudo-terminals or a local broker) and "
        "bots for the other seats, and plays one whole game. Each simulated controller is "
        "played by a simulated hand: the seat's bot picks from that seat's view, the hand "
        "turns the wheels to it and presses lock (--controller-play random: the firmware "
        "dials random allowed faces itself).",
    )
    p.add_argument("--game", default="pixoid", type=canonical_name,
                   help="game to play (default: pixoid; `dialbox play --help` lists them)")
    p.add_argument("--players", type=int, default=None,
                   help="players at the table (default 4, or the game's smallest count if it "
                   "cannot seat 4: PIP Cycle 2)")
    p.add_argument("--controllers", type=int, default=None,
                   help="simulated controllers (default: one per seat; bots take the rest)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    p.add_argument("--transport", choices=("serial", "mqtt"), default="serial",
                   help="serial over pseudo-terminals (default) or MQTT via a local Mosquitto")
    p.add_argument("--broker", choices=("auto", "mosquitto", "embedded"), default="auto",
                   help="with --transport mqtt: Mosquitto if installed (auto), or the "
                   "embedded pure-Python broker (amqtt, no ACLs)")
    p.add_argument("--runtime", choices=("micropython", "cpython", "double"),
                   default="micropython",
                   help="how the simulated controllers run (double: the light protocol double)")
    p.add_argument("--controller-play", choices=("bot", "random"), default="bot",
                   help="how the simulated controllers choose: bot (default: a simulated hand "
                   "turns the wheels to the seat bot's answer, from that seat's view only, and "
                   "locks) or random (the firmware's own auto player: random allowed faces, so "
                   "rules spanning wheels may refuse reveals and void prompts)")
    p.add_argument("--hand-pause", type=float, default=None,
                   help="with --controller-play bot: seconds between a hand's actions (default "
                   "0.3 in a terminal, 0 otherwise)")
    p.add_argument("--headless", action="store_true",
                   help="no commentary and no browser: the live terminal view instead")
    p.add_argument("--json", action="store_true",
                   help="print a machine-readable summary: one line of JSON (seats 1-based)")
    p.add_argument("-v", "--verbose", action="store_true", help="log what the daemon does")
    add_display_args(p)
    p.set_defaults(func=run)


# ---- the displays (dialbox.displays; docs/displays.md) ---------------------------------------

def add_display_args(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("displays")
    g.add_argument("--screen-host", default="127.0.0.1",
                   help="address of the table screen (0.0.0.0: reachable from a phone)")
    g.add_argument("--screen-port", type=int, default=0, help="port (default: any free port)")
    g.add_argument("--pace", type=float, default=None,
                   help="hold each lock/reveal on screen (1.0: table pace, 0: as fast as the "
                        "game runs; default 1.0 in a terminal, 0 otherwise). Paced, the "
                        "screen shows the whole game after the simulated one has ended: the "
                        "demo says so and how long is left (Ctrl-C stops)")
    g.add_argument("--linger", type=float, default=None,
                   help="seconds to keep showing the final scores (default 15 in a terminal)")
    g.add_argument("--no-browser", action="store_true", help="only print the screen's URL")
    g.add_argument("--no-displays", action="store_true", help="no table screen, strip or view")


async def with_displays(args: argparse.Namespace, play: Any) -> Any:
    """Run `play(on_runner)` with the table screen, LED strip and terminal view following."""
    import webbrowser

    from dialbox.displays.show import TableDisplays

    watched = sys.stdout.isatty()
    pace = args.pace if args.pace is not None else (1.0 if watched else 0.0)
    linger = args.linger if args.linger is not None else (15.0 if watched else 0.0)
    async with TableDisplays(pace=pace, host=args.screen_host, port=args.screen_port,
                             terminal=args.headless) as shown:
        print(f"table screen: {shown.url}", flush=True)
        if watched and not args.headless and not args.no_browser and (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            webbrowser.open(shown.url or "")
        result = await play(shown.attach)
        await replay_told(shown)
        if linger > 0:
            print(f"showing the final scores for {linger:.0f} s (Ctrl-C to stop)", flush=True)
            await asyncio.sleep(linger)
        return result


REPLAY_NEWS = 30.0
"""Seconds between the lines that say how much of the game the screen has still to show."""


def replay_left(shown: Any) -> float | None:
    """Seconds the table screen still needs to show what the game has already played, at its
    pace (None if unknown): each queued moment's hold (dialbox.displays.tablefeed.HOLD)."""
    from dialbox.displays.tablefeed import HOLD

    follower = shown.follower
    queue = getattr(follower, "_queue", None)
    if follower is None or queue is None:
        return None
    latest = shown.feed.latest.reveal
    last = latest.pid if latest is not None else None
    seconds = 0.0
    for view in list(queue):
        kind = "other"
        if view.prompt is not None and view.prompt.phase == "alllocked":
            kind = "alllocked"
        elif view.reveal is not None and view.reveal.pid != last:
            last = view.reveal.pid
            kind = "reveal" if view.reveal.sealed else "answer"
        seconds += HOLD[kind] * follower.pace
    return seconds


def duration(seconds: float) -> str:
    """"3 min 20 s", "45 s"."""
    s = max(1, round(seconds))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


async def replay_told(shown: Any) -> None:
    """Wait until the table screen has shown the whole game, saying what is going on: the
    simulated game is over, the screen replays it at its pace, how long that takes, and how
    to stop it (re-raises what stopped the screen's follower)."""
    done = asyncio.ensure_future(shown.caught_up())
    try:
        await asyncio.wait({done}, timeout=0.2)
        if not done.done():
            pace = getattr(shown.follower, "pace", 1.0)
            left = replay_left(shown)
            about = f", about {duration(left)} left" if left else ""
            print(f"the game is over; the table screen is still replaying it at "
                  f"{'table pace' if pace == 1 else f'pace {pace:g}'}{about}. Ctrl-C stops "
                  "(--pace 0: no replay).", flush=True)
        while not done.done():
            await asyncio.wait({done}, timeout=REPLAY_NEWS)
            if not done.done():
                left = replay_left(shown)
                print(f"replaying{f': about {duration(left)} left' if left else ''} "
                      "(Ctrl-C stops)", flush=True)
    finally:
        if not done.done():
            done.cancel()
        await asyncio.gather(done, return_exceptions=True)
    done.result()


def default_players(counts: tuple[int, ...]) -> int:
    """A demo table's size: 4 where the game seats 4, else its smallest (PIP Cycle: 2)."""
    return 4 if 4 in counts else min(counts)


def check_args(args: argparse.Namespace) -> None:
    """Everything the demo can check before it starts anything (Failure: one line): the
    game and its table size, counts and seconds, the broker, the screen's address."""
    from dialbox.cli import Failure, check_listen
    from dialbox.daemon.embedded import demo_broker
    from dialbox.engine.errors import EngineError
    from dialbox.engine.registry import game_info

    try:
        info = game_info(args.game)  # "unknown game 'x'; known games: ..."
        if args.players is None:
            args.players = default_players(info.players)
        info.check_players(args.players)  # "pipcycle is for 2-3 players, not 4"
        info.seats({"players": args.players, "seed": args.seed or 0})
    except EngineError as e:
        raise Failure(str(e)) from None
    if args.controllers is not None and args.controllers < 0:
        raise Failure(f"--controllers {args.controllers}: simulated controllers, 0 or more")
    for flag, value in (("--hand-pause", args.hand_pause), ("--pace", args.pace),
                        ("--linger", args.linger)):
        if value is not None and not value >= 0:
            raise Failure(f"{flag} {value}: seconds, 0 or more")
    if args.transport == "mqtt":
        try:
            demo_broker(args.broker)
        except RuntimeError as e:
            raise Failure(str(e)) from None
    if not (args.json or args.no_displays):
        check_listen(args.screen_host, args.screen_port, "--screen-port")


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import FAILED, Failure
    from dialbox.daemon.embedded import run_demo
    from dialbox.engine.errors import EngineError

    check_args(args)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(message)s")
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(2), "big")
    shown: set[int] = set()

    def commentary(state: dict[str, Any]) -> None:
        rev = state.get("revealed")
        if rev and rev["pid"] not in shown:
            shown.add(rev["pid"])
            picks = ", ".join(f"seat {s + 1}: {label}" for s, label in rev["choices"])
            print(f"reveal {len(shown):3d}  {picks}  |  {rev['summary']}", flush=True)

    quiet = args.headless or args.json
    hand_pause = args.hand_pause if args.hand_pause is not None else (
        0.3 if sys.stdout.isatty() and not args.json else 0.0)

    async def play(on_runner: Any = None) -> Any:
        return await run_demo(
            game=args.game, players=args.players, controllers=args.controllers, seed=seed,
            transport=args.transport, runtime=args.runtime, broker=args.broker,
            on_state=None if quiet else commentary, on_runner=on_runner,
            controller_play=args.controller_play, hand_pause=hand_pause,
        )

    try:
        if args.json or args.no_displays:
            summary = asyncio.run(play())
        else:
            summary = asyncio.run(with_displays(args, play))
    except (EngineError, RuntimeError, TimeoutError) as e:
        raise Failure(str(e), FAILED) from None
    except KeyboardInterrupt:  # everything is stopped by now: say so once (status 130)
        print("dialbox demo: stopped (Ctrl-C)", file=sys.stderr, flush=True)
        raise
    out = summary.to_json()
    if args.json:
        print(json.dumps(out, separators=(",", ":")))
    else:
        result = summary.result or {}
        print(f"{summary.game}: game over after {summary.prompts} decisions in "
              f"{summary.seconds:.1f} s ({summary.transport}, {summary.runtime} controllers, "
              f"seed {seed}). {result.get('text', '')}")
        if summary.voided:
            print(f"({len(summary.voided)} prompts voided and asked again: "
                  f"{summary.voided[0]})")
        if summary.restarts:
            print(f"(simulated controllers powered on again after their firmware stopped: "
                  f"{', '.join(summary.restarts)})")
    return 0 if summary.result is not None else FAILED
