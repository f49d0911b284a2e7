"""Stadium (8Bit Box): all 16 Trials on the controllers; `GAME` is the registered Game class."""

from dialbox.games.stadium.game import GAME, Stadium, StadiumOptions

__all__ = ["GAME", "Stadium", "StadiumOptions"]
