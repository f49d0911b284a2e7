"""Bots: players that answer decisions from their own seat's view only."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, overload

from dialbox.engine.decisions import Ask
from dialbox.engine.game import Game
from dialbox.engine.wheels import INACTIVE, Selection


class Bot(Protocol):
    """A player: given its seat's view, the question and the legal answers, pick one."""

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        ...


BotFactory = Callable[[int], Bot]
"""Makes a bot from a seed."""


class SeatView(Mapping[str, Any]):
    """A player's view, built from `game.view(player)` only when a bot first reads it.

    Bots that never look (the random bot) cost nothing; bots that do see exactly the view.
    """

    __slots__ = ("_game", "_player", "_data")

    def __init__(self, game: Game, player: int) -> None:
        self._game = game
        self._player = player
        self._data: dict[str, Any] | None = None

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            self._data = self._game.view(self._player)
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._load()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._load())

    def __len__(self) -> int:
        return len(self._load())


class LegalAnswers(Sequence[Selection]):
    """The legal answers to an ask, enumerated only when a bot looks at them.

    `pick(rng)` draws one uniformly without enumerating when the game has no rule that
    spans wheels (it does not override Game.explain): then every combination of allowed
    faces is legal and each wheel can be drawn on its own.
    """

    __slots__ = ("_game", "_ask", "_items")

    def __init__(self, game: Game, ask: Ask) -> None:
        self._game = game
        self._ask = ask
        self._items: list[Selection] | None = None

    def _all(self) -> list[Selection]:
        if self._items is None:
            self._items = list(self._game.legal(self._ask))
        return self._items

    @overload
    def __getitem__(self, index: int) -> Selection: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Selection]: ...

    def __getitem__(self, index: int | slice) -> Selection | Sequence[Selection]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def pick(self, rng: random.Random) -> Selection:
        """One legal answer drawn uniformly."""
        if self._items is None and type(self._game).explain is Game.explain:
            w0, w1, w2 = self._ask.wheels
            r = rng.random
            a = INACTIVE if w0 is None else w0.choices[int(r() * len(w0.choices))]
            b = INACTIVE if w1 is None else w1.choices[int(r() * len(w1.choices))]
            c = INACTIVE if w2 is None else w2.choices[int(r() * len(w2.choices))]
            return (a, b, c)
        items = self._all()
        return items[rng.randrange(len(items))]


class RandomBot:
    """Picks uniformly among the legal answers."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        if isinstance(legal, LegalAnswers):
            return legal.pick(self.rng)
        return legal[self.rng.randrange(len(legal))]


def answer_with_bots(game: Game, bots: Mapping[int, Bot]) -> dict[int, Selection]:
    """The answers of the bots seated at the pending decision (seat views only).

    `bots` is keyed by player; an ask that another player answers for (Ask.player) goes to
    that player's bot, which sees that player's view.
    """
    d = game.pending
    if d is None:
        return {}
    out: dict[int, Selection] = {}
    for ask in d.asks:
        player = ask.answerer
        out[ask.seat] = bots[player].choose(
            SeatView(game, player), ask, LegalAnswers(game, ask)
        )
    return out


def play_out(game: Game, bots: Mapping[int, Bot], max_decisions: int = 1_000_000) -> int:
    """Let bots play the game to its end; returns the number of decisions resolved."""
    n = 0
    while game.pending is not None and n < max_decisions:
        game.apply(answer_with_bots(game, bots))
        n += 1
    return n
