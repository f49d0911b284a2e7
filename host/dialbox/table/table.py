"""Seats at a table and who sits in them: controllers by unique id, or bots."""

from __future__ import annotations

from dataclasses import dataclass

from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.table.state import SeatState


class TableFull(Exception):
    """No free seat is left for a new controller."""


@dataclass(slots=True)
class Seat:
    """One seat: its colour, who sits there (a controller's uid, a bot, or nobody)."""

    index: int
    name: str
    colour: str
    uid: str | None = None
    bot: bool = False
    team: str | None = None
    role: str | None = None
    online: bool = False
    state: str = "idle"
    """The controller's last reported state (idle, editing, locked...): never its choice."""
    player: str | None = None
    """The name its player took on the controller (the console), if any."""

    @property
    def taken(self) -> bool:
        return self.bot or self.uid is not None

    def public(self) -> SeatState:
        """The seat as the table sees it."""
        return SeatState(
            seat=self.index, name=self.name, colour=self.colour,
            kind="bot" if self.bot else "controller" if self.uid else "empty",
            uid=self.uid, online=self.online or self.bot, team=self.team, role=self.role,
            state=self.state, player=self.player if self.uid else None,
        )


class Table:
    """The seats of one table. Controllers are known by uid; a returning uid keeps its seat."""

    def __init__(self, name: str, players: int) -> None:
        if not 1 <= players <= len(PLAYER_COLOURS):
            raise ValueError(f"a table seats 1 to {len(PLAYER_COLOURS)} players, not {players}")
        self.name = name
        self.seats = [Seat(i, *PLAYER_COLOURS[i]) for i in range(players)]

    def seat_of(self, uid: str) -> Seat | None:
        for s in self.seats:
            if s.uid == uid:
                return s
        return None

    def next_free(self) -> Seat | None:
        for s in self.seats:
            if not s.taken:
                return s
        return None

    def claim(self, index: int, uid: str) -> Seat:
        seat = self.seats[index]
        if seat.taken and seat.uid != uid:
            raise TableFull(f"seat {index + 1} is taken")
        if seat.uid != uid:
            seat.player = None
        seat.uid, seat.bot = uid, False
        return seat

    def seat_bot(self, index: int) -> Seat:
        seat = self.seats[index]
        seat.bot, seat.uid = True, None
        return seat

    @property
    def full(self) -> bool:
        return all(s.taken for s in self.seats)
