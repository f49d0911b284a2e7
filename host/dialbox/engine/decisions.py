"""Decisions: what the game needs next from which seats: sealed, open or private."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from dialbox.engine.wheels import Selection, Wheels

Answers = Mapping[int, Selection]
"""Answers to a decision: seat -> selection."""

DecisionKind = Literal["sealed", "open", "private"]
"""sealed: simultaneous secret choices, commit-reveal on the controllers, all revealed together;
open: one acting seat, the answer is public at once;
private: one or more seats answer, each answer stays in its own seat's view until a rule
reveals it (a token played face down, a card kept from a draw)."""


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
    player: int | None = None
    """The player who dials this seat's controller when it is not the seat's own player
    (Pixoid's 3 Player Variant: one Bug player runs a second controller). None: the seat."""

    @property
    def answerer(self) -> int:
        """The player who answers this ask (its seat unless `player` says otherwise)."""
        return self.seat if self.player is None else self.player


@dataclass(frozen=True, slots=True)
class Decision:
    """Zero-or-more seats answer together; `kind` says who may see the answers when."""

    id: int
    kind: DecisionKind
    asks: tuple[Ask, ...]
    unlock: bool = True
    """Whether a locked seat may unlock again until the last seat has locked."""
    seat_set: frozenset[int] = field(init=False, repr=False, compare=False)
    """The seats that answer, as a set (checked against the answers' keys)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "seat_set", frozenset(a.seat for a in self.asks))

    @property
    def sealed(self) -> bool:
        """Commit-reveal on the controllers: nobody's answer exists outside until all lock."""
        return self.kind == "sealed"

    @property
    def private(self) -> bool:
        """Answers that only their own seats may see until a rule reveals them."""
        return self.kind == "private"

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(a.seat for a in self.asks)

    def ask_for(self, seat: int) -> Ask:
        for a in self.asks:
            if a.seat == seat:
                return a
        raise KeyError(seat)
