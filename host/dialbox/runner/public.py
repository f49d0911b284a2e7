"""The table's public record and its TableState, published once per burst to whoever follows.

`PublicRecord` keeps what the table has been told: public events (a private one never gets
in) and the latest reveals. `table_state` makes the frozen `TableState` of it, with the
seats, the open prompt and the game's public view. `Publisher` makes one only when someone
follows: the in-process feed (displays) when it has subscribers, and the watchers (the
daemon's throttled MQTT publisher, which makes its own when its slot comes).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable, Iterable

from dialbox.engine.decisions import Decision
from dialbox.engine.events import Event
from dialbox.engine.game import TRIM_SLACK, Game
from dialbox.lockbox import Lockbox, Phase
from dialbox.table import (
    EventState,
    Feed,
    PromptState,
    ResultState,
    RevealState,
    Table,
    TableState,
)
from dialbox.table.state import PromptPhase

EVENTS_SHOWN = 10
"""Public events in a TableState (the latest)."""
REVEALS_KEPT = 8
"""Reveals in a TableState: one state may follow several reveals (a burst of bot answers)."""
EVENTS_KEPT = 1000
"""Public events a table keeps in memory (between this and twice this)."""


PHASES: dict[Phase, PromptPhase] = {
    Phase.OPEN: "open", Phase.ALL_LOCKED: "alllocked", Phase.COMPLETE: "complete",
    Phase.VOID: "void",
}


class PublicRecord:
    """What the table has been told so far."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        """The public events, oldest first (private events are never added): the latest
        EVENTS_KEPT to EVENTS_KEPT + TRIM_SLACK of them (the journal keeps every one)."""
        self.reveals: deque[RevealState] = deque(maxlen=REVEALS_KEPT)

    def tell(self, events: Iterable[Event]) -> None:
        self.events.extend(e for e in events if e.to is None)
        self._bound()

    def void(self, text: str) -> None:
        self.events.append(Event("prompt.void", text))
        self._bound()

    def _bound(self) -> None:
        if len(self.events) > EVENTS_KEPT + min(TRIM_SLACK, EVENTS_KEPT):  # in small chunks
            del self.events[:len(self.events) - EVENTS_KEPT]

    def reveal(self, reveal: RevealState) -> None:
        self.reveals.append(reveal)


def prompt_state(box: Lockbox, decision: Decision) -> PromptState:
    """The open prompt: who is asked and who has locked or answered, never what."""
    answered = box.locked_seats if box.sealed else [
        s for s in box.seats if box.locked(s) or s in box.reveals]
    return PromptState(pid=box.pid, kind=decision.kind, phase=PHASES[box.phase],
                       seats=box.seats, locked=tuple(answered),
                       text={a.seat: a.text for a in decision.asks})


def table_state(name: str, game_name: str, table: Table, pairing: Iterable[str],
                box: Lockbox | None, game: Game, record: PublicRecord,
                number: int = 1) -> TableState:
    decision = game.pending
    result = game.result
    reveals = tuple(record.reveals)
    return TableState(
        table=name,
        game=game_name,
        seats=tuple(s.public() for s in table.seats),
        pairing=tuple(pairing),
        prompt=None if box is None or decision is None else prompt_state(box, decision),
        reveals=reveals,
        revealed=reveals[-1] if reveals else None,
        events=tuple(EventState(kind=e.kind, text=e.text, data=e.data)
                     for e in record.events[-EVENTS_SHOWN:]),
        view=game.view(None),
        over=game.over,
        result=None if result is None else ResultState(
            scores=result.scores, winners=tuple(result.winners), text=result.text,
            details=result.details),
        number=number,
    )


class Publisher:
    """Tells followers the table changed, once per burst of changes (one loop turn)."""

    def __init__(self, make: Callable[[], TableState]) -> None:
        self.make = make
        self.feed: Feed[TableState] = Feed(source=make)
        """Every public state, for in-process displays (made only while someone follows)."""
        self.watchers: list[Callable[[], None]] = []
        """Called once per burst of changes, without the state (e.g. a throttled publisher
        that makes the state itself when it sends)."""
        self._due = False

    def changed(self) -> None:
        if self._due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._flush()
            return
        self._due = True
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._due = False
        if self.feed.active:
            self.feed.publish(self.make())
        for fn in self.watchers:
            fn()
