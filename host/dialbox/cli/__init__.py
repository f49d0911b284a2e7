"""The `dialbox` command line: one sub-command per module in this package.

Bad input never ends in a traceback: every sub-command says what is wrong in one line on
stderr, `dialbox <command>: <what is wrong>`, and exits with status 2 (bad arguments, files
or config: nothing was started) or 1 (it started and failed). argparse's own errors are one
line too (`Parser.error`). A closed stdout (`dialbox protocol --table | head -5`) ends the
command quietly, as Unix tools do (status 141, 128 + SIGPIPE); Ctrl-C ends it with 130.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from dialbox import __version__

if TYPE_CHECKING:
    from dialbox.daemon.config import DaemonConfig

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
    "dialbox.cli.hardware",
    "dialbox.cli.audit",
    "dialbox.cli.history",
)

BAD_INPUT = 2
"""Exit status of bad arguments, files or config (nothing was started)."""
FAILED = 1
"""Exit status of a command that started and failed."""
INTERRUPTED = 130
BROKEN_PIPE = 141


class Failure(Exception):
    """Bad input or a failure a sub-command reports in one line: `main` prints
    `<prog>: <message>` on stderr and exits with `status`."""

    def __init__(self, message: str, status: int = BAD_INPUT) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def one_line(text: str) -> str:
    """A message of several lines (a config's list of problems) as one line."""
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    lines = [line.replace("Value error, ", "") for line in lines]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    head, rest = lines[0], lines[1:]
    if head.endswith(":"):
        return f"{head} {'; '.join(rest)}"
    return "; ".join(lines)


def config(path: str | Path) -> DaemonConfig:
    """The daemon's config file, loaded and validated (Failure: one line naming the place)."""
    from dialbox.daemon import ConfigError, load_config

    try:
        return load_config(path)
    except ConfigError as e:
        raise Failure(str(e)) from None
    except UnicodeDecodeError as e:
        raise Failure(f"{path}: not a text file ({e.reason} at byte {e.start})") from None


def check_listen(host: str, port: int, port_flag: str = "--port",
                 what: str = "the table screen") -> None:
    """Failure unless `what` could listen on host:port (bound as TableScreen binds)."""
    if not 0 <= port <= 65535:
        raise Failure(f"{port_flag} {port}: not a port (0-65535; 0: any free port)")
    try:
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    except OSError as e:
        raise Failure(f"{what} cannot listen on {host} ({e.strerror or e})") from None
    with sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except socket.gaierror as e:
            raise Failure(f"{what} cannot listen on {host!r}: unknown address "
                          f"({e.strerror or e})") from None
        except OSError as e:
            reason = ("in use by another program" if e.errno == errno.EADDRINUSE
                      else e.strerror or str(e))
            raise Failure(f"{what} cannot listen on {host}:{port} ({reason})") from None


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `dialbox <cmd>: <message> (see dialbox <cmd> --help)`."""

    def error(self, message: str) -> NoReturn:
        for action in self._actions:
            name = action.metavar
            if isinstance(action, argparse._SubParsersAction) and isinstance(name, str) and (
                    message == f"the following arguments are required: {name}"):
                message = (f"which {name.lower()}? "
                           f"{', '.join(sorted(set(action.choices)))}")
        self.exit(BAD_INPUT, f"{self.prog}: {one_line(message)} (see {self.prog} --help)\n")


def _own_parsers(parser: argparse.ArgumentParser) -> None:
    """Each sub-command's parser becomes `args._parser`, for one-line messages named after
    the command (`dialbox firmware deploy: ...`); a group of sub-commands (`dialbox
    firmware`, `dialbox broker`) needs one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            if parser.prog != "dialbox":
                action.required = True
            for child in action.choices.values():
                child.set_defaults(_parser=child)
                _own_parsers(child)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="dialbox",
        description="Controllers and host daemon for simultaneous secret-choice board games.",
    )
    parser.add_argument("--version", action="version", version=f"dialbox {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _COMMAND_MODULES:
        importlib.import_module(name).add_parser(sub)
    _own_parsers(parser)
    return parser


def _quiet_stdout() -> None:
    """stdout's reader has gone: nothing more is written there (nor at exit)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _say(prog: str, message: str) -> None:
    try:
        print(f"{prog}: {one_line(message)}", file=sys.stderr, flush=True)
    except OSError:
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    prog = parser.prog
    try:
        try:
            args, extra = parser.parse_known_args(argv)
        except SystemExit:  # --help, --version or a usage error: said, now out
            sys.stdout.flush()
            raise
        own: argparse.ArgumentParser = getattr(args, "_parser", parser)
        prog = own.prog
        if extra:
            own.error(f"unrecognized arguments: {' '.join(extra)}")
        func: Any = getattr(args, "func", None)
        if func is None:
            parser.print_help()
            return BAD_INPUT
        result: int = func(args)
        sys.stdout.flush()
        return result
    except Failure as e:
        _say(prog, e.message)
        return e.status
    except BrokenPipeError:
        _quiet_stdout()
        return BROKEN_PIPE
    except KeyboardInterrupt:
        return INTERRUPTED
    except OSError as e:  # a file or device the command could not use, named by the OS
        where = f"{e.filename}: " if e.filename else ""
        _say(prog, f"{where}{e.strerror or e}")
        return FAILED


if __name__ == "__main__":
    sys.exit(main())
