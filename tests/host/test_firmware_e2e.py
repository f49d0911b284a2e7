"""End to end with the real firmware (dialbox.sim) under the MicroPython unix port and CPython."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from dialbox.daemon import Daemon
from dialbox.engine.bots import LegalAnswers, SeatView
from dialbox.engine.registry import game_info
from dialbox.journal import Journal
from dialbox.lockbox import Phase
from dialbox.runner.replay import audit
from dialbox.sessions import session as session_mod
from dialbox.sim import MqttSettings, SimController
from dialbox.sim.hand import Hand, RunnerSeat
from dialbox_protocol import codec
from dialbox_protocol.models import Prompt
from tests.host.games import DUEL
from tests.host.harness import TABLE, Broker, key_for, running_daemon, table_config, wait_for


def _sims(tmp: Path, uids: list[str], **kw: Any) -> list[SimController]:
    return [SimController(u, state_dir=tmp / "flash" / u, key=key_for(tmp, u), **kw)
            for u in uids]


def _serial(cfg: dict[str, Any], tmp: Path) -> dict[str, Any]:
    cfg["serial"] = {"ports": [str(tmp / "flash" / "*" / "tty")], "usb": []}
    return cfg


def _check(journal: Journal, controllers: list[str]) -> int:
    """Every sealed prompt that was applied holds a commitment from each controller seat
    it asked; nothing was voided; returns the number of decisions applied."""
    entries = journal.entries(TABLE)
    assert not [e for e in entries if e.kind == "void"]
    seats = {e.data["seat"] for e in entries if e.kind == "seat" and e.data["uid"] in controllers}
    sealed = {e.data["pid"] for e in entries if e.kind == "alllocked"}
    applied = [e for e in entries if e.kind == "applied"]
    for e in applied:
        if e.data["pid"] in sealed:
            committed = {c.data["seat"] for c in entries
                         if c.kind == "commit" and c.data["pid"] == e.data["pid"]}
            assert seats & {seat for seat, _sel in e.data["answers"]} <= committed
    return len(applied)


@dataclass(frozen=True)
class FullGame:
    """A whole game played through the daemon by simulated controllers (bots in `bots`)."""

    game: str
    players: int
    options: dict[str, Any]
    bots: list[int] = field(default_factory=list)
    hands: bool = False
    """True: a Hand dials each seat bot's answer and locks (games with rules that span
    wheels); False: the firmware's own auto player dials random allowed faces."""
    decisions: int | None = None
    """How many decisions the game takes, if it is always the same."""
    timeout: float = 90.0

    def uids(self, prefix: str) -> list[str]:
        return [f"{prefix}-{c}" for c in "abcdef"[:self.players - len(self.bots)]]

    def config(self, tmp: Path, uids: list[str], **kw: Any) -> dict[str, Any]:
        return table_config(tmp, game=self.game, players=self.players, uids=uids,
                            bots=self.bots, options=self.options, **kw)


DUEL_WITH_A_BOT = FullGame(DUEL, 3, {"rounds": 2, "forbid_n9": False}, bots=[3], decisions=4)
DUEL_OF_THREE = FullGame(DUEL, 3, {"rounds": 2, "forbid_n9": False}, decisions=4)
PIPCYCLE = FullGame("pipcycle", 2, {"grid": 5}, hands=True, timeout=240)
"""PIP Cycle for two on its smallest grid (riders crash sooner: tens of decisions, not
hundreds), every Movement, card play, match and placement dialled on the firmware."""
TRIAL = FullGame("trial-of-the-gods", 2, {"variant": "basic"}, hands=True, timeout=120)
"""Trial of the Gods for two, 4 rounds (about a hundred decisions): the private Olympics card
choice, open Adventure turns and fights, sealed Enemy Damage, Competitions and counts, each
dialled by the seat's companion bot on the firmware."""


def _unfit_prompt(case: FullGame) -> str | None:
    """A prompt of `case`'s game (one bot game in the engine alone) that the host could not
    send as a protocol `prompt` frame (face labels of at most 8 characters, 1 KB), or None."""
    info = game_info(case.game)
    game = info.game({"players": case.players, "seed": 5, **case.options})
    bots = [info.bot()(s) for s in range(case.players)]
    while (d := game.pending) is not None:
        for ask in d.asks:
            wire = [w.to_wire(i) if w is not None else None for i, w in enumerate(ask.wheels)]
            try:
                p = Prompt(pid=codec.MAX_PID, sealed=d.sealed, unlock=True, text=ask.text,
                           wheels=wire)
                codec.encode("prompt", codec.MAX_SEQ, [p.pid, p.sealed, p.unlock, p.text,
                                                       p.wheels, p.live])
            except ValueError as e:
                why = e.errors()[0]["msg"] if isinstance(e, ValidationError) else str(e)
                long = [f.label for w in ask.wheels if w is not None for f in w.faces
                        if len(f.label) > 8]
                return f"{ask.topic} {ask.text!r}: {why} {long}"
            bot = bots[ask.answerer]
            game.stage(ask.seat, bot.choose(SeatView(game, ask.answerer), ask,
                                            LegalAnswers(game, ask)))
    return None


async def _play_to_the_end(daemon: Daemon, sims: list[SimController], case: FullGame) -> None:
    """Power the controllers on, let them (or their hands) play until the game's result
    and its last reveal is on every screen; then every decision applied once, no prompt
    voided, and the journal replays (`dialbox audit`) to every state hash it holds. The
    controllers are stopped on the way out."""
    runner = daemon.runners[TABLE]
    hands: list[asyncio.Task[None]] = []
    try:
        await asyncio.gather(*(asyncio.to_thread(s.start) for s in sims))
        if case.hands:
            seat = RunnerSeat(runner)  # each hand dials its seat bot's answer
            hands = [asyncio.create_task(Hand(s, seat, runner.bot_factory(i), pause=0.0,
                                              seed=i).run()) for i, s in enumerate(sims)]
        await asyncio.wait_for(runner.finished.wait(), case.timeout)
        for s in sims:
            await asyncio.to_thread(s.wait_for, lambda v: v.state == "revealed", 10,
                                    "the last reveal")
    finally:
        for hand in hands:
            hand.cancel()
        await asyncio.gather(*hands, return_exceptions=True)
        await asyncio.gather(*(asyncio.to_thread(s.stop) for s in sims))
    assert runner.game.result is not None
    final = runner.game.headline()
    if final is not None:  # the controllers show where the game stands between prompts
        for s in sims:
            shown = [" ".join(v.lines) for v in s.history()]
            assert any(final.split(" wins")[0] in text for text in shown[-5:]), shown[-1]
            assert any("Adventure:" in t and "'s turn" in t for t in shown), s.uid
    n = _check(daemon.journal, [s.uid for s in sims])
    if case.decisions is not None:
        assert n == case.decisions
    replayed = audit(TABLE, daemon.journal.entries(TABLE))
    assert replayed.steps == replayed.hashed == n == len(runner.game.log)


def _fits(case: FullGame) -> None:
    """Every prompt of the game fits a protocol `prompt` frame (checked before the daemon
    runs, so a prompt the host could not send fails here in one line, not in a timeout)."""
    unfit = _unfit_prompt(case)
    assert unfit is None, f"{case.game} asks a prompt the protocol cannot carry: {unfit}"


@pytest.mark.micropython
@pytest.mark.parametrize("case", [DUEL_WITH_A_BOT, PIPCYCLE, TRIAL],
                         ids=["duel", "pipcycle", "trial"])
def test_micropython_firmware_plays_a_full_game_over_ptys(tmp_path: Path,
                                                          case: FullGame) -> None:
    _fits(case)
    uids = case.uids("mp")

    async def run() -> None:
        cfg = _serial(case.config(tmp_path, uids), tmp_path)
        sims = _sims(tmp_path, uids, runtime="micropython", auto=not case.hands)
        async with running_daemon(cfg) as daemon:
            await _play_to_the_end(daemon, sims, case)

    asyncio.run(run())


@pytest.mark.micropython
def test_micropython_firmware_survives_unplug_and_power_cut_mid_prompt(tmp_path: Path) -> None:
    uids = ["mp-a", "mp-b"]

    async def run() -> None:
        cfg = _serial(table_config(tmp_path, players=2, uids=uids,
                                   options={"rounds": 2, "forbid_n9": False}), tmp_path)
        a, b = _sims(tmp_path, uids, runtime="micropython")
        async with running_daemon(cfg) as daemon:
            runner = daemon.runners[TABLE]
            try:
                await asyncio.gather(asyncio.to_thread(a.start), asyncio.to_thread(b.start))
                for s in (a, b):  # pairing: press to take a seat
                    await asyncio.to_thread(s.wait_for, lambda v: v.pid is not None, 20, "pair")
                    s.press(100)
                    await wait_for(lambda s=s: runner.table.seat_of(s.uid) is not None)

                async def sealed_on_both() -> int:
                    await wait_for(lambda: runner.box is not None and runner.box.sealed)
                    pid = runner.box.pid  # type: ignore[union-attr]
                    for s in (a, b):
                        await asyncio.to_thread(
                            s.wait_for, lambda v: v.pid == pid and v.state == "programming",
                            20, "the sealed prompt")
                    return pid

                async def open_prompt() -> None:
                    await wait_for(lambda: runner.box is not None and not runner.box.sealed)
                    box = runner.box
                    assert box is not None
                    s = a if box.seats == (0,) else b
                    await asyncio.to_thread(
                        s.wait_for, lambda v: v.pid == box.pid and v.state == "programming",
                        20, "the open prompt")
                    s.press(100)

                # round 1: a locks and is unplugged; b locks; a is plugged back in
                await sealed_on_both()
                a.turn(1, 2)
                a.press(100)
                await wait_for(lambda: runner.box is not None and runner.box.locked(0))
                a.unplug()
                await wait_for(lambda: not runner.table.seats[0].online, what="a offline")
                b.turn(0, 1)
                b.press(100)
                await wait_for(lambda: runner.box is not None
                               and runner.box.phase == Phase.ALL_LOCKED)
                a.replug()
                await open_prompt()
                # round 2: power cut on a between its lock and the reveal
                await sealed_on_both()
                a.turn(1, 4)
                a.press(100)
                await wait_for(lambda: runner.box is not None and runner.box.locked(0))
                # (a real power cut takes the USB port with it: the pty goes too)
                await asyncio.to_thread(a.kill)
                a.unplug()
                b.press(100)
                await wait_for(lambda: runner.box is not None
                               and runner.box.phase == Phase.ALL_LOCKED)
                a.replug()
                await asyncio.to_thread(a.start)  # boots from flash, reveals what it locked
                await open_prompt()
                await asyncio.wait_for(runner.finished.wait(), 60)
                assert _check(daemon.journal, uids) == 4
            finally:
                await asyncio.gather(asyncio.to_thread(a.stop), asyncio.to_thread(b.stop))

    asyncio.run(run())


@pytest.mark.parametrize("case", [DUEL_OF_THREE, PIPCYCLE, TRIAL],
                         ids=["duel", "pipcycle", "trial"])
def test_cpython_firmware_plays_over_mosquitto_with_generated_acls(tmp_path: Path,
                                                                    case: FullGame) -> None:
    _fits(case)
    uids = case.uids("py")

    async def run() -> None:
        broker = Broker(tmp_path, uids)
        await broker.start()
        try:
            cfg = case.config(tmp_path, uids, mqtt=broker.host_mqtt())
            sims = [
                SimController(u, state_dir=tmp_path / "flash" / u, runtime="cpython",
                              link="mqtt", auto=not case.hands, key=key_for(tmp_path, u),
                              mqtt=MqttSettings("127.0.0.1", broker.port, TABLE, u,
                                                broker.creds[u]))
                for u in uids
            ]
            async with running_daemon(cfg) as daemon:
                await _play_to_the_end(daemon, sims, case)
        finally:
            broker.stop()

    asyncio.run(run())


async def _sealed_prompt(runner: Any, sims: list[SimController]) -> int:
    """Wait until a sealed prompt is open and shown on every controller; its pid."""
    await wait_for(lambda: runner.box is not None and runner.box.sealed)
    pid: int = runner.box.pid
    for s in sims:
        await asyncio.to_thread(
            s.wait_for, lambda v: v.pid == pid and v.state == "programming",
            20, "the sealed prompt")
    return pid


@contextlib.asynccontextmanager
async def _sealed_prompt_on_two(tmp_path: Path) -> AsyncIterator[tuple[Daemon, SimController,
                                                                       SimController, int]]:
    """A daemon and two MicroPython controllers seated at once, a sealed prompt shown on
    both: (daemon, a, b, its pid). The controllers are stopped on the way out."""
    uids = ["mp-a", "mp-b"]
    cfg = _serial(table_config(tmp_path, players=2, uids=uids, pairing="auto",
                               options={"rounds": 1, "forbid_n9": False}), tmp_path)
    a, b = _sims(tmp_path, uids, runtime="micropython")
    async with running_daemon(cfg) as daemon:
        try:
            await asyncio.gather(asyncio.to_thread(a.start), asyncio.to_thread(b.start))
            yield daemon, a, b, await _sealed_prompt(daemon.runners[TABLE], [a, b])
        finally:
            await asyncio.gather(asyncio.to_thread(a.stop), asyncio.to_thread(b.stop))


async def _reboot_then_reveal(daemon: Daemon, a: SimController, pid: int,
                              presses: list[SimController]) -> None:
    """Reboot `a` behind its live port, then the `presses`; the prompt must be answered."""
    runner = daemon.runners[TABLE]
    await asyncio.to_thread(a.kill)  # the port stays up
    await asyncio.to_thread(a.start)
    for s in presses:
        if s is a:  # its prompt is back only once the host has found it again
            await _sealed_prompt(runner, [a])
        s.press(100)
    # A press made while the rebooted controller was still redrawing its resumed prompt can
    # be lost (as a player's can); a seat still owing its lock presses again, as a player
    # would, until the prompt is answered.
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    while not (runner.box is None or runner.box.pid != pid):
        assert loop.time() < end, "timed out waiting for the reveal after the reboot"
        await asyncio.sleep(3)
        box = runner.box
        if box is not None and box.pid == pid:
            for s in presses:
                seat = runner.table.seat_of(s.uid)
                if seat is not None and seat.index in box.waiting_for \
                        and not box.locked(seat.index):
                    s.press(100)
    assert _check(daemon.journal, sorted({a.uid, *(s.uid for s in presses)})) >= 1


@pytest.mark.micropython
def test_micropython_firmware_rebooting_behind_a_live_port_says_it_has_no_session(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reboot (watchdog, brown-out) that keeps the USB port up, between lock and reveal:
    the host's session still looks alive. Its `alllocked` is refused with `error
    unexpected_now "no session"`; the host identifies again at once and the seat resumes
    and reveals. The quiet-seat probe and the host's silence timeout are switched off: this
    path alone must recover it (and a slow reboot cannot end the host's session instead)."""
    monkeypatch.setattr(session_mod, "PROBE_AFTER", 1e9)
    monkeypatch.setattr(session_mod, "OFFLINE_AFTER", 1e9)

    async def run() -> None:
        async with _sealed_prompt_on_two(tmp_path) as (daemon, a, b, pid):
            runner = daemon.runners[TABLE]
            seat_a = runner.table.seat_of(a.uid)
            assert seat_a is not None
            session_a = runner.sessions[a.uid]
            a.press(100)
            await wait_for(lambda: runner.box is not None and runner.box.locked(seat_a.index))
            await _reboot_then_reveal(daemon, a, pid, [b])
            assert runner.sessions[a.uid] is session_a and session_a.reidentified >= 1

    asyncio.run(run())


@pytest.mark.micropython
def test_micropython_firmware_rebooting_before_it_locks_is_found_by_the_probe(
        tmp_path: Path) -> None:
    """A reboot behind a live port while the seat still owes its lock: the host has nothing
    reliable to send it (the prompt was acknowledged), so no frame is refused with "no
    session"; the quiet-seat probe asks again and the prompt is shown again."""

    async def run() -> None:
        async with _sealed_prompt_on_two(tmp_path) as (daemon, a, b, pid):
            await _reboot_then_reveal(daemon, a, pid, [a, b])

    asyncio.run(run())
