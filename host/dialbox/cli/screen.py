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
    p.add_argument("--players", type=int, default=4)
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
    from dialbox.displays.feed import PublicFeed
    from dialbox.displays.rehearsal import Rehearsal
    from dialbox.displays.show import Displays

    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(2), "big")

    async def main() -> int:
        feed = PublicFeed()
        rehearsal = Rehearsal(feed, args.rehearse, players=args.players, seed=seed,
                              pace=args.pace, controllers=args.players,
                              drop_seat=None if args.no_hiccup else 1, table="rehearsal")
        async with Displays(feed, host=args.host, port=args.port,
                            terminal=args.headless) as shown:
            print(f"table screen: {shown.url}   (rehearsal of {args.rehearse}, seed {seed})",
                  flush=True)
            result = await rehearsal.run()
            if result is not None and not args.headless:
                print(result.text, flush=True)
            await asyncio.sleep(args.linger)
        return 0

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        return 130
