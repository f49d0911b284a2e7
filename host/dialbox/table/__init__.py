"""The table: seats, colours, teams and roles, its public state, link facts, and the feed."""

from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.table.feed import Feed
from dialbox.table.links import LinkInfo
from dialbox.table.state import (
    EventState,
    PromptState,
    ResultState,
    RevealState,
    SeatState,
    TableState,
)
from dialbox.table.table import Seat, Table, TableFull

__all__ = [
    "PLAYER_COLOURS",
    "EventState",
    "Feed",
    "LinkInfo",
    "PromptState",
    "ResultState",
    "RevealState",
    "Seat",
    "SeatState",
    "Table",
    "TableFull",
    "TableState",
]
