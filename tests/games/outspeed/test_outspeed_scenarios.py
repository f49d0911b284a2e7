"""Outspeed scenarios from the rulebook, run from the data files in scenarios/*.toml.

A scenario starts from a Position (options.position; "out" stands for an eliminated Ship since
TOML has no null), answers each pending decision in turn and checks the state after steps.
Answers are written in the game's words: a route colour ("red", "green x=3"), a token kind
("nitro", "pass"), a kept token, a die face label ("-3"), an X digit.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import IllegalChoice, Selection
from dialbox.games.outspeed import Outspeed
from dialbox.games.outspeed.tiles import ROUTES
from dialbox.games.outspeed.tokens import KINDS, SHORT

HERE = Path(__file__).parent / "scenarios"
FILES = sorted(HERE.glob("*.toml"))


def _nulls(v: Any) -> Any:
    if v == "out":
        return None
    if isinstance(v, list):
        return [_nulls(x) for x in v]
    if isinstance(v, dict):
        return {k: _nulls(x) for k, x in v.items()}
    return v


def selection(game: Outspeed, seat: int, text: str) -> Selection:
    d = game.pending
    assert d is not None
    ask = d.ask_for(seat)
    words = text.split()
    if ask.topic == "outspeed.route":
        x = -1 if ask.wheels[1] is None else 0
        for w in words[1:]:
            assert w.startswith("x="), text
            x = int(w[2:])
        return (-1, x, ROUTES.index(words[0]))
    if ask.topic == "outspeed.bonus":
        return (-1, 0 if text == "pass" else KINDS.index(text) + 1, -1)
    wheel = ask.wheels[1]
    assert wheel is not None, ask
    labels = [f.label for f in wheel.faces]
    if ask.topic == "outspeed.keep":
        return (-1, labels.index(SHORT[text]), -1)
    return (-1, labels.index(text), -1)


def answers(game: Outspeed, raw: dict[str, str]) -> dict[int, Selection]:
    return {int(s): selection(game, int(s), a) for s, a in raw.items()}


def check(game: Outspeed, expect: dict[str, Any], where: str) -> None:
    snap = game.snapshot()
    kinds = [e.kind for e in game.events]
    for key, want in expect.items():
        if key == "events":
            for k in want:
                assert k in kinds, f"{where}: no {k} event in {kinds}"
        elif key == "no_events":
            for k in want:
                assert k not in kinds, f"{where}: unexpected {k} event"
        elif key == "over":
            assert game.over == want, where
        elif key == "winners":
            assert game.result is not None and game.result.winners == want, where
        elif key == "pending":
            d = game.pending
            assert d is not None and d.asks[0].topic == want[0] and list(d.seats) == want[1], \
                f"{where}: pending {d}"
        elif key == "tokens":
            assert [sorted(h) for h in snap["tokens"]] == [sorted(h) for h in want], where
        else:
            assert snap[key] == _nulls(want), f"{where}: {key} is {snap[key]}, expected {want}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    data = tomllib.loads(path.read_text())
    options = _nulls(data["options"])
    game = Outspeed(options)
    check(game, data.get("start", {}), f"{path.stem} start")
    for i, step in enumerate(data.get("step", [])):
        where = f"{path.stem} step {i + 1}"
        d = game.pending
        assert d is not None, f"{where}: the game is over"
        if "topic" in step:
            assert {a.topic for a in d.asks} == {step["topic"]}, f"{where}: {d.asks}"
        for seat, (text, reason) in step.get("illegal", {}).items():
            trial = dict(answers(game, step["answers"]))
            trial[int(seat)] = selection(game, int(seat), text)
            with pytest.raises(IllegalChoice, match=reason):
                game.apply(trial)
        mark = len(game.events)
        game.apply(answers(game, step["answers"]))
        expect = step.get("expect", {})
        if expect:
            saved = game.events
            game.events = saved[mark:] if "events" in expect or "no_events" in expect else saved
            try:
                check(game, expect, where)
            finally:
                game.events = saved
    check(game, data.get("end", {}), f"{path.stem} end")


def test_every_scenario_names_its_rule() -> None:
    assert len(FILES) >= 8
    for path in FILES:
        data = tomllib.loads(path.read_text())
        assert data.get("rule"), f"{path.name} must say which rule it checks"
