"""Bonus tokens: the six kinds, the face-down stack, and the take-two-keep-one draw."""

from __future__ import annotations

from dialbox.engine.chance import Chance

ION_CANNON = "ion_cannon"
ELECTROMAGNET = "electromagnet"
FLAMETHROWER = "flamethrower"
FORCEFIELD = "forcefield"
FUEL_TANK = "fuel_tank"
NITRO = "nitro"

KINDS: tuple[str, ...] = (ION_CANNON, ELECTROMAGNET, FLAMETHROWER, FORCEFIELD, FUEL_TANK, NITRO)
"""Token kinds in centre-wheel order (face 0 is 'pass' in the Bonus prompt)."""
COPIES: dict[str, int] = {
    ION_CANNON: 2, ELECTROMAGNET: 2, FLAMETHROWER: 7, FORCEFIELD: 7, FUEL_TANK: 7, NITRO: 7,
}
NAMES: dict[str, str] = {
    ION_CANNON: "Ion Cannon", ELECTROMAGNET: "Electromagnet", FLAMETHROWER: "Flamethrower",
    FORCEFIELD: "Forcefield", FUEL_TANK: "Fuel Tank", NITRO: "Nitro",
}
SHORT: dict[str, str] = {
    ION_CANNON: "Ion", ELECTROMAGNET: "Magnet", FLAMETHROWER: "Flame",
    FORCEFIELD: "Field", FUEL_TANK: "Tank", NITRO: "Nitro",
}
FORCEFIELD_TOKENS = 7
"""Forcefield markers for the Progression boards (a separate pile from the Bonus tokens)."""


def full_set() -> list[str]:
    """All 32 Bonus tokens, unshuffled."""
    return [k for k in KINDS for _ in range(COPIES[k])]


class BonusStack:
    """The face-down stack (index 0 = top) and the discard pile it is rebuilt from."""

    __slots__ = ("stack", "discard")

    def __init__(self, stack: list[str], discard: list[str] | None = None) -> None:
        self.stack = stack
        self.discard = discard if discard is not None else []

    def draw(self, n: int, chance: Chance) -> list[str]:
        """Take up to n from the top, reshuffling the discards when the stack runs out."""
        out: list[str] = []
        for _ in range(n):
            if not self.stack and self.discard:
                self.stack = self.discard
                self.discard = []
                chance.shuffle(self.stack)
            if not self.stack:
                break
            out.append(self.stack.pop(0))
        return out

    def to_bottom(self, token: str) -> None:
        self.stack.append(token)
