"""The journal's entries, one small typed model per kind, checked once when they are read back.

The runner writes each entry from its model (`Journal.record`) and replays the models that
`parse` makes of the stored rows, so a row that lost or changed a field fails here, with its
table, number and field, instead of somewhere inside the replay. The table's first entry
names the journal format (`FORMAT`); docs/host.md, "The journal", says what each format holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from dialbox.journal.journal import Entry, JournalError

FORMAT = 4
"""The journal format this dialbox writes. 1: no `format` field in the table entry and no
state hashes (read and replayed unchecked); 2: the table entry says `format: 2` and every
`applied` step carries the game's state hash after it; 3: a bot's sealed choice is kept in
memory only until all-locked (no `bot` entry: its commitment is journaled like a
controller's, its reveal at all-locked), and a bot commitment whose secret a restart lost is
`withdraw`n; 4: a table plays many games (the console): its entries are *segments*, each
opened by a `table` entry (a game: its seats name their players) or a `menu` entry (the
table idle, choosing the next game), and a `name` entry gives a controller a player name.
docs/host.md, "The journal", shows the layout."""

Sel = tuple[int, int, int]


class Step(BaseModel):
    """Base of every entry: frozen, and no field it does not name."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: ClassVar[str]


class TableEntry(Step):
    """The first entry of a table: which game, with which options, from which prompt id."""

    kind: ClassVar[str] = "table"
    format: int = 1
    """Absent from format-1 journals, hence the default."""
    game: str
    options: dict[str, Any]
    first_pid: int
    bot: str | None = None
    """Format 4: the bot kind of this game's bot seats (None: the game's default bot)."""
    how: str | None = None
    """Format 4: how the game was chosen: "config" (the table's configured first game),
    "menu" (chosen and voted on the controllers), "rematch" or "swap"."""


class SeatEntry(Step):
    """A seat taken by a controller (its uid) or by a bot."""

    kind: ClassVar[str] = "seat"
    seat: int
    uid: str | None
    bot: bool
    name: str | None = None
    """Format 4: the player's name when the seat was taken (None: none given)."""


class MenuEntry(Step):
    """Format 4: the table is idle, its controllers choose the next game (a new segment)."""

    kind: ClassVar[str] = "menu"
    first_pid: int
    """The menu's first prompt id (prompt ids never repeat at a table)."""


class NameEntry(Step):
    """Format 4: a controller took a player name (it follows the controller from then on)."""

    kind: ClassVar[str] = "name"
    uid: str
    name: str


class PidEntry(Step):
    """A prompt id spent on a pairing prompt ("Press to take seat N")."""

    kind: ClassVar[str] = "pid"
    pid: int


class PromptEntry(Step):
    """A game prompt opened for the pending decision."""

    kind: ClassVar[str] = "prompt"
    pid: int
    decision: int


class BotEntry(Step):
    """Formats 1 and 2 only: a bot's sealed choice and nonce, journaled when the bot locked
    (readable on disk before all-locked). Format 3 keeps them in memory until all-locked."""

    kind: ClassVar[str] = "bot"
    pid: int
    seat: int
    sel: Sel
    nonce: str


class CommitEntry(Step):
    kind: ClassVar[str] = "commit"
    pid: int
    seat: int
    uid: str
    commitment: str


class UncommitEntry(Step):
    kind: ClassVar[str] = "uncommit"
    pid: int
    seat: int
    uid: str


class WithdrawEntry(Step):
    """Format 3: a bot's commitment taken back because its secret was lost (the daemon
    stopped between the bot's lock and all-locked); the bot chooses again. Nobody saw
    anything of the withdrawn choice, so this holds even where the prompt allows no unlock."""

    kind: ClassVar[str] = "withdraw"
    pid: int
    seat: int
    uid: str


class AllLockedEntry(Step):
    kind: ClassVar[str] = "alllocked"
    pid: int


class DefaultEntry(Step):
    """The prompt timed out: these seats take the game's default answers."""

    kind: ClassVar[str] = "default"
    pid: int
    defaults: dict[int, Sel]


class RevealEntry(Step):
    """A verified answer (with its nonce: a sealed one is verified again on replay)."""

    kind: ClassVar[str] = "reveal"
    pid: int
    seat: int
    uid: str
    sel: Sel
    nonce: str


class AppliedEntry(Step):
    """The decision's answers went to the game; `hash` is `Game.state_hash()` after them."""

    kind: ClassVar[str] = "applied"
    pid: int
    decision: int
    answers: list[tuple[int, Sel]]
    hash: str | None = None
    """None only in format-1 journals."""


class RevealedEntry(Step):
    """Format 1 only: what the seats were told. Format 2 derives it from `applied` (the
    engine is deterministic), so nothing a seat was told privately is written twice."""

    kind: ClassVar[str] = "revealed"
    pid: int
    choices: list[tuple[int, str]]
    summary: str
    seats: list[int]


class VoidEntry(Step):
    kind: ClassVar[str] = "void"
    pid: int
    reason: str


class OverEntry(Step):
    kind: ClassVar[str] = "over"
    result: dict[str, Any] | None


Parsed = (TableEntry | MenuEntry | NameEntry | SeatEntry | PidEntry | PromptEntry | BotEntry
          | CommitEntry | UncommitEntry | WithdrawEntry | AllLockedEntry | DefaultEntry
          | RevealEntry | AppliedEntry | RevealedEntry | VoidEntry | OverEntry)

KINDS: dict[str, type[Step]] = {m.kind: m for m in (
    TableEntry, MenuEntry, NameEntry, SeatEntry, PidEntry, PromptEntry, BotEntry, CommitEntry,
    UncommitEntry, WithdrawEntry, AllLockedEntry, DefaultEntry, RevealEntry, AppliedEntry,
    RevealedEntry, VoidEntry, OverEntry)}


HEADS = ("table", "menu")
"""The kinds that open a segment of a table's journal (format 4: a game, or the menu)."""

T = TypeVar("T")


def cut(items: Sequence[T], kind: Callable[[T], str]) -> list[list[T]]:
    """A table's entries (stored or parsed: `kind` says each one's kind) cut into segments,
    each opened by a `table` or `menu` entry; a journal of formats 1 to 3 is one segment.
    Entries before the first head, which no dialbox writes, make a segment of their own,
    refused by whoever replays it."""
    out: list[list[T]] = []
    for item in items:
        if kind(item) in HEADS or not out:
            out.append([])
        out[-1].append(item)
    return out


def parse(entry: Entry) -> Parsed:
    """The typed model of one stored entry; JournalError naming the entry if it is not one."""
    model = KINDS.get(entry.kind)
    where = f"journal entry {entry.n} of table {entry.table}"
    if model is None:
        raise JournalError(f"{where}: unknown kind {entry.kind!r}")
    try:
        step = model.model_validate(entry.data)
    except ValidationError as e:
        err = e.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "data"
        raise JournalError(f"{where} ({entry.kind}): {field}: {err['msg']}") from None
    assert isinstance(step, Parsed)  # KINDS holds exactly the members of Parsed
    return step
