"""Games by name: `get_game("pixoid")` imports and returns the Game class."""

from __future__ import annotations

import importlib
from types import ModuleType

from dialbox.engine.errors import UnknownGame
from dialbox.engine.game import Game

# name -> module that defines the Game subclass as `GAME`
GAMES: dict[str, str] = {
    "outspeed": "dialbox.games.outspeed",
    "pixoid": "dialbox.games.pixoid",
    "stadium": "dialbox.games.stadium",
}


def game_names() -> list[str]:
    return sorted(GAMES)


def game_module(name: str) -> ModuleType:
    """The module that registers `name` (GAME, and optionally BOTS and draw)."""
    module = GAMES.get(name)
    if module is None:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    return importlib.import_module(module)


def get_game(name: str) -> type[Game]:
    cls: type[Game] = game_module(name).GAME
    return cls
