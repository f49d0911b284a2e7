"""Games by name: `get_game("pixoid")` imports and returns the Game class."""

from __future__ import annotations

import importlib

from dialbox.engine.errors import UnknownGame
from dialbox.engine.game import Game

# name -> module that defines the Game subclass as `GAME`
GAMES: dict[str, str] = {
    "outspeed": "dialbox.games.outspeed",
    "stadium": "dialbox.games.stadium",
}


def game_names() -> list[str]:
    return sorted(GAMES)


def get_game(name: str) -> type[Game]:
    module = GAMES.get(name)
    if module is None:
        raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(game_names())}")
    cls: type[Game] = importlib.import_module(module).GAME
    return cls
