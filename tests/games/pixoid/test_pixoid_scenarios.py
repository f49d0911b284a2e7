"""Runs the Pixoid scenario files: rulebook situations as data (start, moves, expectations).

Format (see scenarios/*.toml): [options] are the game options; each [[step]] answers the
pending decisions. `starts = ["A", ...]` answers the Starting Pix choices in the order they
are asked; `moves = {1 = "up 3", ...}` answers one sealed move decision, keyed by seat
number counted from 1 (seat 4 in a 3 player game is the spare controller); `repeat = n`
plays the same moves n times. [step.expect] checks the state after the step: `at` (seat ->
Pix name like "c4", columns a.. from the left, rows 1.. from the top, "-" off the board),
`reserve`, `bonus_taken`, `bonus` (Pix names still holding a Bonus cube), `turn` (the turn
now being played), `round`, `pixoid`, `spare` (seat numbers from 1), `pending_player`
(seat -> the player answering its pending ask), `scores`, `over`, `winners`,
`result_scores`, `events` (event kinds that must occur in this order among the step's
events), `no_events`, `text` (a phrase in one of the step's event texts).
`illegal = {seat = n, reason = "..."}` expects the step's answers to be refused with that
reason, and the state to stay as it was.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import Event, IllegalChoice
from dialbox.games.pixoid import Pixoid

HERE = Path(__file__).parent / "scenarios"
FILES = sorted(HERE.glob("*.toml"))

ARROWS = {
    "up": 0, "n": 0, "ne": 1, "right": 2, "e": 2, "se": 3,
    "down": 4, "s": 4, "sw": 5, "left": 6, "w": 6, "nw": 7,
}


def selection(move: str) -> tuple[int, int, int]:
    arrow, distance = move.split()
    return (ARROWS[arrow.lower()], int(distance), -1)


def kinds_in_order(events: list[Event], wanted: list[str]) -> bool:
    it = iter(e.kind for e in events)
    return all(any(k == w for k in it) for w in wanted)


def check(game: Pixoid, expect: dict[str, Any], events: list[Event], where: str) -> None:
    name = game.board.pix_name
    for key, want in expect.items():
        if key == "at":
            got = {str(s): name(game.cubes[int(s) - 1]) if game.cubes[int(s) - 1] >= 0 else "-"
                   for s in want}
            assert got == want, f"{where}: cubes at {got}, expected {want}"
        elif key == "bonus":
            assert sorted(name(p) for p in game.bonus) == sorted(want), where
        elif key in ("reserve", "bonus_taken", "turn", "round"):
            assert getattr(game, key) == want, f"{where}: {key} is {getattr(game, key)}"
        elif key == "pixoid":
            assert game.pixoid + 1 == want, f"{where}: Pixoid is seat {game.pixoid + 1}"
        elif key == "spare":
            assert game.spare is not None and game.spare + 1 == want, f"{where}: spare"
        elif key == "pending_player":
            d = game.pending
            assert d is not None, f"{where}: nothing pending"
            got = {s: d.ask_for(int(s) - 1).answerer + 1 for s in want}
            assert got == want, f"{where}: controllers answered by {got}"
        elif key == "scores":
            assert game.scores == want, f"{where}: scores {game.scores}"
        elif key == "over":
            assert game.over == want, f"{where}: over is {game.over}"
        elif key == "winners":
            assert game.result is not None
            assert [w + 1 for w in game.result.winners] == want, f"{where}: winners"
        elif key == "result_scores":
            assert game.result is not None
            assert list(game.result.scores.values()) == want, f"{where}: result scores"
        elif key == "events":
            assert kinds_in_order(events, want), f"{where}: events {[e.kind for e in events]}"
        elif key == "no_events":
            kinds = {e.kind for e in events}
            assert not kinds & set(want), f"{where}: unexpected events {kinds & set(want)}"
        elif key == "text":
            assert any(want in e.text for e in events), f"{where}: no event says {want!r}"
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")


def run_step(game: Pixoid, step: dict[str, Any], where: str) -> list[Event]:
    events: list[Event] = []
    for letter in step.get("starts", []):
        d = game.pending
        assert d is not None and d.asks[0].topic == "pixoid.start", f"{where}: no start choice"
        seat = d.asks[0].seat
        events += game.apply({seat: (-1, -1, ord(letter) - ord("A"))})
    if "moves" in step:
        answers = {int(s) - 1: selection(m) for s, m in step["moves"].items()}
        for _ in range(step.get("repeat", 1)):
            d = game.pending
            assert d is not None and d.asks[0].topic == "pixoid.move", f"{where}: no move"
            if "illegal" in step:
                before = game.state_hash()
                with pytest.raises(IllegalChoice) as err:
                    game.apply(answers)
                assert err.value.seat + 1 == step["illegal"]["seat"], where
                assert step["illegal"]["reason"] in err.value.reason, where
                assert game.state_hash() == before, f"{where}: a refused answer changed the game"
            else:
                events += game.apply(answers)
    return events


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_scenario(path: Path) -> None:
    data = tomllib.loads(path.read_text())
    game = Pixoid(data["options"])
    for i, step in enumerate(data["step"], 1):
        where = f"{path.name} step {i}"
        events = run_step(game, step, where)
        check(game, step.get("expect", {}), events, where)


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 8
