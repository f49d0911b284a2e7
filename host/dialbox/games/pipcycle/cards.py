"""PIP Cycle's cards: a rank and a suit, written as on the controllers, e.g. "5H" or "9C".

The rulebook does not print the deck (docs/rules-notes.md): the deck is every rank from 1 to
the `ranks` option in every suit of the `suits` option, one card each.
"""

from __future__ import annotations

from functools import cache

SUITS = "HDSC"
"""Hearts, Diamonds, Spades, Clubs: the order the rulebook lists the suit powers in, also the
order a player's equal-ranked cards are met in the card check."""
SUIT_NAMES = {"H": "Hearts", "D": "Diamonds", "S": "Spades", "C": "Clubs"}
SUIT_SIGNS = {"H": "\u2665", "D": "\u2666", "S": "\u2660", "C": "\u2663"}
SUIT_COLOURS = {"H": "ff3030", "D": "ff9020", "S": "a0a0ff", "C": "40d040"}
"""Face colours on the controller's wheel (the OLED shows the label; the LED the colour)."""
FLIP = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2, 6: 1}


@cache
def rank(card: str) -> int:
    return int(card[:-1])


def suit(card: str) -> str:
    return card[-1]


def deck(ranks: int, suits: str) -> list[str]:
    """The whole deck in a fixed order (rank, then suit)."""
    return [f"{r}{s}" for r in range(1, ranks + 1) for s in suits]


@cache
def check_key(card: str) -> tuple[int, int]:
    """The order in which one player's cards are met in the card check: lowest rank first,
    equal ranks in suit order (Hearts, Diamonds, Spades, Clubs)."""
    return rank(card), SUITS.index(suit(card))


def pretty(card: str) -> str:
    """The card with its suit sign, for screens that have the glyphs: "5\u2665"."""
    return f"{card[:-1]}{SUIT_SIGNS[suit(card)]}"


def apply_suit(card: str, pips: int) -> int:
    """A non-winning card's suit power on a rider's Pip Value (Clubs: unchanged, it moves)."""
    s = suit(card)
    if s == "H":
        return pips % 6 + 1
    if s == "D":
        return (pips - 2) % 6 + 1
    if s == "S":
        return FLIP[pips]
    return pips


def decay(pips: int) -> int:
    """Pip decay after a Movement: exactly one less, 1 wraps to 6."""
    return (pips - 2) % 6 + 1
