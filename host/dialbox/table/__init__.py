"""The table: seats, colours, teams and roles, its public state, link facts, and the feed."""

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
from dialbox.table.table import PLAYER_COLOURS, Seat, Table, TableFull

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
