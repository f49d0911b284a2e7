"""The table: seats, colours, teams and roles, pairing, and the public state feed."""

from dialbox.table.feed import Feed
from dialbox.table.table import PLAYER_COLOURS, Seat, Table, TableFull

__all__ = ["PLAYER_COLOURS", "Feed", "Seat", "Table", "TableFull"]
