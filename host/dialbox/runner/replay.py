"""Journal replay: a restarted daemon rebuilds its table, game and open prompt from the entries.

The entries are typed (`dialbox.journal.entries`) and checked once, when read. The first one
names the game, its options and the journal format; the game is rebuilt by applying every
`applied` answer set again (the engine is deterministic) and, from format 2 on, each step
must reach the state hash journaled with it. A step that does not is refused: resuming would
silently play a different game than the one the controllers and the players remember.
"""

from __future__ import annotations

import logging

from dialbox.engine.errors import EngineError
from dialbox.journal.entries import (
    FORMAT,
    AllLockedEntry,
    AppliedEntry,
    BotEntry,
    CommitEntry,
    DefaultEntry,
    OverEntry,
    Parsed,
    PidEntry,
    PromptEntry,
    RevealedEntry,
    RevealEntry,
    SeatEntry,
    TableEntry,
    UncommitEntry,
    VoidEntry,
)
from dialbox.runner.prompts import BotSecret, PromptCycle
from dialbox.runner.seating import Seating

log = logging.getLogger("dialbox.runner")

CHANGED = ("the rules or the game data changed since it was written; "
           "start a new journal or use the old version")


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


def replay(steps: list[Parsed], fmt: int, table: str, seating: Seating,
           cycle: PromptCycle) -> None:
    """Replay the entries after the table's first one into `seating` and `cycle`."""
    game = cycle.game
    applied = 0
    for step in steps:
        box = cycle.box
        match step:
            case SeatEntry():
                seating.restore(step)
            case PidEntry():
                cycle.ids.spent(step.pid)
            case PromptEntry():
                cycle.ids.spent(step.pid)
                decision = game.pending
                if decision is None or decision.id != step.decision:
                    pending = "none" if decision is None else decision.id
                    raise EngineError(
                        f"journal prompt {step.pid} of table {table} is for decision "
                        f"{step.decision}, the replayed game is at {pending}; {CHANGED}")
                cycle.box = cycle.new_box(step.pid, decision)
                cycle.bot_secrets = {}
            case BotEntry():
                cycle.bot_secrets[step.seat] = BotSecret(step.sel, step.nonce)
            case CommitEntry() if box is not None:
                box.commit(step.seat, step.uid, step.commitment)
            case UncommitEntry() if box is not None:
                box.uncommit(step.seat, step.uid)
            case DefaultEntry() if box is not None:
                box.time_out(step.defaults)
            case RevealEntry() if box is not None:
                box.reveal(step.seat, step.uid, step.sel, step.nonce, lambda _s, _x: None)
            case AppliedEntry():
                applied += 1
                _apply(step, applied, fmt, table, cycle)
            case VoidEntry():
                cycle.box = None
                cycle.closed_pids.append(step.pid)
            case OverEntry():
                cycle.over_journaled = True
            case RevealedEntry() | AllLockedEntry():
                pass  # follows from the entries around it
            case TableEntry():
                raise EngineError(f"the journal of table {table} starts its table twice")
            case _:
                pass  # a lockbox step with no prompt open: nothing to rebuild
    log.info("%s: resumed from the journal (%d entries, %d steps)", table, len(steps) + 1,
             applied)


def _apply(step: AppliedEntry, n: int, fmt: int, table: str, cycle: PromptCycle) -> None:
    game = cycle.game
    decision = game.pending
    answers = dict(step.answers)
    try:
        if decision is None:
            raise EngineError("the game is over")
        events = game.apply(answers, step.decision)
    except EngineError as e:
        raise EngineError(f"journal step {n} of table {table} does not replay: {e}; "
                          f"{CHANGED}") from None
    if step.hash is not None:
        now = game.state_hash()
        if now != step.hash:
            raise EngineError(f"journal step {n} of table {table} does not replay: hash "
                              f"{step.hash} != {now}; {CHANGED}")
    elif fmt >= 2:
        raise EngineError(f"journal step {n} of table {table} has no state hash, which a "
                          f"format-{fmt} journal holds for every step: the file was damaged")
    cycle.answered(step.pid, decision, answers, events)
