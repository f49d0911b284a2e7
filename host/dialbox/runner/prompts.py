"""The prompt cycle: the pending decision becomes a prompt, its answers come back verified.

`PromptCycle` opens a prompt for the engine's pending decision when the table is full, runs
its `Lockbox` step by step (commit, uncommit, all-locked, reveal; bots commit and reveal like
controllers), hands the verified answers to the game, tells each seat what it may know
(`telling.tell`) and opens the next. Every step it accepts is journaled before it returns,
so the session's acknowledgement follows the journal. The prompt and reveal timeouts are
its only asynchronous part (`Timers`).

Sealed decisions run commit-reveal on the controllers. Open and private decisions run
without a commitment (the controller reveals on lock); a private answer is never published:
only its own seat is told it, and a void of a private prompt tells the table no reason.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from dialbox.engine.bots import LegalAnswers, SeatView
from dialbox.engine.decisions import Ask, Decision
from dialbox.engine.errors import EngineError
from dialbox.engine.events import Event
from dialbox.engine.game import Game
from dialbox.engine.wheels import Selection
from dialbox.journal.entries import (
    AllLockedEntry,
    AppliedEntry,
    CommitEntry,
    DefaultEntry,
    OverEntry,
    PromptEntry,
    RevealEntry,
    UncommitEntry,
    VoidEntry,
    WithdrawEntry,
)
from dialbox.lockbox import Lockbox, Phase, Verdict
from dialbox.runner.oled import oled_text
from dialbox.runner.pids import PromptIds
from dialbox.runner.public import PublicRecord
from dialbox.runner.seating import Record, Seating
from dialbox.runner.settings import TableSettings
from dialbox.runner.telling import tell
from dialbox.sessions import Session
from dialbox_protocol import codec
from dialbox_protocol.models import (
    AllLocked,
    Commit,
    Error,
    Headline,
    Message,
    Prompt,
    Reveal,
    Revealed,
    Snapshot,
    Status,
    Uncommit,
)

log = logging.getLogger("dialbox.runner")

CLOSED_KEPT = 16
HISTORY_KEPT = 1000
"""Recent reveal times, refused reveals, answer-log entries and public events a table keeps
in memory (the journal keeps everything): bounded so that a table running for days, or the
capacity benchmark's million-round game, holds a flat memory (docs/host.md, Benchmarks)."""
"""Prompts lately answered or voided whose late frames are ignored, not refused."""
HEADLINE_MAX = 60
"""Characters of a `headline` frame (docs/protocol.md)."""


@dataclass(frozen=True, slots=True)
class BotSecret:
    """A bot's sealed choice, kept in memory only until all seats have locked (the journal
    holds its commitment, like a controller's; its reveal is journaled at all-locked)."""

    sel: Selection
    nonce: str


class Timers:
    """The open prompt's timeouts (nothing is armed outside a running event loop)."""

    def __init__(self) -> None:
        self._handles: list[asyncio.TimerHandle] = []

    def arm(self, delay: float, fn: Callable[[int], None], pid: int) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._handles.append(loop.call_later(delay, fn, pid))

    def cancel(self) -> None:
        for t in self._handles:
            t.cancel()
        self._handles.clear()


class PromptCycle:
    """The game of one table and its open prompt, from the question to the told answers."""

    def __init__(self, settings: TableSettings, game: Game, seating: Seating, ids: PromptIds,
                 record: Record, public: PublicRecord, changed: Callable[[], None]) -> None:
        self.settings = settings
        self.game = game
        self.seating = seating
        self.ids = ids
        self.record = record
        self.public = public
        self.changed = changed
        """The public state changed (the publisher tells its followers once per burst)."""
        self.box: Lockbox | None = None
        self.bot_secrets: dict[int, BotSecret] = {}
        self.closed_pids: deque[int] = deque(maxlen=CLOSED_KEPT)
        """Prompts lately answered or voided: a late frame for one of them is harmless."""
        self.told: dict[int, Revealed] = {}
        """seat -> the `revealed` frame of the last answered prompt."""
        self.last_told: dict[int, Revealed] = {}
        """seat -> how the last prompt it was asked ended (its `revealed`, or the void note):
        sent again to a controller that comes back still holding that prompt."""
        self.timers = Timers()
        self.finished = asyncio.Event()
        self.over_journaled = False
        self.reveal_times: deque[float] = deque(maxlen=HISTORY_KEPT)
        """Seconds from the last lock to `revealed` being queued, per sealed prompt (the
        latest HISTORY_KEPT: a table that runs for days keeps a flat memory)."""
        self.refused_reveals: deque[str] = deque(maxlen=HISTORY_KEPT)
        """Why controllers' reveals were refused (mismatch, illegal), for the demo's summary
        (the latest HISTORY_KEPT)."""
        self._locked_at: float | None = None
        self.headline = ""
        """The last `headline` sent to the seated controllers ("" = none yet)."""
        self._pumping = False
        self._pump_again = False

    # ------------------------------------------------------------------ opening prompts

    def new_box(self, pid: int, d: Decision) -> Lockbox:
        # a private decision runs like an open one on the controllers (no commitment): the
        # host keeps its answers to itself
        return Lockbox(pid, d.id, d.sealed, d.unlock, d.seats)

    def pump(self) -> None:
        """Open the next prompt when the table is ready and none is open.

        Bots answer inside it, and a prompt they complete asks for the next one: that call
        is only noted, and this one goes round again once the stack has come back here, so
        a game of bots alone runs in a loop, not in a recursion as deep as the game is long
        (a whole PIP Cycle game of three bots went past Python's recursion limit)."""
        if self._pumping:
            self._pump_again = True
            return
        self._pumping = True
        try:
            self._pump_again = True
            while self._pump_again:
                self._pump_again = False
                self._pump_once()
        finally:
            self._pumping = False

    def _pump_once(self) -> None:
        if self.box is not None:
            if self.box.complete:
                self.finish()
            return
        if self.seating.wants_bots:
            self.seating.fill_with_bots()
        if not self.seating.table.full:
            return
        d = self.game.pending
        self.tell_headline()
        if d is None:
            self.game_over()
            return
        pid = self.ids.take()
        self.record(PromptEntry(pid=pid, decision=d.id))
        box = self.box = self.new_box(pid, d)
        self.bot_secrets = {}
        self._locked_at = None
        for seat in d.seats:
            s = self.seating.session_of(seat)
            if s is not None:
                s.post(self.prompt_for(box, seat))
        if self.settings.prompt_timeout:
            self.timers.arm(self.settings.prompt_timeout, self._prompt_timed_out, pid)
        self.changed()
        for ask in d.asks:
            if self.seating.table.seats[ask.seat].bot:
                self._bot_answer(box, ask)
                if self.box is not box:
                    return

    def tell_headline(self) -> None:
        """Send every seated controller where the game stands, when that changed (a game
        without a headline sends nothing)."""
        text = oled_text(self.game.headline() or "")[:HEADLINE_MAX]
        if text == self.headline:
            return
        self.headline = text
        for seat in range(len(self.seating.table.seats)):
            s = self.seating.session_of(seat)
            if s is not None:
                s.post(Headline(text=text))

    def prompt_for(self, box: Lockbox, seat: int) -> Prompt:
        d = self.game.pending
        assert d is not None
        ask = d.ask_for(seat)
        wheels = [w.to_wire(i) if w is not None else None for i, w in enumerate(ask.wheels)]
        return Prompt(pid=box.pid, sealed=box.sealed, unlock=box.unlock,
                      text=oled_text(ask.text)[:60],
                      wheels=wheels)

    def owes(self, seat: int) -> bool:
        """Whether `seat` owes the open prompt a lock or a reveal."""
        return self.box is not None and seat in self.box.waiting_for

    def is_open(self, pid: int) -> bool:
        """Whether `pid` is the open prompt (the sessions stop sending again the frames of
        a prompt that is over: it is never asked again)."""
        return self.box is not None and self.box.pid == pid

    @staticmethod
    def all_locked_frame(box: Lockbox) -> AllLocked:
        """`alllocked` with every committed seat's commitment: each controller reveals only
        if its own is there, and checks the others' reveals against them."""
        return AllLocked(pid=box.pid, commits=sorted((s, c) for s, (_u, c)
                                                     in box.commitments.items()))

    def closing(self, seat: int, pid: int) -> Revealed:
        """How prompt `pid`, over here, ended for `seat`: its `revealed` or void note (a
        prompt of another journal, or one whose note is gone with a restart: void)."""
        told = self.last_told.get(seat)
        if told is not None and told.pid == pid:
            return told
        return Revealed(seq=1, pid=pid, choices=[], summary=f"Void: prompt {pid} is over")

    # ------------------------------------------------------------------ frames of a prompt

    def on_frame(self, session: Session, seat: int, msg: Message) -> None:
        """A controller's commit, uncommit or reveal (or anything else naming a prompt)."""
        uid = session.uid
        assert uid is not None
        ref = msg.seq
        box = self.box
        pid = getattr(msg, "pid", None)
        if box is None or pid != box.pid:
            if pid in self.closed_pids:
                return  # a late frame for a prompt just answered or voided: harmless
            session.post(Error(code=codec.E_PROMPT, detail=f"prompt {pid} is not open", ref=ref))
            return
        if isinstance(msg, Commit):
            self.commit(session, seat, msg.commitment, ref)
        elif isinstance(msg, Uncommit):
            v = box.uncommit(seat, uid)
            if not _refused(session, v, ref) and v.changed:
                self.record(UncommitEntry(pid=box.pid, seat=seat, uid=uid))
                session.post(Status(pid=box.pid, state="unlocked"))
                self.changed()
        elif isinstance(msg, Reveal):
            self._reveal(session, seat, uid, msg, ref)

    def resume(self, session: Session, seat: int, snap: Snapshot) -> None:
        """A seated controller is back: where is it in the open (or last) prompt?"""
        text = oled_text(self.game.headline() or "")[:HEADLINE_MAX]
        if text:  # where the game stands, as the others were told (also after a restart)
            self.headline = text
            session.post(Headline(text=text))
        box = self.box
        asked = (box is not None and seat in box.seats
                 and box.phase in (Phase.OPEN, Phase.ALL_LOCKED))
        if (snap.pid is not None and snap.state != "revealed"
                and not (asked and box is not None and snap.pid == box.pid)):
            # It still holds a prompt that is over here (its `revealed` was lost with the
            # link): how that ended first, so it lets go of it before the next is asked.
            session.post(self.closing(seat, snap.pid))
        if asked and box is not None:
            if (snap.pid == box.pid and snap.commitment and box.phase == Phase.OPEN
                    and not box.locked(seat)):
                # The commit frame was lost with the link: the snapshot carries it.
                self.commit(session, seat, snap.commitment, 0)
                if self.box is not box:
                    return
            # A controller without its secret says so: no prompt (it rebooted without the
            # record) or this prompt without a commitment. A snapshot naming another prompt
            # is stale (the firmware never holds a lock on another prompt while committed
            # to this one): it voids nothing (issue 13: a replayed old snapshot).
            if (box.phase == Phase.ALL_LOCKED and seat in box.commitments
                    and seat not in box.reveals
                    and (snap.pid is None or snap.pid == box.pid and snap.commitment is None)):
                self.void(f"seat {seat + 1} lost its sealed choice")
                return
            if not box.sealed and seat in box.reveals:
                return  # answered already: it waits for `revealed` like the others
            session.post(self.prompt_for(box, seat))
            if box.locked(seat):
                session.post(Status(pid=box.pid, state="locked"))
            if box.phase == Phase.ALL_LOCKED:
                session.post(self.all_locked_frame(box))

    # ------------------------------------------------------------------ lockbox steps

    def commit(self, session: Session | None, seat: int, text: str, ref: int,
               uid: str | None = None) -> None:
        box = self.box
        assert box is not None
        uid = uid or (session.uid if session is not None else None)
        assert uid is not None
        v = box.commit(seat, uid, text)
        if session is not None and _refused(session, v, ref):
            return
        if v.changed:
            self.record(CommitEntry(pid=box.pid, seat=seat, uid=uid, commitment=text))
        if session is not None:
            session.post(Status(pid=box.pid, state="locked"))
        if v.changed:
            self.seating.table.seats[seat].state = "locked"
            if box.phase == Phase.ALL_LOCKED:
                self._all_locked()
            self.changed()

    def _all_locked(self) -> None:
        box = self.box
        assert box is not None
        self._locked_at = time.perf_counter()
        self.record(AllLockedEntry(pid=box.pid))
        frame = self.all_locked_frame(box)
        for seat in box.seats:
            s = self.seating.session_of(seat)
            if s is not None:
                s.post(frame)
        self.timers.arm(self.settings.reveal_timeout, self._reveal_timed_out, box.pid)
        for seat, secret in list(self.bot_secrets.items()):
            self._bot_reveal(seat, secret)
            if self.box is not box:
                return

    def _bot_reveal(self, seat: int, secret: BotSecret) -> None:
        box = self.box
        assert box is not None
        v = box.reveal(seat, f"bot-{seat}", secret.sel, secret.nonce, self.why_illegal)
        if v.changed:
            self.record(RevealEntry(pid=box.pid, seat=seat, uid=f"bot-{seat}", sel=secret.sel,
                                    nonce=secret.nonce))
            if box.complete:
                self.finish()

    def _reveal(self, session: Session, seat: int, uid: str, msg: Reveal, ref: int) -> None:
        box = self.box
        assert box is not None
        v = box.reveal(seat, uid, msg.sel, msg.nonce, self.why_illegal)
        if _refused(session, v, ref):
            log.warning("%s: seat %d reveal refused: %s", self.settings.name, seat + 1, v.detail)
            self.refused_reveals.append(f"seat {seat + 1}: {v.detail}")
            if v.code == codec.E_ILLEGAL:
                # A committed choice cannot change: the prompt is asked again (protocol.md).
                self.void(f"seat {seat + 1}: {v.detail}",
                          f"seat {seat + 1}'s choice broke a rule of the game")
            return
        if v.changed:
            self.record(RevealEntry(pid=box.pid, seat=seat, uid=uid, sel=msg.sel,
                                    nonce=msg.nonce))
            if box.complete:
                self.finish()
            else:
                self.changed()

    def why_illegal(self, seat: int, sel: Selection) -> str | None:
        d = self.game.pending
        if d is None:
            return "the game is over"
        try:
            self.game.check(d.ask_for(seat), sel)
        except EngineError as e:
            return str(getattr(e, "reason", e))
        return None

    def finish(self) -> None:
        """Every answer is in: the game takes them all at once, the seats are told."""
        box = self.box
        assert box is not None and box.complete
        decision = self.game.pending
        assert decision is not None
        answers = box.answers()
        try:
            events = self.game.apply(answers, box.decision)
        except EngineError as e:
            self.void(str(e), "a choice broke a rule of the game")
            return
        self.record(AppliedEntry(pid=box.pid, decision=box.decision,
                                 answers=sorted(answers.items()),
                                 hash=self.game.state_hash()))
        self.answered(box.pid, decision, answers, events)
        self.timers.cancel()
        for seat, frame in self.told.items():
            s = self.seating.session_of(seat)
            if s is not None:
                s.post(frame)
        if box.sealed and self._locked_at is not None:
            self.reveal_times.append(time.perf_counter() - self._locked_at)
        for st in self.seating.table.seats:
            st.state = "idle"
        self.changed()
        self.pump()

    def answered(self, pid: int, decision: Decision, answers: dict[int, Selection],
                 events: list[Event]) -> None:
        """The game applied prompt `pid`'s answers: record what each seat and the table are
        told (live, and again on replay: it follows from the answers)."""
        box = self.box if self.box is not None and self.box.pid == pid else None
        telling = tell(pid, decision, answers, events, self.game.public_part,
                       box.proofs if box else None, box.commitments if box else None,
                       self.game.meanings_of(decision))
        self.public.tell(events)
        self.public.reveal(telling.public)
        self.told = telling.frames
        self.last_told.update(telling.frames)
        self.closed_pids.append(pid)
        self.box = None

    def void(self, reason: str, told: str | None = None) -> None:
        """The prompt cannot be answered as it stands: ask the decision again (new pid).

        `reason` is journaled and logged; the seats and the table are `told` (by default the
        reason): a rule's words can describe the refused choice, which must stay unseen (the
        seat that made it had the rule in its error frame)."""
        box = self.box
        assert box is not None
        d = self.game.pending
        log.warning("%s: prompt %d void: %s", self.settings.name, box.pid, reason)
        box.void()
        self.record(VoidEntry(pid=box.pid, reason=reason))
        self.closed_pids.append(box.pid)
        self.box = None
        self.timers.cancel()
        if told is None:
            told = "an answer was refused" if d is not None and d.private else reason
        # no reveal in it: the decision is asked again, and the choices made for this
        # prompt must not be seen before the new one is all-locked
        note = Revealed(seq=1, pid=box.pid, choices=[], summary=oled_text(f"Void: {told}")[:120])
        for seat in box.seats:
            self.last_told[seat] = note
            s = self.seating.session_of(seat)
            if s is not None:
                s.post(note)
        self.public.void(f"Asked again: {told}")
        self.changed()
        self.pump()

    # ------------------------------------------------------------------ bots

    def _bot_answer(self, box: Lockbox, ask: Ask) -> None:
        bot = self.seating.bot(ask.seat)
        sel = bot.choose(SeatView(self.game, ask.answerer), ask, LegalAnswers(self.game, ask))
        nonce = codec.b64(os.urandom(codec.NONCE_BYTES))
        uid = f"bot-{ask.seat}"
        if box.sealed:
            secret = BotSecret(sel, nonce)
            self.bot_secrets[ask.seat] = secret  # in memory only until all-locked
            nb = codec.unb64(nonce)
            assert nb is not None
            self.commit(None, ask.seat, codec.commitment(sel, nb, box.pid, uid), 0, uid)
            return
        v = box.reveal(ask.seat, uid, sel, nonce, self.why_illegal)
        if v.changed:
            self.record(RevealEntry(pid=box.pid, seat=ask.seat, uid=uid, sel=sel, nonce=nonce))
            if box.complete:
                self.finish()

    def resume_bots(self) -> None:
        """After a restart: bots whose secret was lost with the daemon's memory (they locked,
        all-locked had not come) commit again. Open prompt: each such commitment is
        withdrawn and the bot chooses again (nobody saw anything of it, so this is fair even
        where the prompt allows no unlock); past all-locked (its reveal was not journaled
        with it) the prompt is void and asked again, as when a controller lost its secret."""
        box = self.box
        if box is None or not box.sealed:
            return
        seats = self.seating.table.seats
        lost = [s for s in box.seats if seats[s].bot and s in box.commitments
                and s not in box.reveals and s not in self.bot_secrets]
        if not lost:
            return
        names = ", ".join(str(s + 1) for s in lost)
        if box.phase == Phase.ALL_LOCKED:
            self.void(f"bot seat {names} lost its sealed choice when the daemon stopped")
            return
        if box.phase != Phase.OPEN:
            return
        log.info("%s: prompt %d: bot seat %s lost its sealed choice when the daemon stopped; "
                 "withdrawn, the bot chooses again", self.settings.name, box.pid, names)
        for seat in lost:
            uid = box.commitments[seat][0]
            box.withdraw(seat)
            self.record(WithdrawEntry(pid=box.pid, seat=seat, uid=uid))
            seats[seat].state = "idle"
        d = self.game.pending
        assert d is not None
        for seat in lost:
            self._bot_answer(box, d.ask_for(seat))
            if self.box is not box:
                return

    # ------------------------------------------------------------------ the end

    def game_over(self) -> None:
        if self.finished.is_set():
            return
        result = self.game.result
        if not self.over_journaled:
            self.record(OverEntry(result=result.to_json() if result else None))
            self.over_journaled = True
        log.info("%s: game over: %s", self.settings.name, result.text if result else "")
        self.finished.set()
        self.changed()

    # ------------------------------------------------------------------ timers

    def start_timers(self) -> None:
        """Arm the open prompt's timers (after a restart, once the loop runs)."""
        box = self.box
        if box is None:
            return
        if box.phase == Phase.OPEN and self.settings.prompt_timeout:
            self.timers.arm(self.settings.prompt_timeout, self._prompt_timed_out, box.pid)
        if box.phase == Phase.ALL_LOCKED:
            self.timers.arm(self.settings.reveal_timeout, self._reveal_timed_out, box.pid)

    def _prompt_timed_out(self, pid: int) -> None:
        box, d = self.box, self.game.pending
        if box is None or box.pid != pid or d is None or box.phase != Phase.OPEN:
            return
        defaults = {a.seat: a.default for a in d.asks if a.default is not None}
        if not box.time_out(defaults):
            log.info("%s: prompt %d timed out but the game has no default", self.settings.name,
                     pid)
            return
        self.record(DefaultEntry(pid=pid, defaults=dict(box.defaults)))
        phase: Phase = box.phase
        if phase == Phase.ALL_LOCKED:
            self._all_locked()
        elif box.complete:
            self.finish()

    def _reveal_timed_out(self, pid: int) -> None:
        box = self.box
        if box is not None and box.pid == pid and box.phase == Phase.ALL_LOCKED:
            missing = ", ".join(str(s + 1) for s in box.waiting_for)
            self.void(f"no valid reveal from seat {missing}")


def _refused(session: Session, v: Verdict, ref: int) -> bool:
    if v.accepted:
        return False
    session.post(Error(code=v.code, detail=v.detail[:80], ref=ref))
    return True
