"""Runs one table: seats controllers, turns decisions into prompts, feeds verified answers back.

The runner is the sessions' host (SessionHost): every call is synchronous and journals what
it accepts before returning, so the session's acknowledgement always follows the journal.
Timers (prompt and reveal timeouts) are the only asynchronous part.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dialbox.engine.bots import Bot, BotFactory, LegalAnswers, SeatView, bot_kinds
from dialbox.engine.decisions import Ask, Decision
from dialbox.engine.errors import EngineError
from dialbox.engine.game import Game
from dialbox.engine.registry import game_module, get_game
from dialbox.journal import Entry, Journal
from dialbox.lockbox import Lockbox, Phase, Verdict
from dialbox.sessions import Session
from dialbox.table import Feed, Table
from dialbox_protocol import codec
from dialbox_protocol.models import (
    AllLocked,
    Commit,
    Error,
    Hello,
    Message,
    Prompt,
    Reveal,
    Revealed,
    Snapshot,
    Status,
    Uncommit,
    Welcome,
)

log = logging.getLogger("dialbox.runner")

Selection = tuple[int, int, int]
NO_WHEELS: list[Any] = [None, None, None]


def game_source(name: str) -> Any:
    """The module a game comes from (registered name or `package.module:Class`)."""
    if ":" in name:
        return importlib.import_module(name.partition(":")[0])
    return game_module(name)


def load_game(name: str) -> type[Game]:
    """A game by registered name, or `package.module:Class` for a game outside the registry."""
    if ":" in name:
        module, _, attr = name.partition(":")
        cls = getattr(importlib.import_module(module), attr)
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            raise EngineError(f"{name} is not a Game class")
        return cls
    return get_game(name)


@dataclass(slots=True)
class TableSettings:
    """What a table plays and how (validated from the config file by dialbox.daemon.config)."""

    name: str
    game: str
    players: int
    seed: int = 0
    seats: int | None = None
    """Controllers at the table when it differs from players (Pixoid's 3 Player Variant: 4)."""
    options: dict[str, Any] = field(default_factory=dict)
    bots: list[int] = field(default_factory=list)
    """Seats (0-based) that bots fill from the start."""
    fill_with_bots: bool = False
    """Seat bots in every seat still empty once `controllers` controllers have paired."""
    controllers: list[str] = field(default_factory=list)
    """Unique ids allowed at this table (empty: any controller may pair)."""
    teams: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    pairing: str = "press"
    """'press': a new controller presses its button to take the next free seat; 'auto'."""
    prompt_timeout: float | None = None
    reveal_timeout: float = 30.0
    bot: str | None = None
    """Bot kind for bot seats: one the game offers; default its heuristic bot, else random."""


@dataclass(slots=True)
class _BotSecret:
    sel: Selection
    nonce: str


def _sel(v: list[int]) -> Selection:
    return (int(v[0]), int(v[1]), int(v[2]))


def _labels(ask: Ask, sel: Selection) -> str:
    parts = []
    for pos, wheel in enumerate(ask.wheels):
        if wheel is not None and 0 <= sel[pos] < len(wheel.faces):
            parts.append(wheel.faces[sel[pos]].label)
    return " ".join(parts)[:24]


class GameRunner:
    """One table at work: the table, its game, the open prompt's lockbox, the journal."""

    def __init__(self, settings: TableSettings, journal: Journal, host_name: str = "dialbox"):
        self.settings = settings
        self.journal = journal
        self.host_name = host_name
        self.table = Table(settings.name, settings.seats or settings.players)
        for place, team in zip(self.table.seats, settings.teams, strict=False):
            place.team = team or None
        for place, role in zip(self.table.seats, settings.roles, strict=False):
            place.role = role or None
        self.feed: Feed[dict[str, Any]] = Feed(source=self.state)
        """Every public state, for in-process displays (made only while someone follows)."""
        self.watchers: list[Callable[[], None]] = []
        """Called once per burst of changes, without the state (e.g. a throttled publisher)."""
        self.sessions: dict[str, Session] = {}
        self.pairing: dict[str, int] = {}
        self.box: Lockbox | None = None
        self.bot_secrets: dict[int, _BotSecret] = {}
        self.bots: dict[int, Bot] = {}
        self.last_revealed: Revealed | None = None
        self.closed_pids: deque[int] = deque(maxlen=16)
        """Prompts lately answered or voided: a late frame for one of them is harmless."""
        self.reveals: deque[dict[str, Any]] = deque(maxlen=8)
        """The latest reveals, for displays: one state may follow several (publish bursts)."""
        self.last_seats: tuple[int, ...] = ()
        self.events: list[dict[str, Any]] = []
        self.finished = asyncio.Event()
        self.next_pid = 1
        self._timers: list[asyncio.TimerHandle] = []
        self._publish_due = False
        self.reveal_times: list[float] = []
        self.refused_reveals: list[str] = []
        """Why controllers' reveals were refused (mismatch, illegal), for the demo's summary."""
        """Seconds from the last lock to `revealed` being queued, per sealed prompt."""
        self._locked_at: float | None = None
        cls = load_game(settings.game)
        kinds = bot_kinds(game_source(settings.game))
        kind = settings.bot or ("heuristic" if "heuristic" in kinds else "random")
        if kind not in kinds:
            raise EngineError(f"{settings.game} has no bot {kind!r}; bots: {', '.join(kinds)}")
        self.bot_factory: BotFactory = kinds[kind]
        entries = journal.entries(settings.name)
        if not entries:
            options = {"players": settings.players, "seed": settings.seed, **settings.options}
            self.game = cls(options)
            self.next_pid = 1 + int.from_bytes(os.urandom(3), "big") % (codec.MAX_PID // 2)
            self._journal("table", game=settings.game, options=self.game.options.model_dump(),
                          first_pid=self.next_pid)
            for seat in settings.bots:
                self._seat_bot(seat)
        else:
            self.game = self._replay(cls, entries)
            for seat in settings.bots:  # a daemon killed before it seated its bots
                if not self.table.seats[seat].taken:
                    self._seat_bot(seat)
        self._pump()

    # ------------------------------------------------------------------ journal

    def _journal(self, kind: str, **data: Any) -> None:
        self.journal.append(self.settings.name, kind, **data)

    def _replay(self, cls: type[Game], entries: list[Entry]) -> Game:
        """Rebuild table, game and the open prompt from the journal."""
        head = entries[0]
        if head.kind != "table":
            raise EngineError(f"journal for {self.settings.name} does not start with its table")
        if head.data["game"] != self.settings.game:
            raise EngineError(
                f"the journal holds a game of {head.data['game']} at table "
                f"{self.settings.name}, the config says {self.settings.game}: use another "
                f"journal file (or another table name) for a new game")
        game = cls(head.data["options"])
        self.game = game
        self.next_pid = int(head.data["first_pid"])
        for e in entries[1:]:
            d = e.data
            k = e.kind
            if k == "seat":
                if d["bot"]:
                    self.table.seat_bot(d["seat"])
                    self.bots[d["seat"]] = self._new_bot(d["seat"])
                else:
                    self.table.claim(d["seat"], d["uid"])
            elif k == "pid":
                self.next_pid = max(self.next_pid, d["pid"] + 1)
            elif k == "prompt":
                self.next_pid = max(self.next_pid, d["pid"] + 1)
                decision = game.pending
                assert decision is not None and decision.id == d["decision"]
                self.box = self._new_box(d["pid"], decision)
                self.bot_secrets = {}
            elif k == "bot":
                self.bot_secrets[d["seat"]] = _BotSecret(_sel(d["sel"]), d["nonce"])
            elif k == "commit" and self.box is not None:
                self.box.commit(d["seat"], d["uid"], d["commitment"])
            elif k == "uncommit" and self.box is not None:
                self.box.uncommit(d["seat"], d["uid"])
            elif k == "default" and self.box is not None:
                self.box.time_out({int(s): _sel(v) for s, v in d["defaults"].items()})
            elif k == "reveal" and self.box is not None:
                self.box.reveal(d["seat"], d["uid"], _sel(d["sel"]), d["nonce"],
                                lambda _s, _x: None)
            elif k == "applied":
                answers = {int(s): (v[0], v[1], v[2]) for s, v in d["answers"]}
                self.events.extend(ev.to_json() for ev in game.apply(answers, d["decision"]))
                self.box = None
            elif k == "revealed":
                self.last_revealed = Revealed(seq=1, pid=d["pid"], choices=d["choices"],
                                              summary=d["summary"])
                self.last_seats = tuple(d["seats"])
                self.closed_pids.append(d["pid"])
            elif k == "void":
                self.box = None
                self.closed_pids.append(d["pid"])
        log.info("%s: resumed from the journal (%d entries)", self.settings.name, len(entries))
        return game

    # ------------------------------------------------------------------ seats

    def _seat_bot(self, index: int) -> None:
        self.table.seat_bot(index)
        self.bots[index] = self._new_bot(index)
        self._journal("seat", seat=index, uid=None, bot=True)

    def _new_bot(self, seat: int) -> Bot:
        return self.bot_factory(self.settings.seed * 31 + seat)

    def fill_with_bots(self) -> None:
        """Put a bot in every empty seat (on request, e.g. the demo or an admin)."""
        for seat in self.table.seats:
            if not seat.taken:
                self._seat_bot(seat.index)
        self._pump()

    def _welcome(self, index: int) -> Welcome:
        s = self.table.seats[index]
        return Welcome(seat=index, colour=s.colour, table=self.settings.name, name=s.name)

    def _pending_welcome(self) -> Welcome:
        return Welcome(seat=-1, colour="ffffff", table=self.settings.name, name="")

    # ------------------------------------------------------------------ SessionHost

    def admit(self, session: Session, hello: Hello) -> Welcome | Error:
        live = self.sessions.get(hello.uid)
        if live is not None and live is not session and live.online and not live.link.closed:
            return Error(code=codec.E_SPOOF, detail=f"{hello.uid} is already connected", ref=0)
        seat = self.table.seat_of(hello.uid)
        if seat is not None:
            return self._welcome(seat.index)
        allowed = self.settings.controllers
        if allowed and hello.uid not in allowed:
            return Error(code=codec.E_DEVICE,
                         detail=f"{hello.uid} is not a controller of {self.settings.name}", ref=0)
        free = self.table.next_free()
        if free is None:
            return Error(code=codec.E_SEAT, detail=f"{self.settings.name} has no free seat", ref=0)
        if self.settings.pairing == "auto":
            self._claim(free.index, hello.uid)
            return self._welcome(free.index)
        return self._pending_welcome()

    def _claim(self, index: int, uid: str) -> None:
        self.table.claim(index, uid)
        self._journal("seat", seat=index, uid=uid, bot=False)
        log.info("%s: controller %s takes seat %d", self.settings.name, uid, index + 1)

    def owes(self, session: Session) -> bool:
        box = self.box
        seat = self.table.seat_of(session.uid) if session.uid else None
        if box is None or seat is None:
            return session.uid in self.pairing  # a pairing press is awaited too
        return seat.index in box.waiting_for

    def durable(self) -> None:
        self.journal.sync()

    def on_offline(self, session: Session) -> None:
        uid = session.uid
        if uid is None or self.sessions.get(uid) is not session:
            return
        del self.sessions[uid]
        seat = self.table.seat_of(uid)
        if seat is not None:
            seat.online = False
        self._publish()

    def on_snapshot(self, session: Session, snap: Snapshot) -> None:
        uid = session.uid
        assert uid is not None
        old = self.sessions.get(uid)
        self.sessions[uid] = session
        if old is not None and old is not session:
            asyncio.ensure_future(old.link.close())
        seat = self.table.seat_of(uid)
        if seat is None:
            self._offer_seat(session, uid)
            self._publish()
            return
        session.seat = seat.index
        seat.online = True
        seat.state = snap.state
        self._resume(session, seat.index, snap)
        self._publish()
        if self.box is None:
            self._pump()  # a seat taken without a press (pairing "auto") may start the game

    def _offer_seat(self, session: Session, uid: str) -> None:
        free = self.table.next_free()
        if free is None:
            session.post(Error(code=codec.E_SEAT, detail="no free seat at this table", ref=0))
            return
        pid = self.pairing.get(uid)
        if pid is None:
            pid = self._new_pid()
            self._journal("pid", pid=pid)
            self.pairing[uid] = pid
        session.post(Prompt(pid=pid, sealed=False, unlock=False,
                            text=f"Press to take seat {free.index + 1}", wheels=NO_WHEELS))

    def _resume(self, session: Session, seat: int, snap: Snapshot) -> None:
        box = self.box
        if box is not None and seat in box.seats and box.phase in (Phase.OPEN, Phase.ALL_LOCKED):
            if (snap.pid == box.pid and snap.commitment and box.phase == Phase.OPEN
                    and not box.locked(seat)):
                # The commit frame was lost with the link: the snapshot carries it.
                self._commit(session, seat, snap.commitment, 0)
                if self.box is not box:
                    return
            if (box.phase == Phase.ALL_LOCKED and seat in box.commitments
                    and seat not in box.reveals
                    and (snap.pid != box.pid or snap.commitment is None)):
                self._void(f"seat {seat + 1} lost its sealed choice")
                return
            session.post(self._prompt_for(box, seat))
            if box.locked(seat):
                session.post(Status(pid=box.pid, state="locked"))
            if box.phase == Phase.ALL_LOCKED:
                session.post(AllLocked(pid=box.pid))
            return
        last = self.last_revealed
        if last is not None and seat in self.last_seats and snap.pid == last.pid \
                and snap.state != "revealed":
            session.post(last)

    def on_message(self, session: Session, msg: Message) -> None:
        uid = session.uid
        assert uid is not None
        ref = msg.seq
        if isinstance(msg, Status):
            at = self.table.seat_of(uid)
            if at is not None and msg.state in ("idle", "editing", "locked", "unlocked"):
                at.state = msg.state
                self._publish()
            return
        if isinstance(msg, Reveal) and self.pairing.get(uid) == msg.pid:
            self._paired(session, uid)
            return
        seat_obj = self.table.seat_of(uid)
        box = self.box
        if seat_obj is None:
            session.post(Error(code=codec.E_SEAT, detail="take a seat first", ref=ref))
            return
        pid = getattr(msg, "pid", None)
        if box is None or pid != box.pid:
            if pid in self.closed_pids:
                return  # a late frame for a prompt just answered or voided: harmless
            session.post(Error(code=codec.E_PROMPT, detail=f"prompt {pid} is not open", ref=ref))
            return
        seat = seat_obj.index
        if isinstance(msg, Commit):
            self._commit(session, seat, msg.commitment, ref)
        elif isinstance(msg, Uncommit):
            v = box.uncommit(seat, uid)
            if not self._refused(session, v, ref) and v.changed:
                self._journal("uncommit", pid=box.pid, seat=seat, uid=uid)
                session.post(Status(pid=box.pid, state="unlocked"))
                self._publish()
        elif isinstance(msg, Reveal):
            self._reveal(session, seat, uid, msg, ref)

    def _paired(self, session: Session, uid: str) -> None:
        free = self.table.next_free()
        self.closed_pids.append(self.pairing.pop(uid))
        if free is None:
            session.post(Error(code=codec.E_SEAT, detail="no free seat at this table", ref=0))
            return
        self._claim(free.index, uid)
        session.seat = free.index
        session.post(self._welcome(free.index))
        self._publish()
        self._pump()

    def _refused(self, session: Session, v: Verdict, ref: int) -> bool:
        if v.accepted:
            return False
        session.post(Error(code=v.code, detail=v.detail[:80], ref=ref))
        return True

    # ------------------------------------------------------------------ lockbox steps

    def _commit(self, session: Session | None, seat: int, text: str, ref: int,
                uid: str | None = None) -> None:
        box = self.box
        assert box is not None
        uid = uid or (session.uid if session is not None else None)
        assert uid is not None
        v = box.commit(seat, uid, text)
        if session is not None and self._refused(session, v, ref):
            return
        if v.changed:
            self._journal("commit", pid=box.pid, seat=seat, uid=uid, commitment=text)
        if session is not None:
            session.post(Status(pid=box.pid, state="locked"))
        if v.changed:
            self.table.seats[seat].state = "locked"
            if box.phase == Phase.ALL_LOCKED:
                self._all_locked()
            self._publish()

    def _all_locked(self) -> None:
        box = self.box
        assert box is not None
        self._locked_at = time.perf_counter()
        self._journal("alllocked", pid=box.pid)
        for seat in box.seats:
            s = self._session_of(seat)
            if s is not None:
                s.post(AllLocked(pid=box.pid))
        self._arm(self.settings.reveal_timeout, self._reveal_timed_out, box.pid)
        for seat, secret in list(self.bot_secrets.items()):
            self._bot_reveal(seat, secret)
            if self.box is not box:
                return

    def _bot_reveal(self, seat: int, secret: _BotSecret) -> None:
        box = self.box
        assert box is not None
        v = box.reveal(seat, f"bot-{seat}", secret.sel, secret.nonce, self._why_illegal)
        if v.changed:
            self._journal("reveal", pid=box.pid, seat=seat, uid=f"bot-{seat}",
                          sel=list(secret.sel), nonce=secret.nonce)
            if box.complete:
                self._finish()

    def _reveal(self, session: Session, seat: int, uid: str, msg: Reveal, ref: int) -> None:
        box = self.box
        assert box is not None
        v = box.reveal(seat, uid, msg.sel, msg.nonce, self._why_illegal)
        if self._refused(session, v, ref):
            log.warning("%s: seat %d reveal refused: %s", self.settings.name, seat + 1, v.detail)
            self.refused_reveals.append(f"seat {seat + 1}: {v.detail}")
            if v.code == codec.E_ILLEGAL:
                # A committed choice cannot change: the prompt is asked again (protocol.md).
                self._void(f"seat {seat + 1}: {v.detail}")
            return
        if v.changed:
            self._journal("reveal", pid=box.pid, seat=seat, uid=uid, sel=list(msg.sel),
                          nonce=msg.nonce)
            if box.complete:
                self._finish()
            else:
                self._publish()

    def _why_illegal(self, seat: int, sel: Selection) -> str | None:
        d = self.game.pending
        if d is None:
            return "the game is over"
        try:
            self.game.check(d.ask_for(seat), sel)
        except EngineError as e:
            return str(getattr(e, "reason", e))
        return None

    def _finish(self) -> None:
        box = self.box
        assert box is not None and box.complete
        decision = self.game.pending
        assert decision is not None
        answers = box.answers()
        try:
            events = self.game.apply(answers, box.decision)
        except EngineError as e:
            self._void(str(e))
            return
        self._journal("applied", pid=box.pid, decision=box.decision,
                      answers=[[s, list(v)] for s, v in sorted(answers.items())])
        new = [e.to_json() for e in events]
        self.events.extend(new)
        choices = [[s, _labels(decision.ask_for(s), answers[s])] for s in box.seats]
        summary = " ".join(e["text"] for e in new)[:120] or "Revealed."
        revealed = Revealed(seq=1, pid=box.pid, choices=choices, summary=summary)
        self._journal("revealed", pid=box.pid, choices=choices, summary=summary,
                      seats=list(box.seats))
        self.last_revealed, self.last_seats = revealed, box.seats
        self.closed_pids.append(box.pid)
        self.reveals.append({"pid": box.pid, "sealed": box.sealed, "choices": choices,
                             "summary": summary,
                             "text": {a.seat: a.text for a in decision.asks}})
        self.box = None
        self._cancel_timers()
        for seat in box.seats:
            s = self._session_of(seat)
            if s is not None:
                s.post(revealed)
        if box.sealed and self._locked_at is not None:
            self.reveal_times.append(time.perf_counter() - self._locked_at)
        for st in self.table.seats:
            st.state = "idle"
        self._publish()
        self._pump()

    def _void(self, reason: str) -> None:
        box = self.box
        assert box is not None
        log.warning("%s: prompt %d void: %s", self.settings.name, box.pid, reason)
        box.void()
        self._journal("void", pid=box.pid, reason=reason)
        self.closed_pids.append(box.pid)
        self.box = None
        self._cancel_timers()
        note = Revealed(seq=1, pid=box.pid, choices=[], summary=f"Void: {reason}"[:120])
        for seat in box.seats:
            s = self._session_of(seat)
            if s is not None:
                s.post(note)
        self.events.append({"kind": "prompt.void", "text": f"Asked again: {reason}", "data": {}})
        self._publish()
        self._pump()

    # ------------------------------------------------------------------ prompts

    def _new_pid(self) -> int:
        pid = self.next_pid
        self.next_pid = pid % codec.MAX_PID + 1
        return pid

    def _new_box(self, pid: int, d: Decision) -> Lockbox:
        return Lockbox(pid, d.id, d.sealed, d.unlock, d.seats)

    def _prompt_for(self, box: Lockbox, seat: int) -> Prompt:
        d = self.game.pending
        assert d is not None
        ask = d.ask_for(seat)
        wheels = [w.to_wire(i) if w is not None else None for i, w in enumerate(ask.wheels)]
        return Prompt(pid=box.pid, sealed=box.sealed, unlock=box.unlock, text=ask.text[:60],
                      wheels=wheels)

    def _session_of(self, seat: int) -> Session | None:
        uid = self.table.seats[seat].uid
        return self.sessions.get(uid) if uid else None

    def _pump(self) -> None:
        """Open the next prompt when the table is ready and none is open."""
        if self.box is not None:
            if self.box.complete:
                self._finish()
            return
        if self.settings.fill_with_bots and not self.table.full:
            humans = sum(1 for s in self.table.seats if s.uid)
            if humans >= max(1, len(self.settings.controllers)):
                self.fill_with_bots()
                return
        if not self.table.full:
            return
        d = self.game.pending
        if d is None:
            self._game_over()
            return
        pid = self._new_pid()
        self._journal("prompt", pid=pid, decision=d.id)
        box = self._new_box(pid, d)
        self.box = box
        self.bot_secrets = {}
        self._locked_at = None
        for seat in d.seats:
            s = self._session_of(seat)
            if s is not None:
                s.post(self._prompt_for(box, seat))
        if self.settings.prompt_timeout:
            self._arm(self.settings.prompt_timeout, self._prompt_timed_out, pid)
        self._publish()
        for ask in d.asks:
            if self.table.seats[ask.seat].bot:
                self._bot_answer(box, ask)
                if self.box is not box:
                    return

    def _bot_answer(self, box: Lockbox, ask: Ask) -> None:
        bot = self.bots.get(ask.seat) or self.bots.setdefault(ask.seat, self._new_bot(ask.seat))
        sel = bot.choose(SeatView(self.game, ask.answerer), ask, LegalAnswers(self.game, ask))
        nonce = codec.b64(os.urandom(codec.NONCE_BYTES))
        uid = f"bot-{ask.seat}"
        if box.sealed:
            secret = _BotSecret(sel, nonce)
            self.bot_secrets[ask.seat] = secret
            self._journal("bot", pid=box.pid, seat=ask.seat, sel=list(sel), nonce=nonce)
            nb = codec.unb64(nonce)
            assert nb is not None
            self._commit(None, ask.seat, codec.commitment(sel, nb, box.pid, uid), 0, uid)
        else:
            v = box.reveal(ask.seat, uid, sel, nonce, self._why_illegal)
            if v.changed:
                self._journal("reveal", pid=box.pid, seat=ask.seat, uid=uid, sel=list(sel),
                              nonce=nonce)
                self._finish()

    def _game_over(self) -> None:
        if self.finished.is_set():
            return
        result = self.game.result
        if not any(e.kind == "over" for e in self.journal.entries(self.settings.name)[-1:]):
            self._journal("over", result=result.to_json() if result else None)
        log.info("%s: game over: %s", self.settings.name, result.text if result else "")
        self.finished.set()
        self._publish()

    # ------------------------------------------------------------------ timers

    def _arm(self, delay: float, fn: Callable[[int], None], pid: int) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timers.append(loop.call_later(delay, fn, pid))

    def _cancel_timers(self) -> None:
        for t in self._timers:
            t.cancel()
        self._timers.clear()

    def start_timers(self) -> None:
        """Arm the open prompt's timers (after a restart, once the loop runs)."""
        box = self.box
        if box is None:
            return
        if box.phase == Phase.OPEN and self.settings.prompt_timeout:
            self._arm(self.settings.prompt_timeout, self._prompt_timed_out, box.pid)
        if box.phase == Phase.ALL_LOCKED:
            self._arm(self.settings.reveal_timeout, self._reveal_timed_out, box.pid)

    def _prompt_timed_out(self, pid: int) -> None:
        box, d = self.box, self.game.pending
        if box is None or box.pid != pid or d is None or box.phase != Phase.OPEN:
            return
        defaults = {a.seat: a.default for a in d.asks if a.default is not None}
        if not box.time_out(defaults):
            log.info("%s: prompt %d timed out but the game has no default", self.settings.name, pid)
            return
        self._journal("default", pid=pid, defaults={str(s): list(v) for s, v in
                                                     box.defaults.items()})
        phase: Phase = box.phase
        if phase == Phase.ALL_LOCKED:
            self._all_locked()
        elif box.complete:
            self._finish()

    def _reveal_timed_out(self, pid: int) -> None:
        box = self.box
        if box is not None and box.pid == pid and box.phase == Phase.ALL_LOCKED:
            missing = ", ".join(str(s + 1) for s in box.waiting_for)
            self._void(f"no valid reveal from seat {missing}")

    # ------------------------------------------------------------------ public state

    def state(self) -> dict[str, Any]:
        """The public table state: never a selection before every seat has locked."""
        box = self.box
        prompt = None
        if box is not None:
            d = self.game.pending
            prompt = {
                "pid": box.pid,
                "sealed": box.sealed,
                "phase": str(box.phase),
                "seats": list(box.seats),
                "locked": box.locked_seats,
                "text": {a.seat: a.text for a in d.asks} if d else {},
            }
        last = self.last_revealed
        result = self.game.result
        return {
            "table": self.settings.name,
            "game": self.settings.game,
            "seats": [s.public() for s in self.table.seats],
            "prompt": prompt,
            "reveals": list(self.reveals),
            "revealed": None if last is None else {
                "pid": last.pid, "choices": last.choices, "summary": last.summary},
            "events": self.events[-10:],
            "view": self.game.view(None),
            "over": self.game.over,
            "result": result.to_json() if result is not None else None,
        }

    def _publish(self) -> None:
        """Publish the public state once per burst of changes (one loop turn)."""
        if self._publish_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._flush()
            return
        self._publish_due = True
        loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._publish_due = False
        if self.feed.active:
            self.feed.publish(self.state())
        for fn in self.watchers:
            fn()
