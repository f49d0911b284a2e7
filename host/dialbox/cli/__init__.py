"""The `dialbox` command line: one sub-command per module in this package."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from dialbox import __version__

# Each module defines add_parser(subparsers) and sets a `func(args) -> int` default.
_COMMAND_MODULES = (
    "dialbox.cli.broker",
    "dialbox.cli.demo",
    "dialbox.cli.devices",
    "dialbox.cli.run",
    "dialbox.cli.protocol",
    "dialbox.cli.play",
    "dialbox.cli.screen",
    "dialbox.cli.sim",
    "dialbox.cli.firmware",
    "dialbox.cli.audit",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dialbox",
        description="Controllers and host daemon for simultaneous secret-choice board games.",
    )
    parser.add_argument("--version", action="version", version=f"dialbox {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    result: int = func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
