"""Who sits where: controllers admitted, paired with a press (or at once) and seated; bots.

`Seating` owns the table's seats, the live session of each controller (by unique id) and
the bots. It journals every seat it gives; the prompt cycle asks it for a seat's session or
bot. Displays get `links()`, a snapshot of link facts, never a session.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from dialbox.engine.bots import Bot, BotFactory
from dialbox.journal.entries import PidEntry, SeatEntry, Step
from dialbox.runner.pids import PromptIds
from dialbox.runner.settings import TableSettings
from dialbox.sessions import Session
from dialbox.table import LinkInfo, Seat, Table
from dialbox_protocol import codec
from dialbox_protocol.models import Error, Hello, Prompt, Welcome

log = logging.getLogger("dialbox.runner")

NO_WHEELS: list[None] = [None, None, None]

Record = Callable[[Step], None]
"""Journals one entry of this table."""


class Seating:
    """The seats of one table, the sessions of its controllers and the bots in its seats."""

    def __init__(self, settings: TableSettings, table: Table, record: Record,
                 bot_factory: BotFactory, ids: PromptIds) -> None:
        self.settings = settings
        self.table = table
        self.record = record
        self.bot_factory = bot_factory
        self.ids = ids
        self.sessions: dict[str, Session] = {}
        """uid -> the controller's live session (once its snapshot arrived)."""
        self.pairing: dict[str, int] = {}
        """uid -> the pairing prompt ("Press to take seat N") it was offered."""
        self.bots: dict[int, Bot] = {}
        self.name_of: Callable[[str], str | None] = lambda uid: None
        """The player name a controller took (the console sets it): a seat taken during
        the game carries it."""

    # ------------------------------------------------------------------ seats

    def seat_bot(self, index: int) -> None:
        self.table.seat_bot(index)
        self.bots[index] = self._new_bot(index)
        self.record(SeatEntry(seat=index, uid=None, bot=True))

    def claim(self, index: int, uid: str, name: str | None = None) -> None:
        name = name or self.name_of(uid)
        self.table.claim(index, uid).player = name
        self.record(SeatEntry(seat=index, uid=uid, bot=False, name=name))
        log.info("%s: controller %s%s takes seat %d", self.settings.name, uid,
                 f" ({name})" if name else "", index + 1)

    def restore(self, entry: SeatEntry) -> None:
        """A journaled seat (replay)."""
        if entry.bot:
            self.table.seat_bot(entry.seat)
            self.bots[entry.seat] = self._new_bot(entry.seat)
        elif entry.uid is not None:
            self.table.claim(entry.seat, entry.uid).player = entry.name

    def bot(self, seat: int) -> Bot:
        """The bot of a bot seat (made on first use)."""
        bot = self.bots.get(seat)
        if bot is None:
            bot = self.bots[seat] = self._new_bot(seat)
        return bot

    def _new_bot(self, seat: int) -> Bot:
        return self.bot_factory(self.settings.seed * 31 + seat)

    def fill_with_bots(self) -> None:
        """A bot in every empty seat."""
        for seat in self.table.seats:
            if not seat.taken:
                self.seat_bot(seat.index)

    @property
    def wants_bots(self) -> bool:
        """`fill_with_bots` is set and the listed controllers (at least one) are seated."""
        if not self.settings.fill_with_bots or self.table.full:
            return False
        humans = sum(1 for s in self.table.seats if s.uid)
        return humans >= max(1, len(self.settings.controllers))

    def session_of(self, seat: int) -> Session | None:
        uid = self.table.seats[seat].uid
        return self.sessions.get(uid) if uid else None

    # ------------------------------------------------------------------ controllers

    def admit(self, session: Session, hello: Hello) -> Welcome | Error:
        live = self.sessions.get(hello.uid)
        if live is not None and live is not session and live.online and not live.link.closed:
            return Error(code=codec.E_SPOOF, detail=f"{hello.uid} is already connected", ref=0)
        seat = self.table.seat_of(hello.uid)
        if seat is not None:
            return self.welcome(seat.index)
        allowed = self.settings.controllers
        if allowed and hello.uid not in allowed:
            return Error(code=codec.E_DEVICE,
                         detail=f"{hello.uid} is not a controller of {self.settings.name}", ref=0)
        free = self.table.next_free()
        if free is None:
            return Error(code=codec.E_SEAT, detail=f"{self.settings.name} has no free seat", ref=0)
        if self.settings.pairing == "auto":
            self.claim(free.index, hello.uid)
            return self.welcome(free.index)
        return Welcome(seat=-1, colour="ffffff", table=self.settings.name, name="")

    def welcome(self, index: int) -> Welcome:
        s = self.table.seats[index]
        return Welcome(seat=index, colour=s.colour, table=self.settings.name, name=s.name)

    def arrived(self, session: Session) -> Seat | None:
        """A controller's snapshot came: its session is the live one; its seat, if any."""
        uid = session.uid
        assert uid is not None
        old = self.sessions.get(uid)
        self.sessions[uid] = session
        if old is not None and old is not session:
            asyncio.ensure_future(old.link.close())
        seat = self.table.seat_of(uid)
        if seat is not None:
            session.seat = seat.index
            seat.online = True
        return seat

    def left(self, session: Session) -> bool:
        """The session went offline; False if it was not the live one of its controller."""
        uid = session.uid
        if uid is None or self.sessions.get(uid) is not session:
            return False
        del self.sessions[uid]
        seat = self.table.seat_of(uid)
        if seat is not None:
            seat.online = False
        return True

    def offer(self, session: Session, uid: str) -> None:
        """Ask an unseated controller to press for the next free seat (one prompt id each)."""
        free = self.table.next_free()
        if free is None:
            session.post(Error(code=codec.E_SEAT, detail="no free seat at this table", ref=0))
            return
        pid = self.pairing.get(uid)
        if pid is None:
            pid = self.ids.take()
            self.record(PidEntry(pid=pid))
            self.pairing[uid] = pid
        session.post(Prompt(pid=pid, sealed=False, unlock=False,
                            text=f"Press to take seat {free.index + 1}", wheels=NO_WHEELS))

    def paired(self, session: Session, uid: str) -> int:
        """The press answering a pairing prompt: seat the controller. Returns that prompt's
        id (closed now)."""
        pid = self.pairing.pop(uid)
        free = self.table.next_free()
        if free is None:
            session.post(Error(code=codec.E_SEAT, detail="no free seat at this table", ref=0))
            return pid
        self.claim(free.index, uid)
        session.seat = free.index
        session.post(self.welcome(free.index))
        return pid

    def links(self) -> dict[str, LinkInfo]:
        """Each live controller's link facts, now (for displays: no session leaves here)."""
        now = time.monotonic()
        return {uid: LinkInfo(
            transport=s.link.kind,
            firmware=s.hello.fw if s.hello is not None else None,
            heartbeat_age=max(0.0, now - s.last_heard),
            rtt_ms=s.rtt_ms, unacked=s.unacked, online=s.online,
        ) for uid, s in self.sessions.items()}
