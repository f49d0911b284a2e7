"""Outspeed bots: a racer that weighs zones against Fuel, reading only its own seat's view."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from math import comb
from typing import Any

from dialbox.engine.decisions import Ask
from dialbox.engine.wheels import CENTRE, RIGHT, Selection
from dialbox.games.outspeed.dice import load_dice
from dialbox.games.outspeed.tiles import ROUTES
from dialbox.games.outspeed.tokens import (
    ELECTROMAGNET,
    FLAMETHROWER,
    FORCEFIELD,
    FUEL_TANK,
    ION_CANNON,
    KINDS,
    NITRO,
    SHORT,
)

KEEP_ORDER = (ELECTROMAGNET, ION_CANNON, NITRO, FLAMETHROWER, FUEL_TANK, FORCEFIELD)
"""The racer's preference when keeping one of two drawn tokens."""


def _p_at_most(n: int, p: float, k: int) -> float:
    """P(Binomial(n, p) <= k)."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(0, min(n, k) + 1))


def _mean_die(name: str) -> float:
    faces = load_dice()[name].faces
    return sum(abs(f.value) for f in faces) / len(faces)


class RacerBot:
    """Picks the route with the best expected zones for its Fuel; plays tokens greedily.

    It sees only `view` (its seat's view): the tile in view, everybody's zones and Fuel, its
    own tokens. A little noise (from its own RNG) keeps a table of racers from moving in step.
    """

    def __init__(self, seed: int = 0, caution: int = 3) -> None:
        self.rng = random.Random(seed)
        self.caution = caution
        """Fuel the racer tries to keep in hand before the Finish Line tile."""

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        if ask.topic == "outspeed.route":
            return self._route(view, ask.seat, legal)
        if ask.topic == "outspeed.x":
            return max(legal, key=lambda s: s[CENTRE]) if view["tile"]["finish"] else \
                self._x_only(view, ask.seat, legal)
        if ask.topic == "outspeed.bonus":
            return self._bonus(view, ask.seat, legal)
        if ask.topic == "outspeed.keep":
            return self._keep(view, ask, legal)
        return legal[self.rng.randrange(len(legal))]

    # -------------------------------------------------------------- programming

    def _amount(self, a: Mapping[str, Any], colour: str, others: float) -> float:
        """Expected value of an amount: dice at their mean, colours at the expected takers."""
        v = float(a["fixed"])
        for c in a["colours"]:
            v += others + (1 if c == colour else 0)
        for d in a["dice"]:
            v += _mean_die(d)
        return v

    def _route(self, view: Mapping[str, Any], seat: int, legal: Sequence[Selection]) -> Selection:
        tile = view["tile"]
        fuel = view["fuel"][seat]
        racing = sum(view["alive"])
        lit = len(tile["routes"])
        others = (racing - 1) / lit  # expected other takers of a route if they pick uniformly
        finish = tile["finish"]
        turns_left = max(1, view["tiles_left"])
        # Fuel is worth about a zone while it is scarce for the turns ahead, less when plentiful.
        fuel_worth = 0.0 if finish else (1.0 if fuel < 2 * turns_left else 0.5)
        zone = view["zones"][seat]
        rear_board = zone < view["rear"] + 7
        move_worth = 1.5 if rear_board else 1.0
        best: tuple[float, Selection] | None = None
        for sel in legal:
            colour = ROUTES[sel[RIGHT]]
            r = tile["routes"][colour]
            x = max(0, sel[CENTRE])
            cost = self._amount(r["cost"], colour, others) + (x if r["cost"]["x"] else 0)
            move = self._amount(r["move"], colour, others) + (x if r["move"]["x"] else 0)
            gain = self._amount(r["fuel"], colour, others)
            bonus = self._amount(r["bonus"], colour, others)
            value = move * move_worth + gain * fuel_worth + bonus * 1.2
            if r["alone"]:
                p_alone = _p_at_most(racing - 1, 1 / lit, 0)
                score = p_alone * value - (1 - p_alone) * cost * fuel_worth
                worst = cost
            else:
                p_fits = 1.0 if r["capacity"] is None else \
                    _p_at_most(racing - 1, 1 / lit, r["capacity"] - 1)
                score = p_fits * (value - cost * fuel_worth)
                worst = cost
            left = fuel - worst
            if left < 0 or (left == 0 and not finish):
                score -= 100
            elif not finish and left < self.caution:
                score -= (self.caution - left) * 1.5
            score += self.rng.random() * 0.3
            if best is None or score > best[0]:
                best = (score, sel)
        assert best is not None
        return best[1]

    def _x_only(self, view: Mapping[str, Any], seat: int, legal: Sequence[Selection]) -> Selection:
        keep = view["fuel"][seat] - self.caution
        ok = [s for s in legal if s[CENTRE] <= keep]
        return max(ok or legal[:1], key=lambda s: s[CENTRE])

    # -------------------------------------------------------------- tokens

    def _bonus(self, view: Mapping[str, Any], seat: int, legal: Sequence[Selection]) -> Selection:
        by_kind = {KINDS[s[CENTRE] - 1]: s for s in legal if s[CENTRE] > 0}
        zones = [z for z in view["zones"] if z is not None]
        mine = view["zones"][seat]
        ahead = any(z > mine for z in zones)
        behind = any(mine - 3 <= z < mine for z in zones)
        fuel = view["fuel"][seat]
        wishes = [
            (ELECTROMAGNET, ahead),
            (ION_CANNON, ahead),
            (FUEL_TANK, fuel <= 4),
            (NITRO, True),
            (FLAMETHROWER, ahead),
            (FORCEFIELD, behind and not ahead),
        ]
        for kind, good in wishes:
            if good and kind in by_kind and self.rng.random() < 0.8:
                return by_kind[kind]
        return next((s for s in legal if s[CENTRE] == 0), legal[0])

    def _keep(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        labels = [f.label for f in wheel.faces]
        kinds = [next(k for k in KINDS if SHORT[k] == lab) for lab in labels]
        low = view["fuel"][ask.seat] <= 4
        order = ((FUEL_TANK,) + KEEP_ORDER) if low else KEEP_ORDER
        return min(legal, key=lambda s: order.index(kinds[s[CENTRE]]))
