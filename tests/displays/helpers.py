"""Helpers for the display tests: a rehearsal game recorded state by state, secrecy checks."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.rehearsal import Rehearsal
from dialbox.engine import Decision, Selection, game_names

GAMES = [g for g in ("pixoid", "outspeed", "stadium") if g in game_names()]
"""The 8Bit Box games this checkout has (each arrives from its own branch)."""


class Recorded:
    """A rehearsal at full speed with every published state and every bot answer kept."""

    def __init__(self, game: str, seed: int = 1, players: int = 4, **kw: Any) -> None:
        self.feed = PublicFeed()
        self.states: list[TableView] = []
        self.answers: dict[int, Mapping[int, Selection]] = {}
        self.decisions: dict[int, Decision] = {}
        self.feed.listen(self.states.append)
        self.rehearsal = Rehearsal(
            self.feed, game, players=players, seed=seed, pace=0, controllers=2,
            drop_seat=1, on_answers=self.keep, **kw,
        )

    def keep(self, pid: int, decision: Decision, answers: Mapping[int, Selection]) -> None:
        self.decisions[pid] = decision
        self.answers[pid] = answers

    def play(self) -> Recorded:
        asyncio.run(self.rehearsal.run())
        return self


def assert_sealed_until_revealed(states: list[dict[str, Any]]) -> None:
    """In each state (as JSON): no choice of the current prompt before it is revealed."""
    for st in states:
        p = st["prompt"]
        if p is not None and p["phase"] != "revealed":
            assert p["choices"] == [], f"state {st['seq']}: choices before the reveal"
            r = st["reveal"]
            assert r is None or r["pid"] < p["pid"], f"state {st['seq']}: reveal of open prompt"
        if st["reveal"] is not None:
            assert st["reveal"]["phase"] == "revealed"
