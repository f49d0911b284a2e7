"""Blind Bid: a test-only game package, registered by the tests to prove that a game is one
package plus one registry line (tests/host/test_plugin_game.py)."""

from pathlib import Path

from dialbox.engine.registry import GameInfo
from tests.plugins.blindbid.game import BlindBid, HighBot, draw

INFO = GameInfo(
    game=BlindBid,
    title="Blind Bid",
    players=(2, 3),
    bots={"high": HighBot},
    default_bot="high",
    draw=draw,
    board_js=Path(__file__).with_name("board.js"),
)

__all__ = ["INFO", "BlindBid", "HighBot", "draw"]
