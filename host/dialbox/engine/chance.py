"""The one chance source of a game: a seeded RNG, or physical dice read from the controller."""

from __future__ import annotations

import random
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class DieFace:
    """One face of a custom die: what it shows and the number it stands for."""

    label: str
    value: int
    mark: str = ""
    """A symbol on the face besides its number (e.g. "intercept"); empty if none."""


@dataclass(frozen=True, slots=True)
class Die:
    """A die described as data: its name, colour and faces (see docs/engine.md)."""

    name: str
    colour: str
    faces: tuple[DieFace, ...]

    @classmethod
    def numbered(cls, name: str, colour: str, values: Sequence[int]) -> Die:
        return cls(name, colour, tuple(DieFace(f"{v:+d}" if v < 0 else str(v), v) for v in values))


class Chance:
    """Every random outcome in a game comes from here.

    With physical=False the outcomes come from a seeded RNG (reproducible from the seed).
    With physical=True a game asks the acting seat to dial the rolled face instead of
    calling roll() (see Game.roll); shuffles and draws from stacks still use the RNG, since
    those components live in the app, not on the table.
    """

    __slots__ = ("seed", "physical", "rng")

    def __init__(self, seed: int, physical: bool = False) -> None:
        self.seed = seed
        self.physical = physical
        self.rng = random.Random(seed)

    def roll(self, die: Die) -> DieFace:
        return die.faces[self.rng.randrange(len(die.faces))]

    def coin(self) -> bool:
        return self.rng.random() < 0.5

    def randrange(self, n: int) -> int:
        return self.rng.randrange(n)

    def shuffle(self, items: MutableSequence[T]) -> None:
        self.rng.shuffle(items)

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self.rng.sample(list(items), k)
