"""Trial of the Gods: the end-of-game rankings, Victory Points and the winner.

Pure and I/O free. A game flow collects one `Tally` per player (the counts the console does not
track are asked of the players at the end), calls `score()` and shows the `FinalScore`.

The rules, as dialbox reads them (docs/rules-notes.md, "Trial of the Gods — end-game rankings"):

* Four rankings, counted in this order: Domination (Laurels of Tamed Monsters; 6/4/2 VP),
  Exploration (1 Laurel per explored Island without a Treasure Token, 2 per explored Island
  whose Treasure Token shows a Golden Fleece part; 6/4/2), Olympics (1 Laurel per Champion
  Token; 5/3/1) and Devotion (Laurels on Action Cards minus 1 per Animae card; 5/3/1).
* Only the top three positions score, and only a player with at least 1 Laurel in a ranking
  takes part in it (is given a position at all). With fewer than three players the missing
  positions simply give nobody anything.
* A player's position is 1 + the number of players ranked strictly ahead of them (more Laurels,
  or as many Laurels and fewer Dishonor Tokens). So a tie on Laurels is broken by fewest Dishonor
  and the others slide down; players still tied (same Laurels, same Dishonor) share the position
  and each gets its VP minus 1 (never below 0), and the player after them takes the position
  that follows all of them: two sharing #1 are followed by #3.
* Most VP wins. A tie on VP is broken, in order, by fewest Dishonor Tokens, most Exploration
  Tokens on Islands with a Treasure Token, most Temples, most Companions, and leftmost on the
  Initiative track. Initiative positions are all different, so there is always one winner.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from dialbox.engine import Result
from dialbox.engine.naming import who
from dialbox.engine.seats import PLAYER_COLOURS


class Ranking(StrEnum):
    """The four end-of-game rankings, in the order they are counted."""

    DOMINATION = "domination"
    EXPLORATION = "exploration"
    OLYMPICS = "olympics"
    DEVOTION = "devotion"

    @property
    def label(self) -> str:
        return self.value.capitalize()

    @property
    def vp_table(self) -> tuple[int, int, int]:
        """VP for positions #1, #2 and #3."""
        return VP_TABLE[self]


RANKINGS: tuple[Ranking, ...] = tuple(Ranking)
"""The rankings in the order they are counted (and shown)."""

VP_TABLE: Mapping[Ranking, tuple[int, int, int]] = {
    Ranking.DOMINATION: (6, 4, 2),
    Ranking.EXPLORATION: (6, 4, 2),
    Ranking.OLYMPICS: (5, 3, 1),
    Ranking.DEVOTION: (5, 3, 1),
}

MIN_LAURELS = 1
"""A player needs at least this many Laurels in a ranking to take part in it."""


class Criterion(StrEnum):
    """What decided the winner: most VP outright, or a step of the VP tiebreak (in order)."""

    VP = "vp"
    DISHONOR = "dishonor"
    TREASURE = "treasure"
    TEMPLES = "temples"
    COMPANIONS = "companions"
    INITIATIVE = "initiative"

    @property
    def label(self) -> str:
        return _CRITERION_LABELS[self]


_CRITERION_LABELS: Mapping[Criterion, str] = {
    Criterion.VP: "most Victory Points",
    Criterion.DISHONOR: "fewest Dishonor Tokens",
    Criterion.TREASURE: "most Exploration Tokens on Islands with a Treasure Token",
    Criterion.TEMPLES: "most Temples",
    Criterion.COMPANIONS: "most Companions",
    Criterion.INITIATIVE: "leftmost on the Initiative track",
}

TIEBREAK: tuple[Criterion, ...] = (
    Criterion.DISHONOR,
    Criterion.TREASURE,
    Criterion.TEMPLES,
    Criterion.COMPANIONS,
    Criterion.INITIATIVE,
)
"""The steps that break a tie on VP for the win, in order."""

TieKind = Literal["dishonor", "shared"]


def _seat_name(seat: int) -> str:
    """A seat's colour, as on its controller and the screen (seat 7 on is "seat 7")."""
    return PLAYER_COLOURS[seat][0] if 0 <= seat < len(PLAYER_COLOURS) else f"seat {seat + 1}"


def _seats_name(seats: Iterable[int], name: Callable[[int], str] | None = None) -> str:
    names = [(name or _seat_name)(s) for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _laurels(n: int) -> str:
    return f"{n} Laurel" if n in (1, -1) else f"{n} Laurels"


def _ordinal(position: int) -> str:
    return f"#{position}"


@dataclass(frozen=True, kw_only=True)
class Tally:
    """One player's counts at the end of the game. Seats are 0-based, as in the engine.

    `treasure_explorations` is the tiebreak count of Exploration Tokens on Islands that hold a
    Treasure Token; left out (None) it is `islands_fleece`, because at the end of the game only
    the Treasure Tokens showing a Golden Fleece part stay on the Islands.
    """

    seat: int
    initiative: int
    """Position on the Initiative track, 0 = leftmost."""
    tamed_laurels: int = 0
    """Domination: the Laurels on the Enemy Cards of the player's Tamed Monsters."""
    islands_plain: int = 0
    """Explored Islands (with one of the player's Exploration Tokens) without a Treasure Token
    once the non-Fleece Treasure Tokens are removed: 1 Exploration Laurel each."""
    islands_fleece: int = 0
    """Explored Islands whose Treasure Token shows a Golden Fleece part: 2 Laurels each."""
    champions: int = 0
    """Olympics: Champion Tokens owned, 1 Laurel each."""
    card_laurels: int = 0
    """Devotion: the Laurels on all the player's Action Cards (deck, hand and discard pile)."""
    animae: int = 0
    """Devotion: Animae cards among them, -1 Laurel each."""
    dishonor: int = 0
    temples: int = 0
    companions: int = 0
    treasure_explorations: int | None = None

    def __post_init__(self) -> None:
        for name in _COUNT_FIELDS:
            value = getattr(self, name)
            if name == "treasure_explorations" and value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(f"{_seat_name_safe(self.seat)}: {name} must be an int")
            if value < 0:
                raise ValueError(f"{_seat_name_safe(self.seat)}: {name} cannot be negative")
        te = self.treasure_explorations
        if te is not None and te > self.islands_plain + self.islands_fleece:
            raise ValueError(
                f"{_seat_name(self.seat)}: treasure_explorations ({te}) exceeds the "
                f"Islands explored ({self.islands_plain + self.islands_fleece})"
            )

    @property
    def exploration_laurels(self) -> int:
        return self.islands_plain + 2 * self.islands_fleece

    @property
    def devotion_laurels(self) -> int:
        """Action-card Laurels minus Animae: may be negative."""
        return self.card_laurels - self.animae

    @property
    def treasure_tokens(self) -> int:
        """The tiebreak count: Exploration Tokens on Islands with a Treasure Token."""
        te = self.treasure_explorations
        return self.islands_fleece if te is None else te

    def laurels(self, ranking: Ranking) -> int:
        """This player's Laurels in one ranking."""
        if ranking is Ranking.DOMINATION:
            return self.tamed_laurels
        if ranking is Ranking.EXPLORATION:
            return self.exploration_laurels
        if ranking is Ranking.OLYMPICS:
            return self.champions
        return self.devotion_laurels

    def criterion(self, step: Criterion) -> int:
        """This player's value for one step of the winner's tiebreak (as counted, not signed)."""
        return {
            Criterion.DISHONOR: self.dishonor,
            Criterion.TREASURE: self.treasure_tokens,
            Criterion.TEMPLES: self.temples,
            Criterion.COMPANIONS: self.companions,
            Criterion.INITIATIVE: self.initiative,
        }[step]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {name: getattr(self, name) for name in _ALL_FIELDS}
        out["laurels"] = {r.value: self.laurels(r) for r in RANKINGS}
        out["treasure_tokens"] = self.treasure_tokens
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Tally:
        """Build a tally from `to_json()` output or any mapping of the field names (derived keys
        such as "laurels" are ignored; unknown keys are refused)."""
        derived = {"laurels", "treasure_tokens"}
        unknown = set(data) - set(_ALL_FIELDS) - derived
        if unknown:
            raise ValueError(f"unknown tally fields: {sorted(unknown)}")
        return cls(**{k: v for k, v in data.items() if k not in derived})


_COUNT_FIELDS: tuple[str, ...] = (
    "seat", "initiative", "tamed_laurels", "islands_plain", "islands_fleece", "champions",
    "card_laurels", "animae", "dishonor", "temples", "companions", "treasure_explorations",
)
_ALL_FIELDS = _COUNT_FIELDS  # every field is a count (treasure_explorations may be None)


def _seat_name_safe(seat: object) -> str:
    return _seat_name(seat) if isinstance(seat, int) else f"seat {seat!r}"


@dataclass(frozen=True)
class Placement:
    """One player's place in one ranking and the VP it gives: a line of "where the VP came from".

    `position` is None when the player has fewer than 1 Laurel and so takes no part. `base_vp` is
    the position's VP before the shared-position penalty; `tie` says which tie rule applied
    ("dishonor": tied on Laurels, the order settled by Dishonor; "shared": still tied on equal
    Dishonor, VP - 1) and `tied_with` lists the other seats tied on Laurels.
    """

    ranking: Ranking
    seat: int
    laurels: int
    position: int | None
    vp: int
    base_vp: int = 0
    tie: TieKind | None = None
    tied_with: tuple[int, ...] = ()
    note: str = ""

    @property
    def ranked(self) -> bool:
        return self.position is not None

    def to_json(self) -> dict[str, Any]:
        return {
            "ranking": self.ranking.value,
            "seat": self.seat,
            "laurels": self.laurels,
            "position": self.position,
            "vp": self.vp,
            "base_vp": self.base_vp,
            "tie": self.tie,
            "tied_with": list(self.tied_with),
            "note": self.note,
        }


@dataclass(frozen=True)
class RankingResult:
    """One ranking: placements best first (unranked players last, by seat)."""

    ranking: Ranking
    placements: tuple[Placement, ...]

    def of(self, seat: int) -> Placement:
        for p in self.placements:
            if p.seat == seat:
                return p
        raise KeyError(seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "ranking": self.ranking.value,
            "label": self.ranking.label,
            "vp_table": list(self.ranking.vp_table),
            "placements": [p.to_json() for p in self.placements],
        }


@dataclass(frozen=True)
class TiebreakStep:
    """One step of the winner's tiebreak: everyone's value and who is still in after it."""

    criterion: Criterion
    values: tuple[tuple[int, int], ...]
    """(seat, value) for the players still tied before this step."""
    remaining: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "criterion": self.criterion.value,
            "label": self.criterion.label,
            "values": [{"seat": s, "value": v} for s, v in self.values],
            "remaining": list(self.remaining),
        }


@dataclass(frozen=True)
class Winner:
    """Who won and why: `decided_by` is VP when one player had the most VP outright."""

    seat: int
    vp: int
    tied_for_most: tuple[int, ...]
    """Every seat with the most VP (just the winner when there was no tie)."""
    steps: tuple[TiebreakStep, ...]
    decided_by: Criterion

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "vp": self.vp,
            "tied_for_most": list(self.tied_for_most),
            "decided_by": self.decided_by.value,
            "decided_by_label": self.decided_by.label,
            "steps": [s.to_json() for s in self.steps],
        }


@dataclass(frozen=True)
class FinalScore:
    """The whole end-of-game count."""

    tallies: tuple[Tally, ...]
    rankings: tuple[RankingResult, ...]
    vp: Mapping[int, int]
    """Total VP per seat."""
    winner: Winner
    standings: tuple[int, ...]
    """Every seat, best first: by VP, then by the tiebreak steps."""

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(t.seat for t in self.tallies)

    def tally(self, seat: int) -> Tally:
        for t in self.tallies:
            if t.seat == seat:
                return t
        raise KeyError(seat)

    def ranking(self, ranking: Ranking | str) -> RankingResult:
        wanted = Ranking(ranking)
        for r in self.rankings:
            if r.ranking is wanted:
                return r
        raise KeyError(ranking)

    def sources(self, seat: int) -> tuple[Placement, ...]:
        """Where a seat's VP came from: its placement in each ranking, in counting order."""
        return tuple(r.of(seat) for r in self.rankings)

    def text(self, mark: bool = False) -> str:
        """The result in one line; `mark`: seats as `naming.who` marks (for the engine's
        Result and events, which record where each seat is named)."""
        name = who if mark else _seat_name
        w = self.winner
        head = f"{name(w.seat)} wins with {w.vp} VP"
        if w.decided_by is not Criterion.VP:
            others = (s for s in w.tied_for_most if s != w.seat)
            head += f" (tie with {_seats_name(others, name)}"
            head += f" broken by {w.decided_by.label})"
        scores = ", ".join(f"{name(s)}: {self.vp[s]}" for s in self.standings)
        return f"{head}. {scores}."

    def to_json(self) -> dict[str, Any]:
        return {
            "rankings": [r.to_json() for r in self.rankings],
            "players": [
                {
                    "seat": t.seat,
                    "vp": self.vp[t.seat],
                    "sources": [p.to_json() for p in self.sources(t.seat)],
                    "tally": t.to_json(),
                }
                for t in self.tallies
            ],
            "standings": list(self.standings),
            "winner": self.winner.to_json(),
            "text": self.text(),
        }

    def to_result(self) -> Result:
        """The engine's Result: VP per seat, the single winner, a text and `to_json()`."""
        return Result(dict(self.vp), [self.winner.seat], self.text(mark=True), self.to_json())


def _check(tallies: Sequence[Tally]) -> None:
    if not tallies:
        raise ValueError("no tallies: at least one player is needed")
    seats = [t.seat for t in tallies]
    if len(set(seats)) != len(seats):
        raise ValueError(f"duplicate seats in {seats}")
    inits = [t.initiative for t in tallies]
    if len(set(inits)) != len(inits):
        raise ValueError(f"two players share an Initiative position: {inits}")


def _place_note(
    ranking: Ranking, t: Tally, laurels: int, position: int, vp: int, base: int,
    tie: TieKind | None, tied: Sequence[Tally], shared: Sequence[Tally],
) -> str:
    parts: list[str] = []
    pos = _ordinal(position)
    if tied:
        others = _seats_name(o.seat for o in tied)
        parts.append(f"tied on {_laurels(laurels)} with {others}")
        best_dishonor = min([t.dishonor, *(o.dishonor for o in tied)])
        if len(shared) < len(tied):  # Dishonor separated some of the tied players
            if t.dishonor == best_dishonor:
                parts.append(f"fewest Dishonor ({t.dishonor}) takes {pos}")
            else:
                parts.append(f"more Dishonor ({t.dishonor}) slides to {pos}")
        if tie == "shared":
            text = (f"shares {pos} with {_seats_name(o.seat for o in shared)} on equal "
                    f"Dishonor ({t.dishonor})")
            if base:
                text += f": {base} - 1 = {vp} VP"
            parts.append(text)
    if position > len(ranking.vp_table):
        parts.append(f"{pos}: only the top three positions score")
    return "; ".join(parts)


def rank(ranking: Ranking | str, tallies: Sequence[Tally]) -> RankingResult:
    """Place every player in one ranking and give the VP of each position."""
    ranking = Ranking(ranking)
    _check(tallies)
    table = ranking.vp_table
    ranked = [t for t in tallies if t.laurels(ranking) >= MIN_LAURELS]
    ranked.sort(key=lambda t: (-t.laurels(ranking), t.dishonor, t.seat))
    placements: list[Placement] = []
    for t in ranked:
        laurels = t.laurels(ranking)
        ahead = sum(
            1 for o in ranked
            if o.laurels(ranking) > laurels
            or (o.laurels(ranking) == laurels and o.dishonor < t.dishonor)
        )
        position = ahead + 1
        tied = sorted((o for o in ranked if o is not t and o.laurels(ranking) == laurels),
                      key=lambda o: o.seat)
        shared = [o for o in tied if o.dishonor == t.dishonor]
        base = table[position - 1] if position <= len(table) else 0
        tie: TieKind | None = None
        vp = base
        if shared:
            tie = "shared"
            vp = max(base - 1, 0)
        elif tied:
            tie = "dishonor"
        note = _place_note(ranking, t, laurels, position, vp, base, tie, tied, shared)
        placements.append(
            Placement(ranking, t.seat, laurels, position, vp, base, tie,
                      tuple(o.seat for o in tied), note)
        )
    for t in sorted((t for t in tallies if t.laurels(ranking) < MIN_LAURELS),
                    key=lambda t: t.seat):
        laurels = t.laurels(ranking)
        note = f"{_laurels(laurels)}: at least {MIN_LAURELS} is needed to take part"
        placements.append(Placement(ranking, t.seat, laurels, None, 0, note=note))
    return RankingResult(ranking, tuple(placements))


def _tiebreak_key(step: Criterion) -> Callable[[Tally], int]:
    """Smaller is better."""
    if step in (Criterion.DISHONOR, Criterion.INITIATIVE):
        return lambda t: t.criterion(step)
    return lambda t: -t.criterion(step)


def break_tie(tied: Sequence[Tally]) -> tuple[int, tuple[TiebreakStep, ...], Criterion]:
    """Apply the winner's tiebreak to players tied on VP: (winning seat, steps used, decider).

    Steps run in order, each keeping only the best players of the previous one, until one is
    left; Initiative positions are distinct, so the last step always settles it.
    """
    _check(tied)
    if len(tied) == 1:
        return tied[0].seat, (), Criterion.VP
    alive = list(tied)
    steps: list[TiebreakStep] = []
    for step in TIEBREAK:
        key = _tiebreak_key(step)
        best = min(key(t) for t in alive)
        values = tuple((t.seat, t.criterion(step)) for t in alive)
        alive = [t for t in alive if key(t) == best]
        steps.append(TiebreakStep(step, values, tuple(t.seat for t in alive)))
        if len(alive) == 1:
            return alive[0].seat, tuple(steps), step
    raise AssertionError("unreachable: Initiative positions are distinct")  # pragma: no cover


def score(tallies: Sequence[Tally]) -> FinalScore:
    """Count the four rankings and pick the winner. Tallies may come in any order."""
    tallies = tuple(sorted(tallies, key=lambda t: t.seat))
    _check(tallies)
    rankings = tuple(rank(r, tallies) for r in RANKINGS)
    vp = {t.seat: sum(r.of(t.seat).vp for r in rankings) for t in tallies}
    top = max(vp.values())
    tied = [t for t in tallies if vp[t.seat] == top]
    seat, steps, decided_by = break_tie(tied)
    winner = Winner(seat, top, tuple(t.seat for t in tied), steps, decided_by)
    keys = [_tiebreak_key(c) for c in TIEBREAK]
    standings = tuple(
        t.seat for t in sorted(tallies, key=lambda t: (-vp[t.seat], *(k(t) for k in keys)))
    )
    return FinalScore(tallies, rankings, vp, winner, standings)


def score_json(tallies: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Convenience for a flow that keeps tallies as JSON: `score(...)` then `to_json()`."""
    return score([Tally.from_json(t) for t in tallies]).to_json()
