"""The pure rules engine: games as flows of decisions, with no I/O, asyncio or clocks."""

from dialbox.engine.chance import Chance, Die, DieFace
from dialbox.engine.decisions import Answers, Ask, Decision
from dialbox.engine.errors import (
    CorruptSave,
    EngineError,
    IllegalChoice,
    InvalidOptions,
    InvalidPosition,
    NotPending,
    UnknownGame,
)
from dialbox.engine.events import Event
from dialbox.engine.game import Flow, Game, GameOptions, Result
from dialbox.engine.registry import GameInfo, game_info, game_names, get_game
from dialbox.engine.wheels import (
    CENTRE,
    DIGIT_FACES,
    DIRECTION_FACES,
    INACTIVE,
    LEFT,
    LETTER_FACES,
    RIGHT,
    Face,
    Selection,
    Wheel,
    wheels,
)

__all__ = [
    "CENTRE", "DIGIT_FACES", "DIRECTION_FACES", "INACTIVE", "LEFT", "LETTER_FACES", "RIGHT",
    "Answers", "Ask", "Chance", "CorruptSave", "Decision", "Die", "DieFace", "EngineError",
    "Event", "Face", "Flow", "Game", "GameInfo", "GameOptions", "IllegalChoice",
    "InvalidOptions", "InvalidPosition", "NotPending", "Result", "Selection", "UnknownGame",
    "Wheel", "game_info", "game_names", "get_game", "wheels",
]
