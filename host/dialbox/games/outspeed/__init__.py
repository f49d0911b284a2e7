"""Outspeed: the race of the 8Bit Box, with Track tiles as data, Bonus tokens and bots."""

from dialbox.games.outspeed.bots import RacerBot
from dialbox.games.outspeed.game import Outspeed, OutspeedOptions, Position
from dialbox.games.outspeed.screen import draw

GAME = Outspeed
BOTS = {"heuristic": RacerBot, "racer": RacerBot}
"""Bots this game offers besides the engine's random bot (name -> factory taking a seed);
"heuristic" is the name `dialbox play` picks by default."""

__all__ = ["BOTS", "GAME", "Outspeed", "OutspeedOptions", "Position", "RacerBot", "draw"]
