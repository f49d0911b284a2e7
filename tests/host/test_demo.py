"""`dialbox demo`: the embedded default plays a whole game by itself."""

from __future__ import annotations

import asyncio
import json

import pytest

from dialbox.cli import main
from dialbox.daemon.embedded import run_demo
from dialbox.engine.registry import game_info
from tests.host.games import DUEL


@pytest.mark.micropython
def test_demo_plays_a_whole_game_with_the_real_firmware_over_ptys() -> None:
    summary = asyncio.run(run_demo(game=DUEL, players=3, controllers=2, seed=4,
                                   options={"rounds": 2}, timeout=120))
    assert summary.runtime == "micropython" and summary.result is not None
    assert summary.prompts == 4


def test_demo_over_the_embedded_broker(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", DUEL, "--players", "2", "--transport", "mqtt",
                 "--broker", "embedded", "--runtime", "double", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["transport"] == "mqtt (embedded amqtt)" and out["result"]["text"] == "done"


def test_the_demo_plays_trial_of_the_gods_under_its_other_spelling(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The protocol double (random allowed faces, about a second): the game runs to its end
    unattended. A refused track change is voided and asked again, as random play does; the
    real firmware with the seat bots' hands runs in tests/host/test_firmware_e2e.py."""
    assert main(["demo", "--game", "trialofthegods", "--players", "2", "--runtime", "double",
                 "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "trial-of-the-gods" and out["result"]["winners"]


def test_the_demo_powers_a_stopped_simulated_controller_on_again() -> None:
    from dialbox.daemon.embedded import _keep_powered

    class Sim:
        uid = "sim9"
        running = False
        calls: list[str] = []

        def log_tail(self, n: int) -> str:
            return "boom"

        def kill(self) -> None:
            self.calls.append("kill")

        def start(self) -> None:
            self.calls.append("start")
            self.running = True

    async def run() -> list[str]:
        restarts: list[str] = []
        sim = Sim()
        task = asyncio.create_task(_keep_powered([sim], restarts))
        while not sim.running:
            await asyncio.sleep(0.05)
        task.cancel()
        assert sim.calls == ["kill", "start"]
        return restarts

    assert asyncio.run(run()) == ["sim9"]


def test_the_demo_seats_four_or_the_games_smallest_table(
        capsys: pytest.CaptureFixture[str]) -> None:
    from dialbox.cli.demo import default_players

    assert default_players((3, 4)) == 4 and default_players((4, 6)) == 4
    assert default_players((2, 3)) == 2  # PIP Cycle: the 2-player main game
    assert default_players(game_info("trialofthegods").players) == 4
    assert main(["demo", "--game", "nosuch", "--json"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("dialbox demo: unknown game 'nosuch'") and "\n" not in err


def test_after_the_game_the_demo_says_the_screen_is_replaying_it(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A paced demo's screen lags the simulated game: once the game is over the demo says
    the screen is replaying it at table pace, and how to stop, before its summary."""
    assert main(["demo", "--game", DUEL, "--players", "2", "--runtime", "double",
                 "--seed", "3", "--pace", "0.1", "--no-browser"]) == 0
    lines = capsys.readouterr().out.splitlines()
    told = next(i for i, line in enumerate(lines) if "still replaying it at pace 0.1" in line)
    assert "s left" in lines[told] and "Ctrl-C stops" in lines[told]
    assert "--pace 0" in lines[told]
    assert all(not line.startswith("reveal") for line in lines[told:])  # the game was over
    assert "game over after" in lines[-1]


def test_unpaced_the_demo_has_no_replay_to_tell(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--game", DUEL, "--players", "2", "--runtime", "double",
                 "--seed", "3", "--pace", "0", "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "replaying" not in out and "game over after" in out


def test_the_replay_line_says_how_long_is_left_and_keeps_saying_it(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import deque

    from dialbox.cli import demo
    from dialbox.displays.feed import PublicFeed
    from dialbox.displays.public import PromptView, TableView

    assert demo.duration(200) == "3 min 20 s" and demo.duration(45.4) == "45 s"
    monkeypatch.setattr(demo, "REPLAY_NEWS", 0.01)
    sealed = {"sealed": True, "topic": "", "text": "q", "asks": ()}

    class Follower:
        pace = 2.0
        _queue = deque([  # all locked (1.2 s), its reveal (2.5 s), another state (0.25 s)
            TableView(stage="playing", prompt=PromptView(pid=1, phase="alllocked", **sealed)),
            TableView(stage="playing", reveal=PromptView(pid=1, phase="revealed", **sealed)),
            TableView(stage="playing"),
        ])

    class Shown:
        follower = Follower()
        feed = PublicFeed()

        def __init__(self) -> None:
            self.release = asyncio.Event()

        async def caught_up(self) -> None:
            await self.release.wait()

    async def scenario() -> str:
        shown = Shown()
        task = asyncio.create_task(demo.replay_told(shown))
        said = ""
        while "replaying: about" not in said:
            await asyncio.sleep(0.01)
            said += capsys.readouterr().out
        shown.release.set()
        await task
        return said

    said = asyncio.run(scenario())
    assert said.startswith("the game is over; the table screen is still replaying it at pace "
                           "2, about 8 s left. Ctrl-C stops")  # (1.2 + 2.5 + 0.25) x 2
    assert "replaying: about 8 s left (Ctrl-C stops)" in said


def test_ctrl_c_during_the_replay_ends_the_demo_with_130_and_one_line() -> None:
    import signal
    import subprocess
    import sys

    from dialbox.paths import repo_root

    proc = subprocess.Popen(
        [sys.executable, "-m", "dialbox", "demo", "--game", DUEL, "--players", "2",
         "--runtime", "double", "--seed", "3", "--pace", "1", "--no-browser"],
        cwd=repo_root(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    try:
        seen: list[str] = []
        while not any("still replaying" in line for line in seen):
            line = proc.stdout.readline()
            assert line, f"the demo ended without a replay line: {seen}"
            seen.append(line)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    assert [line for line in err.splitlines() if line.strip()] == \
        ["dialbox demo: stopped (Ctrl-C)"], err
    assert "game over after" not in out


def test_what_stopped_the_screen_stops_the_demo() -> None:
    from dialbox.cli import demo

    class Shown:
        follower = None

        async def caught_up(self) -> None:
            raise RuntimeError("the screen's follower failed")

    with pytest.raises(RuntimeError, match="follower failed"):
        asyncio.run(demo.replay_told(Shown()))
