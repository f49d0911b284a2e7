"""Bots: players that answer decisions from their own seat's view only."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from dialbox.engine.decisions import Ask
from dialbox.engine.game import Game
from dialbox.engine.wheels import Selection


class Bot(Protocol):
    """A player: given its seat's view, the question and the legal answers, pick one."""

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        ...


class RandomBot:
    """Picks uniformly among the legal answers."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        return legal[self.rng.randrange(len(legal))]


def answer_with_bots(game: Game, bots: Mapping[int, Bot]) -> dict[int, Selection]:
    """The answers of the bots seated at the pending decision (seat views only)."""
    d = game.pending
    if d is None:
        return {}
    out: dict[int, Selection] = {}
    for ask in d.asks:
        bot = bots[ask.seat]
        out[ask.seat] = bot.choose(game.view(ask.seat), ask, list(game.legal(ask)))
    return out


def play_out(game: Game, bots: Mapping[int, Bot], max_decisions: int = 1_000_000) -> int:
    """Let bots play the game to its end; returns the number of decisions resolved."""
    n = 0
    while game.pending is not None and n < max_decisions:
        game.apply(answer_with_bots(game, bots))
        n += 1
    return n
