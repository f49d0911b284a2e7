"""One table as a console: many games in turn, chosen from its controllers, all journaled.

`Console` is the session host of one table (what the daemon's links talk to). While a game
is on it hands everything to that game's `GameRunner`; when the game ends (or the table has
no game yet) it runs the table's `Menu`: it asks the seated controllers with open prompts,
follows the chooser's wheels live (`dial` frames, for the screen), journals names and
prompt ids, and starts the chosen game as a new `GameRunner` over the same controllers.

The journal of a table is a run of segments (docs/host.md, "The journal"): a `table` entry
opens each game, a `menu` entry each stay in the menu. On start the console reads them all:
the last segment says whether to resume a game (in its runner) or the menu; names and the
last game (what a rematch repeats) come from the earlier ones.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from dialbox.console.menu import (
    LastGame,
    Menu,
    MenuAsk,
    Named,
    Outcome,
    Start,
    clean_name,
    labels_of,
    why_not,
)
from dialbox.engine.bots import RandomBot
from dialbox.engine.errors import EngineError
from dialbox.engine.events import Event
from dialbox.engine.game import Game
from dialbox.engine.registry import game_info
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.journal import Journal
from dialbox.journal.entries import (
    MenuEntry,
    NameEntry,
    OverEntry,
    PidEntry,
    SeatEntry,
    TableEntry,
    cut,
    parse,
)
from dialbox.lockbox import Lockbox
from dialbox.phone.codes import JoinCode, JoinCodes, Refusal
from dialbox.runner.oled import oled_text
from dialbox.runner.pids import PromptIds
from dialbox.runner.prompts import PromptCycle
from dialbox.runner.public import Publisher
from dialbox.runner.replay import Numbered
from dialbox.runner.runner import CONTROLLER_STATES, GameRunner, GameStart, SeatPlan
from dialbox.runner.seating import Seating
from dialbox.runner.seatview import SeatViews, seatview_text
from dialbox.runner.settings import TableSettings
from dialbox.sessions import Session
from dialbox.table import Feed, LinkInfo, Table, TableState
from dialbox.table.state import MenuState, MenuWheel, ResultState
from dialbox_protocol import codec
from dialbox_protocol.models import (
    Dial,
    Error,
    Hello,
    Message,
    Prompt,
    Reveal,
    Revealed,
    Snapshot,
    Status,
    Welcome,
)

log = logging.getLogger("dialbox.console")

MENU_SEATS = len(PLAYER_COLOURS)
"""Seats of a table in its menu: every controller that comes may sit."""
CLOSED_KEPT = 16


def segments(steps: Sequence[Numbered]) -> list[list[Numbered]]:
    """A table's parsed entries cut into its segments (`dialbox.journal.entries.cut`)."""
    return cut(steps, lambda step: step[1].kind)


def _seats_of(segment: Sequence[Numbered]) -> dict[int, SeatEntry]:
    seats: dict[int, SeatEntry] = {}
    for _n, step in segment:
        if isinstance(step, SeatEntry):
            seats[step.seat] = step
    return seats


def last_game(segment: Sequence[Numbered], number: int) -> LastGame:
    """What a game segment says of its game (for a rematch, and the menu's "last game")."""
    head = segment[0][1]
    assert isinstance(head, TableEntry)
    seats = _seats_of(segment)
    count = max(seats, default=-1) + 1
    plans = tuple(SeatPlan(uid=seats[i].uid, bot=seats[i].bot, name=seats[i].name)
                  if i in seats else SeatPlan(bot=True) for i in range(count))
    result = next((s.result for _n, s in reversed(segment) if isinstance(s, OverEntry)), None)
    return LastGame(number, head.game, dict(head.options), head.bot, plans, result)


class Console:
    """One table: its menu while idle, the `GameRunner` of its game while one is on."""

    def __init__(self, settings: TableSettings, journal: Journal, host_name: str = "dialbox",
                 *, menu: bool = True) -> None:
        """`settings.game` is the table's first game ("" : the table starts in its menu);
        `menu`: after a game the table goes to its menu (False: it stays finished)."""
        self.settings = settings
        self.journal = journal
        self.host_name = host_name
        self.menu_enabled = menu or not settings.game
        self.record = functools.partial(journal.record, settings.name)
        self.joins = JoinCodes()
        """The join codes of the free seats, for phones (dialbox.phone)."""
        self.seatviews = SeatViews(self._push_views)
        """Each seatview-capable controller's seat view, sent when it changes."""
        self.phone: Any = None
        """This table's phone gateway (dialbox.phone.gateway), set by the daemon: the table
        screen hands it phones' pairing requests and WebSockets."""
        self.publisher = Publisher(self.state)
        self.publisher.watchers.append(self._watch)
        self.finished = asyncio.Event()
        """Set while the table's latest game is over (cleared when the next one starts)."""
        self.runner: GameRunner | None = None
        self.last_runner: GameRunner | None = None
        self.menu: Menu | None = None
        self.seating: Seating | None = None
        """The menu's seats and sessions (None while a game is on)."""
        self.open: dict[int, tuple[int, MenuAsk]] = {}
        """seat -> the menu prompt (id, ask) it was sent and has not answered."""
        self.dial: tuple[int, int, int] | None = None
        """The chooser's wheels as last reported (`dial`), for the screen."""
        self.closed_pids: deque[int] = deque(maxlen=CLOSED_KEPT)
        self.last_told: dict[int, Revealed] = {}
        self.names: dict[str, str] = {}
        self.recent: list[str] = []
        self.last: LastGame | None = None
        self.number = 0
        """Games started at this table (the journal's game segments)."""
        self.new_seed: Callable[[], int] = lambda: int.from_bytes(os.urandom(4), "big")

        steps = [(e.n, parse(e)) for e in journal.entries(settings.name)]
        segs = segments(steps)
        for _n, step in steps:
            if isinstance(step, NameEntry) or (
                    isinstance(step, SeatEntry) and step.uid and step.name):
                assert step.uid is not None and step.name is not None
                self._remember(step.uid, step.name)
        games = [s for s in segs if isinstance(s[0][1], TableEntry)]
        self.number = len(games)
        if games:
            self.last = last_game(games[-1], self.number)
        if not segs:
            if settings.game:
                self.number = 1
                self._run(settings, GameStart(PromptIds.fresh().next, "config"))
            else:
                self._open_menu(PromptIds.fresh(), {})
            return
        seg = segs[-1]
        head = seg[0][1]
        if isinstance(head, TableEntry):
            self._run(self._settings_for(head), None, seg)
            if self.runner is not None and self.runner.finished.is_set():
                self.finished.set()
                if self.menu_enabled:
                    self._to_menu()
        else:
            assert isinstance(head, MenuEntry)
            self._resume_menu(seg, head)

    # ------------------------------------------------------------------ games

    def _settings_for(self, head: TableEntry) -> TableSettings:
        """A journaled game's settings: the table's own for its configured first game, else
        from the `table` entry (the timeouts, pairing and controllers stay the table's)."""
        base = self.settings
        if head.how in (None, "config") and head.game == base.game:
            return base
        options = dict(head.options)
        players = int(options.pop("players"))
        seed = int(options.pop("seed", 0))
        return TableSettings(
            name=base.name, game=head.game, players=players, seed=seed, options=options,
            controllers=list(base.controllers), pairing=base.pairing,
            prompt_timeout=base.prompt_timeout, reveal_timeout=base.reveal_timeout,
            bot=head.bot)

    def _run(self, settings: TableSettings, start: GameStart | None,
             segment: Sequence[Numbered] | None = None) -> GameRunner:
        runner = GameRunner(settings, self.journal, self.host_name, segment=segment,
                            start=start, publisher=self.publisher)
        runner.seating.name_of = self.names.get
        self.runner = runner
        self.last_runner = runner
        return runner

    def _start(self, start: Start) -> None:
        """The menu chose a game (or a rematch, or a swap): it starts now, over the same
        controllers, journaled as a new segment."""
        seating = self.seating
        assert seating is not None
        title = game_info(start.game).title
        for seat in list(self.open):
            self._close(seat, f"Starting {title}")
        options = dict(start.options)
        players = int(options.pop("players"))
        seed = int(options.pop("seed"))
        base = self.settings
        settings = TableSettings(
            name=base.name, game=start.game, players=players, seed=seed, options=options,
            controllers=list(base.controllers), pairing=base.pairing,
            prompt_timeout=base.prompt_timeout, reveal_timeout=base.reveal_timeout,
            bot=start.bot)
        sessions = dict(seating.sessions)
        self.menu, self.seating, self.dial = None, None, None
        self.number += 1
        self.finished.clear()
        log.info("%s: game %d: %s (%s), %d players, seed %d", base.name, self.number, title,
                 start.how, players, seed)
        runner = self._run(settings, GameStart(seating.ids.next, start.how, start.seats))
        for uid, session in sessions.items():
            place = runner.table.seat_of(uid)
            # a welcome to the seat of the new game (its colour may change); the snapshot it
            # brings back seats the controller in the runner
            session.post(runner.seating.welcome(place.index) if place is not None else
                         Welcome(seat=-1, colour="ffffff", table=base.name, name=""))
        self.publisher.changed()

    def _watch(self) -> None:
        """After each burst of changes: each phone's seat view if it changed; a game that
        ended sends the table to its menu (in the next loop turn, never inside the runner's
        own call)."""
        self._push_views()
        runner = self.runner
        if runner is None or not runner.finished.is_set():
            return
        self.finished.set()
        if not self.menu_enabled:
            return
        try:
            asyncio.get_running_loop().call_soon(self._over)
        except RuntimeError:
            pass

    def _over(self) -> None:
        if self.runner is not None and self.runner.finished.is_set() and self.menu is None:
            self._to_menu()

    # ------------------------------------------------------------------ the menu

    def _menu_seating(self, ids: PromptIds) -> Seating:
        base = self.settings
        settings = TableSettings(name=base.name, game=base.game, players=MENU_SEATS,
                                 controllers=list(base.controllers), pairing=base.pairing)
        seating = Seating(settings, Table(base.name, MENU_SEATS), self.record, RandomBot, ids)
        seating.name_of = self.names.get
        return seating

    def _new_menu(self, humans: dict[int, str]) -> Menu:
        return Menu(humans=humans, names=self.names, recent=self.recent, last=self.last,
                    new_seed=lambda: self.new_seed())

    def _open_menu(self, ids: PromptIds, carried: dict[int, tuple[str, str | None]],
                   sessions: dict[str, Session] | None = None) -> None:
        self.record(MenuEntry(first_pid=ids.next))
        seating = self.seating = self._menu_seating(ids)
        for index, (uid, name) in sorted(carried.items()):
            seating.claim(index, uid, name)
        for uid, session in (sessions or {}).items():
            seating.sessions[uid] = session
            seat = seating.table.seat_of(uid)
            if seat is not None:
                seat.online = session.online
        self.menu = self._new_menu({s.index: s.uid for s in seating.table.seats
                                    if s.uid is not None and s.online})
        self._sync()
        self.publisher.changed()

    def _to_menu(self) -> None:
        """The game is over: the table goes to its menu, its controllers keep their seats."""
        runner = self.runner
        assert runner is not None
        result = runner.game.result
        self.last = LastGame(
            self.number, runner.settings.game, runner.game.options.model_dump(mode="json"),
            runner.settings.bot,
            tuple(SeatPlan(uid=s.uid, bot=s.bot, name=s.player) for s in runner.table.seats),
            result.to_json() if result is not None else None)
        self.runner = None
        carried = {s.index: (s.uid, s.player) for s in runner.table.seats if s.uid}
        self._open_menu(runner.seating.ids, carried, dict(runner.seating.sessions))
        log.info("%s: game %d over; the table is in its menu", self.settings.name,
                 self.number)

    def _resume_menu(self, segment: Sequence[Numbered], head: MenuEntry) -> None:
        ids = PromptIds(head.first_pid)
        seating = self.seating = self._menu_seating(ids)
        for _n, step in segment[1:]:
            if isinstance(step, PidEntry):
                ids.spent(step.pid)
            elif isinstance(step, SeatEntry) and step.uid is not None:
                seating.restore(step)
        for seat in seating.table.seats:  # a name taken after the seat was
            if seat.uid is not None:
                seat.player = self.names.get(seat.uid, seat.player)
        if self.last is not None:
            self.finished.set()
        self.menu = self._new_menu({})  # controllers join it as they come back
        log.info("%s: resumed in the menu (%d games played)", self.settings.name, self.number)

    def _remember(self, uid: str, name: str) -> None:
        self.names[uid] = name
        if name in self.recent:
            self.recent.remove(name)
        self.recent.insert(0, name)

    def _sync(self) -> None:
        """Close the menu prompts whose question changed, ask the seats newly asked."""
        menu, seating = self.menu, self.seating
        assert menu is not None and seating is not None
        asks = menu.asks()
        for seat, (_pid, ask) in list(self.open.items()):
            if asks.get(seat) != ask:
                self._close(seat, menu.note or "The menu moved on")
        for seat, ask in asks.items():
            if seat in self.open:
                continue
            session = seating.session_of(seat)
            if session is None:
                continue
            pid = seating.ids.take()
            self.record(PidEntry(pid=pid))
            self.open[seat] = (pid, ask)
            session.post(self._prompt(pid, ask))
        if menu.chooser is not None and menu.chooser in asks:
            ask = asks[menu.chooser]
            self.dial = (ask.wheels[0].start if ask.wheels[0] else -1,
                         ask.wheels[1].start if ask.wheels[1] else -1,
                         ask.wheels[2].start if ask.wheels[2] else -1)
        else:
            self.dial = None

    @staticmethod
    def _prompt(pid: int, ask: MenuAsk) -> Prompt:
        wheels = [w.to_wire(i) if w is not None else None for i, w in enumerate(ask.wheels)]
        return Prompt(pid=pid, sealed=False, unlock=False, text=oled_text(ask.text)[:60],
                      wheels=wheels, live=ask.live)

    def _close(self, seat: int, why: str) -> None:
        """Close a seat's open menu prompt unanswered (the controller lets it go)."""
        pid, _ask = self.open.pop(seat)
        note = Revealed(seq=1, pid=pid, choices=[], summary=oled_text(why)[:120])
        self._tell(seat, note)

    def _tell(self, seat: int, note: Revealed) -> None:
        self.closed_pids.append(note.pid)
        self.last_told[seat] = note
        seating = self.seating
        session = seating.session_of(seat) if seating is not None else None
        if session is not None:
            session.post(note)

    def _menu_reveal(self, session: Session, seat: int, msg: Reveal) -> None:
        menu = self.menu
        uid = session.uid
        assert menu is not None and uid is not None
        entry = self.open.get(seat)
        if entry is None or entry[0] != msg.pid:
            if msg.pid not in self.closed_pids:
                session.post(Error(code=codec.E_PROMPT, detail=f"prompt {msg.pid} is not open",
                                   ref=msg.seq))
            return
        pid, ask = entry
        sel = (msg.sel[0], msg.sel[1], msg.sel[2]) if len(msg.sel) == 3 else (-1, -1, -1)
        why = why_not(ask, sel) if len(msg.sel) == 3 else "a selection has 3 wheels"
        if why is not None:
            session.post(Error(code=codec.E_ILLEGAL, detail=why[:80], ref=msg.seq))
            self._close(seat, f"Void: {why}")
            self._sync()
            return
        del self.open[seat]
        words = labels_of(ask, sel)
        self._tell(seat, Revealed(seq=1, pid=pid, choices=[(seat, words)],
                                  summary=oled_text(f"{PLAYER_COLOURS[seat][0]}: {words}"),
                                  reveals=[(seat, sel, msg.nonce, uid)]))
        self._outcome(menu.answer(seat, sel))

    def _outcome(self, outcome: Outcome) -> None:
        menu, seating = self.menu, self.seating
        assert menu is not None and seating is not None
        if isinstance(outcome, Start):
            self._start(outcome)
            return
        if isinstance(outcome, Named):
            name = clean_name(outcome.name)
            if name is not None:
                self.record(NameEntry(uid=outcome.uid, name=name))
                self._remember(outcome.uid, name)
                seat = seating.table.seat_of(outcome.uid)
                if seat is not None:
                    seat.player = name
                log.info("%s: controller %s is %s", self.settings.name, outcome.uid, name)
        self._sync()
        self.publisher.changed()

    def _menu_state(self) -> MenuState:
        menu = self.menu
        assert menu is not None
        wheels: list[MenuWheel | None] = [None, None, None]
        if menu.chooser is not None and menu.stage not in ("idle", "vote"):
            ask = menu.asks().get(menu.chooser)
            if ask is not None:
                for i, w in enumerate(ask.wheels):
                    if w is None:
                        continue
                    at = self.dial[i] if self.dial is not None else w.start
                    wheels[i] = MenuWheel(label=ask.labels[i] or "", faces=tuple(
                        f.label for f in w.faces), allowed=w.choices,
                        at=at if 0 <= at < len(w.faces) else w.start)
        last = self.last
        return MenuState(
            stage=menu.stage, text=menu.text(), chooser=menu.chooser,
            wheels=(wheels[0], wheels[1], wheels[2]), choice=dict(menu.choice),
            voters=menu.voters, votes=tuple(sorted(menu.votes.items())), note=menu.note,
            games=self.number,
            last=None if last is None else {
                "game": last.game, "title": last.title, "number": last.number,
                "result": (last.result or {}).get("text")})

    # ------------------------------------------------------------------ what others read

    @property
    def current(self) -> GameRunner:
        """The game on now, or the last one played (the menu shows its end)."""
        runner = self.runner or self.last_runner
        if runner is None:
            raise EngineError(f"table {self.settings.name} has played no game yet")
        return runner

    @property
    def game(self) -> Game:
        return self.current.game

    @property
    def cycle(self) -> PromptCycle:
        return self.current.cycle

    @property
    def box(self) -> Lockbox | None:
        return self.runner.box if self.runner is not None else None

    @property
    def table(self) -> Table:
        if self.runner is not None:
            return self.runner.table
        assert self.seating is not None
        return self.seating.table

    @property
    def sessions(self) -> dict[str, Session]:
        return self._seating().sessions

    @property
    def pairing(self) -> dict[str, int]:
        return self._seating().pairing

    def _seating(self) -> Seating:
        if self.runner is not None:
            return self.runner.seating
        assert self.seating is not None
        return self.seating

    @property
    def events(self) -> list[Event]:
        return self.current.events

    @property
    def reveal_times(self) -> deque[float]:
        return self.current.reveal_times

    @property
    def refused_reveals(self) -> deque[str]:
        return self.current.refused_reveals

    @property
    def bot_factory(self) -> Any:
        return self.current.bot_factory

    @property
    def feed(self) -> Feed[TableState]:
        return self.publisher.feed

    @property
    def watchers(self) -> list[Callable[[], None]]:
        return self.publisher.watchers

    @property
    def phase(self) -> str:
        return "game" if self.runner is not None else "menu"

    def state(self) -> TableState:
        """The public table state now: the game's, or the menu over the last game's end."""
        if self.runner is not None:
            return self.runner.state(self.number)
        seating = self.seating
        assert seating is not None
        if self.last_runner is not None:
            base = self.last_runner.state()
        else:
            last = self.last
            result = None if last is None or not last.result else ResultState(
                scores={int(k): int(v) for k, v in last.result.get("scores", {}).items()},
                winners=tuple(last.result.get("winners", ())),
                text=str(last.result.get("text", "")))
            base = TableState(table=self.settings.name, game=last.game if last else "",
                              seats=(), over=last is not None, result=result)
        seats = tuple(s.public() for s in seating.table.seats if s.uid is not None)
        return base.model_copy(update={
            "seats": seats, "pairing": tuple(seating.pairing), "prompt": None,
            "phase": "menu", "menu": self._menu_state() if self.menu else None,
            "number": self.number})

    def links(self) -> dict[str, LinkInfo]:
        return self._seating().links()

    # ------------------------------------------------------------------ phones

    @property
    def name(self) -> str:
        return self.settings.name

    def _push_views(self) -> None:
        """Post each seatview-capable controller its seat's view, if it changed."""
        if self.runner is None and self.seating is None:
            return  # (still starting)
        seating = self._seating()
        pairs = []
        for uid, session in seating.sessions.items():
            seat = seating.table.seat_of(uid)
            if seat is not None:
                pairs.append((session, seat.index))
        if not pairs:
            return
        runner = self.runner
        if runner is not None:
            game: Game | None = runner.game
            name: str | None = runner.settings.game
            phase = "game"
        else:
            game, name, phase = None, None, "menu"
        self.seatviews.push(pairs, lambda seat: seatview_text(game, seat, name=name,
                                                               phase=phase))

    def _join_stage(self) -> str:
        return f"{'game' if self.runner is not None else 'menu'}-{self.number}"

    def _join_seats(self) -> list[int]:
        """The seats a phone may take now: every free seat of the game (none once it is
        over), or in the menu the next free place."""
        runner = self.runner
        if runner is not None:
            if runner.finished.is_set():
                return []
            return [s.index for s in runner.table.seats if not s.taken]
        if self.seating is None:
            return []
        free = self.seating.table.next_free()
        return [free.index] if free is not None else []

    def join_codes(self) -> list[JoinCode]:
        """The join codes of the free seats now (public: the screen shows them)."""
        return self.joins.current(self._join_seats(), self._join_stage())

    def check_code(self, code: str) -> JoinCode | Refusal:
        return self.joins.check(code, self._join_seats(), self._join_stage())

    def reserve(self, jc: JoinCode, uid: str) -> None:
        """A phone paired with `jc`: its seat is the phone's (journaled), as a controller's
        seat is; its hello is then a returning controller's."""
        self._seating().claim(jc.seat, uid)
        self.joins.spend(jc)
        self.publisher.changed()

    # ------------------------------------------------------------------ requests

    def fill_with_bots(self) -> None:
        if self.runner is not None:
            self.runner.fill_with_bots()

    def start_timers(self) -> None:
        if self.runner is not None:
            self.runner.start_timers()

    # ------------------------------------------------------------------ SessionHost

    def admit(self, session: Session, hello: Hello) -> Welcome | Error:
        if self.runner is not None:
            return self.runner.admit(session, hello)
        assert self.seating is not None
        return self.seating.admit(session, hello)

    def owes(self, session: Session) -> bool:
        if self.runner is not None:
            return self.runner.owes(session)
        assert self.seating is not None
        seat = self.seating.table.seat_of(session.uid) if session.uid else None
        return (seat is not None and seat.index in self.open) or \
            session.uid in self.seating.pairing

    def is_open(self, session: Session, pid: int) -> bool:
        if self.runner is not None:
            return self.runner.is_open(session, pid)
        assert self.seating is not None
        return any(p == pid for p, _a in self.open.values()) or \
            pid in self.seating.pairing.values()

    def durable(self) -> None:
        self.journal.sync()

    def on_offline(self, session: Session) -> None:
        if self.runner is not None:
            self.runner.on_offline(session)
            return
        seating, menu = self.seating, self.menu
        assert seating is not None and menu is not None
        if not seating.left(session):
            return
        seat = seating.table.seat_of(session.uid) if session.uid else None
        if seat is not None:
            self.open.pop(seat.index, None)  # it comes back holding it: then it is closed
            self._outcome(menu.left(seat.index))
        self.publisher.changed()

    def on_snapshot(self, session: Session, snap: Snapshot) -> None:
        self.seatviews.forget(session)  # a new welcome: its seat's view goes again
        if self.runner is not None:
            self.runner.on_snapshot(session, snap)
            return
        seating, menu = self.seating, self.menu
        assert seating is not None and menu is not None and session.uid is not None
        seat = seating.arrived(session)
        if seat is None:
            seating.offer(session, session.uid)
            self.publisher.changed()
            return
        seat.state = snap.state
        mine = self.open.get(seat.index)
        if snap.pid is not None and snap.state != "revealed" and \
                (mine is None or mine[0] != snap.pid):
            # it still holds a prompt that is over here: how that ended, first
            told = self.last_told.get(seat.index)
            session.post(told if told is not None and told.pid == snap.pid else Revealed(
                seq=1, pid=snap.pid, choices=[], summary=f"Void: prompt {snap.pid} is over"))
        if mine is not None:
            session.post(self._prompt(*mine))  # the link dropped: the same prompt again
        if menu.humans.get(seat.index) != session.uid:
            menu.seated(seat.index, session.uid)
        self._sync()
        self.publisher.changed()

    def on_message(self, session: Session, msg: Message) -> None:
        if self.runner is not None:
            self.runner.on_message(session, msg)
            return
        seating, menu = self.seating, self.menu
        uid = session.uid
        assert seating is not None and menu is not None and uid is not None
        seat = seating.table.seat_of(uid)
        if isinstance(msg, Status):
            if seat is not None and msg.state in CONTROLLER_STATES:
                seat.state = msg.state
                self.publisher.changed()
            return
        if isinstance(msg, Reveal) and seating.pairing.get(uid) == msg.pid:
            self.closed_pids.append(seating.paired(session, uid))
            seat = seating.table.seat_of(uid)
            if seat is not None:
                menu.seated(seat.index, uid)
                self._sync()
            self.publisher.changed()
            return
        if isinstance(msg, Dial):
            mine = self.open.get(seat.index) if seat is not None else None
            if (seat is not None and mine is not None and mine[0] == msg.pid
                    and mine[1].live and seat.index == menu.chooser and len(msg.sel) == 3):
                self.dial = (msg.sel[0], msg.sel[1], msg.sel[2])
                self.publisher.changed()
            return  # anything else: never shown, never answered (protocol.md, "Live prompts")
        if seat is None:
            session.post(Error(code=codec.E_SEAT, detail="take a seat first", ref=msg.seq))
            return
        if isinstance(msg, Reveal):
            self._menu_reveal(session, seat.index, msg)
            return
        pid = getattr(msg, "pid", None)
        if pid in self.closed_pids:
            return
        session.post(Error(code=codec.E_PROMPT, detail="the menu asks open questions only",
                           ref=msg.seq))

