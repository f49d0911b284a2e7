"""`dialbox run --config FILE`: the host daemon itself, in this process or, with several
worker processes, as their supervisor (`dialbox.daemon.workers`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import logging
import signal
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialbox.daemon.config import DaemonConfig
    from dialbox.displays.show import TableDisplays


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "run", help="run the host daemon from a TOML config file",
        description="Runs the host daemon: serial hot-plug, MQTT, tables and the journal. "
        "`dialbox run --example` prints a commented config to start from. With several "
        "worker processes the tables are spread over them (docs/host.md, \"Worker "
        "processes\").",
    )
    p.add_argument("--config", "-c", help="the daemon's TOML config file")
    p.add_argument("--example", action="store_true", help="print an example config and exit")
    p.add_argument("--check", action="store_true", help="validate the config and exit")
    p.add_argument("--workers", "-w", metavar="N", default=None,
                   help="worker processes to spread the tables over (default: [host] "
                   "workers, else one per core with [mqtt] and 1 without; never more than "
                   "tables; 1 runs everything in this process)")
    # a worker started by the supervisor (dialbox.daemon.workers), never by hand
    p.add_argument("--worker", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--channel", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--parent", type=int, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=run)


def shown_tables(config: DaemonConfig) -> list[str]:
    """The tables some display shows: every table has a screen; the LED strip and the
    terminal view follow the first table."""
    d = config.display
    out = []
    for i, t in enumerate(config.tables):
        strip = i == 0 and config.ledstrip.backend != "none"
        if d.web or (d.terminal and i == 0) or strip:
            out.append(t.name)
    return out


async def open_displays(stack: contextlib.AsyncExitStack,
                        config: DaemonConfig) -> dict[str, TableDisplays]:
    """The displays (dialbox.displays) of every shown table, started: screens on consecutive
    ports; the LED strip and the terminal view of the first table."""
    from dialbox.displays.ledstrip import LedStripConfig
    from dialbox.displays.show import TableDisplays

    d = config.display
    shown = set(shown_tables(config))
    out: dict[str, TableDisplays] = {}
    for i, t in enumerate(config.tables):
        if t.name not in shown:
            continue  # nothing shows this table: its runner computes no display states
        strip = config.ledstrip if i == 0 else LedStripConfig(backend="none")
        out[t.name] = await stack.enter_async_context(TableDisplays(
            pace=d.pace, ledstrip=strip, host=d.host, port=d.port + i if d.port else 0,
            web=d.web, terminal=d.terminal and i == 0))
        if out[t.name].url:
            print(f"{t.name}: table screen at {out[t.name].url}", flush=True)
    return out


async def show_tables(stack: contextlib.AsyncExitStack, daemon: Any,
                      config: DaemonConfig) -> None:
    """The displays of every table of an in-process daemon, following its runners."""
    runners: Mapping[str, Any] = daemon.runners
    for name, shown in (await open_displays(stack, config)).items():
        shown.attach(runners[name])


def run(args: argparse.Namespace) -> int:
    if args.worker is not None:
        from dialbox.daemon.workers import worker_main

        if args.channel is None or args.parent is None:
            print("dialbox run: --worker is started by `dialbox run` itself", file=sys.stderr)
            return 2
        return worker_main(args.worker, args.channel, args.parent)

    from dialbox.daemon import ConfigError, Daemon, load_config
    from dialbox.daemon.config import EXAMPLE
    from dialbox.daemon.workers import parse_workers, plan_workers
    from dialbox.engine.errors import EngineError
    from dialbox.journal import JournalError
    from dialbox.sessions.keys import KeyStoreError

    if args.example:
        print(EXAMPLE, end="")
        return 0
    requested = None
    if args.workers is not None:
        try:
            requested = parse_workers(args.workers)
        except ValueError as e:
            print(f"dialbox run: {e}", file=sys.stderr)
            return 2
    if not args.config:
        print("dialbox run: --config FILE is required (see `dialbox run --example`)",
              file=sys.stderr)
        return 2
    try:
        config = load_config(args.config)
    except ConfigError as e:
        print(f"dialbox run: {e}", file=sys.stderr)
        return 2
    workers, note = plan_workers(config, requested)
    if note:
        print(f"dialbox run: {note}", file=sys.stderr)
    if args.check:
        print(f"{args.config}: ok ({len(config.tables)} table(s))")
        return 0
    logging.basicConfig(level=config.host.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if workers > 1:
        return supervise(args.config, config, workers)

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


def supervise(path: str, config: DaemonConfig, workers: int) -> int:
    """The tables spread over `workers` processes; the displays here, fed by them."""
    from dialbox.daemon import ConfigError
    from dialbox.daemon.workers import RemoteTable, Supervisor, config_data, prepare
    from dialbox.journal import JournalError
    from dialbox.sessions.keys import KeyStoreError

    try:
        data = config_data(path, config)
    except ConfigError as e:
        print(f"dialbox run: {e}", file=sys.stderr)
        return 2
    try:
        prepare(config)
    except (JournalError, KeyStoreError) as e:
        print(f"dialbox run: {e}", file=sys.stderr)
        return 1

    async def main() -> int:
        supervisor = Supervisor(config, data, workers, follow=shown_tables(config))
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, supervisor.stop)
        async with contextlib.AsyncExitStack() as displays:
            for name, shown in (await open_displays(displays, config)).items():
                def attach(remote: RemoteTable, shown: TableDisplays = shown) -> None:
                    shown.attach(remote)  # once its worker reported its first state

                supervisor.remotes[name].on_first = attach
            return await supervisor.run()

    return asyncio.run(main())
