"""The Stadium game: two Teams of Athletes spend Energy over 10 Trials to win the most Medals."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from dialbox.engine import CENTRE, INACTIVE, RIGHT, Ask, Flow, InvalidPosition, Result, Selection
from dialbox.engine.naming import who, whom
from dialbox.games.stadium.base import (
    CIRCLE,
    CRESCENT,
    SYMBOL_NAMES,
    TEAM_NAMES,
    TEAMS,
    TRIANGLE,
    StadiumBase,
    Step,
    Sub,
    choice_faces,
    colour_digit,
    digit_seat,
    symbol_wheel,
)
from dialbox.games.stadium.components import DIE_ABBREVIATIONS, KINDS, load_dice, load_tiles
from dialbox.games.stadium.medals import BRONZE, GOLD, MEDALS, SILVER, points
from dialbox.games.stadium.options import MAX_ENERGY, START_ENERGY, StadiumOptions
from dialbox.games.stadium.trials import TRIALS


class StadiumPosition(BaseModel):
    """The Games between two Trials (docs/games/stadium.md, "Positions")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    track: list[str] = Field(min_length=1, max_length=10)
    """Every Trial of the track in order, by tile key (those done included)."""
    next: int = Field(1, ge=1)
    """The Trial about to be revealed (1-based; the ones before it are done)."""
    energy: list[int]
    """Each Athlete's Energy."""
    medals: dict[str, list[int]] = Field(default_factory=lambda: {"blue": [0, 0, 0],
                                                                   "red": [0, 0, 0]})
    """Gold, silver and bronze Medals of each Team ("blue", "red")."""
    first: int = Field(0, ge=0)
    """The seat holding the first player token."""
    history: list[dict[str, Any]] = Field(default_factory=list)
    """The Trials done, as a saved game records them (default: none)."""


class Stadium(StadiumBase):
    """Stadium, all 16 Trials: setup, state and views, and the flow that runs the Trials."""

    name = "stadium"
    Options = StadiumOptions
    Position = StadiumPosition

    # ------------------------------------------------------------ setup and state

    def setup(self) -> None:
        assert isinstance(self.options, StadiumOptions)
        self.opts = self.options
        o = self.opts
        self.tileset = load_tiles(o.tiles)
        self.dice = load_dice(o.dice)
        self.n = o.players
        self.energy = list(o.energy) if o.energy else [START_ENERGY] * self.n
        self.medals = [[0, 0, 0], [0, 0, 0]]
        self.track = list(o.track) if o.track else self._deal_track()
        self.revealed = 0
        if o.first_player is not None:
            self.first = o.first_player
        else:
            # Seat 1 flips the token; if it shows the other Team, it goes to the player on
            # their left.
            self.first = 0 if self.chance.coin() else 1
        self.trial = {}
        self.score = [None] * self.n
        self.history: list[dict[str, Any]] = []
        self._backs: list[str] = [self.tileset.tiles[key].kind for key in self.track]
        self._view: tuple[int, dict[str, Any]] | None = None
        self._awards = []

    def setup_position(self, position: BaseModel) -> None:
        assert isinstance(position, StadiumPosition)
        pos = position
        self.setup()
        where = "stadium position"
        unknown = [k for k in pos.track if k not in self.tileset.tiles]
        if unknown:
            raise InvalidPosition(f"{where}: track: no such Trial tile {unknown[0]!r} in the "
                                  f"tile set (one of {', '.join(sorted(self.tileset.tiles))})")
        if len(set(pos.track)) != len(pos.track):
            raise InvalidPosition(f"{where}: track: a Trial appears twice")
        if pos.next > len(pos.track):
            raise InvalidPosition(f"{where}: next: Trial {pos.next} is past the end of the "
                                  f"track ({len(pos.track)} Trials)")
        if len(pos.energy) != self.n:
            raise InvalidPosition(f"{where}: energy: one per Athlete ({self.n}), not "
                                  f"{len(pos.energy)}")
        for seat, e in enumerate(pos.energy):
            if not 0 <= e <= MAX_ENERGY:
                raise InvalidPosition(f"{where}: energy.{seat}: {e} is not 0-{MAX_ENERGY}")
        if sorted(pos.medals) != sorted(TEAMS):
            raise InvalidPosition(f"{where}: medals: one entry per Team ({', '.join(TEAMS)})")
        for team, won in pos.medals.items():
            if len(won) != 3 or min(won) < 0:
                raise InvalidPosition(f"{where}: medals.{team}: gold, silver and bronze counts "
                                      f"(three numbers, none negative)")
        if pos.first >= self.n:
            raise InvalidPosition(f"{where}: first: seat {pos.first} is not a seat 0-{self.n - 1}")
        self.track = list(pos.track)
        self._backs = [self.tileset.tiles[key].kind for key in self.track]
        self.revealed = pos.next - 1
        self.energy = list(pos.energy)
        self.medals = [list(pos.medals[t]) for t in TEAMS]
        self.first = pos.first
        self.history = [dict(h) for h in pos.history]

    def _deal_track(self) -> list[str]:
        """Deal the layout: per back, in the fixed order of KINDS (standard, rest, final),
        draw as many tiles of that back as the layout shows, from the tiles in file order.
        A fixed order, so the same seed deals the same track in every process."""
        layout = self.tileset.layout
        drawn = {kind: self.chance.sample(self.tileset.of_kind(kind), layout.count(kind))
                 for kind in KINDS}
        return [drawn[kind].pop(0) for kind in layout]

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
            # The printed components in play (bots read the tiles' numbers and the dice).
            snap["components"] = {"tiles": self.opts.tiles, "dice": self.opts.dice}
            # The Teams' names by team key (boards and panels name Teams, never by colour).
            snap["team_names"] = {"blue": TEAM_NAMES[0], "red": TEAM_NAMES[1]}
            cached = self._view = (len(self.log), snap)
        if self.locked:
            return {**cached[1], "seat": seat, "pending": self.pending_view(seat)}
        return {**cached[1], "seat": seat}

    # ------------------------------------------------------------ legality

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

    # ------------------------------------------------------------ what an answer means

    def meaning(self, ask: Ask, selection: Selection) -> str:
        """An answer in the Trial's words: "Rest", "Compete, wager 5", "Attack Blue",
        "Announce 7", "Pass to Green", "Re-roll the yellow die (3)"."""
        topic = ask.topic
        right = selection[RIGHT]
        if topic == "stadium.wager":
            return f"Wager {self._centre(ask, selection)}"
        words = _SYMBOL_WORDS.get(topic)
        if words is not None:
            act = words.get(right, "")
            if right == TRIANGLE and topic in _WITH_NUMBER:
                return f"{act} {self._centre(ask, selection)}"
            if topic == "stadium.taekwondo.action" and right == TRIANGLE:
                return f"Attack {who(digit_seat(selection[CENTRE]))}"
            if topic == "stadium.basketball.ball" and right != TRIANGLE:
                return f"Pass to {who(digit_seat(selection[CENTRE]))}"
            if topic == "stadium.pole_vault" and right == TRIANGLE and "rung" in self.trial:
                return f"Jump the bar at {self.trial['rung']}"
            return act
        if topic in ("stadium.share.pay", "stadium.share.gain"):
            verb = "pays" if topic == "stadium.share.pay" else "gets"
            mate = self.trial.get("share_to")
            amount = self._centre(ask, selection)
            return (f"{who(mate)} {verb} {amount} Energy" if isinstance(mate, int)
                    else f"{verb} {amount} Energy")
        if topic == "stadium.golf.adjust":
            rolled = self.trial.get("rolled")
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            hole = wheel.faces[selection[CENTRE]].value
            if selection[CENTRE] == 0:
                return f"Keep hole {rolled}" if rolled is not None else "Keep the roll"
            cost = f" (costs {abs(hole - rolled)})" if isinstance(rolled, int) else ""
            return f"Shift to hole {hole}{cost}"
        if topic in ("stadium.archery.reroll", "stadium.fencing.reroll"):
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            face = wheel.faces[selection[CENTRE]]
            if selection[CENTRE] == 0:
                return "Shoot with these dice" if face.label == "Shoot" else "Keep these dice"
            colour = next((c for c, a in DIE_ABBREVIATIONS.items()
                           if face.label.startswith(a)), "")
            shown = face.label[len(DIE_ABBREVIATIONS.get(colour, "")):]
            return f"Re-roll the {colour} die (showing {shown})" if colour else \
                f"Re-roll {face.label}"
        return super().meaning(ask, selection)

    @staticmethod
    def _centre(ask: Ask, selection: Selection) -> str:
        wheel = ask.wheels[CENTRE]
        if wheel is None or not 0 <= selection[CENTRE] < len(wheel.faces):
            return ""
        return wheel.faces[selection[CENTRE]].label

    # ------------------------------------------------------------ the game

    def flow(self) -> Flow:
        self.emit("stadium.first_player", f"{who(self.first)} is the first player.",
                  seat=self.first)
        for index in range(self.revealed, len(self.track)):  # from a position: its next Trial
            key = self.track[index]
            tile = self.tileset.tiles[key]
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
            text = (f"A draw: the {TEAM_NAMES[0]} and the {TEAM_NAMES[1]} score {pts[0]} "
                    "points each.")
        else:
            win = 0 if pts[0] > pts[1] else 1
            winners = self.members(win)
            text = (f"The {TEAM_NAMES[win]} ({whom(winners)}) win, {max(pts)} points to "
                    f"{min(pts)}.")
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


_SYMBOL_WORDS: dict[str, dict[int, str]] = {
    "stadium.sprint": {TRIANGLE: "Compete, wager", CRESCENT: "Rest"},
    "stadium.basketball.ball": {TRIANGLE: "Shoot, wager"},
    "stadium.basketball.defence": {TRIANGLE: "Block, wager", CRESCENT: "Intercept"},
    "stadium.taekwondo.action": {CIRCLE: "Block", CRESCENT: "Wait"},
    "stadium.weightlifting.lift": {TRIANGLE: "Lift", CRESCENT: "Pass"},
    "stadium.weightlifting.retry": {TRIANGLE: "Re-roll (1 Energy)", CRESCENT: "Pass"},
    "stadium.gymnastics.bid": {TRIANGLE: "Announce", CRESCENT: "We Pass"},
    "stadium.anti_doping": {TRIANGLE: "Accuse", CIRCLE: "Rest", CRESCENT: "Dope"},
    "stadium.pole_vault": {TRIANGLE: "Jump", CRESCENT: "Wait"},
}
"""What the right wheel's symbol means, per question (see `Stadium.meaning`)."""
_WITH_NUMBER = {"stadium.sprint", "stadium.basketball.ball", "stadium.basketball.defence",
                "stadium.weightlifting.lift", "stadium.gymnastics.bid"}
"""Questions whose triangle reads the centre wheel's number (wager, weight, announcement)."""

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
