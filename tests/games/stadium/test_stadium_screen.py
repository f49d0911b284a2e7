"""The terminal drawing of a Stadium view and the bots offered to `dialbox play`."""

from __future__ import annotations

from rich.console import Console

from dialbox.engine.bots import play_out
from dialbox.engine.registry import game_info
from dialbox.games.stadium import INFO, Stadium, draw
from dialbox.games.stadium.bots import StadiumBot


def render(view: object) -> str:
    console = Console(width=100, record=True, color_system=None)
    console.print(draw(view))  # type: ignore[arg-type]
    return console.export_text()


def test_draw_shows_the_table_in_seat_terms() -> None:
    game = Stadium({"players": 4, "track": ["relay", "golf"], "first_player": 1})
    text = render(game.view(0))
    assert "4 x 100 Meter Relay" in text and "communication forbidden" in text
    assert "runners Blue, Green" in text and "2.standard" in text and "golf" not in text
    play_out(game, {s: StadiumBot(s) for s in range(4)})
    text = render(game.view(None))
    assert "points" in text and "2.golf" in text


def test_dialbox_play_finds_the_heuristic_bot() -> None:
    kinds = game_info("stadium").bot_kinds
    assert kinds["heuristic"] is StadiumBot and "random" in kinds
    assert INFO.bots["heuristic"] is StadiumBot
