"""The retained table state's JSON (`TableState.to_json`, what the daemon publishes on the MQTT
`state` topic) against pydantic's own `model_dump_json`: the same object for every state of
whole bot games of every game, and no stale reveal text once a reveal is gone."""

from __future__ import annotations

import gc
import json

import pytest

from dialbox.engine.registry import game_info, game_names
from dialbox.journal import Journal
from dialbox.runner import GameRunner, TableSettings
from dialbox.runner.public import Publisher
from dialbox.table import TableState
from dialbox.table.state import FaceState, RevealState, reveal_json


class Watched(GameRunner):
    """A runner whose every public state is kept, from its first (bots play out the whole
    game while it is made)."""

    def __init__(self, settings: TableSettings, states: list[TableState]) -> None:
        publisher = Publisher(self.state)
        publisher.feed.listen(states.append)
        super().__init__(settings, Journal(":memory:"), publisher=publisher)


@pytest.mark.parametrize("game", game_names())
def test_every_state_of_a_whole_game_writes_the_same_object(game: str) -> None:
    players = game_info(game).players[-1]
    states: list[TableState] = []
    # outside an event loop every change is published at once: every state the table had
    runner = Watched(TableSettings("t1", game, players, seed=7, bots=list(range(players))),
                     states)
    assert runner.game.over
    assert len(states) > 10 and any(len(s.reveals) > 1 for s in states)
    for state in states:
        text = state.to_json()
        assert json.loads(text) == json.loads(state.model_dump_json())
        # a reader gets the same model from either (a game's view may hold tuples and int
        # keys, which JSON gives back as lists and strings either way)
        assert TableState.model_validate_json(text) == TableState.model_validate_json(
            state.model_dump_json())
        assert state.to_json() == text  # the second time, from the reveals' written JSON


def test_a_reveal_that_is_gone_leaves_no_text_for_another() -> None:
    gone_ids = set()
    for n in range(200):  # CPython soon hands a freed object's id to a new one
        reveal = RevealState(pid=n, kind="sealed", choices=((0, f"face {n}"),),
                             faces={0: (FaceState(wheel="left", label=f"face {n}"),)})
        seen_before = id(reveal) in gone_ids
        assert json.loads(reveal_json(reveal)) == json.loads(reveal.model_dump_json())
        assert reveal_json(reveal) is reveal_json(reveal)  # made once while it lives
        if seen_before:
            break
        gone_ids.add(id(reveal))
        del reveal
        gc.collect()
    assert seen_before, "no id was handed on: the check above did not meet a reused id"
