"""Simulated hands: detent arithmetic with skipped faces, and demos they play without a void."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

import pytest

from dialbox.cli import main
from dialbox.daemon.embedded import run_demo
from dialbox.engine.bots import RandomBot
from dialbox.engine.decisions import Ask
from dialbox.engine.wheels import DIGIT_FACES, DIRECTION_FACES, Face, Selection, Wheel, wheels
from dialbox.paths import firmware_dir
from dialbox.sim.controller import SimView
from dialbox.sim.hand import Hand, detents_between, shown_face

# ---- detent arithmetic: only allowed faces count, shortest way round ------------------------


def test_detents_count_allowed_faces_only() -> None:
    allowed = [1, 4, 5, 8]  # of 10 faces: 0, 2, 3, 6, 7, 9 are skipped by the firmware
    assert detents_between(allowed, 1, 4) == 1
    assert detents_between(allowed, 1, 5) == 2
    assert detents_between(allowed, 5, 4) == -1
    assert detents_between(allowed, 4, 4) == 0


def test_detents_wrap_around_the_shorter_way() -> None:
    allowed = [0, 2, 3, 5, 7, 9]
    assert detents_between(allowed, 9, 0) == 1  # past the top, not five back
    assert detents_between(allowed, 0, 9) == -1
    assert detents_between(allowed, 2, 9) == -2
    assert detents_between(allowed, 7, 2) == 3  # three either way: clockwise on a tie
    assert detents_between(frozenset({3}), 3, 3) == 0


def test_detents_refuse_a_face_the_wheel_skips() -> None:
    with pytest.raises(ValueError):
        detents_between([1, 4], 1, 2)


def test_a_prompt_shows_start_or_the_next_allowed_face() -> None:
    assert shown_face(Wheel(DIGIT_FACES, frozenset({2, 7}), start=5)) == 7
    assert shown_face(Wheel(DIGIT_FACES, frozenset({2, 7}), start=8)) == 2  # wraps
    assert shown_face(Wheel.of(DIGIT_FACES, {4, 6})) == 4


def test_the_arithmetic_agrees_with_the_firmware_wheel() -> None:
    """Every (start, target) pair on a skipping wheel: turning by the computed detents with
    the firmware's own Wheel.step lands on the target."""
    sys.path.insert(0, str(firmware_dir()))
    try:
        from dialbox_fw.core.wheels import Wheel as FwWheel
    finally:
        sys.path.remove(str(firmware_dir()))
    allowed = {0, 3, 4, 8, 11}
    mask = sum(1 << i for i in allowed)
    faces = [[str(i), i, "ffffff"] for i in range(12)]
    for start in range(12):
        for target in sorted(allowed):
            fw = FwWheel(1, (faces, mask, start))
            fw.step(detents_between(allowed, fw.index, target))
            assert fw.index == target


# ---- a hand on a stand-in controller (the firmware's wheels, its OLED lines) ---------------


class FakeSim:
    """The firmware's Wheel objects behind a SimController-shaped surface; the first turn of
    each wheel is dropped once, like a missed detent, so the hand must look and correct."""

    uid = "fake"

    def __init__(self, ask: Ask, pid: int) -> None:
        sys.path.insert(0, str(firmware_dir()))
        try:
            from dialbox_fw.core.wheels import from_prompt
        finally:
            sys.path.remove(str(firmware_dir()))
        spec = [None if w is None else [[[f.label, f.value, f.colour] for f in w.faces],
                                        w.mask, w.start] for w in ask.wheels]
        self.wheels = from_prompt(spec)
        self.pid, self.text = pid, ask.text
        self.state, self.dropped = "programming", set[int]()
        self.turns: list[tuple[int, int, bool]] = []

    def view(self) -> SimView:
        lines = [self.text]
        lines += [f"{'LCR'[w.position]} {w.label()}" for w in self.wheels if w.active]
        return SimView(tuple([*lines, "press = lock"]), state=self.state, pid=self.pid,
                       linked=True, seat=0)

    def turn(self, wheel: int, detents: int, bounce: bool = False) -> None:
        self.turns.append((wheel, detents, bounce))
        if wheel not in self.dropped:
            self.dropped.add(wheel)
            detents -= 1 if detents > 0 else -1
        self.wheels[wheel].step(detents)

    def press(self, ms: int) -> None:
        self.state = "locked"


class OneAsk:
    def __init__(self, ask: Ask, answer: Selection) -> None:
        self._ask, self.answer = ask, answer

    def ask(self, pid: int, seat: int) -> Ask | None:
        return self._ask

    def choose(self, bot: Any, ask: Ask) -> Selection:
        return self.answer


def test_a_hand_dials_the_answer_checks_the_screen_and_locks() -> None:
    faces = tuple(Face(f"F{i}", i) for i in range(12))
    left = Wheel(DIRECTION_FACES, frozenset({0, 2, 4, 6}), start=6)
    centre = Wheel(faces, frozenset({1, 5, 9, 10}), start=0)  # start skipped: shows F1
    ask = Ask(0, "t", "Pick", wheels(left, centre, None))
    sim = FakeSim(ask, pid=7)
    hand = Hand(sim, OneAsk(ask, (0, 10, -1)), RandomBot(0), pause=0, bounce=1.0, poll=0.001,
                settle=0.05)

    async def play() -> None:
        await asyncio.wait_for(hand.play(7, ask), 5)

    asyncio.run(play())
    assert sim.state == "locked"
    assert [w.index for w in sim.wheels] == [0, 10, -1]
    # left W -> N: one detent clockwise past the wrap (dropped once, so turned again);
    # centre F1 -> F10: one back past the wrap, not three forward
    assert sim.turns[0] == (0, 1, True) and sim.turns[1] == (0, 1, True)
    assert sim.turns[2] == (1, -1, True)
    assert hand.stats.corrections == 2 and hand.stats.prompts == 1


def test_a_prompt_that_comes_back_waiting_for_a_lock_is_played_again(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A lock the controller lost (it rebooted, or a restarted host re-sent the prompt) shows
    the same prompt waiting again: the hand presses again, as a person would, once
    AGAIN_AFTER has passed."""
    import dialbox.sim.hand as hand_mod

    monkeypatch.setattr(hand_mod, "AGAIN_AFTER", 0.2)
    ask = Ask(0, "t", "Pick", wheels(Wheel.of(DIGIT_FACES, {3}), None, None))
    sim = FakeSim(ask, pid=9)
    presses: list[float] = []
    press = sim.press

    def counted(ms: int) -> None:
        presses.append(ms)
        press(ms)

    sim.press = counted  # type: ignore[method-assign]
    hand = Hand(sim, OneAsk(ask, (3, -1, -1)), RandomBot(0), pause=0, bounce=0, poll=0.001,
                settle=0.05)

    async def run() -> None:
        task = asyncio.create_task(hand.run())
        try:
            while not presses:
                await asyncio.sleep(0.001)
            await asyncio.sleep(0.05)
            assert len(presses) == 1  # locked: not pressed again while it stays locked
            sim.state = "programming"  # the lock is lost: the prompt waits again
            for _ in range(5000):
                if len(presses) == 2:
                    break
                await asyncio.sleep(0.001)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    asyncio.run(run())
    assert len(presses) == 2 and sim.state == "locked"


# ---- demos with hand-driven firmware controllers: nothing refused, nothing voided -----------


@pytest.mark.micropython
@pytest.mark.parametrize(("game", "seed"), [("stadium", 3), ("outspeed", 4)])
def test_hands_play_a_demo_game_without_a_refused_reveal(game: str, seed: int) -> None:
    summary = asyncio.run(run_demo(game=game, players=4, seed=seed, controller_play="bot",
                                   hand_pause=0.0, timeout=120))
    assert summary.runtime == "micropython" and summary.controller_play == "bot"
    assert summary.result is not None and summary.prompts > 5
    assert summary.refused == [] and summary.voided == []
    out = summary.to_json()
    assert out["refused_reveals"] == 0 and out["voided_prompts"] == 0


def test_the_demo_cli_reports_how_controllers_played(capsys: pytest.CaptureFixture[str]) -> None:
    """CPython firmware over MQTT (the embedded broker): the hands work on both links."""
    assert main(["demo", "--game", "outspeed", "--players", "3", "--runtime", "cpython",
                 "--transport", "mqtt", "--broker", "embedded", "--no-displays",
                 "--controller-play", "bot", "--hand-pause", "0", "--seed", "2",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["transport"] == "mqtt (embedded amqtt)" and out["runtime"] == "cpython"
    assert out["controller_play"] == "bot"
    assert out["refused_reveals"] == 0 and out["voided_prompts"] == 0
    assert out["result"] is not None


def test_the_bot_behind_a_hand_sees_only_its_own_seat() -> None:
    """RunnerSeat gives the bot `game.view(answerer)`, as the runner gives its bot seats."""
    from types import SimpleNamespace

    from dialbox.sim.hand import RunnerSeat

    seen: list[int | None] = []

    class Game:
        pending = None

        def view(self, seat: int | None) -> dict[str, Any]:
            seen.append(seat)
            return {"me": seat}

    class Spy:
        def choose(self, view: Any, ask: Ask, legal: Any) -> Selection:
            assert view["me"] == 2
            return (-1, 1, -1)

    ask = Ask(2, "t", "Pick", wheels(None, Wheel.of(DIGIT_FACES), None))
    seat = RunnerSeat(SimpleNamespace(game=Game(), box=None))
    assert seat.choose(Spy(), ask) == (-1, 1, -1)
    assert seen == [2]
    assert seat.ask(5, 2) is None  # no open prompt: nothing to dial
