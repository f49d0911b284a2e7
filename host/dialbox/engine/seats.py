"""Seat colours: seat n plays in the n-th colour everywhere (LEDs, screens, terminal, texts)."""

from __future__ import annotations

PLAYER_COLOURS: tuple[tuple[str, str], ...] = (
    ("Red", "e53935"),
    ("Blue", "1e88e5"),
    ("Green", "43a047"),
    ("Yellow", "fdd835"),
    ("Purple", "8e24aa"),
    ("Orange", "fb8c00"),
)
"""The six player colours, seat by seat: (name, rrggbb)."""
