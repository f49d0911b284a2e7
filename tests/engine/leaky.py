"""A deliberately leaky test-only game: the non-interference check must catch it."""

from __future__ import annotations

from typing import Any

from dialbox.engine import Ask, Flow, Game, Result, Wheel, wheels
from dialbox.engine.wheels import DIGIT_FACES


class Leaky(Game):
    """Seat 1 hides a digit (private, or sealed with variant "sealed"); the views show it."""

    name = "leaky"

    def setup(self) -> None:
        self.hidden: int | None = None

    def snapshot(self) -> dict[str, Any]:
        return {"hidden": self.hidden}

    def view(self, seat: int | None) -> dict[str, Any]:
        # The bug under test: the hidden digit (and any staged answer) is shown to everyone.
        return {"hidden": self.hidden, "pending": self.pending_view(0)}

    def flow(self) -> Flow:
        ask = Ask(0, "leaky.hide", "Hide a digit", wheels(None, Wheel.of(DIGIT_FACES), None))
        if self.options.variant == "sealed":
            other = Ask(1, "leaky.hide", "Hide a digit", wheels(None, Wheel.of(DIGIT_FACES), None))
            answers = yield self.sealed([ask, other])
        else:
            answers = yield self.private([ask])
        self.hidden = answers[0][1]
        yield self.open(Ask(1, "leaky.guess", "Guess", wheels(None, Wheel.of(DIGIT_FACES), None)))
        self.result = Result({0: 0, 1: 0}, [0, 1], "done")
