"""`dialbox run --config FILE`: the host daemon itself."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import signal
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "run", help="run the host daemon from a TOML config file",
        description="Runs the host daemon: serial hot-plug, MQTT, tables and the journal. "
        "`dialbox run --example` prints a commented config to start from.",
    )
    p.add_argument("--config", "-c", help="the daemon's TOML config file")
    p.add_argument("--example", action="store_true", help="print an example config and exit")
    p.add_argument("--check", action="store_true", help="validate the config and exit")
    p.set_defaults(func=run)


async def show_tables(stack: contextlib.AsyncExitStack, daemon: Any, config: Any) -> None:
    """The displays (dialbox.displays) of every table: screens on consecutive ports; the
    LED strip and the terminal view follow the first table."""
    from dialbox.displays.ledstrip import LedStripConfig
    from dialbox.displays.show import TableDisplays

    d = config.display
    for i, (name, runner) in enumerate(daemon.runners.items()):
        strip = config.ledstrip if i == 0 else LedStripConfig(backend="none")
        terminal = d.terminal and i == 0
        if not (d.web or terminal or strip.backend != "none"):
            continue  # nothing shows this table: its runner computes no display states
        shown = await stack.enter_async_context(TableDisplays(
            pace=d.pace, ledstrip=strip, host=d.host, port=d.port + i if d.port else 0,
            web=d.web, terminal=terminal))
        shown.attach(runner)
        if shown.url:
            print(f"{name}: table screen at {shown.url}", flush=True)


def run(args: argparse.Namespace) -> int:
    from dialbox.daemon import ConfigError, Daemon, load_config
    from dialbox.daemon.config import EXAMPLE
    from dialbox.engine.errors import EngineError
    from dialbox.journal import JournalError
    from dialbox.sessions.keys import KeyStoreError

    if args.example:
        print(EXAMPLE, end="")
        return 0
    if not args.config:
        print("dialbox run: --config FILE is required (see `dialbox run --example`)",
              file=sys.stderr)
        return 2
    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"dialbox run: {e}", file=sys.stderr)
        return 2
    if args.check:
        print(f"{args.config}: ok ({len(config.tables)} table(s))")
        return 0
    logging.basicConfig(level=config.host.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    async def main() -> None:
        daemon = Daemon(config)
        # Everything made so far (modules, schemas, tables) lives as long as the daemon:
        # frozen, it is no longer walked by each full collection (a 60-70 ms pause at 200
        # tables without this; docs/host.md).
        gc.collect()
        gc.freeze()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, daemon.stop)
        async with contextlib.AsyncExitStack() as displays:
            await show_tables(displays, daemon, config)
            await daemon.run()

    try:
        asyncio.run(main())
    except (EngineError, JournalError, KeyStoreError) as e:
        print(f"dialbox run: {e}", file=sys.stderr)
        return 1
    return 0
