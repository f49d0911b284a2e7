"""Pixoid: flee the Bugs as Pixoid, or catch Pixoid as a Bug (rules, board data, bots)."""

from pathlib import Path

from dialbox.engine.game import GameOptions
from dialbox.engine.registry import GameInfo
from dialbox.games.pixoid.board import Board, BoardError, TileSet, load_tiles, parse_side
from dialbox.games.pixoid.bots import PixoidBot
from dialbox.games.pixoid.rules import Pixoid, PixoidOptions
from dialbox.games.pixoid.screen import draw


def _controllers(options: GameOptions) -> int:
    """Four controllers always: in the 3 Player Variant a Bug player runs the fourth."""
    return 4


INFO = GameInfo(
    game=Pixoid,
    title="Pixoid",
    players=(3, 4),
    bots={"heuristic": PixoidBot},
    default_bot="heuristic",
    draw=draw,
    board_js=Path(__file__).with_name("board.js"),
    controllers=_controllers,
)

__all__ = [
    "INFO", "Board", "BoardError", "Pixoid", "PixoidBot", "PixoidOptions", "TileSet",
    "draw", "load_tiles", "parse_side",
]
