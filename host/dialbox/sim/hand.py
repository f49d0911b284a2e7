"""A hand on a simulated controller: the seat's bot picks, the hand dials it and locks.

The firmware's own auto player (`SimController(auto=True)`) picks a random allowed face per
wheel, which often breaks a rule spanning wheels (Stadium, Outspeed) and gets the prompt
voided. A `Hand` plays like a person at the table instead: when its controller shows a
prompt, it asks the seat's bot for a selection (the bot sees only that seat's view and the
legal answers, as the runner gives bot seats), turns each active wheel by the detents that
reach the target face (the firmware skips disallowed faces, so only allowed faces count),
checks the OLED shows it, and presses the button. See docs/controller.md.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from dialbox.engine.bots import Bot, LegalAnswers, SeatView
from dialbox.engine.decisions import Ask
from dialbox.engine.wheels import INACTIVE, Selection, Wheel
from dialbox.sim.controller import SimError, SimView

if TYPE_CHECKING:
    from dialbox.runner import GameRunner

log = logging.getLogger("dialbox.sim.hand")

WHEEL_NAMES = ("L", "C", "R")
"""The OLED's wheel line prefixes (firmware core/wheels.py NAMES)."""
COLS = 16
"""OLED text columns (firmware core/screens.py)."""
LOCK_PRESS_MS = 100
SETTLE_TIMEOUT = 5.0
AGAIN_AFTER = 3.0
"""Seconds after which a prompt this hand locked (or gave up on) is played again if the
controller still shows it waiting for a lock."""
DONE_KEPT = 256


def shown_face(wheel: Wheel) -> int:
    """The face a fresh prompt shows: `start`, or the next allowed one clockwise (firmware)."""
    n = len(wheel.faces)
    for k in range(n):
        i = (wheel.start + k) % n
        if i in wheel.allowed:
            return i
    raise ValueError("a wheel must allow at least one face")


def detents_between(allowed: Sequence[int] | frozenset[int], current: int, target: int) -> int:
    """Signed detents (positive = clockwise) from `current` to `target`, the shortest way.

    The firmware skips disallowed faces, so one detent moves to the next *allowed* face and
    only allowed faces count; the wheel wraps round. Ties go clockwise.
    """
    order = sorted(set(allowed))
    if current not in order or target not in order:
        raise ValueError(f"faces {current} and {target} must both be allowed ({order})")
    n = len(order)
    forward = (order.index(target) - order.index(current)) % n
    backward = n - forward
    return forward if forward <= backward or forward == 0 else -backward


class Seat(Protocol):
    """What a player at the table knows: its own prompt, its own view, the legal answers."""

    def ask(self, pid: int, seat: int) -> Ask | None:
        """The ask behind prompt `pid` for `seat` (None if that prompt is no longer open)."""
        ...

    def choose(self, bot: Bot, ask: Ask) -> Selection:
        """The bot's answer, from the answering player's view only."""
        ...


class RunnerSeat:
    """A `Seat` backed by the daemon's `GameRunner` (same process, same event loop).

    The bot gets `SeatView(game, ask.answerer)` and `LegalAnswers(game, ask)`, exactly what
    the runner gives its own bot seats: the player's `view()`, which shows other seats only
    as locked or not (their sealed choices are on their controllers, not in the game).
    """

    def __init__(self, runner: GameRunner) -> None:
        self.runner = runner

    def ask(self, pid: int, seat: int) -> Ask | None:
        box, decision = self.runner.box, self.runner.game.pending
        if box is None or box.pid != pid or decision is None or seat not in decision.seat_set:
            return None
        return decision.ask_for(seat)

    def choose(self, bot: Bot, ask: Ask) -> Selection:
        game = self.runner.game
        return bot.choose(SeatView(game, ask.answerer), ask, LegalAnswers(game, ask))


@dataclass
class HandStats:
    prompts: int = 0
    """Sealed or open game prompts dialled and locked."""
    pairings: int = 0
    turns: int = 0
    """turn() calls (one per active wheel that had to move)."""
    corrections: int = 0
    """Times the OLED did not show the target after a turn and the hand turned again."""


class Hand:
    """Plays one `SimController` for its seat's bot until stopped (run() is a task)."""

    def __init__(
        self,
        sim: Any,
        seat: Seat,
        bot: Bot,
        *,
        pause: float = 0.25,
        bounce: float = 0.3,
        seed: int = 0,
        poll: float = 0.02,
        settle: float = SETTLE_TIMEOUT,
    ) -> None:
        self.sim = sim
        self.seat = seat
        self.bot = bot
        self.pause = pause
        """Seconds between a person's actions (look, turn, press); 0 in tests."""
        self.bounce = bounce
        """Share of turns made with contact bounce (exercises the firmware's decoder)."""
        self.rng = random.Random(seed)
        self.poll = poll
        self.settle = settle
        """Seconds to wait for the OLED to show a turn before looking again."""
        self.stats = HandStats()
        self._done: dict[int, float] = {}
        """Prompt id -> when this hand last locked it or gave up on it. A controller that
        shows that prompt waiting for a lock again AGAIN_AFTER seconds later gets played
        again, as a person would: its lock was lost (a reboot, a restarted host) or a dial
        failed while the link was down."""

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.poll)
            v: SimView = self.sim.view()
            if v.state != "programming" or not v.linked or v.pid is None:
                continue
            at = self._done.get(v.pid)
            if at is not None and time.monotonic() - at < AGAIN_AFTER:
                continue
            if "press = lock" not in v.lines:
                continue
            try:
                if v.seat is None or v.seat < 0:  # "Press to take seat N": a press takes it
                    await self._human_pause()
                    await self._press(v.pid)
                    self.stats.pairings += 1
                    continue
                ask = self.seat.ask(v.pid, v.seat)
                if ask is None:
                    continue  # the host has moved on (or not got there yet): look again
                await self.play(v.pid, ask)
            except (HandError, SimError) as e:  # leave it: the host's timeouts take over
                log.warning("%s: %s", self.sim.uid, e)
                self._mark_done(v.pid)

    async def play(self, pid: int, ask: Ask) -> None:
        """Dial the bot's answer to `ask` on the controller (showing prompt `pid`) and lock."""
        sel = self.seat.choose(self.bot, ask)
        await self._human_pause()
        for pos, wheel in enumerate(ask.wheels):
            if wheel is None or sel[pos] == INACTIVE:
                continue
            await self._dial(pid, ask, pos, wheel, sel[pos])
        if not self._still(pid):
            return
        await self._human_pause()
        await self._press(pid)
        self.stats.prompts += 1

    async def _dial(self, pid: int, ask: Ask, pos: int, wheel: Wheel, target: int) -> None:
        want = _wheel_line(pos, wheel.faces[target].label)
        tracked = shown_face(wheel)  # where the wheel is, if its label is ambiguous
        for attempt in range(3):
            if not self._still(pid):
                return
            lines = self.sim.view().lines
            current = _current_face(lines, ask, pos, wheel)
            if current is None:
                current = tracked
            if current == target:
                return
            detents = detents_between(wheel.allowed, current, target)
            bounce = self.rng.random() < self.bounce
            await self._human_pause()
            self.sim.turn(pos, detents, bounce=bounce)
            tracked = target
            self.stats.turns += 1
            if attempt:
                self.stats.corrections += 1
            await self._wait(lambda v: not self._still_view(v, pid)
                             or want in _wheel_lines(v.lines, ask))
        if self._still(pid) and want not in _wheel_lines(self.sim.view().lines, ask):
            raise HandError(f"prompt {pid}: wheel {pos} does not show {want!r}")

    async def _press(self, pid: int) -> None:
        """Press to lock; if the controller still shows the prompt, run() plays it again."""
        self.sim.press(LOCK_PRESS_MS)
        if await self._wait(lambda v: v.state != "programming" or v.pid != pid):
            self._mark_done(pid)

    def _mark_done(self, pid: int) -> None:
        self._done[pid] = time.monotonic()
        if len(self._done) > DONE_KEPT:  # the oldest half goes (dicts keep insertion order)
            for old in list(self._done)[: DONE_KEPT // 2]:
                del self._done[old]

    def _still(self, pid: int) -> bool:
        return self._still_view(self.sim.view(), pid)

    @staticmethod
    def _still_view(v: SimView, pid: int) -> bool:
        return v.state == "programming" and v.pid == pid

    async def _wait(self, ok: Any) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.settle
        while loop.time() < deadline:
            if ok(self.sim.view()):
                return True
            await asyncio.sleep(self.poll)
        return False

    async def _human_pause(self) -> None:
        if self.pause > 0:
            await asyncio.sleep(self.pause * self.rng.uniform(0.5, 1.5))


class HandError(RuntimeError):
    """The controller did not show what the hand dialled (a firmware or link problem)."""


def _wheel_line(pos: int, label: str) -> str:
    return f"{WHEEL_NAMES[pos]} {label}"[:COLS]


def _wheel_lines(lines: Sequence[str], ask: Ask) -> list[str]:
    """The OLED's wheel lines of a prompt screen: the lines just above `press = lock`."""
    try:
        end = list(lines).index("press = lock")
    except ValueError:
        return []
    active = sum(1 for w in ask.wheels if w is not None)
    return list(lines[max(0, end - active):end])


def _current_face(lines: Sequence[str], ask: Ask, pos: int, wheel: Wheel) -> int | None:
    """The allowed face the OLED shows on wheel `pos`, read from its label like a player."""
    row = sum(1 for w in ask.wheels[:pos] if w is not None)
    shown = _wheel_lines(lines, ask)
    if row >= len(shown):
        return None
    matches = [i for i in sorted(wheel.allowed)
               if _wheel_line(pos, wheel.faces[i].label) == shown[row]]
    return matches[0] if len(matches) == 1 else None
