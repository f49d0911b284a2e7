"""Wheels and faces: how a decision is shown on the controller's three wheels."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from dialbox_protocol import codec

LEFT = 0
CENTRE = 1
RIGHT = 2
INACTIVE = -1
LABEL_MAX = 8
"""Characters in a face label at most (the protocol's limit: docs/protocol.md, "prompt")."""

Selection = tuple[int, int, int]
"""The face index chosen on each wheel (left, centre, right); -1 for an inactive wheel."""


@dataclass(frozen=True, slots=True)
class Face:
    """One position of a wheel: what the OLED shows, the value it means, its colour."""

    label: str
    value: int
    colour: str = "ffffff"


def _defaults(w: int) -> tuple[Face, ...]:
    return tuple(Face(label, value, colour) for label, value, colour in codec.DEFAULT_FACES[w])


DIRECTION_FACES: tuple[Face, ...] = _defaults(LEFT)
"""Left wheel: N, NE, E, SE, S, SW, W, NW (index = value)."""
DIGIT_FACES: tuple[Face, ...] = _defaults(CENTRE)
"""Centre wheel: digits 0-9, each on its own colour (index = value)."""
LETTER_FACES: tuple[Face, ...] = _defaults(RIGHT)
"""Right wheel: A-D in red, yellow, green, blue (index = value)."""
DEFAULT_FACES = (DIRECTION_FACES, DIGIT_FACES, LETTER_FACES)

# Orthogonal directions on the left wheel (face indices).
UP, RIGHT_DIR, DOWN, LEFT_DIR = 0, 2, 4, 6


@dataclass(frozen=True, slots=True)
class Wheel:
    """An active wheel in a decision: its faces, which of them may be chosen, and why not.

    `reasons` maps a disallowed face index to the rule that forbids it; the engine quotes
    it when such a face is answered anyway.
    """

    faces: tuple[Face, ...]
    allowed: frozenset[int]
    start: int = -1
    reasons: Mapping[int, str] = field(default_factory=dict)
    choices: tuple[int, ...] = field(init=False, repr=False, compare=False)
    """The allowed face indices in wheel order (for bots and enumeration)."""

    def __post_init__(self) -> None:
        if not self.faces or len(self.faces) > codec.MAX_FACES:
            raise ValueError(f"a wheel has 1 to {codec.MAX_FACES} faces")
        if not self.allowed or not all(0 <= i < len(self.faces) for i in self.allowed):
            raise ValueError("a wheel must allow at least one of its own faces")
        for f in self.faces:
            if len(f.label) > LABEL_MAX:
                raise ValueError(f"face label {f.label!r} is longer than {LABEL_MAX} "
                                 "characters (the controller protocol's limit)")
        if self.start == -1:
            object.__setattr__(self, "start", min(self.allowed))
        object.__setattr__(self, "choices", tuple(sorted(self.allowed)))

    @classmethod
    def of(
        cls,
        faces: tuple[Face, ...],
        allowed: Iterable[int] | None = None,
        reasons: Mapping[int, str] | None = None,
    ) -> Wheel:
        allow = frozenset(range(len(faces)) if allowed is None else allowed)
        return cls(faces, allow, -1, dict(reasons or {}))

    @property
    def mask(self) -> int:
        m = 0
        for i in self.allowed:
            m |= 1 << i
        return m

    def is_default(self, position: int) -> bool:
        return self.faces == DEFAULT_FACES[position]

    def to_wire(self, position: int) -> list[object]:
        """[faces or null, allowed mask, start] as the protocol's prompt carries it."""
        faces: list[list[object]] | None = (
            None
            if self.is_default(position)
            else [[f.label, f.value, f.colour] for f in self.faces]
        )
        return [faces, self.mask, self.start]

    def why_not(self, index: int) -> str:
        if not 0 <= index < len(self.faces):
            return f"there is no face {index} on this wheel"
        return self.reasons.get(index, f"{self.faces[index].label} is not allowed here")


Wheels = tuple[Wheel | None, Wheel | None, Wheel | None]


def wheels(
    left: Wheel | None = None, centre: Wheel | None = None, right: Wheel | None = None
) -> Wheels:
    return (left, centre, right)


def digits(allowed: Iterable[int] | None = None, reasons: Mapping[int, str] | None = None) -> Wheel:
    """The centre wheel's digits 0-9 with the given digits allowed."""
    return Wheel.of(DIGIT_FACES, allowed, reasons)


def number_faces(top: int) -> tuple[Face, ...]:
    """Faces 0..top for a centre wheel that goes past 9 (house rules); colours repeat."""
    return tuple(Face(str(i), i, DIGIT_FACES[i % 10].colour) for i in range(top + 1))
