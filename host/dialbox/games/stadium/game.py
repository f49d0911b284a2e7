"""The Stadium game: two Teams of Athletes spend Energy over 10 Trials to win the most Medals."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping
from itertools import product
from typing import Any, Literal, TypeVar

from pydantic import Field, model_validator

from dialbox.engine import (
    CENTRE,
    DIGIT_FACES,
    INACTIVE,
    LETTER_FACES,
    RIGHT,
    Ask,
    Decision,
    DieFace,
    Face,
    Flow,
    Game,
    GameOptions,
    Result,
    Selection,
    Wheel,
)
from dialbox.engine.wheels import Wheels, number_faces
from dialbox.games.stadium.components import DICE, LAYOUT, TILES, TrialTile
from dialbox.games.stadium.medals import BRONZE, GOLD, MEDALS, SILVER, Podium, points

START_ENERGY = 25
MAX_ENERGY = 30
TEAMS = ("blue", "red")
"""Team 0 (the Blue Starz) sits on even seats, Team 1 (the Red Sunz) on odd seats."""

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


def colour_digit(seat: int) -> int:
    """The centre-wheel digit whose colour stands for `seat` (seat 1 = digit 1, ...)."""
    return seat + 1


def digit_seat(digit: int) -> int:
    return digit - 1


class StadiumOptions(GameOptions):
    """Stadium's options; everything past `players` is a named house rule or a setup aid."""

    wager_limit: int = Field(9, ge=9, le=MAX_ENERGY)
    """Highest wager on the centre wheel: the physical wheel stops at 9 (house rule: to 30)."""
    fencing_zero_dice: Literal["green-red-yellow", "red-yellow"] = "green-red-yellow"
    """Fencing dice for a wager of 0: the Trial booklet's table or the base rulebook's text."""
    equestrian_zero_ranked: bool = True
    """Equestrian: riders who cleared no obstacle are ranked too (on 0); False leaves them out."""
    round_limit: int = Field(40, ge=1, le=10_000)
    """Safeguard for open-ended Trials (Rugby, Fencing, Taekwondo, Basketball): after this many
    rounds the Trial is decided as documented in docs/rules-notes.md."""
    track: tuple[str, ...] | None = None
    """Play these Trials in this order instead of dealing the track (1 to 10 distinct tiles)."""
    first_player: int | None = None
    """Seat (0-based) holding the first player token; None: the coin flip decides."""
    energy: tuple[int, ...] | None = None
    """Starting Energy per seat (handicaps, lessons); None: 25 each."""

    @model_validator(mode="after")
    def _stadium_rules(self) -> StadiumOptions:
        if self.players not in (4, 6):
            raise ValueError(
                f"Stadium can only be played with 4 or 6 players (two Teams of 2 or 3), "
                f"not {self.players}"
            )
        if self.track is not None:
            unknown = [t for t in self.track if t not in TILES]
            if unknown:
                raise ValueError(f"unknown Trial tiles {unknown}; known: {sorted(TILES)}")
            if not 1 <= len(self.track) <= 10 or len(set(self.track)) != len(self.track):
                raise ValueError("a track holds 1 to 10 different Trial tiles")
        if self.first_player is not None and not 0 <= self.first_player < self.players:
            raise ValueError(f"first_player must be a seat 0..{self.players - 1}")
        if self.energy is not None and (
            len(self.energy) != self.players
            or not all(0 <= e <= MAX_ENERGY for e in self.energy)
        ):
            raise ValueError(f"energy needs one value 0..{MAX_ENERGY} per seat")
        return self


_WHEELS: dict[tuple[Any, ...], Wheel] = {}


def _cached(key: tuple[Any, ...], build: Any) -> Wheel:
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


class Stadium(Game):
    """Stadium, all 16 Trials. Seats 0..n-1 sit clockwise; 'to the left' is the next seat."""

    name = "stadium"
    Options = StadiumOptions
    opts: StadiumOptions

    # ------------------------------------------------------------ setup and state

    def setup(self) -> None:
        assert isinstance(self.options, StadiumOptions)
        self.opts = self.options
        o = self.opts
        self.n = o.players
        self.energy: list[int] = list(o.energy) if o.energy else [START_ENERGY] * self.n
        self.medals: list[list[int]] = [[0, 0, 0], [0, 0, 0]]
        self.track: list[str] = list(o.track) if o.track else self._deal_track()
        self.revealed = 0
        if o.first_player is not None:
            self.first = o.first_player
        else:
            # Seat 1 flips the token; if it shows the other Team, it goes to the player on
            # their left.
            self.first = 0 if self.chance.coin() else 1
        self.trial: dict[str, Any] = {}
        self.score: list[int | None] = [None] * self.n
        self.history: list[dict[str, Any]] = []
        self._backs: list[str] = [TILES[key].kind for key in self.track]
        self._view: tuple[int, dict[str, Any]] | None = None
        self._awards: list[dict[str, Any]] = []

    def _deal_track(self) -> list[str]:
        by_kind: dict[str, list[str]] = {}
        for key, tile in TILES.items():
            by_kind.setdefault(tile.kind, []).append(key)
        need = {kind: LAYOUT.count(kind) for kind in set(LAYOUT)}
        drawn = {kind: self.chance.sample(by_kind[kind], need[kind]) for kind in need}
        return [drawn[kind].pop(0) for kind in LAYOUT]

    def snapshot(self) -> dict[str, Any]:
        return {
            "players": self.n,
            "energy": list(self.energy),
            "medals": {"blue": list(self.medals[0]), "red": list(self.medals[1])},
            "points": [points(self.medals[0]), points(self.medals[1])],
            "first": self.first,
            "track": list(self.track),
            "revealed": self.revealed,
            "trial": dict(self.trial),
            "score": list(self.score),
            "history": list(self.history),
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """Everything on the table; unrevealed Trial tiles show only their backs.

        Stadium has no private information besides the face-down tiles and answers locked in
        but not yet revealed, so the table part is built once per answered decision and
        shared (read-only); `pending` shows only this seat's own locked-in answers.
        """
        cached = self._view
        if cached is None or cached[0] != len(self.log):
            snap = self.snapshot()
            snap["track"] = self.track[:self.revealed] + self._backs[self.revealed:]
            snap["trials_left"] = len(self.track) - self.revealed
            # With nobody locked in, the pending part is the same for every seat.
            snap["pending"] = self.pending_view(None)
            cached = self._view = (len(self.log), snap)
        if self.locked:
            return {**cached[1], "seat": seat, "pending": self.pending_view(seat)}
        return {**cached[1], "seat": seat}

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
        self.emit("stadium.first_player", f"Seat {self.first + 1} is now the first player.",
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
            f"seat {s + 1} {v}" for s, v in sorted(bets.items())), wagers=bets)
        return bets

    def face_value(self, sel: Selection, wheel: int) -> int:
        """The number a centre-wheel face stands for (wager wheels: index = value)."""
        return sel[wheel]

    def roll_die(self, colour: str, seat: int) -> Step[DieFace]:
        face = yield from self.roll(DICE[colour], seat)
        return face

    def legal(self, ask: Ask) -> Iterator[Selection]:
        """Game.legal, skipping `explain` for questions that have no cross-wheel rule."""
        if ask.topic in _CROSS_WHEEL:
            yield from super().legal(ask)
            return
        ranges = [sorted(w.allowed) if w is not None else [INACTIVE] for w in ask.wheels]
        for combo in product(*ranges):
            yield (combo[0], combo[1], combo[2])

    def explain(self, ask: Ask, selection: Selection) -> str | None:
        rule = _CROSS_WHEEL.get(ask.topic)
        return None if rule is None else rule(self, ask, selection)

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
                        v: f"seat {mate + 1} {verb} between {low} and {high} here"
                        for v in range(high + 1) if v < low
                    })
                    self.trial = {**self.trial, "share_to": mate, "share_left": left}
                    topic = "stadium.share.pay" if paying else "stadium.share.gain"
                    text = f"Seat {mate + 1} {verb}? ({left} to share)"
                    answers = yield self.open(self.ask(chooser, topic, text, (None, wheel, None)))
                    take = answers[chooser][CENTRE]
            if paying:
                self.spend(mate, take)
            else:
                self.gain(mate, take)
            left -= take
            if take:
                self.emit("stadium.energy", f"Seat {mate + 1} {verb} {take} Energy.",
                          seat=mate, amount=-take if paying else take)

    # ------------------------------------------------------------ Medals

    def award(self, team: int, medal: str, seat: int | None = None) -> None:
        self.medals[team][MEDALS.index(medal)] += 1
        self._awards.append({"team": TEAMS[team], "seat": seat, "medal": medal})
        text = (f"The {TEAMS[team]} Team wins a {medal} Medal." if seat is None
                else f"Seat {seat + 1} wins a {medal} Medal for the {TEAMS[team]} Team.")
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
        self.emit("stadium.totals", f"{what}: blue {totals[0]}, red {totals[1]}.",
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
                self.emit("stadium.medal_lost", f"The {TEAMS[team]} Team loses a {medal} Medal.",
                          team=TEAMS[team], medal=medal)
                return
        self.emit("stadium.medal_lost", f"The {TEAMS[team]} Team has no Medal to lose.",
                  team=TEAMS[team], medal=None)

    # ------------------------------------------------------------ the game

    @property
    def tile(self) -> TrialTile:
        return TILES[self.track[self.revealed - 1]]

    def flow(self) -> Flow:
        from dialbox.games.stadium.trials import TRIALS

        self.emit("stadium.first_player", f"Seat {self.first + 1} is the first player.",
                  seat=self.first)
        for index, key in enumerate(self.track):
            tile = TILES[key]
            self.revealed = index + 1
            self.trial = {"key": key, "name": tile.name, "talk": tile.talk,
                          "summary": tile.summary}
            self.score = [None] * self.n
            self._awards = []
            self.emit("stadium.reveal", f"Trial {index + 1}: {tile.name} "
                      f"(communication {tile.talk}).", trial=key, talk=tile.talk,
                      medals=tile.medals, index=index, summary=tile.summary)
            yield from TRIALS[key](self)
            self.history.append({"trial": key, "awards": list(self._awards),
                                 "energy": list(self.energy)})
            if tile.passes_first_player:
                self.pass_token()
        self.trial = {}
        self.result = self.final_result()

    def final_result(self) -> Result:
        pts = [points(self.medals[0]), points(self.medals[1])]
        if pts[0] == pts[1]:
            winners = list(range(self.n))
            text = f"A draw: both Teams score {pts[0]} points."
        else:
            win = 0 if pts[0] > pts[1] else 1
            winners = self.members(win)
            text = f"The {TEAMS[win]} Team wins, {max(pts)} points to {min(pts)}."
        return Result(
            {s: pts[self.team(s)] for s in range(self.n)}, winners, text,
            {"points": {TEAMS[t]: pts[t] for t in (0, 1)},
             "medals": {TEAMS[t]: dict(zip(MEDALS, self.medals[t], strict=True))
                        for t in (0, 1)}},
        )


# ------------------------------------------------------------ rules that span wheels

def _needs_zero_unless(action: int, what: str) -> Any:
    """Centre wheel is read only with `action` on the right wheel; otherwise it stays on 0."""
    def rule(game: Stadium, ask: Ask, sel: Selection) -> str | None:
        if sel[RIGHT] != action and sel[CENTRE] > 0:
            return f"{what}: leave the centre wheel on 0 for this choice"
        return None
    return rule


def _taekwondo(game: Stadium, ask: Ask, sel: Selection) -> str | None:
    if sel[RIGHT] == TRIANGLE and sel[CENTRE] == 0:
        return "Attack needs the colour of the Athlete you attack on the centre wheel"
    if sel[RIGHT] != TRIANGLE and sel[CENTRE] > 0:
        return "only Attack takes a colour: leave the centre wheel on 0"
    return None


def _ball(game: Stadium, ask: Ask, sel: Selection) -> str | None:
    seat = ask.seat
    if sel[RIGHT] == TRIANGLE:
        top = game.wager_top(seat)
        if sel[CENTRE] > top:
            return f"a Shot wagers Energy: at most {top}"
        return None
    mates = {colour_digit(s) for s in game.members(game.team(seat)) if s != seat}
    if sel[CENTRE] not in mates:
        return "a Pass needs a teammate's colour on the centre wheel"
    return None


def _lift(game: Stadium, ask: Ask, sel: Selection) -> str | None:
    if sel[RIGHT] == TRIANGLE and sel[CENTRE] == 0:
        return "Lift needs a weight on the centre wheel"
    if sel[RIGHT] != TRIANGLE and sel[CENTRE] > 0:
        return "Pass takes no weight: leave the centre wheel on '-'"
    return None


def _bid(game: Stadium, ask: Ask, sel: Selection) -> str | None:
    if sel[RIGHT] == TRIANGLE and sel[CENTRE] == 0:
        return "announce a number on the centre wheel"
    if sel[RIGHT] != TRIANGLE and sel[CENTRE] > 0:
        return "We Pass takes no number: leave the centre wheel on '-'"
    return None


_CROSS_WHEEL: dict[str, Any] = {
    "stadium.sprint": _needs_zero_unless(TRIANGLE, "Rest takes no wager"),
    "stadium.basketball.defence": _needs_zero_unless(TRIANGLE, "Intercept takes no wager"),
    "stadium.basketball.ball": _ball,
    "stadium.taekwondo.action": _taekwondo,
    "stadium.weightlifting.lift": _lift,
    "stadium.gymnastics.bid": _bid,
}

GAME = Stadium

__all__ = ["GAME", "Stadium", "StadiumOptions", "TEAMS", "colour_digit", "digit_seat",
           "symbol_wheel", "choice_faces", "TRIANGLE", "CIRCLE", "CRESCENT", "SYMBOL_NAMES",
           "GOLD", "SILVER", "BRONZE", "MAX_ENERGY", "Step", "Sub"]
