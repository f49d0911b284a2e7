"""Pixoid: flee the Bugs as Pixoid, or catch Pixoid as a Bug (rules, board data, bots)."""

from dialbox.engine.bots import BotFactory, RandomBot
from dialbox.games.pixoid.board import Board, BoardError, TileSet, load_tiles, parse_side
from dialbox.games.pixoid.bots import PixoidBot
from dialbox.games.pixoid.rules import GAME, Pixoid, PixoidOptions
from dialbox.games.pixoid.screen import draw

BOTS: dict[str, BotFactory] = {"random": RandomBot, "heuristic": PixoidBot}

__all__ = [
    "BOTS", "GAME", "Board", "BoardError", "Pixoid", "PixoidBot", "PixoidOptions", "TileSet",
    "draw", "load_tiles", "parse_side",
]
