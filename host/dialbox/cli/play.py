"""`dialbox play GAME`: any registered game in the terminal, humans at the keyboard and bots."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.pretty import Pretty

from dialbox.engine import (
    Ask,
    EngineError,
    Event,
    Game,
    IllegalChoice,
    Selection,
    game_names,
)
from dialbox.engine.bots import Bot, LegalAnswers, SeatView
from dialbox.engine.registry import ALIASES, canonical_name, game_info

WHEEL_NAMES = ("left", "centre", "right")


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "play",
        help="play a game in the terminal: humans at the keyboard and bots, no hardware",
        description=(
            "Play a game in the terminal. Humans take the first seats and type one face label "
            "per active wheel (e.g. 'E 3': arrow E, distance 3); '?' lists the legal answers. "
            "Bots take the other seats and see only their own seat's view."
        ),
    )
    p.add_argument("game", type=canonical_name,
                   help=f"which game: {', '.join(game_names())} (also spelt: "
                   f"{', '.join(sorted(ALIASES))})")
    p.add_argument("--humans", type=int, default=1, help="players at the keyboard (default 1)")
    p.add_argument("--bots", type=int, default=None,
                   help="bot players (default 3, or fewer if the game seats fewer players)")
    p.add_argument("--bot", default=None,
                   help="bot kind: random, or one the game offers (default: heuristic if the "
                   "game has one, else random)")
    p.add_argument("--seed", type=int, default=0, help="game and bot seed (default 0)")
    p.add_argument("--variant", default=None, help="game variant, e.g. short")
    p.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                   help="a game option, e.g. -o layout=random (repeatable)")
    p.add_argument("--watch", action="store_true", help="draw the table after every decision")
    p.add_argument("--save", type=Path, default=None,
                   help="write the game here (JSON) when it ends or a player quits")
    p.add_argument("--position", type=Path, default=None, metavar="FILE",
                   help="start from a position (JSON, the game's documented position format) "
                   "instead of the usual setup")
    p.add_argument("--load", type=Path, default=None,
                   help="resume a game written by --save: its players, seed and options come "
                   "from the file; --humans says how many of its seats are at the keyboard")
    p.set_defaults(func=run)


def parse_options(args: argparse.Namespace) -> dict[str, Any]:
    options: dict[str, Any] = {"players": args.humans + args.bots, "seed": args.seed}
    if args.variant is not None:
        options["variant"] = args.variant
    for item in args.option:
        key, sep, value = item.partition("=")
        if not sep:
            raise EngineError(f"--option wants KEY=VALUE, not {item!r}")
        options[key.strip()] = value
    return options


class Table:
    """One terminal game: the engine, the bots, the humans' keyboard and the screen."""

    def __init__(
        self,
        game: Game,
        humans: Sequence[int],
        bots: Mapping[int, Bot],
        console: Console,
        draw: Callable[[Mapping[str, Any]], RenderableType] | None,
        read: Callable[[str, bool], str],
        watch: bool = False,
    ) -> None:
        self.game = game
        self.humans = set(humans)
        self.bots = bots
        self.console = console
        self.draw = draw
        self.read = read
        self.watch = watch

    def show(self, player: int | None) -> None:
        view = self.game.view(player)
        self.console.print(self.draw(view) if self.draw is not None else Pretty(view))

    def show_events(self, events: Sequence[Event]) -> None:
        """Public events; a private one only when its player is the one human at the table
        (with several humans at one keyboard, nobody's secrets are printed)."""
        only = next(iter(self.humans)) if len(self.humans) == 1 else None
        for e in events:
            if e.public or (only is not None and e.to == only):
                self.console.print(f"  [cyan]•[/] {e.text}")

    def ask_human(self, ask: Ask) -> Selection | None:
        """Read one legal selection from the keyboard; None if the player quits."""
        player = ask.answerer
        seat_note = "" if ask.player is None else f" (controller of seat {ask.seat + 1})"
        self.console.print(f"[bold]Seat {player + 1}{seat_note}:[/] {ask.text}")
        for pos, wheel in enumerate(ask.wheels):
            if wheel is not None:
                labels = " ".join(wheel.faces[i].label for i in wheel.choices)
                self.console.print(f"  {WHEEL_NAMES[pos]} wheel: {labels}")
        secret = self.game.pending is not None and self.game.pending.sealed
        while True:
            line = self.read("  your choice (? lists, q quits): ", secret).strip()
            if line.lower() in ("q", "quit"):
                return None
            if line == "?":
                legal = list(self.game.legal(ask))
                self.console.print("  " + ", ".join(self.describe(ask, s) for s in legal[:60]))
                continue
            try:
                sel = self.parse(ask, line)
                self.game.check(ask, sel)
            except (ValueError, IllegalChoice) as e:
                reason = e.reason if isinstance(e, IllegalChoice) else str(e)
                self.console.print(f"  [red]{reason}[/]", soft_wrap=True)
                continue
            return sel

    @staticmethod
    def describe(ask: Ask, sel: Selection) -> str:
        return " ".join(
            w.faces[sel[i]].label for i, w in enumerate(ask.wheels) if w is not None
        )

    @staticmethod
    def parse(ask: Ask, line: str) -> Selection:
        """One face label per active wheel, in wheel order; a label may hold spaces
        ("turn L", "FLFF crash"): the longest label that fits is tried first."""
        words = line.lower().split()
        active = [i for i, w in enumerate(ask.wheels) if w is not None]
        names = " and ".join(WHEEL_NAMES[i] for i in active)

        def faces(pos: int, at: int) -> list[tuple[int, int]]:
            """(words taken, face) of each face of wheel `pos` spelt from words[at:]."""
            wheel = ask.wheels[pos]
            assert wheel is not None
            out = []
            for i, f in enumerate(wheel.faces):
                spelt = f.label.lower().split()
                if spelt and words[at:at + len(spelt)] == spelt:
                    out.append((len(spelt), i))
            return sorted(out, key=lambda t: -t[0])

        def read(k: int, at: int) -> list[int] | None:
            if k == len(active):
                return [] if at == len(words) else None
            for n, i in faces(active[k], at):
                rest = read(k + 1, at + n)
                if rest is not None:
                    return [i, *rest]
            return None

        found = read(0, 0)
        if found is None:  # say where: the first word no face of its wheel spells
            at = 0
            for pos in active:
                if at >= len(words):
                    break
                took = faces(pos, at)
                if not took:
                    raise ValueError(f"{line.split()[at]!r} is not a face of the "
                                     f"{WHEEL_NAMES[pos]} wheel")
                at += took[0][0]
            raise ValueError(f"type one face for each active wheel: {names}")
        sel = [-1, -1, -1]
        for pos, i in zip(active, found, strict=True):
            sel[pos] = i
        return (sel[0], sel[1], sel[2])

    def play(self) -> bool:
        """Run to the end; False if a human quit."""
        game = self.game
        self.show_events(game.events)
        first = game.pending
        if self.watch or first is None or all(a.answerer not in self.humans for a in first.asks):
            self.show(None)
        while True:
            d = game.pending
            if d is None:
                break
            if any(a.answerer in self.humans for a in d.asks) and not self.watch:
                self.show(next(a.answerer for a in d.asks if a.answerer in self.humans))
            events: list[Event] | None = None
            for ask in d.asks:
                player = ask.answerer
                if player in self.humans:
                    sel = self.ask_human(ask)
                    if sel is None:
                        return False
                else:
                    sel = self.bots[player].choose(
                        SeatView(game, player), ask, LegalAnswers(game, ask)
                    )
                events = game.stage(ask.seat, sel)
            self.show_events(events or [])
            if self.watch:
                self.show(None)
        if not self.watch:
            self.show(None)
        if game.result is not None:
            self.console.print(f"[bold green]{game.result.text}[/]")
        return True


def _read(console: Console) -> Callable[[str, bool], str]:
    """A line from the keyboard (or a pipe); EOFError at the end of input."""
    def read(prompt: str, secret: bool) -> str:
        if not sys.stdin.isatty():
            console.print(prompt, end="")
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line
        return console.input(prompt, password=secret)

    return read


def _load(cls: type[Game], path: Path) -> Game:
    """The game saved at `path`, replayed (EngineError with the reason if it cannot be)."""
    data = _read_json(path, "saved game")
    try:
        return cls.from_json(data)
    except (KeyError, TypeError, ValueError) as e:
        raise EngineError(f"{path} is not a saved game ({type(e).__name__}: {e})") from None


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except OSError as e:
        raise EngineError(f"cannot read {path}: {e.strerror or e}") from None
    except ValueError as e:
        raise EngineError(f"{path} is not a {what} (not JSON: {e})") from None
    if not isinstance(data, dict):
        raise EngineError(f"{path} is not a {what} (a JSON object)")
    return data


def _default_bots(players: tuple[int, ...], humans: int) -> int:
    """3 bots, or fewer when the game seats fewer players than the humans and 3 bots."""
    fits = [n - humans for n in players if humans <= n <= humans + 3]
    return max(fits) if fits else 3


def _check_save(path: Path) -> None:
    """Failure now, before the game, if --save could not be written at its end."""
    import os

    from dialbox.cli import Failure

    if path.is_dir():
        raise Failure(f"--save {path}: is a directory")
    there = path.absolute().parent
    if not there.is_dir():
        raise Failure(f"--save {path}: no directory {there}")
    if not os.access(there, os.W_OK | os.X_OK) or (path.exists()
                                                  and not os.access(path, os.W_OK)):
        raise Failure(f"--save {path}: this user cannot write there")


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import FAILED, Failure

    console = Console(highlight=False)
    if args.save is not None:
        _check_save(args.save)
    try:
        info = game_info(args.game)  # "unknown game 'x'; known games: ..." in one line
        if args.bots is None:
            args.bots = _default_bots(info.players, args.humans)
        if args.humans < 0 or args.bots < 0:
            raise Failure("--humans and --bots count players: 0 or more")
        cls: type[Game] = info.game
        bot = info.bot(args.bot)
        if args.load is not None:
            game = _load(cls, args.load)
        else:
            info.check_players(args.humans + args.bots)  # "pipcycle is for 2-3 players, not 4"
            if args.position is not None:
                game = cls.from_position(parse_options(args),
                                         _read_json(args.position, "position"))
            else:
                game = cls(parse_options(args))
    except EngineError as e:
        raise Failure(str(e)) from None
    if args.load is not None:
        console.print(f"resumed {args.load}: {len(game.log)} decision(s) replayed")
    humans = list(range(min(args.humans, game.options.players)))
    seats = range(len(humans), game.options.players)
    bots = {s: bot(args.seed * 100 + s) for s in seats}
    table = Table(game, humans, bots, console, info.draw, _read(console), args.watch)
    try:
        finished, ended = table.play(), False
    except EOFError:
        finished, ended = False, True
    if not finished and not sys.stdin.isatty():
        console.print()  # (what was typed is not echoed: the prompt's line ends here)
    if args.save is not None:
        args.save.write_text(json.dumps(game.to_json(), indent=1))
        console.print(f"saved to {args.save}", soft_wrap=True)
    if ended:
        raise Failure(f"end of input: the game stops after {len(game.log)} decision(s)"
                      f"{' (saved)' if args.save is not None else ''}", FAILED)
    if not finished:
        console.print(f"goodbye: you left the game after {len(game.log)} decision(s)"
                      f"{'' if args.save is not None else ' (--save FILE keeps a game)'}",
                      soft_wrap=True)
    return 0
