"""Runs one table: the sessions' host (SessionHost), a facade over the runner's parts.

`GameRunner` wires the parts and routes the sessions' calls to them:
- `seating.Seating`: seats, controllers' sessions, pairing, bots;
- `prompts.PromptCycle`: the game and its open prompt (lockbox steps, bots, timers);
- `telling.tell`: what each seat and the table learn of an answered decision;
- `public`: the public record, the `TableState` made of it, and its publisher;
- `replay`: the journal replayed into those parts on start.
Every call is synchronous and journals what it accepts before returning, so the session's
acknowledgement always follows the journal. Timers are the only asynchronous part.
"""

from __future__ import annotations

import asyncio
import functools
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from dialbox.engine.bots import BotFactory
from dialbox.engine.events import Event
from dialbox.engine.game import Game
from dialbox.engine.registry import game_info
from dialbox.journal import Journal
from dialbox.journal.entries import FORMAT, TableEntry, parse
from dialbox.lockbox import Lockbox
from dialbox.runner.pids import PromptIds
from dialbox.runner.prompts import HISTORY_KEPT, PromptCycle
from dialbox.runner.public import PublicRecord, Publisher, table_state
from dialbox.runner.replay import Numbered, check_head, replay
from dialbox.runner.seating import Seating
from dialbox.runner.settings import TableSettings
from dialbox.sessions import Session
from dialbox.table import Feed, LinkInfo, Table, TableState
from dialbox_protocol import codec
from dialbox_protocol.models import Dial, Error, Hello, Message, Reveal, Snapshot, Status, Welcome

CONTROLLER_STATES = ("idle", "editing", "locked", "unlocked")
"""Controller states a `status` frame may report to the table (never a choice)."""


@dataclass(frozen=True, slots=True)
class SeatPlan:
    """Who takes a seat when a game starts: a controller (its uid and player name) or a bot."""

    uid: str | None = None
    bot: bool = False
    name: str | None = None


@dataclass(frozen=True, slots=True)
class GameStart:
    """A new game at a table that played before (the console): where its prompt ids start
    (never an id the table used), how it was chosen, and its seats in order."""

    first_pid: int
    how: str
    seats: tuple[SeatPlan, ...] = field(default_factory=tuple)


class GameRunner:
    """One table at work: its seats, its game and open prompt, its journal, its public state."""

    def __init__(self, settings: TableSettings, journal: Journal, host_name: str = "dialbox",
                 *, segment: Sequence[Numbered] | None = None, start: GameStart | None = None,
                 publisher: Publisher | None = None) -> None:
        """`segment`: resume the game whose journal segment this is (its `table` entry
        first; the console splits a table's journal into its games); `start`: begin a new
        game, journaled from `start.first_pid` with its seats taken at once; neither: the
        table's whole journal is one game, resumed if it has entries (the first game of a
        table). `publisher`: whom to tell of changes (the console's, which outlives games)."""
        self.settings = settings
        self.journal = journal
        self.host_name = host_name
        info = game_info(settings.game)
        options = settings.options_with_players
        self.table = Table(settings.name, settings.seats or info.seats(options))
        for place, team in zip(self.table.seats, settings.teams or info.seat_teams(options),
                               strict=False):
            place.team = team or None
        for place, role in zip(self.table.seats, settings.roles, strict=False):
            place.role = role or None
        record = functools.partial(journal.record, settings.name)
        if segment is None and start is None:
            steps = [(e.n, parse(e)) for e in journal.entries(settings.name)]
        else:
            steps = list(segment or [])
        if steps:
            head = check_head(steps[0][1], settings.name, settings.game)
            game, ids, fmt = info.game(head.options), PromptIds(head.first_pid), head.format
        else:
            ids = PromptIds(start.first_pid) if start is not None else PromptIds.fresh()
            game, fmt = info.game(options), FORMAT
            record(TableEntry(format=FORMAT, game=settings.game,
                              options=game.options.model_dump(), first_pid=ids.next,
                              bot=settings.bot, how=start.how if start else "config"))
        game.log_kept = HISTORY_KEPT  # the journal keeps every answer
        self.bot_factory: BotFactory = info.bot(settings.bot)
        self.public = PublicRecord()
        self.publisher = publisher or Publisher(self.state)
        self.seating = Seating(settings, self.table, record, self.bot_factory, ids)
        self.cycle = PromptCycle(settings, game, self.seating, ids, record, self.public,
                                 self.publisher.changed)
        if steps:
            replay(steps[1:], fmt, settings.name, self.seating, self.cycle)
            self.cycle.resume_bots()  # a bot's secret lived in memory only
        elif start is not None:
            for index, plan in enumerate(start.seats):
                if plan.bot:
                    self.seating.seat_bot(index)
                elif plan.uid is not None:
                    self.seating.claim(index, plan.uid, plan.name)
        for seat in settings.bots:  # (on resume: a daemon killed before it seated its bots)
            if not self.table.seats[seat].taken:
                self.seating.seat_bot(seat)
        self.cycle.pump()

    # ------------------------------------------------------------------ what others read

    @property
    def game(self) -> Game:
        return self.cycle.game

    @property
    def box(self) -> Lockbox | None:
        """The open prompt's lockbox (None between prompts and once the game is over)."""
        return self.cycle.box

    @property
    def sessions(self) -> dict[str, Session]:
        return self.seating.sessions

    @property
    def pairing(self) -> dict[str, int]:
        return self.seating.pairing

    @property
    def finished(self) -> asyncio.Event:
        return self.cycle.finished

    @property
    def events(self) -> list[Event]:
        """Every public event so far (a private one never gets in)."""
        return self.public.events

    @property
    def reveal_times(self) -> deque[float]:
        return self.cycle.reveal_times

    @property
    def refused_reveals(self) -> deque[str]:
        return self.cycle.refused_reveals

    @property
    def feed(self) -> Feed[TableState]:
        return self.publisher.feed

    @property
    def watchers(self) -> list[Callable[[], None]]:
        return self.publisher.watchers

    def state(self, number: int = 1) -> TableState:
        """The public table state now (for the MQTT `state` topic and the displays);
        `number`: this game's number at its table (the console's count)."""
        return table_state(self.settings.name, self.settings.game, self.table, self.pairing,
                           self.cycle.box, self.cycle.game, self.public, number)

    def links(self) -> dict[str, LinkInfo]:
        """Each live controller's link facts now (a snapshot: displays never get a session)."""
        return self.seating.links()

    # ------------------------------------------------------------------ requests

    def fill_with_bots(self) -> None:
        """Put a bot in every empty seat (on request, e.g. the demo or an admin)."""
        self.seating.fill_with_bots()
        self.cycle.pump()

    def start_timers(self) -> None:
        """Arm the open prompt's timers (after a restart, once the loop runs)."""
        self.cycle.start_timers()

    # ------------------------------------------------------------------ SessionHost

    def admit(self, session: Session, hello: Hello) -> Welcome | Error:
        return self.seating.admit(session, hello)

    def owes(self, session: Session) -> bool:
        seat = self.table.seat_of(session.uid) if session.uid else None
        if self.cycle.box is None or seat is None:
            return session.uid in self.pairing  # a pairing press is awaited too
        return self.cycle.owes(seat.index)

    def is_open(self, session: Session, pid: int) -> bool:
        return self.cycle.is_open(pid) or pid in self.pairing.values()

    def durable(self) -> None:
        self.journal.sync()

    def on_offline(self, session: Session) -> None:
        if self.seating.left(session):
            self.publisher.changed()

    def on_snapshot(self, session: Session, snap: Snapshot) -> None:
        seat = self.seating.arrived(session)
        if seat is None:
            assert session.uid is not None
            self.seating.offer(session, session.uid)
            self.publisher.changed()
            return
        seat.state = snap.state
        self.cycle.resume(session, seat.index, snap)
        self.publisher.changed()
        if self.cycle.box is None:
            self.cycle.pump()  # a seat taken without a press (pairing "auto") may start the game

    def on_message(self, session: Session, msg: Message) -> None:
        uid = session.uid
        assert uid is not None
        if isinstance(msg, Dial):
            # a live prompt's wheels as they move (docs/protocol.md, `dial`): only the
            # console's menu asks live prompts, a game's never does. Ignored: not published,
            # not answered (a late one from the menu before this game is harmless)
            return
        if isinstance(msg, Status):
            at = self.table.seat_of(uid)
            if at is not None and msg.state in CONTROLLER_STATES:
                at.state = msg.state
                self.publisher.changed()
            return
        if isinstance(msg, Reveal) and self.pairing.get(uid) == msg.pid:
            self.cycle.closed_pids.append(self.seating.paired(session, uid))
            self.publisher.changed()
            self.cycle.pump()
            return
        seat = self.table.seat_of(uid)
        if seat is None:
            session.post(Error(code=codec.E_SEAT, detail="take a seat first", ref=msg.seq))
            return
        self.cycle.on_frame(session, seat.index, msg)
