"""A game that exists only in the display tests: registered with `register()`, it brings its
own board.js (and a data file beside it), and the table screen must serve and draw it without
anything in dialbox/displays knowing its name."""

from pathlib import Path
from typing import Any

from dialbox.engine import Ask, Flow, Game, Result, Wheel, wheels
from dialbox.engine.registry import GameInfo
from dialbox.engine.wheels import DIGIT_FACES


class TinyBoard(Game):
    """Two rounds: every seat secretly dials 1-9; the higher dial scores it."""

    name = "tinyboard"

    def setup(self) -> None:
        self.scores = [0] * self.options.players
        self.round = 0

    def snapshot(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "round": self.round}

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"round": self.round, "scores": list(self.scores), "seat": seat}

    def flow(self) -> Flow:
        for self.round in range(1, 3):
            wheel = Wheel.of(DIGIT_FACES, range(1, 10), {0: "0 is not a card"})
            asks = [Ask(s, "dial", "Dial 1-9", wheels(None, wheel))
                    for s in range(self.options.players)]
            answers = yield self.sealed(asks)
            best = max(answers, key=lambda s: answers[s][1])
            self.scores[best] += answers[best][1]
        top = max(self.scores)
        self.result = Result(dict(enumerate(self.scores)),
                             [s for s, v in enumerate(self.scores) if v == top], "done")


INFO = GameInfo(
    game=TinyBoard,
    title="Tiny Board",
    players=(2, 3),
    board_js=Path(__file__).with_name("board.js"),
)
