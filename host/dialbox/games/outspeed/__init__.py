"""Outspeed: the race of the 8Bit Box, with Track tiles as data, Bonus tokens and bots."""

from dialbox.games.outspeed.game import Outspeed, OutspeedOptions, Position

GAME = Outspeed

__all__ = ["GAME", "Outspeed", "OutspeedOptions", "Position"]
