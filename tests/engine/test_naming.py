"""Seats named in texts: marks in, colour names and their places out; player names put in
exactly there and nowhere else (dialbox.engine.naming)."""

from __future__ import annotations

from typing import Any

import pytest

from dialbox.engine import Flow, Game, Result
from dialbox.engine.naming import (
    NAMED,
    colour_name,
    plain,
    player_label,
    render,
    said,
    spans_of,
    who,
    whom,
)


def test_marks_become_colour_names_and_spans() -> None:
    text, spans = said(f"{who(1)} pays 19 Energy to {who(0)}.")
    assert text == "Blue pays 19 Energy to Red."
    assert spans == [(0, 4, 1), (23, 26, 0)]
    assert all(text[a:b] == colour_name(s) for a, b, s in spans)
    assert said("nobody is named") == ("nobody is named", [])
    assert plain(whom([0, 2, 3])) == "Red, Green and Yellow"
    assert plain(whom([4, 5])) == "Purple and Orange"
    assert colour_name(6) == "Player 7"
    with pytest.raises(ValueError, match="broken seat mark"):
        said("\x1e1 pays")


def test_render_puts_names_in_and_leaves_other_words_alone() -> None:
    text, spans = said(f"{who(0)} wins a gold Medal for the Red Sunz; the red route is "
                       f"free; {who(1)} and Blue's friend Redmond watch.")
    names = {0: player_label("Red", "Ann"), 1: player_label("Blue", "Bo")}
    out, moved = render(text, spans, names)
    assert out == ("Ann (Red) wins a gold Medal for the Red Sunz; the red route is free; "
                   "Bo (Blue) and Blue's friend Redmond watch.")
    assert [out[a:b] for a, b, _ in moved] == ["Ann (Red)", "Bo (Blue)"]
    # a seat without a player name keeps its colour, and its span
    out2, moved2 = render(text, spans, {1: "Bo (Blue)"})
    assert out2.startswith("Red wins") and [s for *_, s in moved2] == [0, 1]


def test_render_ignores_spans_that_do_not_name_their_seat() -> None:
    text = "Red pays; Blue gains."
    stale = [[0, 3, 1], [10, 14, 1], [5, 50, 0], "junk", [1, 2], [0, 3, True]]
    out, moved = render(text, stale, {0: "Ann (Red)", 1: "Bo (Blue)"})
    assert out == "Red pays; Bo (Blue) gains." and moved == [(10, 19, 1)]
    assert spans_of(None) == [] and spans_of("0 3 1") == []


class Namer(Game):
    """Names seats in an event and in its result."""

    name = "namer"

    def setup(self) -> None:
        pass

    def snapshot(self) -> dict[str, Any]:
        return {}

    def view(self, seat: int | None) -> dict[str, Any]:
        return {}

    def flow(self) -> Flow:
        self.emit("namer.hello", f"{who(2)} greets {whom([0, 1])}.", seat=2)
        self.emit("namer.plain", "Nobody is named.")
        self.result = Result({0: 1, 1: 0, 2: 0}, [0], f"{who(0)} wins.", {"x": 1})
        return
        yield


def test_events_and_results_record_where_seats_are_named() -> None:
    game = Namer({"players": 3})
    hello, quiet = game.events
    assert hello.text == "Green greets Red and Blue."
    assert hello.data == {"seat": 2, NAMED: [[0, 5, 2], [13, 16, 0], [21, 25, 1]]}
    assert NAMED not in quiet.data
    assert game.result is not None and game.result.text == "Red wins."
    assert game.result.details == {"x": 1, NAMED: [[0, 3, 0]]}
    assert game.result.to_json()["details"][NAMED] == [[0, 3, 0]]
    assert Namer({"players": 3}, quiet=True).events == []
