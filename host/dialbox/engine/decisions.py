"""Decisions: what the game needs next from which seats, sealed or open."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from dialbox.engine.wheels import Selection, Wheels

Answers = Mapping[int, Selection]
"""Answers to a decision: seat -> selection."""


@dataclass(frozen=True, slots=True)
class Ask:
    """One seat's part of a decision: the question, the wheels that answer it."""

    seat: int
    topic: str
    """Machine name of the question, e.g. "pixoid.move" or "dice.yellow"."""
    text: str
    """Short text for the controller's OLED (at most 60 characters)."""
    wheels: Wheels
    default: Selection | None = None
    """The answer used when the prompt times out, if the game defines one."""


@dataclass(frozen=True, slots=True)
class Decision:
    """Zero-or-more seats answer together.

    sealed: a simultaneous secret choice (commit-reveal on the controllers); open: the
    answer is public as soon as it is made (one acting seat, e.g. "keep which token?").
    """

    id: int
    sealed: bool
    asks: tuple[Ask, ...]
    unlock: bool = True
    """Whether a locked seat may unlock again until the last seat has locked."""

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(a.seat for a in self.asks)

    def ask_for(self, seat: int) -> Ask:
        for a in self.asks:
            if a.seat == seat:
                return a
        raise KeyError(seat)
