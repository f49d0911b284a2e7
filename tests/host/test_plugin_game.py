"""A game is one package plus one registry line: a game that lives only in the tests
(tests/plugins/blindbid/) runs through `dialbox play`, the rehearsal screen, the web screen's
board route, the demo daemon with simulated controllers and the displays, with no other file
naming it. Its hidden hand and face-down cards stay private everywhere."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from dialbox.cli import main
from dialbox.daemon.embedded import run_demo
from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.tablefeed import TableFollower
from dialbox.engine import game_info, game_names
from dialbox.engine.bots import answer_with_bots
from dialbox.engine.registry import register, unregister
from tests.displays.helpers import Recorded
from tests.engine import test_secrets

NAME = "blindbid"


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    register(NAME, "tests.plugins.blindbid")
    yield
    unregister(NAME)


def test_the_registry_knows_it_from_its_package_alone() -> None:
    assert NAME in game_names()
    info = game_info(NAME)
    assert (info.title, info.players_text, info.default_bot) == ("Blind Bid", "2-3", "high")
    assert info.board_js is not None and info.board_js.is_file()
    assert "rounds" in info.options_schema()["properties"]


def test_dialbox_play_plays_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", NAME, "--humans", "0", "--bots", "3", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert "Blind Bid round 3" in out and " win with " in out
    assert "You play your" not in out  # nobody at the keyboard: private events stay hidden


def test_one_human_sees_their_own_private_events_only(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import io

    card = game_info(NAME).game({"players": 2, "seed": 4}).hands[0][0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"1\n{card}\nq\nq\n"))
    assert main(["play", NAME, "--humans", "1", "--bots", "1", "--seed", "4"]) == 0  # (q)
    out = capsys.readouterr().out
    assert f"You play your {card}." in out and out.count("You play your") == 1


def test_its_secrets_hold_under_the_generic_check() -> None:
    info = game_info(NAME)
    rng = random.Random(5)
    private = dealt = 0
    for seed in range(6):
        players = 2 + seed % 2
        game = info.game({"players": players, "seed": seed})
        bots = {p: info.bot()(p) for p in range(players)}
        while game.pending is not None:
            d = game.pending
            where = f"{NAME} seed {seed} decision {d.id}"
            if d.sealed:
                test_secrets.check_sealed(game, d, rng, where)
            elif d.private:
                private += test_secrets.check_private(game, d, rng, where)
            dealt += test_secrets.check_dealt(game, rng, where)
            game.apply(answer_with_bots(game, bots))
    assert private > 0 and dealt > 0


def test_the_rehearsal_screen_shows_it_without_its_secrets() -> None:
    rec = Recorded(NAME, players=3).play()
    final = rec.states[-1]
    assert final.stage == "over" and final.result is not None and "win with" in final.result.text
    assert final.games and NAME in {g.name for g in final.games}
    for state in rec.states:
        assert all(e.kind != "blindbid.mine" for e in state.events)
        board = state.board
        if board is not None:
            assert all(isinstance(h, int) for h in board["hands"]), "a hand on the table"
        p = state.reveal
        assert p is None or not rec.decisions[p.pid].private, "a private answer revealed"
        q = state.prompt
        assert q is None or not q.choices or not rec.decisions[q.pid].private


@pytest.mark.micropython
def test_the_demo_daemon_plays_it_with_the_real_firmware() -> None:
    views: list[TableView] = []
    states: list[dict[str, Any]] = []

    def follow(runner: Any) -> None:
        feed = PublicFeed()
        feed.listen(views.append)
        TableFollower(runner, feed)

    summary = asyncio.run(run_demo(game=NAME, players=2, controllers=2, seed=3, timeout=180,
                                   on_runner=follow, on_state=states.append))
    assert summary.runtime == "micropython" and summary.result is not None
    assert summary.prompts == 9  # 3 rounds of bid, cards, letter
    assert views and views[-1].stage == "over" and views[-1].game == NAME
    assert all(isinstance(h, int) for v in views if v.board for h in v.board["hands"])
    text = json.dumps([v.model_dump(mode="json") for v in views])
    assert "You play your" not in text
