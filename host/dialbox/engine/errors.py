"""The rules engine's error types: each message says what was wrong and why."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every error the rules engine raises."""


class InvalidOptions(EngineError):
    """The options a game was created with break its rules (e.g. Stadium with 5 players)."""


class InvalidPosition(InvalidOptions):
    """A position (a mid-game state to start from) that is malformed or breaks the rules;
    the message names the offending field."""


class IllegalChoice(EngineError):
    """An answer the rules do not allow here; the message explains why in the rules' words."""

    def __init__(self, seat: int, message: str) -> None:
        super().__init__(f"seat {seat + 1}: {message}")
        self.seat = seat
        self.reason = message


class NotPending(EngineError):
    """Answers that do not fit the pending decision (wrong seats, game over, stale id)."""


class CorruptSave(EngineError):
    """A saved game that does not replay to the state it claims."""


class UnknownGame(EngineError):
    """A game name nobody registered."""
