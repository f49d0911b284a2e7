"""The Progression boards: zones, Ships on them, Forcefields, and moving forward or back.

Zones are numbered absolutely from the rear zone of the first rear board (0). Two boards of
7 zones are in play; when a Ship would run off the front, the spare board is added ahead;
after Resolution movement the rearmost board is removed (its Ships are eliminated).
"""

from __future__ import annotations

from dataclasses import dataclass

ZONES_PER_BOARD = 7
START_ZONE = 2
"""Ships start on the third zone of the rear board."""
MAX_BOARDS = 3


@dataclass(slots=True)
class Move:
    """What happened to one Ship's movement."""

    start: int
    end: int | None
    """The zone it stopped on; None if it went off the back of the track (eliminated)."""
    forcefield: bool = False
    """It stopped early on a zone with a Forcefield."""
    added_board: bool = False
    capped: bool = False
    """It reached the front of the third board and could go no further."""


class Racetrack:
    """The boards in play and everything on them."""

    __slots__ = ("rear", "boards", "zones", "forcefields", "entered")

    def __init__(self, rear: int = 0, boards: int = 2) -> None:
        self.rear = rear
        self.boards = boards
        self.zones: dict[int, int] = {}
        """seat -> zone, for Ships still racing."""
        self.forcefields: dict[int, int] = {}
        """zone -> Forcefield tokens on it."""
        self.entered: set[int] = set()
        """Zones with Forcefields that a Ship entered this turn."""

    @property
    def front(self) -> int:
        return self.rear + ZONES_PER_BOARD * self.boards - 1

    def board_of(self, zone: int) -> int:
        """Which board (0 = rearmost in play) a zone is on."""
        return (zone - self.rear) // ZONES_PER_BOARD

    def label(self, zone: int) -> str:
        return f"zone {zone}"

    def occupied(self) -> list[int]:
        """Occupied zones, furthest forward first."""
        return sorted(set(self.zones.values()), reverse=True)

    def move(self, seat: int, steps: int) -> Move:
        """Move a Ship `steps` zones (negative: backward), stopping on Forcefields."""
        zone = self.zones[seat]
        result = Move(zone, zone)
        step = 1 if steps > 0 else -1
        for _ in range(abs(steps)):
            nxt = zone + step
            if nxt > self.front:
                if self.boards < MAX_BOARDS:
                    self.boards += 1
                    result.added_board = True
                else:
                    result.capped = True
                    break
            elif nxt < self.rear:
                del self.zones[seat]
                result.end = None
                return result
            zone = nxt
            if self.forcefields.get(zone):
                self.entered.add(zone)
                result.forcefield = True
                break
        self.zones[seat] = zone
        result.end = zone
        return result

    def remove_rear_board(self) -> list[int]:
        """Take away the rearmost board if three are in play; returns the Ships it carried."""
        if self.boards < MAX_BOARDS:
            return []
        cut = self.rear + ZONES_PER_BOARD
        lost = sorted(s for s, z in self.zones.items() if z < cut)
        for s in lost:
            del self.zones[s]
        for z in [z for z in self.forcefields if z < cut]:
            del self.forcefields[z]
        self.entered = {z for z in self.entered if z >= cut}
        self.rear = cut
        self.boards -= 1
        return lost

    def clear_entered_forcefields(self) -> list[int]:
        """End of Reveal: remove all Forcefields from zones a Ship entered this turn."""
        cleared = sorted(z for z in self.entered if self.forcefields.get(z))
        for z in cleared:
            del self.forcefields[z]
        self.entered.clear()
        return cleared
