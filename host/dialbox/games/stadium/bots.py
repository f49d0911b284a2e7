"""Stadium bots: a heuristic Athlete for every Trial that reads only its own seat's view."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from dialbox.engine import CENTRE, INACTIVE, RIGHT, Ask, Selection, Wheel
from dialbox.games.stadium.base import CIRCLE, CRESCENT, TRIANGLE, colour_digit
from dialbox.games.stadium.components import DIE_ABBREVIATIONS, load_dice, load_tiles


@dataclass(frozen=True, slots=True)
class DiceOdds:
    """What a bot knows of the dice in play (the view names them: `components`)."""

    green: tuple[int, ...]
    """The green die's values, face by face."""
    reroll: dict[str, tuple[float, int]]
    """Re-roll face label ("Yel-3") -> that die's mean value and the value the face shows."""


@cache
def dice_odds(name: str) -> DiceOdds:
    """The odds of dice set `name` (option `dice`), worked out once per set."""
    dice = load_dice(name)
    reroll: dict[str, tuple[float, int]] = {}
    for colour, die in dice.items():
        mean = sum(f.value for f in die.faces) / len(die.faces)
        for f in die.faces:
            reroll.setdefault(DIE_ABBREVIATIONS[colour] + f.label, (mean, f.value))
    return DiceOdds(tuple(f.value for f in dice["green"].faces), reroll)


# How much of its remaining budget an Athlete puts into one round of each Trial.
_EAGERNESS = {
    "track_cycling": 1.0, "relay": 1.1, "medley_relay": 1.0, "hundred_meters": 1.2,
    "beach_volleyball": 1.0, "equestrian": 0.6, "golf": 0.8, "rugby": 0.5, "fencing": 0.4,
    "taekwondo": 1.0, "basketball": 0.5,
}


def _top(wheel: Wheel | None) -> int:
    """The highest wager a wager wheel allows (face index = wager)."""
    assert wheel is not None
    return max(wheel.allowed)


class StadiumBot:
    """A sensible Athlete: budgets Energy over the Trials left, plays each Trial's odds.

    It reads the seat view (Energy, Medals, the revealed track, the current Trial's public
    Trial state) and the question's wheels; it never sees another seat's unrevealed choice.
    """

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # ------------------------------------------------------------ the Bot protocol

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        """Its answer is built from the ask's allowed faces and the rules (tests check that
        it is always among `legal`), so the legal answers are never enumerated."""
        return self.decide(view, ask)

    def decide(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        topic = ask.topic
        if topic.startswith("dice."):
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            return (INACTIVE, self.rng.choice(sorted(wheel.allowed)), INACTIVE)
        handler = getattr(self, "_" + topic.removeprefix("stadium.").replace(".", "_"))
        sel: Selection = handler(view, ask)
        return sel

    # ------------------------------------------------------------ helpers

    def budget(self, view: Mapping[str, Any], seat: int) -> float:
        """Energy this Athlete is happy to spend on the current Trial."""
        left = max(1, int(view["trials_left"]) + 1)
        return float(view["energy"][seat]) / left

    def wager(self, view: Mapping[str, Any], ask: Ask, scale: float = 1.0) -> int:
        seat = ask.seat
        top = _top(ask.wheels[CENTRE])
        trial = view["trial"].get("key", "")
        want = self.budget(view, seat) * _EAGERNESS.get(trial, 1.0) * scale
        if trial == "equestrian":
            want = max(0.0, float(view["trial"]["height"]) - 3.5)
        guess = int(round(want + self.rng.uniform(-1.5, 1.5)))
        return max(0, min(top, guess))

    @staticmethod
    def pick(wheel: Wheel | None, value: int) -> int:
        assert wheel is not None
        if value in wheel.allowed:
            return value
        return min(wheel.allowed, key=lambda i: abs(i - value))

    # ------------------------------------------------------------ sealed choices

    def _wager(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return (INACTIVE, self.pick(ask.wheels[CENTRE], self.wager(view, ask)), INACTIVE)

    def _sprint(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        energy = view["energy"][ask.seat]
        if energy <= 6 or self.rng.random() < 0.3:
            return (INACTIVE, 0, CRESCENT)
        return (INACTIVE, self.pick(ask.wheels[CENTRE], self.wager(view, ask, 1.3)), TRIANGLE)

    def _pole_vault(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[RIGHT]
        assert wheel is not None
        trial = view["trial"]
        rung, energy = int(trial["rung"]), view["energy"][ask.seat]
        nerve = self.rng.uniform(1.0, 3.0)  # how far above its budget it dares to jump
        if TRIANGLE in wheel.allowed and (
            trial["lowest"] or rung <= self.budget(view, ask.seat) * nerve
        ) and rung <= energy:
            return (INACTIVE, INACTIVE, TRIANGLE)
        return (INACTIVE, INACTIVE, CRESCENT)

    def _anti_doping(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        r = self.rng.random()
        return (INACTIVE, INACTIVE, CRESCENT if r < 0.4 else CIRCLE if r < 0.7 else TRIANGLE)

    def _taekwondo_action(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        seat = ask.seat
        score = view["score"]
        foes = [s for s in view["trial"]["standing"] if s % 2 != seat % 2]
        r = self.rng.random()
        if foes and r < 0.6:
            weakest = min(foes, key=lambda s: (score[s] or 0, self.rng.random()))
            return (INACTIVE, colour_digit(weakest), TRIANGLE)
        if r < 0.8 and (score[seat] or 0) > 2:
            return (INACTIVE, 0, CIRCLE)
        return (INACTIVE, 0, CRESCENT)

    def _basketball_ball(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        seat = ask.seat
        energy = view["energy"]
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        mates = [s for s in range(view["players"]) if s % 2 == seat % 2 and s != seat]
        if mates and energy[seat] < 3 and self.rng.random() < 0.5:
            best = max(mates, key=lambda m: energy[m])
            return (INACTIVE, colour_digit(best), CRESCENT)
        top = min(energy[seat], len(wheel.faces) - 1)
        shot = min(top, max(2, int(self.budget(view, seat) * 0.8)))
        return (INACTIVE, shot, TRIANGLE)

    def _basketball_defence(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        if self.rng.random() < 0.5:
            return (INACTIVE, 0, CRESCENT)
        return (INACTIVE, self.pick(ask.wheels[CENTRE], self.wager(view, ask, 0.6)), TRIANGLE)

    # ------------------------------------------------------------ open prompts

    def _gymnastics_bid(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        centre = ask.wheels[CENTRE]
        if centre is None:
            return (INACTIVE, INACTIVE, CRESCENT)
        seat = ask.seat
        team_energy = sum(e for s, e in enumerate(view["energy"]) if s % 2 == seat % 2)
        worth = {"gold": 0.35, "silver": 0.22, "bronze": 0.12}[view["trial"]["medal"]]
        limit = team_energy * worth + self.rng.uniform(-2, 2)
        low = centre.faces[1].value
        if low > limit:
            return (INACTIVE, 0, CRESCENT)
        step = 1 + self.rng.randrange(3)
        index = min(len(centre.faces) - 1, step)
        return (INACTIVE, index, TRIANGLE)

    def _share_pay(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        return (INACTIVE, max(wheel.allowed), INACTIVE)

    def _share_gain(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        mate = int(view["trial"]["share_to"])
        energy = view["energy"]
        mates = [s for s in range(view["players"]) if s % 2 == mate % 2]
        room = 30 - energy[mate]
        if energy[mate] == min(energy[s] for s in mates):
            return (INACTIVE, self.pick(wheel, min(max(wheel.allowed), room)), INACTIVE)
        return (INACTIVE, self.pick(wheel, 0), INACTIVE)

    def _golf_adjust(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        rolled = int(view["trial"]["rolled"])
        options = [i for i in wheel.allowed if i > 0]
        if not options:
            return (INACTIVE, 0, INACTIVE)
        best = min(options, key=lambda i: abs(wheel.faces[i].value - rolled))
        return (INACTIVE, best, INACTIVE)

    def _weightlifting_lift(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        seat = ask.seat
        best = view["score"][seat]
        tiles = load_tiles(view["components"]["tiles"])
        table = {w: (lo, hi) for w, lo, hi in tiles.tiles["weightlifting"].number("weights")}
        green = dice_odds(view["components"]["dice"]).green
        chances = {
            i: sum(1 for v in green if table[wheel.faces[i].value][0] <= v
                   <= table[wheel.faces[i].value][1]) / len(green)
            for i in wheel.allowed if i > 0
        }
        if view["energy"][seat] < 3 or not chances:
            return (INACTIVE, 0, CRESCENT)
        good = [i for i, p in chances.items() if p >= 0.5]
        if best is not None and (not good or self.rng.random() < 0.4):
            return (INACTIVE, 0, CRESCENT)
        pick = max(good) if good else min(chances)
        return (INACTIVE, pick, TRIANGLE)

    def _weightlifting_retry(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        go = view["energy"][ask.seat] > 6 and self.rng.random() < 0.7
        return (INACTIVE, INACTIVE, TRIANGLE if go else CRESCENT)

    def _reroll(self, view: Mapping[str, Any], ask: Ask, cost: bool) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        if cost and view["energy"][ask.seat] <= 8:
            return (INACTIVE, 0, INACTIVE)
        odds = dice_odds(view["components"]["dice"]).reroll
        worst, gap = 0, 0.5
        for i in range(1, len(wheel.faces)):
            mean, shown = odds[wheel.faces[i].label]
            lost = mean - shown
            if lost > gap:
                worst, gap = i, lost
        return (INACTIVE, worst, INACTIVE)

    def _archery_reroll(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return self._reroll(view, ask, cost=True)

    def _fencing_reroll(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return self._reroll(view, ask, cost=False)


def play_bots(players: int, seed: int = 0) -> dict[int, StadiumBot]:
    return {s: StadiumBot(seed * 101 + s) for s in range(players)}
