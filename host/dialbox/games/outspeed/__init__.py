"""Outspeed: the race of the 8Bit Box, with Track tiles as data, Bonus tokens and bots."""

from pathlib import Path

from dialbox.engine.registry import GameInfo
from dialbox.games.outspeed.bots import RacerBot
from dialbox.games.outspeed.game import Outspeed, OutspeedOptions, Position
from dialbox.games.outspeed.screen import draw

INFO = GameInfo(
    game=Outspeed,
    title="Outspeed",
    players=(3, 4, 5, 6),
    bots={"heuristic": RacerBot, "racer": RacerBot},
    default_bot="heuristic",
    draw=draw,
    board_js=Path(__file__).with_name("board.js"),
)

__all__ = ["INFO", "Outspeed", "OutspeedOptions", "Position", "RacerBot", "draw"]
