"""Trial of the Gods bots: a companion bot that lets a table run unattended.

The console never sees the physical game, so a bot cannot really play it; `CompanionBot`
dials what a plausible player would dial, from a hand of Action Cards it imagines on the spot:
it presses done (now and then after a small track change), takes a few Adventure turns and
passes (fighting now and then with the Attack of 1-3 imagined cards), dials small Competition
values (sometimes an Olympics Effect), a little Enemy Damage, few Olympics Skill dice, some
Restore, and end counts in the usual range. It reads only its own seat's view and the prompt,
and is deterministic from its seed.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from dialbox.engine.bots import LegalAnswers
from dialbox.engine.decisions import Ask
from dialbox.engine.wheels import CENTRE, INACTIVE, RIGHT, Selection, Wheel

CARD_VALUES = (0, 0, 1, 1, 1, 2, 2, 3)
"""An imagined Action Card's number for one symbol (most cards show 0-2)."""
ATTACK_BONUSES = (1, 2, 2, 3, 3, 3, 4)
"""An imagined Action Card's Attack Bonus (a player fights when the hand is good)."""
UPGRADES_TOTAL = 6
TEMPLES_MAX = 12
FIGHTS_PER_ROUND = 2
"""At most this many Fights a round for one bot (keeps games short)."""


def _index(wheel: Wheel | None, value: int) -> int:
    """The allowed face of `wheel` whose value is `value`, else the nearest allowed one."""
    if wheel is None:
        return INACTIVE
    best = wheel.choices[0]
    for i in wheel.choices:
        v = wheel.faces[i].value
        if v == value:
            return i
        if abs(v - value) < abs(wheel.faces[best].value - value):
            best = i
    return best


def _label(wheel: Wheel | None, label: str) -> int | None:
    if wheel is None:
        return None
    for i in wheel.choices:
        if wheel.faces[i].label == label:
            return i
    return None


def _centre(ask: Ask, value: int) -> Selection:
    return (INACTIVE, _index(ask.wheels[CENTRE], value), INACTIVE)


class CompanionBot:
    """Plausible dials for a Trial of the Gods companion table (see the module text).

    Its only state is its random generator, so a copy of the bot answers like the bot."""

    HANDLERS: ClassVar[Mapping[str, str]] = {
        "trial.done": "_done", "trial.turn": "_turn", "trial.track": "_track",
        "trial.olympics_card": "_olympics_card", "trial.enemy": "_enemy",
        "trial.enemy_numbers": "_enemy_numbers", "trial.attack": "_attack",
        "trial.enemy_damage": "_enemy_damage", "trial.fervor_bonus": "_fervor_bonus",
        "trial.competition": "_competition", "trial.effect": "_effect",
        "trial.skills": "_skills", "trial.tiebreak": "_tiebreak", "trial.restore": "_restore",
        "trial.count": "_count", "trial.laurels": "_laurels",
    }
    """Prompt topic -> the method that dials it (others: a random legal answer)."""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    # ------------------------------------------------------------------ the protocol

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        name = self.HANDLERS.get(ask.topic)
        handler: Callable[[Mapping[str, Any], Ask], Selection | None] | None = \
            None if name is None else getattr(self, name)
        sel = handler(view, ask) if handler is not None else None
        if ask.topic == "trial.track" and sel is None:
            sel = self._any_track(view, ask, legal)
        if sel is not None and sel in legal:
            return sel
        if ask.topic == "trial.temple" or sel is not None:
            # an Upgrade not active yet (the only rule the temple prompt checks), or a fallback
            options = list(legal)
            return options[self.rng.randrange(len(options))]
        if isinstance(legal, LegalAnswers):  # physical dice and anything unforeseen
            return legal.pick(self.rng)
        return legal[self.rng.randrange(len(legal))]

    # ------------------------------------------------------------------ helpers

    def _weighted(self, values: Sequence[int]) -> int:
        return values[self.rng.randrange(len(values))]

    def _card(self) -> int:
        return self._weighted(CARD_VALUES)

    @staticmethod
    def _mine(view: Mapping[str, Any]) -> dict[str, Any]:
        seat = view.get("seat")
        tracks = view.get("tracks") or []
        if isinstance(seat, int) and 0 <= seat < len(tracks):
            out: dict[str, Any] = tracks[seat]
            return out
        return {}

    def _small(self, ask: Ask) -> Selection:
        """0 most of the time, sometimes 1, rarely 2."""
        return _centre(ask, self._weighted((0, 0, 0, 1, 1, 2)))

    # ------------------------------------------------------------------ phases

    def _done(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        chance = 0.08 if view.get("phase") == "dawn" else 0.03
        wheel = ask.wheels[CENTRE]
        track = _label(wheel, "track")
        if track is not None and self.rng.random() < chance:
            return (INACTIVE, track, INACTIVE)
        return (INACTIVE, _index(wheel, 0), INACTIVE)

    def _turn(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        seat = view.get("seat")
        fights = sum(1 for f in view.get("fights") or []
                     if f.get("seat") == seat and f.get("round") == view.get("round"))
        hurt = int(self._mine(view).get("vigor", 1)) <= 1
        r = self.rng.random()
        if r < 0.35:
            what = "pass"
        elif r < 0.55 and fights < FIGHTS_PER_ROUND and not (hurt and r > 0.38):
            what = "fight"
        elif r < 0.62:
            what = "track"
        else:
            what = "end"
        i = _label(wheel, what)
        if i is None:
            i = _label(wheel, "pass")
        return (INACTIVE, _index(wheel, 1) if i is None else i, INACTIVE)

    def _track_candidates(self, view: Mapping[str, Any]) -> list[tuple[str, int, str]]:
        """(item label, amount, sign) changes a player plausibly makes now, in preference."""
        t = self._mine(view)
        available = int(t.get("available", 0))
        exhausted = int(t.get("exhausted", 0))
        vigor = int(t.get("vigor", 1))
        limit = t.get("vigor_limit")
        top = 10 if limit is None else int(limit)
        islands = int(t.get("islands", 0))
        fleece = int(t.get("fleece", 0))
        out: list[tuple[str, int, str]] = []
        if view.get("phase") == "dawn":
            if available:  # buying a Feat or an Action Card, training a Companion
                out.append(("Spend", self.rng.randint(1, min(3, available)), "+"))
            return out
        r = self.rng.random()
        if r < 0.35 and islands < TEMPLES_MAX:
            out.append(("Explore", 1, "+"))
            if islands > fleece and self.rng.random() < 0.3:
                out.insert(0, ("Fleece", 1, "+"))
        elif r < 0.6 and available:
            out.append(("Spend", 1, "+"))  # a Prayer
        elif r < 0.8 and vigor < top:
            out.append(("Vigor", 1, "+"))  # a Heal Action
        elif r < 0.95 and exhausted:
            out.append(("Spend", min(exhausted, self.rng.randint(1, 2)), "-"))  # Restore
        else:
            out.append(("Dishonr", 1, "+"))  # left a Zone with an Enemy in it
        if available:
            out.append(("Spend", 1, "+"))
        if islands < TEMPLES_MAX:
            out.append(("Explore", 1, "+"))
        return out

    def _track(self, view: Mapping[str, Any], ask: Ask) -> Selection | None:
        left, centre, right = ask.wheels
        for item, amount, sign in self._track_candidates(view):
            i = _label(left, item)
            s = _label(right, sign)
            if i is None or s is None:
                continue
            return (i, _index(centre, amount), s)
        return None

    def _any_track(self, view: Mapping[str, Any], ask: Ask,
                   legal: Sequence[Selection]) -> Selection | None:
        """A harmless change when no plausible one is legal: a Champion Token, an Island."""
        left, centre, right = ask.wheels
        plus = _label(right, "+")
        for item in ("Explore", "Champ"):
            i = _label(left, item)
            if i is not None and plus is not None:
                sel = (i, _index(centre, 1), plus)
                if sel in legal:
                    return sel
        return None

    def _olympics_card(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        return (INACTIVE, self.rng.choice(wheel.choices), INACTIVE)

    # ------------------------------------------------------------------ fights

    def _enemy(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        wheel = ask.wheels[CENTRE]
        assert wheel is not None
        other = _label(wheel, "other")
        cards = [i for i in wheel.choices if i != other]
        injured = [i for i in cards
                   if any(name.startswith(wheel.faces[i].label)
                          for name, state in (view.get("enemies") or {}).items()
                          if state == "injured")]
        if injured and self.rng.random() < 0.6:
            return (INACTIVE, self.rng.choice(injured), INACTIVE)
        if other is not None and (not cards or self.rng.random() < 0.05):
            return (INACTIVE, other, INACTIVE)
        # Enemies listed first are met more often (the sample pack lists level I first)
        k = min(self.rng.randrange(len(cards)) for _ in range(3))
        return (INACTIVE, cards[k], INACTIVE)

    def _enemy_numbers(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        left, centre, right = ask.wheels
        return (_index(left, self.rng.randint(2, 6)), _index(centre, self.rng.randint(1, 2)),
                _index(right, self.rng.randint(0, 1)))

    def _laurels(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return _centre(ask, self.rng.randint(1, 3))  # a tamed Monster the pack lacks

    def _attack(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        left, centre, right = ask.wheels
        cards = self._weighted((2, 2, 3, 3, 3))
        attack = max(2, min(9, sum(self._weighted(ATTACK_BONUSES) for _ in range(cards))))
        t = self._mine(view)
        room = len(t.get("upgrades") or ()) < UPGRADES_TOTAL and \
            int(t.get("temples", 0)) < TEMPLES_MAX
        free = 1 if room and self.rng.random() < 0.2 else 0
        extra = 1 if self.rng.random() < 0.1 else 0
        return (_index(left, free), _index(centre, attack), _index(right, extra))

    # ------------------------------------------------------------------ Olympics, the end

    def _competition(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        left, centre, right = ask.wheels
        effect = 1 if self.rng.random() < 0.1 else 0
        return (_index(left, self._card()),
                INACTIVE if centre is None else _index(centre, self._card()),
                _index(right, effect))

    def _effect(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        fervor = self.rng.randint(1, 3) if self.rng.random() < 0.8 else 0
        return _centre(ask, fervor)

    def _enemy_damage(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return self._small(ask)  # Enemies in the Zone of the Captain or a Temple

    def _fervor_bonus(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return _centre(ask, self._weighted((0, 0, 0, 0, 1, 1, 2)))

    def _skills(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return self._small(ask)  # Argonauts with a matching Olympics Skill

    def _tiebreak(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return _centre(ask, sum(self._card() for _ in range(3)))  # three cards played

    def _restore(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return _centre(ask, self.rng.randint(0, 3))

    def _count(self, view: Mapping[str, Any], ask: Ask) -> Selection:
        return (INACTIVE, _index(ask.wheels[CENTRE], self.rng.randint(0, 12)),
                _index(ask.wheels[RIGHT], self._weighted((0, 0, 1, 1, 2))))


__all__ = ["CompanionBot"]
