"""PIP Cycle bots (being written: a rider that avoids crashes and hunts)."""

from __future__ import annotations

from dialbox.engine.bots import RandomBot


class RiderBot(RandomBot):
    """Placeholder until the heuristic rider lands: random legal answers."""
