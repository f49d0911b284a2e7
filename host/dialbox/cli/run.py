"""`dialbox run --config FILE`: the host daemon itself, in this process or, with several
worker processes, as their supervisor (`dialbox.daemon.workers`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import logging
import os
import signal
import sys
from collections.abc import Mapping
from pathlib import Path
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
            web=d.web, terminal=d.terminal and i == 0, journal=config.host.journal))
        if out[t.name].url:
            print(f"{t.name}: table screen at {out[t.name].url}", flush=True)
    return out


async def show_tables(stack: contextlib.AsyncExitStack, daemon: Any,
                      config: DaemonConfig) -> None:
    """The displays of every table of an in-process daemon, following its runners."""
    runners: Mapping[str, Any] = daemon.runners
    for name, shown in (await open_displays(stack, config)).items():
        shown.attach(runners[name])


def _can_write(path: Path, what: str) -> None:
    """Failure unless this user can write `path`, or create it (and its directories)."""
    from dialbox.cli import Failure

    path = path.absolute()
    if path.exists():
        if path.is_dir():
            raise Failure(f"{what} {path} is a directory")
        if not os.access(path, os.R_OK | os.W_OK):
            raise Failure(f"{what} {path}: this user cannot write it")
        return
    there = next(d for d in path.parents if d.exists())
    if not there.is_dir():
        raise Failure(f"cannot create {what} {path}: {there} is not a directory")
    if not os.access(there, os.W_OK | os.X_OK):
        raise Failure(f"cannot create {what} {path}: this user cannot write in {there} "
                      f"(create {path.parent} for it first)")


def preflight(config: DaemonConfig, starting: bool = True) -> None:
    """Everything `dialbox run` can check before it writes anything, the first problem as a
    Failure (one line). The config and this machine (`--check` too): each table's game set
    up with its options and bot, the LED strip's backend, the broker's CA file. Then, when
    `starting` (not for `--check`, which may run beside the daemon, as another user), what
    this start needs now: the table screens' ports free, the journal's place writable, the
    device key store readable."""
    from dialbox.cli import Failure, check_listen
    from dialbox.daemon import ConfigError
    from dialbox.displays.ledstrip import StripUnavailable, check_backend
    from dialbox.sessions.keys import KeyStore, KeyStoreError

    try:
        for t in config.tables:
            t.check()
    except ConfigError as e:
        raise Failure(str(e)) from None
    try:
        check_backend(config.ledstrip)
    except StripUnavailable as e:
        raise Failure(str(e)) from None
    m = config.mqtt
    if m is not None and m.tls_ca and not os.path.isfile(m.tls_ca):
        raise Failure(f"[mqtt] tls_ca {m.tls_ca}: no such file")
    if not starting:
        return
    d = config.display
    if d.web:
        shown = set(shown_tables(config))
        for i, t in enumerate(config.tables):
            if t.name in shown:
                check_listen(d.host, d.port + i if d.port else 0,
                             f"[display] port of table {t.name}:", f"the table screen of {t.name}")
    _can_write(Path(config.host.journal), "the journal")
    try:
        KeyStore(config.host.keys_path()).load()
    except KeyStoreError as e:
        raise Failure(str(e)) from None
    if m is not None and m.tls_ca and not os.access(m.tls_ca, os.R_OK):
        raise Failure(f"[mqtt] tls_ca {m.tls_ca}: this user cannot read it")


def note_missing_ports(config: DaemonConfig) -> None:
    """Say once, in one log line, which configured serial ports match nothing yet (they may
    appear later: the daemon opens a controller when it is plugged in)."""
    if not config.serial.enabled:
        return
    missing = [p for p in config.serial.ports
               if not (glob.glob(p) if glob.has_magic(p) else os.path.exists(p))]
    if missing:
        logging.getLogger("dialbox.daemon").warning(
            "serial: %s %s nothing yet (a controller plugged in later is opened when it "
            "appears)", ", ".join(missing), "matches" if len(missing) == 1 else "match")


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import FAILED, Failure
    from dialbox.cli import config as load_config

    if args.worker is not None:
        from dialbox.daemon.workers import worker_main

        if args.channel is None or args.parent is None:
            raise Failure("--worker is started by `dialbox run` itself")
        return worker_main(args.worker, args.channel, args.parent)

    from dialbox.daemon import Daemon, settle_collector
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
            raise Failure(str(e)) from None
    if not args.config:
        raise Failure("--config FILE is required (see `dialbox run --example`)")
    config = load_config(args.config)
    preflight(config, starting=not args.check)
    workers, note = plan_workers(config, requested)
    if note:
        print(f"dialbox run: {note}", file=sys.stderr)
    if args.check:
        print(f"{args.config}: ok ({len(config.tables)} table(s))")
        return 0
    logging.basicConfig(level=config.host.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    note_missing_ports(config)
    if workers > 1:
        return supervise(args.config, config, workers)

    async def main() -> None:
        daemon = Daemon(config)
        # Everything made so far (modules, schemas, tables) lives as long as the daemon:
        # frozen, it is no longer walked by each full collection (a 60-70 ms pause at 200
        # tables without this; docs/host.md), and full collections come further apart.
        settle_collector()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, daemon.stop)
        async with contextlib.AsyncExitStack() as displays:
            await show_tables(displays, daemon, config)
            await daemon.run()

    try:
        asyncio.run(main())
    except (EngineError, JournalError, KeyStoreError) as e:
        raise Failure(str(e), FAILED) from None
    return 0


def supervise(path: str, config: DaemonConfig, workers: int) -> int:
    """The tables spread over `workers` processes; the displays here, fed by them."""
    from dialbox.cli import FAILED, Failure
    from dialbox.daemon import ConfigError
    from dialbox.daemon.workers import RemoteTable, Supervisor, config_data, prepare
    from dialbox.journal import JournalError
    from dialbox.sessions.keys import KeyStoreError

    try:
        data = config_data(path, config)
    except ConfigError as e:
        raise Failure(str(e)) from None
    try:
        prepare(config)
    except (JournalError, KeyStoreError) as e:
        raise Failure(str(e), FAILED) from None

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
