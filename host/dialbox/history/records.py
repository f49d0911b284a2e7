"""The games a journal holds: its tables' entries cut into segments, one record per game.

A table's journal (format 4) is a sequence of segments, each opened by a `table` entry (a
game) or a `menu` entry (the table idle in its menu, choosing the next game); a journal of
formats 1 to 3 is one game segment. The n-th game segment of a table is its game number n
(menus are not counted). Everything here only reads: the journal is opened read-only by the
callers that open it (`dialbox history`), and nothing is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from dialbox.engine.errors import EngineError
from dialbox.engine.registry import game_info
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.journal import Entry, Journal, JournalError
from dialbox.journal.entries import (
    AppliedEntry,
    NameEntry,
    OverEntry,
    Parsed,
    SeatEntry,
    TableEntry,
    parse,
)
from dialbox.runner.replay import segments

PlayerKind = Literal["controller", "bot", "empty"]


class HistoryError(LookupError):
    """A table or game the journal does not hold (the message says which ones it does)."""


@dataclass(frozen=True, slots=True)
class Segment:
    """One segment of a table's journal: a game (opened by its `table` entry) or the menu."""

    kind: Literal["game", "menu"]
    entries: tuple[Entry, ...]
    steps: tuple[Parsed, ...]
    """The entries' typed models, in order (the head first)."""
    number: int
    """A game's number at its table (1 = its first game); a menu's: the games before it."""

    @property
    def head(self) -> Parsed:
        return self.steps[0]


def split(entries: Sequence[Entry]) -> list[Segment]:
    """A table's entries (`Journal.entries(table)`) as its segments, every entry parsed
    (JournalError naming the first unreadable entry, or entries that open no segment)."""
    out: list[Segment] = []
    games = 0
    for part in segments(entries):
        first = part[0]
        if first.kind not in ("table", "menu"):
            raise JournalError(f"journal entry {first.n} of table {first.table}: the table's "
                               f"entries start with a {first.kind} entry, not its table entry")
        steps = tuple(parse(e) for e in part)
        if first.kind == "table":
            games += 1
            out.append(Segment("game", tuple(part), steps, games))
        else:
            out.append(Segment("menu", tuple(part), steps, games))
    return out


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """Who sat in one seat of a game."""

    seat: int
    colour: str
    """The seat's colour name (dialbox.engine.seats.PLAYER_COLOURS): Red, Blue..."""
    kind: PlayerKind
    uid: str | None = None
    """The controller's unique id (controllers only)."""
    name: str | None = None
    """The player's name when the game started (controllers that took one)."""

    @property
    def label(self) -> str:
        """How a listing names the player: their name, else the seat colour; bots and empty
        seats marked."""
        if self.kind == "bot":
            return f"{self.colour} (bot)"
        if self.kind == "empty":
            return f"{self.colour} (empty)"
        return self.name or self.colour

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "colour": self.colour, "kind": self.kind, "uid": self.uid,
                "name": self.name}


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game of a table, as its journal segment tells it."""

    table: str
    number: int
    """The game's number at its table (1 = the table's first game)."""
    game: str
    """The game's registered name (as journaled)."""
    title: str
    """The name players read (the game's GameInfo; the registered name if this dialbox does
    not know the game)."""
    started: float
    """The time (epoch seconds) of the game's first entry."""
    ended: float
    """The time of its last entry (the `over` entry of a finished game)."""
    how: str | None
    """How the game was chosen: "config", "menu", "rematch", "swap" (None before format 4)."""
    options: dict[str, Any]
    seed: int | None
    players: tuple[PlayerRecord, ...]
    result: dict[str, Any] | None
    """scores (seat as a string -> points), winners (seats), text; None while in progress
    (or for a game that ended without a result)."""
    finished: bool
    steps: int
    """Answer sets applied (the game steps a replay goes through)."""
    bot: str | None = None
    """The bot kind of its bot seats (None: the game's default bot)."""
    format: int = 1
    """The journal format the game was written in."""

    @property
    def winners(self) -> list[PlayerRecord]:
        seats = set((self.result or {}).get("winners") or ())
        return [p for p in self.players if p.seat in seats]

    def to_json(self) -> dict[str, Any]:
        return {
            "table": self.table, "number": self.number, "game": self.game,
            "title": self.title, "started": self.started, "ended": self.ended,
            "how": self.how, "options": self.options, "seed": self.seed,
            "players": [p.to_json() for p in self.players], "result": self.result,
            "finished": self.finished, "steps": self.steps, "bot": self.bot,
            "format": self.format,
        }


def colour_name(seat: int) -> str:
    return PLAYER_COLOURS[seat][0] if 0 <= seat < len(PLAYER_COLOURS) else f"Seat {seat + 1}"


def _game_facts(head: TableEntry) -> tuple[str, int]:
    """The game's title and seat count (the registered name and 0 if this dialbox does not
    know the game or its options any more: the journal is still listed)."""
    try:
        info = game_info(head.game)
        return info.title, info.seats(head.options)
    except (EngineError, ValueError):
        return head.game, 0


def record_of(table: str, segment: Segment, names: dict[str, str]) -> GameRecord:
    """The record of one game segment. `names`: uid -> the player name each controller had
    taken before it (updated with the names this segment gives)."""
    head = segment.head
    assert segment.kind == "game" and isinstance(head, TableEntry)
    title, count = _game_facts(head)
    seats: dict[int, PlayerRecord] = {}
    over: OverEntry | None = None
    steps = 0
    for step in segment.steps[1:]:
        match step:
            case SeatEntry(bot=True):
                seats[step.seat] = PlayerRecord(step.seat, colour_name(step.seat), "bot")
            case SeatEntry(uid=str(uid)):
                name = step.name or names.get(uid)
                if step.name:
                    names[uid] = step.name
                seats[step.seat] = PlayerRecord(step.seat, colour_name(step.seat),
                                                "controller", uid, name)
            case NameEntry():
                names[step.uid] = step.name
            case AppliedEntry():
                steps += 1
            case OverEntry():
                over = step
    count = max([count, *(s + 1 for s in seats)])
    players = tuple(seats.get(s) or PlayerRecord(s, colour_name(s), "empty")
                    for s in range(count))
    result = None
    if over is not None and over.result is not None:
        result = {k: over.result.get(k) for k in ("scores", "winners", "text")}
    seed = head.options.get("seed")
    return GameRecord(
        table=table, number=segment.number, game=head.game, title=title,
        started=segment.entries[0].at, ended=segment.entries[-1].at, how=head.how,
        options=dict(head.options), seed=seed if isinstance(seed, int) else None,
        players=players, result=result, finished=over is not None, steps=steps,
        bot=head.bot, format=head.format)


def records_of(table: str, parts: Iterable[Segment]) -> list[GameRecord]:
    """The records of a table's game segments, in order (the names taken in its menus
    carried from one game to the next)."""
    names: dict[str, str] = {}
    out: list[GameRecord] = []
    for part in parts:
        if part.kind == "game":
            out.append(record_of(table, part, names))
        else:
            for step in part.steps:
                match step:
                    case NameEntry(uid=uid, name=name) | SeatEntry(uid=str(uid), name=str(name)):
                        names[uid] = name
    return out


def check_table(journal: Journal, table: str) -> None:
    """HistoryError unless the journal holds entries of `table`."""
    tables = journal.tables()
    if table not in tables:
        raise HistoryError(f"{journal.path}: no table {table!r} (tables: "
                           f"{', '.join(tables) or 'none'})")


def read(journal: Journal, table: str) -> list[Segment]:
    """One table's segments (HistoryError if the journal has no such table)."""
    check_table(journal, table)
    return split(journal.entries(table))


def games(journal: Journal, table: str | None = None) -> list[GameRecord]:
    """Every game of the journal (or of one table), table by table, in order."""
    tables = [table] if table is not None else journal.tables()
    return [r for t in tables for r in records_of(t, read(journal, t))]


def game_segment(journal: Journal, table: str, number: int) -> tuple[GameRecord, Segment]:
    """Game `number` of `table`: its record and segment (HistoryError if there is none)."""
    parts = read(journal, table)
    records = records_of(table, parts)
    for record, part in zip(records, (p for p in parts if p.kind == "game"), strict=True):
        if record.number == number:
            return record, part
    held = f"games 1 to {len(records)}" if len(records) > 1 else (
        "game 1 only" if records else "no game yet")
    raise HistoryError(f"table {table} has no game {number} ({held})")


@dataclass(frozen=True, slots=True)
class NameStats:
    """A player's games and wins (finished games only), in all and per game."""

    games: int = 0
    wins: int = 0
    by_game: dict[str, tuple[int, int]] = field(default_factory=dict)
    """game (registered name) -> (games, wins)."""

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins,
                "by_game": {g: {"games": n, "wins": w} for g, (n, w) in self.by_game.items()}}


def stats(records: Iterable[GameRecord]) -> dict[str, NameStats]:
    """Games and wins per player, over the finished games: a controller counts under its
    player's name, or under its uid if it took none; bots and empty seats are not counted.
    A player in two seats of one game (a variant's second controller) counts it once."""
    tally: dict[str, dict[str, list[int]]] = {}
    for r in records:
        if not r.finished or r.result is None:
            continue
        won = {p.seat for p in r.winners}
        who: dict[str, bool] = {}
        for p in r.players:
            if p.kind == "controller":
                key = p.name or p.uid or p.colour
                who[key] = who.get(key, False) or p.seat in won
        for key, win in who.items():
            count = tally.setdefault(key, {}).setdefault(r.game, [0, 0])
            count[0] += 1
            count[1] += win
    return {key: NameStats(sum(n for n, _w in per.values()), sum(w for _n, w in per.values()),
                           {g: (n, w) for g, (n, w) in sorted(per.items())})
            for key, per in sorted(tally.items())}
