"""Stadium scenarios from the Trial booklet, replayed from the data files in scenarios/."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import CENTRE, INACTIVE, RIGHT, Ask, IllegalChoice, Selection
from dialbox.games.stadium import Stadium
from dialbox.games.stadium.game import colour_digit

HERE = Path(__file__).parent / "scenarios"
DEFAULTS: dict[str, Any] = {"players": 4, "first_player": 0, "physical_dice": True}


def selection(ask: Ask, token: str) -> Selection:
    """Turn "A+5", "C", "A+@3" (seat 3's colour) or a face label ("Hole 4") into a selection.

    Active wheels not named in the token stay on their first face.
    """
    sel = [INACTIVE, INACTIVE, INACTIVE]
    for pos, wheel in enumerate(ask.wheels):
        if wheel is not None:
            sel[pos] = 0
    centre_labels = [f.label for f in ask.wheels[CENTRE].faces] if ask.wheels[CENTRE] else []
    for part in [token] if token in centre_labels else token.split("+"):
        right = ask.wheels[RIGHT]
        centre = ask.wheels[CENTRE]
        if right is not None and part in ("A", "B", "C", "D"):
            sel[RIGHT] = "ABCD".index(part)
        elif part.startswith("@"):
            sel[CENTRE] = colour_digit(int(part[1:]) - 1)
        else:
            assert centre is not None, f"{ask.topic}: no centre wheel for {part!r}"
            labels = [f.label for f in centre.faces]
            assert part in labels, f"{ask.topic}: no face {part!r} in {labels}"
            sel[CENTRE] = labels.index(part)
    return (sel[0], sel[1], sel[2])


def medal_board(game: Stadium) -> dict[str, list[int]]:
    return {"blue": list(game.medals[0]), "red": list(game.medals[1])}


def check(game: Stadium, expect: dict[str, Any], where: str) -> None:
    if "energy" in expect:
        assert game.energy == expect["energy"], where
    if "medals" in expect:
        assert medal_board(game) == expect["medals"], where
    if "first" in expect:
        assert game.first + 1 == expect["first"], where
    if "score" in expect:
        assert game.score == expect["score"], where
    if "over" in expect:
        assert game.over == expect["over"], where
    if "awards" in expect:
        got = [
            f"seat {a['seat'] + 1} {a['medal']}" if a["seat"] is not None
            else f"{a['team']} {a['medal']}"
            for h in game.history for a in h["awards"]
        ]
        assert got == expect["awards"], where
    texts = " | ".join(e.text for e in game.events)
    for needle in expect.get("events", []):
        assert needle in texts, f"{where}: {needle!r} not in events"


def run_case(case: dict[str, Any], trial: str | None) -> Stadium:
    options = {**DEFAULTS, **({"track": [trial]} if trial else {}), **case.get("options", {})}
    game = Stadium(options)
    for i, step in enumerate(case["steps"]):
        where = f"{case['name']}, step {i + 1}"
        if "check" in step:
            check(game, step["check"], where)
            continue
        d = game.pending
        assert d is not None, f"{where}: the game is already over"
        if "topic" in step:
            assert step["topic"] in {a.topic for a in d.asks}, f"{where}: {d.asks}"
        if "illegal" in step:
            for seat, (token, reason) in step["illegal"].items():
                ask = d.ask_for(int(seat) - 1)
                with pytest.raises(IllegalChoice, match=reason):
                    game.check(ask, selection(ask, token))
            continue
        tokens = {int(k) - 1: v for k, v in step.items() if k.isdigit()}
        assert set(tokens) == set(d.seats), f"{where}: asked {[s + 1 for s in d.seats]}"
        game.apply({s: selection(d.ask_for(s), t) for s, t in tokens.items()})
    check(game, case.get("expect", {}), f"{case['name']}, end")
    return game


def cases() -> list[Any]:
    out = []
    for path in sorted(HERE.glob("*.json")):
        data = json.loads(path.read_text())
        for case in data["cases"]:
            out.append(pytest.param(data.get("trial"), case, id=f"{path.stem}:{case['name']}"))
    return out


@pytest.mark.parametrize(("trial", "case"), cases())
def test_scenario(trial: str | None, case: dict[str, Any]) -> None:
    run_case(case, trial)


def test_every_trial_has_a_scenario_file() -> None:
    from dialbox.games.stadium.components import load_tiles

    covered = {json.loads(p.read_text()).get("trial") for p in HERE.glob("*.json")}
    assert set(load_tiles("sample").tiles) <= covered
