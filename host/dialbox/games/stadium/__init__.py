"""Stadium (8Bit Box): all 16 Trials on the controllers; `GAME` is the registered Game class."""

from dialbox.engine.bots import BotFactory, RandomBot
from dialbox.games.stadium.bots import StadiumBot
from dialbox.games.stadium.game import GAME, Stadium, StadiumOptions
from dialbox.games.stadium.screen import draw

BOTS: dict[str, BotFactory] = {"random": RandomBot, "heuristic": StadiumBot}

__all__ = ["BOTS", "GAME", "Stadium", "StadiumBot", "StadiumOptions", "draw"]
