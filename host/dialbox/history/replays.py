"""One game of a journal re-run the way the daemon would resume it, its public state after
every step.

`replay` rebuilds the game's seating and prompt cycle from its segment exactly as the daemon
does (`dialbox.runner.replay`: every commitment verified, every step to its journaled state
hash; a step that does not replay raises the audit's `BrokenStep`), writing nothing, and
captures after every applied step the table's public state (`runner.public.table_state`: a
`TableState`, public by construction: who locked, never what before the reveal; a private
answer never, only what the rules announce).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dialbox.history.records import GameRecord, game_segment
from dialbox.journal import Journal
from dialbox.journal.entries import AppliedEntry, PromptEntry
from dialbox.runner.public import table_state
from dialbox.runner.replay import Rebuilt, Replayed, rebuild, replay_one
from dialbox.table import TableState


@dataclass(frozen=True, slots=True)
class ReplayStep:
    """The table after one applied step of a replayed game."""

    step: int
    """The step's number in its game (1 = the first answer set applied)."""
    pid: int
    """The prompt it answered."""
    hash: str
    """The game's state hash after it, as replayed."""
    state: TableState
    """The public table state after it."""
    n: int = 0
    """The `applied` entry's number in the journal file."""
    checked: bool = True
    """The journal held a state hash for this step and the replay reached it (False only
    for steps of format 1, which carry none)."""

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "pid": self.pid, "entry": self.n, "hash": self.hash,
                "checked": self.checked, "state": self.state.model_dump(mode="json")}


@dataclass(frozen=True, slots=True)
class Replay:
    """A game replayed from its journal segment, step by step."""

    record: GameRecord
    start: TableState
    """The table seated, before its first prompt."""
    steps: list[ReplayStep]
    end: TableState
    """The table after the segment's last entry (an open prompt of a game in progress shows
    who has locked, never what)."""
    hash_ok: bool
    """Every step carried a journaled state hash and reached it (a step that does not
    raises BrokenStep instead; False only for a format-1 game, replayed unchecked)."""
    final_hash: str
    """The game's state hash after the last step."""
    prompts: int = 0
    verified: int = 0
    """Sealed reveals verified against their journaled commitments."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.record.to_json(), "start": self.start.model_dump(mode="json"),
                "steps": [s.to_json() for s in self.steps],
                "end": self.end.model_dump(mode="json"), "hash_ok": self.hash_ok,
                "final_hash": self.final_hash, "prompts": self.prompts,
                "verified": self.verified}


def public_state(game: Rebuilt, record: GameRecord) -> TableState:
    """The table's public state now, as the daemon would publish it (the players' names of
    the record where the seats do not carry them, the game's number at its table)."""
    cycle = game.cycle
    state = table_state(game.table, game.head.game, game.seating.table, (), cycle.box,
                        cycle.game, game.public)
    names = {p.seat: p.name for p in record.players if p.name}
    seats = tuple(s.model_copy(update={"player": names[s.seat]})
                  if s.kind == "controller" and s.player is None and s.seat in names else s
                  for s in state.seats)
    return state.model_copy(update={"seats": seats, "number": record.number})


def replay(journal: Journal, table: str, number: int,
           on_step: Callable[[ReplayStep], None] | None = None) -> Replay:
    """Re-run game `number` of `table` from its journal segment, writing nothing; `on_step`
    is told each step as soon as it replayed (a caller can show the steps that did before
    one that does not). HistoryError for a game the journal does not hold; BrokenStep at
    the first entry that does not replay (a state hash that differs included)."""
    record, segment = game_segment(journal, table, number)
    game = rebuild(table, segment.entries)
    done = Replayed()
    start: TableState | None = None
    steps: list[ReplayStep] = []
    for n, step in game.steps:
        if start is None and isinstance(step, PromptEntry | AppliedEntry):
            start = public_state(game, record)
        replay_one(game, n, step, done)
        if isinstance(step, AppliedEntry):
            at = ReplayStep(done.steps, step.pid, game.cycle.game.state_hash(),
                            public_state(game, record), n, step.hash is not None)
            steps.append(at)
            if on_step is not None:
                on_step(at)
    end = public_state(game, record)
    return Replay(record, start or end, steps, end, all(s.checked for s in steps),
                  game.cycle.game.state_hash(), done.prompts, done.verified)
