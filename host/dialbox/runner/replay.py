"""Journal replay: a restarted daemon rebuilds its table, game and open prompt from the entries;
`dialbox audit` replays a whole journal the same way, writing nothing.

The entries are typed (`dialbox.journal.entries`) and checked once, when read. The first one
names the game, its options and the journal format; the game is rebuilt by applying every
`applied` answer set again (the engine is deterministic) and, from format 2 on, each step
must reach the state hash journaled with it. Every lockbox step is replayed through the
lockbox and must be accepted there: each sealed reveal hashes to the commitment journaled for
its seat and prompt (`codec.verify_reveal`), none comes before its prompt's all-locked, and
each applied answer set is exactly what the prompt's verified reveals and defaults say. A
step that fails is refused (`BrokenStep`): resuming would silently play a different game
than the one the controllers and the players remember.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from dialbox.engine.errors import EngineError
from dialbox.engine.registry import game_info
from dialbox.journal import Entry, JournalError
from dialbox.journal.entries import (
    FORMAT,
    AllLockedEntry,
    AppliedEntry,
    BotEntry,
    CommitEntry,
    DefaultEntry,
    MenuEntry,
    NameEntry,
    OverEntry,
    Parsed,
    PidEntry,
    PromptEntry,
    RevealedEntry,
    RevealEntry,
    SeatEntry,
    Step,
    TableEntry,
    UncommitEntry,
    VoidEntry,
    WithdrawEntry,
    cut,
    parse,
)
from dialbox.lockbox import Lockbox, Phase, Verdict
from dialbox.runner.pids import PromptIds
from dialbox.runner.prompts import BotSecret, PromptCycle
from dialbox.runner.public import PublicRecord
from dialbox.runner.seating import Seating
from dialbox.runner.settings import TableSettings
from dialbox.table import Table
from dialbox.table.table import TableFull
from dialbox_protocol import codec

log = logging.getLogger("dialbox.runner")

CHANGED = ("the rules or the game data changed since it was written; "
           "start a new journal or use the old version")

Numbered = tuple[int, Parsed]
"""An entry's number in the journal file (its `n`) and its typed model."""


class BrokenStep(EngineError):
    """A journal entry that does not replay: the file was damaged or edited, or the rules
    changed since it was written. `step` is the game step it belongs to (the applied step it
    is, or the one it leads to), `n` the entry's number in the file, `detail` what is wrong."""

    def __init__(self, table: str, step: int, n: int, detail: str,
                 message: str | None = None) -> None:
        super().__init__(message or f"journal step {step} of table {table} does not replay: "
                                    f"entry {n}: {detail}; the file was damaged or edited")
        self.table = table
        self.step = step
        self.n = n
        self.detail = detail


@dataclass(slots=True)
class Replayed:
    """What a replay went through (the audit's summary)."""

    prompts: int = 0
    """Game prompts opened (answered, voided or still open)."""
    verified: int = 0
    """Sealed reveals verified against the commitment journaled for their seat and prompt."""
    steps: int = 0
    """Answer sets applied to the game."""
    hashed: int = 0
    """Applied steps that reached the state hash journaled with them."""
    alllocked: int | None = None
    """The prompt whose all-locked was journaled last (a sealed reveal comes after it)."""
    committed: dict[int, int] = field(default_factory=dict)
    """seat -> the entry holding its commitment to the open prompt (named when a reveal
    does not match it)."""


def check_head(first: Parsed, table: str, game: str) -> TableEntry:
    """The table's first entry, if this dialbox can resume from it (else EngineError)."""
    if not isinstance(first, TableEntry):
        raise EngineError(f"journal for {table} does not start with its table")
    if first.game != game:
        raise EngineError(
            f"the journal holds a game of {first.game} at table {table}, the config says "
            f"{game}: use another journal file (or another table name) for a new game")
    if first.format > FORMAT:
        raise EngineError(
            f"the journal of table {table} is format {first.format}; this dialbox reads "
            f"formats 1 to {FORMAT}: use the dialbox version that wrote it, or start a new "
            f"journal")
    if first.format < 2:
        log.warning("%s: the journal is format %d: its steps carry no state hash and are "
                    "replayed unchecked", table, first.format)
    return first


def replay(steps: Sequence[Numbered], fmt: int, table: str, seating: Seating,
           cycle: PromptCycle) -> Replayed:
    """Replay the entries after the table's first one into `seating` and `cycle`."""
    done = Replayed()
    for n, step in steps:
        _step(n, step, fmt, table, seating, cycle, done)
    log.info("%s: resumed from the journal (%d entries, %d steps)", table, len(steps) + 1,
             done.steps)
    return done


def _step(n: int, step: Parsed, fmt: int, table: str, seating: Seating, cycle: PromptCycle,
          done: Replayed) -> None:
    game = cycle.game
    box = cycle.box
    at = done.steps + 1  # the game step this entry belongs to

    def broken(detail: str) -> BrokenStep:
        return BrokenStep(table, at, n, detail)

    def open_box(entry: Step, pid: int) -> Lockbox:
        if box is None or box.pid != pid:
            raise broken(f"{entry.kind} for prompt {pid}, which is not open")
        return box

    def accepted(v: Verdict, what: str) -> bool:
        if not v.accepted:
            raise broken(f"{what}: {v.detail}")
        return v.changed

    match step:
        case SeatEntry():
            if not 0 <= step.seat < len(seating.table.seats):
                raise broken(f"seat {step.seat + 1} is not a seat of this table")
            try:
                seating.restore(step)
            except TableFull as e:
                raise broken(str(e)) from None
        case PidEntry():
            cycle.ids.spent(step.pid)
        case PromptEntry():
            if box is not None:
                raise broken(f"prompt {step.pid} opened while prompt {box.pid} is open")
            cycle.ids.spent(step.pid)
            decision = game.pending
            if decision is None or decision.id != step.decision:
                pending = "none" if decision is None else decision.id
                raise BrokenStep(
                    table, at, n, f"prompt {step.pid} is for decision {step.decision}, the "
                                  f"replayed game is at {pending}",
                    f"journal prompt {step.pid} of table {table} is for decision "
                    f"{step.decision}, the replayed game is at {pending}; {CHANGED}")
            cycle.box = cycle.new_box(step.pid, decision)
            cycle.bot_secrets = {}
            done.committed = {}
            done.prompts += 1
        case BotEntry():
            if fmt >= 3:
                raise broken(f"a bot's secret (seat {step.seat + 1}) on disk before "
                             f"all-locked: a format-{fmt} journal never holds one")
            open_box(step, step.pid)
            cycle.bot_secrets[step.seat] = BotSecret(step.sel, step.nonce)
        case CommitEntry():
            if accepted(open_box(step, step.pid).commit(step.seat, step.uid, step.commitment),
                        f"commit of seat {step.seat + 1}"):
                done.committed[step.seat] = n
        case UncommitEntry():
            accepted(open_box(step, step.pid).uncommit(step.seat, step.uid),
                     f"unlock of seat {step.seat + 1}")
        case WithdrawEntry():
            b = open_box(step, step.pid)
            if b.commitments.get(step.seat, ("", ""))[0] != step.uid:
                raise broken(f"withdraw of seat {step.seat + 1}: no commitment of "
                             f"{step.uid} held")
            accepted(b.withdraw(step.seat), f"withdraw of seat {step.seat + 1}")
        case DefaultEntry():
            if not open_box(step, step.pid).time_out(step.defaults):
                raise broken("defaults journaled where the prompt takes none")
        case AllLockedEntry():
            b = open_box(step, step.pid)
            if b.phase != Phase.ALL_LOCKED:
                waiting = ", ".join(str(s + 1) for s in b.waiting_for) or "none"
                raise broken(f"all-locked journaled in phase {b.phase} (seats still to "
                             f"lock: {waiting})")
            done.alllocked = b.pid
        case RevealEntry():
            b = open_box(step, step.pid)
            what = f"reveal of seat {step.seat + 1} for prompt {step.pid}"
            if b.sealed and done.alllocked != b.pid:
                raise broken(f"{what} journaled before its all-locked")
            v = b.reveal(step.seat, step.uid, step.sel, step.nonce, lambda _s, _x: None)
            if v.code == codec.E_MISMATCH and step.seat in done.committed:
                raise broken(f"{what} does not match the commitment journaled in entry "
                             f"{done.committed[step.seat]}")
            if accepted(v, what) and b.sealed:
                done.verified += 1
        case AppliedEntry():
            b = open_box(step, step.pid)
            if b.decision != step.decision:
                raise broken(f"answers for decision {step.decision} applied to prompt "
                             f"{step.pid}, which asks decision {b.decision}")
            if not b.complete:
                raise broken(f"answers of prompt {step.pid} applied in phase {b.phase} "
                             f"(still waiting for seats "
                             f"{', '.join(str(s + 1) for s in b.waiting_for) or 'none'})")
            verified = sorted(b.answers().items())
            if sorted(step.answers) != verified:
                raise broken(f"applied answers {step.answers} are not the verified ones "
                             f"{verified}")
            _apply(step, at, n, fmt, table, cycle, done)
        case VoidEntry():
            b = open_box(step, step.pid)
            b.void()
            cycle.box = None
            cycle.closed_pids.append(step.pid)
        case OverEntry():
            cycle.over_journaled = True
        case RevealedEntry():
            pass  # format 1: follows from the entries around it
        case TableEntry():
            raise broken(f"the journal of table {table} starts its table twice")
        case MenuEntry() | NameEntry():
            raise broken(f"a {step.kind} entry inside a game: the console writes it only "
                         "between games")


def _apply(step: AppliedEntry, n: int, entry: int, fmt: int, table: str, cycle: PromptCycle,
           done: Replayed) -> None:
    """Apply step `n` (journal entry `entry`) to the game; it must reach its state hash."""
    game = cycle.game
    decision = game.pending
    answers = dict(step.answers)
    try:
        if decision is None:
            raise EngineError("the game is over")
        events = game.apply(answers, step.decision)
    except EngineError as e:
        raise BrokenStep(table, n, entry, f"{e}", f"journal step {n} of table {table} does not "
                                               f"replay: {e}; {CHANGED}") from None
    if step.hash is not None:
        now = game.state_hash()
        if now != step.hash:
            raise BrokenStep(table, n, entry, f"state hash {step.hash} journaled, {now} replayed",
                             f"journal step {n} of table {table} does not replay: hash "
                             f"{step.hash} != {now}; {CHANGED}")
        done.hashed += 1
    elif fmt >= 2:
        raise BrokenStep(table, n, entry, "no state hash",
                         f"journal step {n} of table {table} has no state hash, which a "
                         f"format-{fmt} journal holds for every step: the file was damaged")
    done.steps += 1
    cycle.answered(step.pid, decision, answers, events)


def segments(entries: Sequence[Entry]) -> list[list[Entry]]:
    """A table's stored entries cut into its segments (`dialbox.journal.entries.cut`)."""
    return cut(entries, lambda e: e.kind)


def parsed(table: str, entries: Sequence[Entry]) -> list[Numbered]:
    """Each entry's number and typed model; an unreadable entry is a BrokenStep at its place
    (its step: the applied step it belongs to, counted from the first entry given)."""
    steps: list[Numbered] = []
    applied = 0
    for e in entries:
        try:
            steps.append((e.n, parse(e)))
        except JournalError as err:  # its message names the entry: keep what follows
            why = str(err).removeprefix(f"journal entry {e.n} of table {table}")
            raise BrokenStep(table, applied + 1, e.n, f"unreadable {why.lstrip(': ')}") from None
        applied += e.kind == "applied"
    return steps


@dataclass(slots=True)
class Rebuilt:
    """One game of a table rebuilt from its journal segment as the daemon would, before any
    of its steps is replayed: the seating and prompt cycle of a fresh runner, journaling
    nothing (each step is then replayed with `replay_one`)."""

    table: str
    head: TableEntry
    n: int
    """The table entry's number in the journal file."""
    steps: list[Numbered]
    """The game's entries after its table entry."""
    seating: Seating
    cycle: PromptCycle
    public: PublicRecord
    """What the table has been told (public events, reveals): `public.table_state` of it."""


def rebuild(table: str, entries: Sequence[Entry]) -> Rebuilt:
    """The runner's parts for one game's entries (its `table` entry first), nothing replayed
    yet (BrokenStep at the first entry that is unreadable, or at an unusable head)."""
    if not entries:
        raise EngineError(f"the journal holds no entry of table {table}")
    steps = parsed(table, entries)
    n0, first = steps.pop(0)
    if not isinstance(first, TableEntry):
        raise BrokenStep(table, 1, n0, "the table's first entry is not its table entry")
    try:
        head = check_head(first, table, first.game)
        info = game_info(head.game)
        game = info.game(head.options)
    except EngineError as e:
        raise BrokenStep(table, 1, n0, str(e)) from None
    seats = [s.seat for _n, s in steps if isinstance(s, SeatEntry)]
    count = max([info.seats(game.options), *(s + 1 for s in seats)])
    settings = TableSettings(table, head.game, game.options.players,
                             seed=game.options.seed, seats=count,
                             options=head.options)
    seating_ = Seating(settings, Table(table, count), _no_writes, info.bot(),
                       PromptIds(head.first_pid))  # (bots choose nothing here)
    public = PublicRecord()
    cycle = PromptCycle(settings, game, seating_, seating_.ids, _no_writes, public,
                        lambda: None)
    return Rebuilt(table, head, n0, steps, seating_, cycle, public)


def replay_one(game: Rebuilt, n: int, step: Parsed, done: Replayed) -> None:
    """Replay entry `n` of a rebuilt game into its parts, as a resuming daemon does (the same
    checks: BrokenStep at an entry that does not replay)."""
    _step(n, step, game.head.format, game.table, game.seating, game.cycle, done)


@dataclass(slots=True)
class Audited(Replayed):
    """What the audit of a table went through: the sums over its games."""

    games: int = 1
    """Game segments (a journal of formats 1 to 3 holds one)."""
    menus: int = 0
    """Menu segments (format 4: the table idle between games), checked for readable entries."""


class BrokenGame(BrokenStep):
    """A broken entry of a table that played several games or sat in its menu (format 4):
    `game` is the game's number at its table (for a menu segment: the number of the games
    played before it), `where` says the place in words: "game 2 step 3", "menu after game 1"."""

    def __init__(self, e: BrokenStep, game: int, menu: bool = False) -> None:
        where = (f"menu after game {game}" if menu and game else "menu" if menu
                 else f"game {game} step {e.step}")
        text = (f"journal {where} of table {e.table} does not replay: entry {e.n}: {e.detail}"
                if menu else str(e).replace(f"of table {e.table}",
                                            f"of table {e.table} (game {game})", 1))
        super().__init__(e.table, e.step, e.n, e.detail, text)
        self.game = game
        self.menu = menu
        self.where = where


def audit_game(table: str, entries: Sequence[Entry]) -> Replayed:
    """Replay one game's entries (its `table` entry first) as the daemon would on start,
    writing nothing: every commitment re-verified, every step to its state hash (BrokenStep,
    or EngineError for an unusable head, at the first entry that fails)."""
    game = rebuild(table, entries)
    done = Replayed()
    for n, step in game.steps:
        replay_one(game, n, step, done)
    return done


def audit(table: str, entries: Sequence[Entry]) -> Audited:
    """Replay one table's whole journal as the daemon would on start, writing nothing: each
    game segment as `audit_game` does, each menu segment read (every entry readable). A
    table that played one game and never sat in its menu (every journal of formats 1 to 3)
    raises the game's own BrokenStep; one with several segments a BrokenGame naming the game
    (or the menu) with its number."""
    if not entries:
        raise EngineError(f"the journal holds no entry of table {table}")
    parts = segments(entries)
    if len(parts) == 1 and parts[0][0].kind != "menu":
        one = audit_game(table, parts[0])
        return Audited(one.prompts, one.verified, one.steps, one.hashed, games=1)
    total = Audited(games=0)
    for part in parts:
        if part[0].kind == "menu":
            try:
                parsed(table, part)
            except BrokenStep as e:
                raise BrokenGame(e, total.games, menu=True) from None
            total.menus += 1
            continue
        number = total.games + 1
        try:
            if part[0].kind != "table":
                raise BrokenStep(table, 1, part[0].n,
                                 "the table's first entry is not its table entry")
            one = audit_game(table, part)
        except BrokenStep as e:
            raise BrokenGame(e, number) from None
        total.games = number
        total.prompts += one.prompts
        total.verified += one.verified
        total.steps += one.steps
        total.hashed += one.hashed
    return total


def _no_writes(step: Step) -> None:
    raise RuntimeError(f"a replay journals nothing (it tried to write {step.kind})")
