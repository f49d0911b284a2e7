"""Pixoid rules that span a whole game: shared victory, start refusals, views as JSON."""

from __future__ import annotations

import json

import pytest

from dialbox.engine import IllegalChoice
from dialbox.games.pixoid import Pixoid

CORNERS = """
S S . . . .

. . . . . .

. . . . . .

. . . . . .

. . . . . .

S . . . . S
"""


def test_tied_players_share_the_victory() -> None:
    # Every round Pixoid starts on a1 with a Bug on b1 and runs straight into it: he scores
    # 0 and each Bug 12, so after four rounds everyone has 36 and all four share the win.
    game = Pixoid({"players": 4, "board_map": CORNERS})
    while not game.over:
        d = game.pending
        assert d is not None
        if d.asks[0].topic == "pixoid.start":
            seat = d.asks[0].seat
            game.apply({seat: next(iter(game.legal(d.asks[0])))})
            continue
        answers = {a.seat: next(iter(game.legal(a))) for a in d.asks}
        answers[game.pixoid] = (2, 1, -1)  # right 1
        events = game.apply(answers)
        assert any(e.kind == "pixoid.caught" and e.data["by_pixoid"] for e in events)
    assert game.scores == [36, 36, 36, 36]
    assert game.result is not None and game.result.winners == [0, 1, 2, 3]
    assert "share the victory with 36 points" in game.result.text


def test_a_taken_starting_pix_is_refused_by_name() -> None:
    game = Pixoid({"players": 4, "board_map": CORNERS})
    game.apply({0: (-1, -1, 0)})
    d = game.pending
    assert d is not None and d.asks[0].seat == 1
    with pytest.raises(IllegalChoice, match="Starting Pix A is taken by Pixoid \\(Red\\)"):
        game.apply({1: (-1, -1, 0)})


def test_views_are_json_and_name_the_players_controllers() -> None:
    game = Pixoid({"players": 3, "board_map": CORNERS})
    for _ in range(3):  # Pixoid, then the two Bug players; the spare Bug takes the last Pix
        d = game.pending
        assert d is not None and d.asks[0].topic == "pixoid.start"
        game.apply({d.asks[0].seat: next(iter(game.legal(d.asks[0])))})
    view = json.loads(json.dumps(game.view(1)))
    assert view["role"] == "bug" and view["controllers"] == [1, 3]
    assert json.loads(json.dumps(game.view(2)))["controllers"] == [2]
    assert view["board"]["size"] == 6 and view["pending"]["sealed"] is True
