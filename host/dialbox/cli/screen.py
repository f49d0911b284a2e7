"""`dialbox screen`: the table screen, LED strip and terminal view on a rehearsal game of bots."""

from __future__ import annotations

import argparse
import asyncio
import os
from typing import Any

from dialbox.engine.registry import canonical_name


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "screen",
        help="show the displays (web screen, LED strip, terminal) on a rehearsal game of bots",
        description="Serve the table screen and play a rehearsal game with bots in every seat, "
        "so you can check the screen (e.g. Chromium in kiosk mode on the Pi's HDMI), the LED "
        "strip and the terminal view without controllers. The daemon serves the same screen "
        "for real games (`dialbox demo`, `dialbox run`).",
    )
    p.add_argument("--rehearse", default="pixoid", metavar="GAME", type=canonical_name,
                   help="the game the bots play (default: pixoid)")
    p.add_argument("--players", type=int, default=None,
                   help="players at the table (default 4, or the game's smallest count if it "
                   "cannot seat 4: PIP Cycle 2)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: random)")
    p.add_argument("--pace", type=float, default=0.5,
                   help="seconds between table moments (default: 0.5)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to serve on (0.0.0.0: every interface, for a phone or the Pi)")
    p.add_argument("--port", type=int, default=0, help="port (default: any free port)")
    p.add_argument("--headless", action="store_true",
                   help="show the live terminal view instead of only printing the URL")
    p.add_argument("--no-hiccup", action="store_true",
                   help="do not simulate a controller dropping offline for a moment")
    p.add_argument("--linger", type=float, default=30.0,
                   help="seconds to keep serving after the game ends (default: 30)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import Failure, check_listen
    from dialbox.cli.demo import default_players
    from dialbox.displays.feed import PublicFeed
    from dialbox.displays.rehearsal import Rehearsal
    from dialbox.displays.show import Displays
    from dialbox.engine.errors import EngineError
    from dialbox.engine.registry import game_info

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(2), "big")
    try:
        info = game_info(args.rehearse)  # "unknown game 'x'; known games: ..."
        if args.players is None:
            args.players = default_players(info.players)
        info.check_players(args.players)  # "pipcycle is for 2-3 players, not 4"
        feed = PublicFeed()
        rehearsal = Rehearsal(feed, args.rehearse, players=args.players, seed=seed,
                              pace=args.pace, controllers=args.players,
                              drop_seat=None if args.no_hiccup else 1, table="rehearsal")
    except EngineError as e:
        raise Failure(str(e)) from None
    for flag, value in (("--pace", args.pace), ("--linger", args.linger)):
        if not value >= 0:
            raise Failure(f"{flag} {value}: seconds, 0 or more")
    check_listen(args.host, args.port)

    async def main() -> int:
        async with Displays(feed, host=args.host, port=args.port,
                            terminal=args.headless) as shown:
            print(f"table screen: {shown.url}   (rehearsal of {args.rehearse}, seed {seed})",
                  flush=True)
            result = await rehearsal.run()
            if result is not None and not args.headless:
                print(result.text, flush=True)
            await asyncio.sleep(args.linger)
        return 0

    return asyncio.run(main())
