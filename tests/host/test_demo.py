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
