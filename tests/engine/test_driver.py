"""The engine driver: flows, legality checks, saving and replay, with a tiny test-only game."""

from typing import Any

import pytest

from dialbox.engine import (
    Ask,
    CorruptSave,
    Die,
    Flow,
    Game,
    GameOptions,
    IllegalChoice,
    NotPending,
    Result,
    Wheel,
    wheels,
)
from dialbox.engine.bots import RandomBot, play_out
from dialbox.engine.wheels import DIGIT_FACES

D6 = Die.numbered("white", "ffffff", [1, 2, 3, 4, 5, 6])


class HighCard(Game):
    """Each round every seat secretly dials 1-9; a d6 bonus goes to the round's high dial."""

    name = "highcard"

    def setup(self) -> None:
        self.scores = [0] * self.options.players
        self.round = 0

    def snapshot(self) -> dict[str, Any]:
        return {"scores": list(self.scores), "round": self.round}

    def view(self, seat: int | None) -> dict[str, Any]:
        return self.snapshot()  # nothing hidden: dials are sealed until applied

    def flow(self) -> Flow:
        for self.round in range(1, 4):
            wheel = Wheel.of(DIGIT_FACES, range(1, 10), {0: "0 is not a card"})
            asks = [Ask(s, "dial", "Dial 1-9", wheels(None, wheel)) for s in range(2)]
            answers = yield self.sealed(asks)
            bonus = yield from self.roll(D6, 0)
            best = max(answers, key=lambda s: answers[s][1])
            self.scores[best] += answers[best][1] + bonus.value
            self.emit("round", f"seat {best + 1} takes the round", seat=best)
        top = max(self.scores)
        self.result = Result(
            dict(enumerate(self.scores)),
            [s for s, v in enumerate(self.scores) if v == top],
            "done",
        )


def test_flow_runs_and_rejects_illegal_answers() -> None:
    g = HighCard(GameOptions(players=2, seed=3))
    d = g.pending
    assert d is not None and d.sealed and d.seats == (0, 1)
    with pytest.raises(IllegalChoice, match="0 is not a card"):
        g.apply({0: (-1, 0, -1), 1: (-1, 5, -1)})
    with pytest.raises(IllegalChoice, match="wheel 1 is not used"):
        g.apply({0: (2, 4, -1), 1: (-1, 5, -1)})
    with pytest.raises(NotPending):
        g.apply({0: (-1, 4, -1)})
    events = g.apply({0: (-1, 4, -1), 1: (-1, 5, -1)})
    assert [e.kind for e in events] == ["dice.rolled", "round"]
    assert g.scores[1] >= 6 and g.scores[0] == 0


def test_physical_dice_are_asked_as_an_open_prompt() -> None:
    g = HighCard(GameOptions(players=2, physical_dice=True))
    g.apply({0: (-1, 9, -1), 1: (-1, 1, -1)})
    d = g.pending
    assert d is not None and not d.sealed and d.asks[0].topic == "dice.white"
    g.apply({0: (-1, 5, -1)})  # face index 5 = a rolled 6
    assert g.scores[0] == 9 + 6


def test_save_load_replays_to_the_same_hash_and_detects_tampering() -> None:
    g = HighCard(GameOptions(players=2, seed=11))
    play_out(g, {0: RandomBot(1), 1: RandomBot(2)})
    assert g.over and g.result is not None
    saved = g.to_json()
    again = HighCard.from_json(saved)
    assert again.state_hash() == g.state_hash()
    saved["log"][0][0][1][1] = 0
    with pytest.raises(CorruptSave):
        HighCard.from_json(saved)
