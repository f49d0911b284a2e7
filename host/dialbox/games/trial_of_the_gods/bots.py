"""Trial of the Gods bots (being written: plausible dials from a simulated hand)."""

from __future__ import annotations

from dialbox.engine.bots import RandomBot


class CompanionBot(RandomBot):
    """Placeholder until the companion bot lands: random legal answers."""
