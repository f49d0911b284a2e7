"""Blind Bid's rules: sealed bids, cards played face down from a hidden hand, an open pick."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

from dialbox.engine import (
    CENTRE,
    DIGIT_FACES,
    LETTER_FACES,
    RIGHT,
    Ask,
    Flow,
    Game,
    GameOptions,
    Result,
    Selection,
    Wheel,
    wheels,
)

HAND = 3


class BlindBidOptions(GameOptions):
    players: int = Field(2, ge=2, le=3)
    rounds: int = Field(3, ge=1, le=HAND)


class BlindBid(Game):
    """Each round: every seat bids 0-2 in secret (sealed), then plays a card from its hidden
    hand face down (private); the cards are turned over together, the highest card wins
    its value plus its bid, and the winner names a letter in the open."""

    name = "blindbid"
    Options = BlindBidOptions

    def setup(self) -> None:
        n = self.options.players
        deck = list(range(1, 10))
        self.chance.shuffle(deck)
        self.hands: list[list[int]] = [sorted(deck[i * HAND:(i + 1) * HAND]) for i in range(n)]
        self.undealt = sorted(deck[n * HAND:])
        """Cards nobody holds (face down in the box)."""
        self.scores = [0] * n
        self.round = 0
        self.table: dict[int, int] = {}
        """Cards turned over in the last round, by seat."""
        self.face_down: list[int] = []
        """Seats whose card lies face down, not yet turned over."""
        self.letters: list[str] = []

    def snapshot(self) -> dict[str, Any]:
        return {"hands": [list(h) for h in self.hands], "scores": list(self.scores),
                "round": self.round, "table": {str(s): c for s, c in self.table.items()},
                "face_down": list(self.face_down), "letters": list(self.letters),
                "undealt": list(self.undealt)}

    def swap_hidden(self, player: int, rng: random.Random) -> bool:
        """A card of `player`'s hand for one still in the box (with 2 players)."""
        if not self.undealt or not self.hands[player]:
            return False
        i, j = rng.randrange(len(self.hands[player])), rng.randrange(len(self.undealt))
        self.hands[player][i], self.undealt[j] = self.undealt[j], self.hands[player][i]
        self.hands[player].sort()
        return True

    def view(self, seat: int | None) -> dict[str, Any]:
        v = self.snapshot()
        v["hands"] = [h if s == seat else len(h) for s, h in enumerate(self.hands)]
        del v["undealt"]
        v["you"] = seat
        v["pending"] = self.pending_view(seat)
        return v

    def flow(self) -> Flow:
        rounds = self.options.rounds  # type: ignore[attr-defined]
        n = self.options.players
        for self.round in range(1, rounds + 1):
            bid_wheel = Wheel.of(DIGIT_FACES, range(3), {d: "bid 0, 1 or 2" for d in range(3, 10)})
            bids = yield self.sealed([Ask(s, "blindbid.bid", "Bid 0-2 in secret",
                                          wheels(None, bid_wheel, None)) for s in range(n)])
            play = self.private([
                Ask(s, "blindbid.card", "Play a card face down",
                    wheels(None, Wheel.of(DIGIT_FACES, self.hands[s],
                                          {d: f"you hold no {d}" for d in range(10)
                                           if d not in self.hands[s]}), None))
                for s in range(n)])
            cards = yield play
            for s in range(n):
                card = cards[s][CENTRE]
                self.hands[s].remove(card)
                self.face_down.append(s)
                self.emit("blindbid.facedown", f"Seat {s + 1} plays a card face down.", seat=s)
                self.emit("blindbid.mine", f"You play your {card}.", to=s, card=card)
            self.face_down = []
            self.table = {s: cards[s][CENTRE] for s in range(n)}
            self.disclose(play)
            best = max(range(n), key=lambda s: (self.table[s], -s))
            won = self.table[best] + bids[best][CENTRE]
            self.scores[best] += won
            self.emit("blindbid.reveal", "Cards: " + ", ".join(
                f"seat {s + 1} {c}" for s, c in self.table.items()) + f"; seat {best + 1} "
                f"scores {won}.", table={str(s): c for s, c in self.table.items()}, winner=best)
            letter = yield self.open(Ask(best, "blindbid.letter", "Name a letter",
                                         wheels(None, None, Wheel.of(LETTER_FACES))))
            self.letters.append(LETTER_FACES[letter[best][RIGHT]].label)
        top = max(self.scores)
        winners = [s for s, v in enumerate(self.scores) if v == top]
        self.result = Result(dict(enumerate(self.scores)), winners,
                             " and ".join(f"Seat {s + 1}" for s in winners) + f" win with {top}.")


class HighBot:
    """Bids 2 holding a 7 or better, plays its highest card, names A."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Mapping[str, Any], ask: Ask,
               legal: Sequence[Selection]) -> Selection:
        hand = view["hands"][view["you"]]
        if ask.topic == "blindbid.bid":
            return (-1, 2 if max(hand) >= 7 else 0, -1)
        if ask.topic == "blindbid.card":
            return (-1, max(hand), -1)
        return legal[0]


def draw(view: Mapping[str, Any]) -> str:
    """The terminal view: scores, the cards on the table and your hand."""
    you = view.get("you")
    hand = view["hands"][you] if you is not None else None
    table = " ".join(f"{int(s) + 1}:{c}" for s, c in view["table"].items()) or "-"
    return (f"Blind Bid round {view['round']}  scores {view['scores']}  table {table}"
            + (f"  your hand {hand}" if hand is not None else ""))
