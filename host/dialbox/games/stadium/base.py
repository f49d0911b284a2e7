"""What the Trials play on: Teams, Energy, wheels and asks, dice and Medals (Stadium's base).

The Trials (games/stadium/trials/) are written against `StadiumBase`, the part of the game
they use; `game.Stadium` adds setup, state, views and the flow that runs them. So the Trials
never import game.py, and game.py imports the Trials like any other module.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, TypeVar

from dialbox.engine import (
    CENTRE,
    DIGIT_FACES,
    INACTIVE,
    LETTER_FACES,
    RIGHT,
    Ask,
    Decision,
    Die,
    DieFace,
    Face,
    Game,
    Selection,
    Wheel,
)
from dialbox.engine.naming import colour_name, who
from dialbox.engine.wheels import Wheels, number_faces
from dialbox.games.stadium.components import TileSet, TrialTile
from dialbox.games.stadium.medals import GOLD, MEDALS, Podium
from dialbox.games.stadium.options import MAX_ENERGY, StadiumOptions

TEAMS = ("blue", "red")
"""Team 0 (the Blue Starz) sits on even seats, Team 1 (the Red Sunz) on odd seats: the
Teams' keys in views, event data and results (machine names, never shown as words)."""
TEAM_NAMES = ("Starz", "Sunz")
"""The Teams in texts ("the Starz win"): not by colour, which names the seats (seat 1 is Red
and plays for the Starz)."""

# Right-wheel symbols: the rulebook's triangle, circle and crescent are faces A, B and C.
TRIANGLE, CIRCLE, CRESCENT = 0, 1, 2
SYMBOL_NAMES = {TRIANGLE: "triangle", CIRCLE: "circle", CRESCENT: "crescent"}
_QUIET = {"stadium.anti_doping": CIRCLE, "stadium.basketball.ball": TRIANGLE}
"""Right-wheel timeout defaults that are not the crescent: Rest, and a Shot of 0."""

T = TypeVar("T")
Step = Generator[Decision, dict[int, Selection], T]
"""Part of a Trial written as a sub-generator that returns a value."""
Sub = Step[None]
"""A Trial (or part of one) written as a sub-generator of the game's flow."""


def teams_text(totals: tuple[int, int] | list[int]) -> str:
    """Both Teams' totals in words: "Starz 7, Sunz 5"."""
    return f"{TEAM_NAMES[0]} {totals[0]}, {TEAM_NAMES[1]} {totals[1]}"


def colour_digit(seat: int) -> int:
    """The centre-wheel digit whose colour stands for `seat` (seat 1 = digit 1, ...)."""
    return seat + 1


def digit_seat(digit: int) -> int:
    return digit - 1


_WHEELS: dict[tuple[Any, ...], Wheel] = {}


def _cached(key: tuple[Any, ...], build: Callable[[], Wheel]) -> Wheel:
    w = _WHEELS.get(key)
    if w is None:
        w = _WHEELS[key] = build()
    return w


def symbol_wheel(allowed: Iterable[int], meaning: str) -> Wheel:
    """The right wheel with some of A (triangle), B (circle), C (crescent) allowed."""
    allow = frozenset(allowed)
    return _cached(("sym", allow, meaning), lambda: Wheel.of(
        LETTER_FACES, allow,
        {i: f"{LETTER_FACES[i].label} is not a choice here ({meaning})"
         for i in range(len(LETTER_FACES)) if i not in allow},
    ))


def choice_faces(labels: Iterable[tuple[str, int, str]]) -> tuple[Face, ...]:
    return tuple(Face(label, value, colour) for label, value, colour in labels)


class StadiumBase(Game):
    """The table the Trials play on. Seats 0..n-1 sit clockwise; 'to the left' is the next
    seat. `game.Stadium` sets the state below up (`setup`) and runs the Trials (`flow`)."""

    opts: StadiumOptions
    tileset: TileSet
    dice: Mapping[str, Die]
    n: int
    energy: list[int]
    medals: list[list[int]]
    first: int
    track: list[str]
    revealed: int
    trial: dict[str, Any]
    """The current Trial's public state (seat views show it; Trials add their own keys)."""
    score: list[int | None]
    """Each Athlete's Score in the current Trial (None: not scored)."""
    _awards: list[dict[str, Any]]

    # ------------------------------------------------------------ seats and teams

    @staticmethod
    def team(seat: int) -> int:
        return seat % 2

    def members(self, team: int) -> list[int]:
        return [s for s in range(self.n) if s % 2 == team]

    def order(self, start: int | None = None) -> list[int]:
        """All seats clockwise, starting with `start` (default: the first player)."""
        first = self.first if start is None else start
        return [(first + i) % self.n for i in range(self.n)]

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.n

    def pass_token(self) -> None:
        """The first player token goes to the opposing player on the holder's left."""
        self.first = self.left_of(self.first)
        self.emit("stadium.first_player", f"{who(self.first)} is now the first player.",
                  seat=self.first)

    # ------------------------------------------------------------ Energy

    def spend(self, seat: int, amount: int) -> None:
        if amount:
            self.energy[seat] = max(0, self.energy[seat] - amount)

    def gain(self, seat: int, amount: int) -> int:
        """Add Energy up to the cap of 30; returns what was actually gained."""
        before = self.energy[seat]
        self.energy[seat] = min(MAX_ENERGY, before + amount)
        return self.energy[seat] - before

    # ------------------------------------------------------------ wheels and asks

    def wager_top(self, seat: int) -> int:
        return min(self.energy[seat], self.opts.wager_limit)

    def number_wheel_faces(self) -> tuple[Face, ...]:
        limit = self.opts.wager_limit
        return DIGIT_FACES if limit == 9 else number_faces(limit)

    def wager_wheel(self, seat: int, extra: frozenset[int] = frozenset()) -> Wheel:
        """Centre wheel: 0 up to the seat's Energy (and the wheel's 9); `extra` adds colours."""
        top = self.wager_top(seat)
        limit = self.opts.wager_limit

        def build() -> Wheel:
            allowed = set(range(top + 1)) | extra
            return Wheel.of(self.number_wheel_faces(), allowed, {
                i: f"you cannot wager {i}: only {top} Energy left"
                for i in range(limit + 1) if i not in allowed
            })
        return _cached(("wager", limit, top, extra), build)

    def colour_wheel(self, seats: Iterable[int], none_ok: bool = True) -> Wheel:
        """Centre wheel colours: the digits standing for `seats`, plus 0 ("nobody") if allowed."""
        digits = frozenset(colour_digit(s) for s in seats) | ({0} if none_ok else set())

        def build() -> Wheel:
            return Wheel.of(DIGIT_FACES, digits, {
                i: ("that colour is not an Athlete you can choose" if i else "choose a colour")
                for i in range(10) if i not in digits
            })
        return _cached(("colour", digits), build)

    def ask(self, seat: int, topic: str, text: str, wheels: Wheels) -> Ask:
        """An Ask whose timeout default is the quiet choice: lowest face (wager 0, '-', Keep,
        Shoot, Done) and Wait / Pass / Rest / Intercept on the right wheel."""
        centre, right = wheels[CENTRE], wheels[RIGHT]
        c = min(centre.allowed) if centre is not None else INACTIVE
        r = INACTIVE
        if right is not None:
            want = _QUIET.get(topic, CRESCENT)
            r = want if want in right.allowed else min(right.allowed)
        return Ask(seat, topic, text, wheels, (INACTIVE, c, r))

    def wager_ask(self, seat: int, topic: str = "stadium.wager",
                  text: str = "Wager Energy") -> Ask:
        return self.ask(seat, topic, text, (None, self.wager_wheel(seat), None))

    def ask_all_wagers(self, seats: Iterable[int], topic: str = "stadium.wager",
                       text: str = "Wager Energy") -> Step[dict[int, int]]:
        """One sealed wager from each of `seats`; reveals and returns seat -> wager."""
        asks = [self.wager_ask(s, topic, text) for s in seats]
        answers = yield self.sealed(asks)
        bets = {s: self.face_value(answers[s], CENTRE) for s in answers}
        self.emit("stadium.wagers", "Wagers: " + ", ".join(
            f"{who(s)} {v}" for s, v in sorted(bets.items())), wagers=bets)
        return bets

    def face_value(self, sel: Selection, wheel: int) -> int:
        """The number a centre-wheel face stands for (wager wheels: index = value)."""
        return sel[wheel]

    def roll_die(self, colour: str, seat: int) -> Step[DieFace]:
        """Roll one of the five dice (by name) of the dice set in play."""
        face = yield from self.roll(self.dice[colour], seat)
        return face

    # ------------------------------------------------------------ sharing Energy in a Team

    def share(self, chooser: int, team: int, amount: int, paying: bool) -> Sub:
        """Divide `amount` Energy among a Team's Athletes, asked of `chooser` one by one.

        Paying: each pays what they can and the Team pays exactly `amount` (it never exceeds
        the Team's Energy). Gaining: the last Athlete takes the rest; Energy above 30 is lost.
        """
        left = amount
        mates = self.members(team)
        verb = "pays" if paying else "gets"
        for i, mate in enumerate(mates):
            if left <= 0:
                break
            if i == len(mates) - 1:
                take = left
            else:
                later = mates[i + 1:]
                if paying:
                    low = max(0, left - sum(self.energy[m] for m in later))
                    high = min(left, self.energy[mate])
                else:
                    low, high = 0, left
                if low == high:
                    take = low
                else:
                    faces = number_faces(high)
                    wheel = Wheel.of(faces, range(low, high + 1), {
                        v: f"{colour_name(mate)} {verb} between {low} and {high} here"
                        for v in range(high + 1) if v < low
                    })
                    self.trial = {**self.trial, "share_to": mate, "share_left": left}
                    topic = "stadium.share.pay" if paying else "stadium.share.gain"
                    text = f"{colour_name(mate)} {verb}? ({left} to share)"
                    answers = yield self.open(self.ask(chooser, topic, text, (None, wheel, None)))
                    take = answers[chooser][CENTRE]
            if paying:
                self.spend(mate, take)
            else:
                self.gain(mate, take)
            left -= take
            if take:
                self.emit("stadium.energy", f"{who(mate)} {verb} {take} Energy.",
                          seat=mate, amount=-take if paying else take)

    # ------------------------------------------------------------ Medals

    def award(self, team: int, medal: str, seat: int | None = None) -> None:
        self.medals[team][MEDALS.index(medal)] += 1
        self._awards.append({"team": TEAMS[team], "seat": seat, "medal": medal})
        text = (f"The {TEAM_NAMES[team]} win a {medal} Medal." if seat is None
                else f"{who(seat)} wins a {medal} Medal for the {TEAM_NAMES[team]}.")
        self.emit("stadium.medal", text, team=TEAMS[team], seat=seat, medal=medal)

    def award_podium(self, podium: Podium, group: Iterable[int]) -> str | None:
        """Give one rank group the next Medal of the 3 Medals Rule."""
        seats = list(group)
        medal = podium.award(seats)
        if medal is not None:
            for s in seats:
                self.award(self.team(s), medal, s)
        return medal

    def award_ranking(self, scores: Mapping[int, int]) -> None:
        """Rank Athletes by score (higher is better) and apply the 3 Medals Rule."""
        podium = Podium()
        values = sorted(set(scores.values()), reverse=True)
        for v in values:
            if self.award_podium(podium, [s for s in self.order() if scores.get(s) == v]) is None:
                break

    def award_gold(self, totals: tuple[int, int] | list[int], what: str) -> None:
        """A single-Gold Trial: the higher Team total wins; equal totals give both Gold."""
        self.emit("stadium.totals", f"{what}: {teams_text(totals)}.",
                  totals=list(totals))
        best = max(totals)
        for t in (0, 1):
            if totals[t] == best:
                self.award(t, GOLD)

    def award_winner(self, team: int | None) -> None:
        """Gold to the winning Team; None is a tie and both Teams win Gold."""
        for t in (0, 1):
            if team is None or team == t:
                self.award(t, GOLD)

    def lose_highest_medal(self, team: int) -> None:
        for i, medal in enumerate(MEDALS):
            if self.medals[team][i] > 0:
                self.medals[team][i] -= 1
                self.emit("stadium.medal_lost", f"The {TEAM_NAMES[team]} lose a {medal} Medal.",
                          team=TEAMS[team], medal=medal)
                return
        self.emit("stadium.medal_lost", f"The {TEAM_NAMES[team]} have no Medal to lose.",
                  team=TEAMS[team], medal=None)

    # ------------------------------------------------------------ the current Trial

    @property
    def tile(self) -> TrialTile:
        return self.tileset.tiles[self.track[self.revealed - 1]]
