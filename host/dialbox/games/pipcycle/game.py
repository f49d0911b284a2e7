"""PIP Cycle: riders on a grid, moved by secretly played cards; crash the others' riders.

Rules from the rulebook; the choices where it is silent are in docs/rules-notes.md
("PIP Cycle"). One round: each player deploys a rider; exchanges follow (every player plays
one card per rider face down, the card check names a winner, every card is resolved on a
rider) until a player has no rider left. The deck running out with no crash escalates the
grid (another rider each). Crashed dice are trophies; the game ends on an overwhelming
majority (2-0, or all 3).
"""

from __future__ import annotations

import random
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from dialbox.engine import (
    CENTRE,
    INACTIVE,
    LEFT,
    RIGHT,
    Ask,
    Decision,
    Face,
    Flow,
    Game,
    GameOptions,
    InvalidPosition,
    Result,
    Selection,
    Wheel,
    wheels,
)
from dialbox.engine.naming import who, whom
from dialbox.games.pipcycle import cards as C
from dialbox.games.pipcycle import grid as G

DICE = 3
HAND = 3
START_PIPS = 3

Step = Generator[Decision, dict[int, Selection], None]


class PipCycleOptions(GameOptions):
    """PIP Cycle's options (docs/rules-notes.md says why each default). PIP Cycle rolls no
    dice (its dice are the riders), so `physical_dice` changes nothing; the deck is always
    shuffled by the console."""

    players: int = Field(2, ge=2, le=3)
    grid: int | None = Field(None, ge=5, le=15)
    """Points along each side of the grid (None: 9 with 2 players, 11 with 3)."""
    ranks: int | None = Field(None, ge=1, le=13)
    """The highest card rank; the deck holds ranks 1..ranks (None: 6 with 2 players, 9 with 3)."""
    suits: str = C.SUITS
    """The suits in the deck, one card of each rank per suit."""
    escalate_after_crash: bool = False
    """Whether the deck running out escalates the grid even after a crash in this round
    (default: it does not; the played cards are reshuffled and play goes on)."""
    capture: Literal["cause", "winner"] = "cause"
    """3-player prototype: who captures a crashed die: the owner of the trail or rider it
    crashed into ("cause"; off the grid or its own trail: nobody), or the exchange winner."""
    target: int = Field(3, ge=1, le=6)
    """3-player prototype: trophies that end the game (after the round they are reached)."""

    @field_validator("suits")
    @classmethod
    def _suits(cls, v: str) -> str:
        v = v.upper()
        if not v or any(s not in C.SUITS for s in v) or len(set(v)) != len(v):
            raise ValueError("suits is a selection of H, D, S and C, each at most once")
        return "".join(s for s in C.SUITS if s in v)

    @model_validator(mode="after")
    def _deck_size(self) -> PipCycleOptions:
        if self.variant != "standard":
            raise ValueError(f"PIP Cycle has no variant {self.variant!r} (only standard)")
        cards = self.deck_ranks * len(self.suits)
        if cards < HAND * self.players + self.players:
            raise ValueError(f"a deck of {cards} cards is too small for {self.players} "
                             f"players (at least {HAND * self.players + self.players})")
        return self

    @property
    def size(self) -> int:
        return self.grid or (9 if self.players == 2 else 11)

    @property
    def deck_ranks(self) -> int:
        return self.ranks or (6 if self.players == 2 else 9)


class RiderSpec(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    seat: int
    at: str
    facing: Literal["N", "E", "S", "W"]
    pips: int = Field(START_PIPS, ge=1, le=6)


class PipCyclePosition(BaseModel):
    """A round in progress, at the start of an exchange (tests, puzzles, `--position`).

    Cards are written like "5H". Deck cards named nowhere count as played this deck (they
    come back when the played cards are reshuffled). `lines` are claimed lines as
    [from, to, seat], e.g. ["c1", "c2", 0].
    """

    model_config = ConfigDict(extra="forbid")

    riders: list[RiderSpec]
    hands: list[list[str]]
    pile: list[str] = []
    """The draw pile, top card first."""
    lines: list[tuple[str, str, int]] = []
    trophies: list[list[int]] | None = None
    """Per player, the seats whose dice it has captured."""
    lost: list[int] | None = None
    """Per player, dice lost without a capture (3-player prototype)."""
    starter: int = 0
    """The seat that begins the next card check (the previous exchange winner)."""
    round: int = Field(1, ge=1)
    crashed: bool = False
    """Whether a rider has crashed in this round (no Grid Escalation then)."""


@dataclass(slots=True)
class Rider:
    id: int
    seat: int
    x: int
    y: int
    facing: int
    pips: int

    @property
    def at(self) -> G.Point:
        return self.x, self.y

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "seat": self.seat, "x": self.x, "y": self.y,
                "at": G.name(self.at), "facing": G.FACINGS[self.facing], "pips": self.pips}


@dataclass(frozen=True, slots=True)
class MoveMenu:
    """The wheels of a Movement prompt for one set of program statuses (shared, cached)."""

    wheels: tuple[Wheel | None, Wheel | None, Wheel | None]
    nodes: tuple[int, ...]
    """The program (index in grid.TREES[ap]) behind each face of the left wheel."""
    legal: tuple[Selection, ...]
    allowed: frozenset[Selection]


@dataclass(slots=True)
class MoveChoice:
    """The pending Movement prompt."""

    ask: Ask
    rider: Rider
    menu: MoveMenu
    ap: int
    status: tuple[int, ...] = ()
    """Each program's status (grid.statuses) from where the rider stands."""


FACING_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}

END_FACES = (Face("ahead", 0, "ffffff"), Face("turn L", 1, "ffffff"),
             Face("turn R", 2, "ffffff"), Face("about", 3, "ffffff"))


@lru_cache(maxsize=8192)
def play_wheels(hand: tuple[str, ...], forced: bool) -> tuple[Wheel | None, Wheel | None,
                                                             Wheel | None]:
    """The card wheel: the hand's cards (or, when every card must be played, one face)."""
    if forced:
        return wheels(None, Wheel.of((Face(all_cards_label(hand), 0, "ffffff"),)), None)
    return wheels(None, Wheel.of(tuple(card_face(c) for c in hand)), None)


@lru_cache(maxsize=8192)
def keep_wheels(hand: tuple[str, ...]) -> tuple[Wheel | None, Wheel | None, Wheel | None]:
    """Every card but one is played: face i is the cards played when hand[i] is kept, so
    the reveal shows what was played and never the card kept (it stays hidden in the hand).
    Each face has the colour of its highest card."""
    faces = []
    for i in range(len(hand)):
        played = tuple(sorted((c for k, c in enumerate(hand) if k != i), key=C.check_key))
        faces.append(Face(all_cards_label(played), i, C.SUIT_COLOURS[C.suit(played[-1])]))
    return wheels(None, Wheel.of(tuple(faces)), None)


def all_cards_label(hand: tuple[str, ...]) -> str:
    """The one face of a forced play: the cards themselves where 8 characters hold them."""
    for sep in (" ", ""):
        text = sep.join(hand)
        if len(text) <= 8:
            return text
    return f"all {len(hand)}"


@cache
def start_points(seat: int, players: int, size: int) -> tuple[G.Point, ...]:
    return tuple(G.start_points(seat, players, size))


@lru_cache(maxsize=4096)
def place_wheels(seat: int, players: int, size: int, busy: tuple[int, ...]) -> tuple[
        Wheel | None, Wheel | None, Wheel | None]:
    """The start-point wheel: the seat's edge, points with a rider (`busy`) skipped."""
    pts = start_points(seat, players, size)
    faces = tuple(Face(G.name(p), i, "ffffff") for i, p in enumerate(pts))
    free = [i for i in range(len(pts)) if i not in busy]
    reasons = {i: f"a rider is already on {G.name(pts[i])}" for i in busy}
    return wheels(None, Wheel.of(faces, free, reasons), None)


@cache
def card_face(card: str) -> Face:
    return Face(card, C.rank(card), C.SUIT_COLOURS[C.suit(card)])


_MENUS: dict[tuple[int, tuple[int, ...]], MoveMenu] = {}


def move_menu(ap: int, status: tuple[int, ...]) -> MoveMenu:
    """The left wheel lists every program that can be run (crashes marked), the right wheel
    the turn after the last Forward; a selection is legal if the AP cover both."""
    key = (ap, status)
    menu = _MENUS.get(key)
    if menu is not None:
        return menu
    tree = G.TREES[ap]
    nodes = tuple(i for i, st in enumerate(status) if st != G.BARRED)
    faces = tuple(Face(tree[i].text + G.CRASH_MARK, k, "ff3030") if status[i] != G.OK
                  else Face(tree[i].text, k, "ffffff") for k, i in enumerate(nodes))
    legal = tuple((k, INACTIVE, t) for k, i in enumerate(nodes)
                  for t, (_, _, cost) in enumerate(G.END_TURNS)
                  if (t == 0 or status[i] == G.OK) and tree[i].cost + cost <= ap)
    ends = [t for t, (_, _, cost) in enumerate(G.END_TURNS) if cost <= ap - 1]
    reasons = {t: f"turning {G.END_TURNS[t][0]} at the end needs {G.END_TURNS[t][2] + 1} "
                  f"AP with a Forward; this rider has {ap}" for t in range(4) if t not in ends}
    menu = MoveMenu(wheels(Wheel.of(faces), None, Wheel.of(END_FACES, ends, reasons)),
                    nodes, legal, frozenset(legal))
    if len(_MENUS) > 20_000:
        _MENUS.clear()
    _MENUS[key] = menu
    return menu


class PipCycle(Game):
    name = "pipcycle"
    Options = PipCycleOptions
    Position = PipCyclePosition

    # ------------------------------------------------------------------ setup and state

    def setup(self) -> None:
        self._common()
        self.dealer = self.chance.randrange(self.n)
        self.starter = self.dealer
        self.reserve = [DICE] * self.n

    def _common(self) -> None:
        opts = self.options
        assert isinstance(opts, PipCycleOptions)
        self.opts: PipCycleOptions = opts
        self.n = opts.players
        self.size = opts.size
        self.edges = G.EDGES[self.n]
        self.full_deck = C.deck(opts.deck_ranks, opts.suits)
        self.pile: list[str] = []
        """The draw pile; its top card is the last."""
        self.hands: list[list[str]] = [[] for _ in range(self.n)]
        self.played: list[str] = []
        self.riders: list[Rider] = []
        self.next_rider = 1
        self.claimed: dict[G.Line, int] = {}
        self.trophies: list[list[int]] = [[] for _ in range(self.n)]
        self.lost = [0] * self.n
        self.round = 0
        self.exchange = 0
        self.crashed = False
        self.check_view: dict[str, Any] | None = None
        self.resolved: list[dict[str, Any]] = []
        self.crashes: list[dict[str, Any]] = []
        self.last_move: dict[str, Any] | None = None
        self.previous: dict[str, Any] | None = None
        """The grid as the last round ended (its crash, its card check), shown while the
        riders of the next round are placed."""
        self.rounds: list[dict[str, Any]] = []
        self.phase = "setup"
        self.move: MoveChoice | None = None
        self.dealer = 0
        self.starter = 0
        self.reserve = [DICE] * self.n

    def setup_position(self, position: BaseModel) -> None:
        assert isinstance(position, PipCyclePosition)
        self._common()
        pos, n, size = position, self.n, self.size

        def bad(field: str, why: str) -> InvalidPosition:
            return InvalidPosition(f"pipcycle position: {field}: {why}")

        def seat_ok(field: str, s: int) -> None:
            if not 0 <= s < n:
                raise bad(field, f"there is no seat {s} with {n} players (seats 0-{n - 1})")

        seen: set[str] = set()
        deck = set(self.full_deck)

        def card_list(field: str, items: list[str]) -> list[str]:
            out = []
            for i, c in enumerate(items):
                c = c.strip().upper()
                if c not in deck:
                    raise bad(f"{field}.{i}", f"{c!r} is not a card of this deck "
                              f"(ranks 1-{self.opts.deck_ranks}, suits {self.opts.suits})")
                if c in seen:
                    raise bad(f"{field}.{i}", f"{c} is named twice")
                seen.add(c)
                out.append(c)
            return out

        if len(pos.hands) != n:
            raise bad("hands", f"one hand per player ({n})")
        for s, hand in enumerate(pos.hands):
            if len(hand) > HAND:
                raise bad(f"hands.{s}", f"a hand holds at most {HAND} cards")
            self.hands[s] = card_list(f"hands.{s}", hand)
        self.pile = list(reversed(card_list("pile", pos.pile)))
        self.played = [c for c in self.full_deck if c not in seen]
        seat_ok("starter", pos.starter)
        self.starter = self.dealer = pos.starter
        for i, (a, b, s) in enumerate(pos.lines):
            seat_ok(f"lines.{i}", s)
            try:
                ln = G.line_between(G.parse(a, size), G.parse(b, size))
            except ValueError as e:
                raise bad(f"lines.{i}", str(e)) from None
            if ln in self.claimed:
                raise bad(f"lines.{i}", "that line is claimed twice")
            self.claimed[ln] = s
        for i, r in enumerate(pos.riders):
            seat_ok(f"riders.{i}.seat", r.seat)
            try:
                p = G.parse(r.at, size)
            except ValueError as e:
                raise bad(f"riders.{i}.at", str(e)) from None
            if any(o.at == p for o in self.riders):
                raise bad(f"riders.{i}.at", f"two riders on {r.at}")
            self.riders.append(Rider(self.next_rider, r.seat, p[0], p[1],
                                     G.FACINGS.index(r.facing), r.pips))
            self.next_rider += 1
        for s in range(n):
            if not self.riders_of(s):
                raise bad("riders", f"seat {s} has no rider on the grid")
        if pos.trophies is not None:
            if len(pos.trophies) != n:
                raise bad("trophies", f"one list per player ({n})")
            for s, owners in enumerate(pos.trophies):
                for o in owners:
                    seat_ok(f"trophies.{s}", o)
                    if o == s:
                        raise bad(f"trophies.{s}", "a player never captures its own die")
                self.trophies[s] = list(owners)
        if pos.lost is not None:
            if len(pos.lost) != n:
                raise bad("lost", f"one count per player ({n})")
            if min(pos.lost) < 0:
                raise bad("lost", "a count of dice lost is 0 or more")
            self.lost = list(pos.lost)
        for s in range(n):
            left = DICE - len(self.riders_of(s)) - self.captured_from(s) - self.lost[s]
            if left < 0:
                raise bad("riders", f"seat {s} has more than {DICE} dice "
                          "on the grid, captured and lost")
            self.reserve[s] = left
        self.round = pos.round
        self.crashed = pos.crashed
        self.phase = "play"

    def riders_of(self, seat: int) -> list[Rider]:
        return [r for r in self.riders if r.seat == seat]

    def captured_from(self, seat: int) -> int:
        return sum(owners.count(seat) for owners in self.trophies)

    def seat_order(self, first: int) -> list[int]:
        """Every seat clockwise, beginning with `first`."""
        return [(first + i) % self.n for i in range(self.n)]

    def snapshot(self) -> dict[str, Any]:
        return {
            "grid": self.size,
            "edges": list(self.edges),
            "round": self.round,
            "exchange": self.exchange,
            "phase": self.phase,
            "dealer": self.dealer,
            "starter": self.starter,
            "pile": list(reversed(self.pile)),
            "hands": [list(h) for h in self.hands],
            "played": list(self.played),
            "riders": [r.to_json() for r in self.riders],
            "lines": [[*G.line_ends(ln)[0], *G.line_ends(ln)[1], s]
                      for ln, s in self.claimed.items()],
            "reserve": list(self.reserve),
            "trophies": [list(t) for t in self.trophies],
            "lost": list(self.lost),
            "crashed": self.crashed,
            "check": self.check_view,
            "resolved": list(self.resolved),
            "crashes": list(self.crashes),
            "last_move": self.last_move,
            "rounds": list(self.rounds),
            "next_rider": self.next_rider,
            "previous": self.previous,
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """The table as `seat` sees it: its own hand; other hands and the pile only counted."""
        v = self.snapshot()
        v["seat"] = seat
        v["players"] = self.n
        v["pile"] = len(self.pile)
        v["hands"] = [list(h) if s == seat else len(h) for s, h in enumerate(self.hands)]
        v["pending"] = self.pending_view(seat)
        v["start_points"] = [[G.name(p) for p in G.start_points(s, self.n, self.size)]
                             for s in range(self.n)]
        if self.result is not None:
            v["result"] = self.result.to_json()
        return v

    def swap_hidden(self, player: int, rng: random.Random) -> bool:
        """Swap a card in `player`'s hand with one deep in the draw pile (below every card
        that can be drawn before `player` plays again)."""
        hand = self.hands[player]
        deep = len(self.pile) - HAND * self.n
        if not hand or deep <= 0:
            return False
        i, j = rng.randrange(len(hand)), rng.randrange(deep)
        hand[i], self.pile[j] = self.pile[j], hand[i]
        return True

    # ------------------------------------------------------------------ the rules

    def flow(self) -> Flow:
        if self.start_position is None:
            yield from self.new_round()
        while True:
            while not self.round_over():
                if not self.pile and not any(self.hands):
                    yield from self.exhausted()
                yield from self.exchange_cards()
            if self.end_round():
                return
            yield from self.new_round()

    def round_over(self) -> bool:
        return len({r.seat for r in self.riders}) < self.n

    def new_round(self) -> Step:
        if self.round:
            # the finished round stays on the screen while the next one is placed
            snap = self.snapshot()
            self.previous = {k: snap[k] for k in ("round", "lines", "riders", "crashes",
                                                   "check", "last_move")}
        self.round += 1
        self.exchange = 0
        self.crashed = False
        self.claimed.clear()
        for r in self.riders:
            self.reserve[r.seat] += 1
        self.riders.clear()
        self.crashes = []
        self.check_view = None
        self.resolved = []
        self.last_move = None
        self.hands = [[] for _ in range(self.n)]
        self.played = []
        self.pile = list(self.full_deck)
        self.chance.shuffle(self.pile)
        self.emit("pipcycle.round", f"Round {self.round}: the deck is shuffled and dealt.",
                  round=self.round)
        self.deal()
        yield from self.place([s for s in range(self.n) if self.reserve[s] > 0],
                              "Place your rider")
        self.previous = None

    def deal(self) -> None:
        """Draw back to 3 cards, the previous exchange winner (or dealer) first, clockwise."""
        for s in self.seat_order(self.starter):
            got = []
            while len(self.hands[s]) < HAND and self.pile:
                c = self.pile.pop()
                self.hands[s].append(c)
                got.append(c)
            if got and not self.quiet:
                self.emit("pipcycle.draw", f"{self.seat_name(s)} draws {len(got)} "
                          f"card{'s' * (len(got) > 1)}.", seat=s, count=len(got))
                self.emit("pipcycle.drew", f"You draw {' '.join(got)}.", to=s, cards=got)

    def place(self, seats: list[int], text: str) -> Step:
        """Every seat in `seats` deploys one rider on its own edge, all at once and sealed."""
        if not seats:
            return
        self.phase = "place"
        taken = {r.at for r in self.riders}
        asks, points = [], {}
        for s in seats:
            pts = start_points(s, self.n, self.size)
            busy = tuple(i for i, p in enumerate(pts) if p in taken)
            points[s] = pts
            asks.append(Ask(s, "pipcycle.place", f"{text} on your {self._edge_word(s)} edge",
                            place_wheels(s, self.n, self.size, busy)))
        answers = yield self.sealed(asks)
        for s in seats:
            x, y = points[s][answers[s][CENTRE]]
            r = Rider(self.next_rider, s, x, y, G.INWARD[self.edges[s]], START_PIPS)
            self.next_rider += 1
            self.riders.append(r)
            self.reserve[s] -= 1
            if not self.quiet:
                self.emit("pipcycle.placed", f"{self.seat_name(s)} places a rider on "
                          f"{G.name(r.at)} facing {G.FACINGS[r.facing]}.", seat=s, rider=r.id,
                          at=G.name(r.at))
        self.phase = "play"

    def _edge_word(self, seat: int) -> str:
        return {"S": "south", "N": "north", "W": "west", "E": "east"}[self.edges[seat]]

    def seat_name(self, seat: int) -> str:
        """The player by colour, marked for event and result texts (`naming.who`)."""
        return who(seat)

    def exhausted(self) -> Step:
        """Deck and hands ran out: Grid Escalation (no crash this round), else a reshuffle.

        At an escalation the new riders are placed first, then the played cards are
        reshuffled and dealt (the rulebook's order)."""
        grow = [s for s in range(self.n) if self.reserve[s] > 0]
        escalate = bool(grow) and (not self.crashed or self.opts.escalate_after_crash)
        if escalate:
            self.emit("pipcycle.escalation", "Grid Escalation: every player with a die to "
                      "spare adds a rider; the played cards are reshuffled.", seats=grow)
            yield from self.place(grow, "Grid Escalation: add a rider")
        else:
            why = "a rider crashed this round" if self.crashed else "no player has a die to spare"
            self.emit("pipcycle.reshuffle", f"The played cards are reshuffled ({why}: no "
                      "Grid Escalation).")
        self.pile = sorted(self.played, key=self.full_deck.index)
        self.played = []
        self.check_view = None  # its cards are back in the deck
        self.chance.shuffle(self.pile)
        self.deal()

    def exchange_cards(self) -> Step:
        self.exchange += 1
        self.phase = "play"
        asks, offered = [], {}
        riders = [0] * self.n
        for r in self.riders:
            riders[r.seat] += 1
        for s in range(self.n):
            hand = self.hands[s]
            if not hand:
                continue
            k = min(riders[s], len(hand))
            if k == len(hand):
                text = "Play your card" + ("s" if k > 1 else "") + " face down"
                offered[s] = [list(hand)]
            elif k == 1:
                text = "Play 1 card face down"
                offered[s] = [[c] for c in hand]
            else:
                text = f"Play {k} of your {len(hand)} cards face down"
                offered[s] = [[c for c in hand if c != keep] for keep in hand]
            ws = keep_wheels(tuple(hand)) if 1 < k < len(hand) else \
                play_wheels(tuple(hand), k == len(hand))
            asks.append(Ask(s, "pipcycle.play", text, ws))
        answers = yield self.sealed(asks)
        plays: dict[int, list[str]] = {}
        for s, choice in offered.items():
            chosen = sorted(choice[answers[s][CENTRE]], key=C.check_key)
            plays[s] = chosen
            for c in chosen:
                self.hands[s].remove(c)
                self.played.append(c)
        order = [(s, c) for s in self.seat_order(self.starter) for c in plays.get(s, [])]
        win_seat, win_card = order[0]
        for s, c in order[1:]:
            if C.rank(c) >= C.rank(win_card):
                win_seat, win_card = s, c
        self.check_view = {"exchange": self.exchange, "round": self.round,
                           "starter": self.starter,
                           "order": [[s, c] for s, c in order],
                           "winner": [win_seat, win_card]}
        self.resolved = []
        if not self.quiet:
            self.emit("pipcycle.check", "Cards: " + ", ".join(
                f"{self.seat_name(s)} {c}" for s, c in order) + f". {win_card} wins for "
                f"{self.seat_name(win_seat)}.", order=[[s, c] for s, c in order],
                winner=[win_seat, win_card])
        self.starter = win_seat
        self.phase = "resolve"
        left = {s: list(cs) for s, cs in plays.items()}
        received: set[int] = set()
        for _ in range(HAND):
            for s in self.seat_order(win_seat):
                if self.round_over():
                    return
                if left.get(s):
                    yield from self.resolve_one(s, left[s], received, (win_seat, win_card))
        if not self.round_over():
            self.deal()

    def resolve_one(self, seat: int, cards: list[str], received: set[int],
                    winner: tuple[int, str]) -> Step:
        """`seat` applies one of its played `cards` to one of its riders."""
        riders = [r for r in self.riders_of(seat) if r.id not in received]
        if len(cards) == 1 and len(riders) == 1:
            card, rider = cards[0], riders[0]
        else:
            cf = tuple(card_face(c) for c in cards)
            rf = tuple(Face(f"{G.name(r.at)} {r.pips}p", r.id, "ffffff") for r in riders)
            ans = yield self.open(Ask(seat, "pipcycle.assign",
                                      "Which card (left) on which rider (right)",
                                      wheels(Wheel.of(cf), None, Wheel.of(rf))))
            card, rider = cards[ans[seat][LEFT]], riders[ans[seat][RIGHT]]
        cards.remove(card)
        received.add(rider.id)
        s = C.suit(card)
        if (seat, card) == winner:
            how = "wins"
        elif s == "C":
            how = "club"
        elif C.rank(card) == rider.pips:
            power = self._power_text(card, rider.pips)
            ans = yield self.open(Ask(seat, "pipcycle.match",
                                      f"{card} matches {rider.pips} Pips: move, or "
                                      f"{C.SUIT_NAMES[s]}?",
                                      wheels(None, Wheel.of((Face("move", 0, "40d040"),
                                                             Face(power, 1, "ffffff"))), None)))
            how = "match" if ans[seat][CENTRE] == 0 else "suit"
        else:
            how = "suit"
        entry = {"seat": seat, "card": card, "rider": rider.id, "how": how}
        self.resolved.append(entry)
        if how == "suit":
            before = rider.pips
            rider.pips = C.apply_suit(card, rider.pips)
            entry["pips"] = [before, rider.pips]
            if not self.quiet:
                self.emit("pipcycle.suit", f"{card} on {self.seat_name(seat)}'s rider at "
                          f"{G.name(rider.at)}: {C.SUIT_NAMES[s]}, Pips {before} to {rider.pips}.",
                          seat=seat, card=card, rider=rider.id, pips=[before, rider.pips])
            return
        reason = {"wins": "the winning card", "club": "a Club",
                  "match": "a rank match"}[how]
        if not self.quiet:
            self.emit("pipcycle.movement", f"{card} gives {self.seat_name(seat)}'s rider at "
                      f"{G.name(rider.at)} Movement ({reason}).", seat=seat, card=card,
                      rider=rider.id, how=how)
        yield from self.movement(rider)

    @staticmethod
    def _power_text(card: str, pips: int) -> str:
        """The suit power as a wheel face (8 characters at most): "+1: 5", "flip: 2"."""
        return {"H": "+1", "D": "-1", "S": "flip"}[C.suit(card)] + \
            f": {C.apply_suit(card, pips)}"

    def movement(self, rider: Rider) -> Step:
        """Ask for a Movement program, then move along it, claiming lines, maybe crashing."""
        ap = G.ap_for(rider.pips)
        others = {r.at for r in self.riders if r is not rider}
        status = G.statuses(rider.at, rider.facing, ap, self.size, self.claimed, others)
        menu = move_menu(ap, status)
        text = f"Move {G.name(rider.at)}, {ap} AP: F fwd, L/R/U turn, ! crash"
        ask = Ask(rider.seat, "pipcycle.move", text, menu.wheels)
        self.move = MoveChoice(ask, rider, menu, ap, status)
        ans = yield self.open(ask)
        self.move = None
        out = G.outcome(rider.at, rider.facing, ap, menu.nodes[ans[rider.seat][LEFT]], status)
        turn = G.END_TURNS[ans[rider.seat][RIGHT]]
        for ln in out.lines:
            self.claimed[ln] = rider.seat
        rider.x, rider.y = out.end
        self.last_move = {"rider": rider.id, "seat": rider.seat, "program": out.label,
                          "path": [G.name(p) for p in out.path], "crash": out.crash}
        if out.crash is None:
            rider.facing = (out.facing + turn[1]) % 4
            before = rider.pips
            rider.pips = C.decay(before)
            if not self.quiet:
                self.emit("pipcycle.moved", f"{self.seat_name(rider.seat)}'s rider moves "
                          f"{'-'.join(G.name(p) for p in out.path)}, faces "
                          f"{G.FACINGS[rider.facing]}, Pips {before} to {rider.pips}.",
                          seat=rider.seat, rider=rider.id, path=self.last_move["path"],
                          program=out.label)
            return
        self.crash(rider, out)

    def crash(self, rider: Rider, out: G.Outcome) -> None:
        self.riders.remove(rider)
        self.crashed = True
        seat = rider.seat
        hit = out.hit
        owner: int | None = None
        if out.crash == "line":
            assert isinstance(hit, tuple) and len(hit) == 3
            owner = self.claimed.get(hit)
            where = "-".join(G.name(p) for p in G.line_ends(hit))
            cause = f"on the claimed line {where}"
        elif out.crash == "edge":
            cause = "leaving the grid"
            where = G.name(out.end)
        else:
            where = G.name(out.end)
            cause = f"ending its Movement on the rider at {where}"
            owner = next((r.seat for r in self.riders if r.at == out.end), None)
        if self.n == 2:
            taker: int | None = 1 - seat
        elif self.opts.capture == "winner":
            taker = self.starter
        else:
            taker = owner
        if taker == seat:
            taker = None
        if taker is None:
            self.lost[seat] += 1
        else:
            self.trophies[taker].append(seat)
        self.crashes.append({"seat": seat, "rider": rider.id, "at": G.name(out.end),
                             "cause": out.crash, "where": where, "by": taker,
                             "round": self.round})
        self.emit("pipcycle.crash", f"{self.seat_name(seat)}'s rider crashes {cause}"
                  + (f"; {self.seat_name(taker)} captures the die." if taker is not None
                     else "; the die is out of the game."),
                  seat=seat, rider=rider.id, cause=out.crash, where=where, by=taker)

    def end_round(self) -> bool:
        """The round is over: riders go home, trophies are checked. True if the game ends."""
        for r in self.riders:
            self.reserve[r.seat] += 1
        self.riders.clear()
        counts = [len(t) for t in self.trophies]
        self.rounds.append({"round": self.round, "trophies": counts,
                            "crashes": list(self.crashes)})
        self.phase = "round"
        self.emit("pipcycle.round_end", f"Round {self.round} ends. Trophies: " + ", ".join(
            f"{self.seat_name(s)} {c}" for s, c in enumerate(counts)) + ".",
            round=self.round, trophies=counts)
        winners: list[int] = []
        if self.n == 2:
            winners = [s for s in range(2)
                       if counts[s] >= DICE or (counts[s] >= 2 and counts[1 - s] == 0)]
        else:
            out = any(self.reserve[s] == 0 for s in range(self.n))
            if out or max(counts) >= self.opts.target:
                winners = [s for s in range(self.n) if counts[s] == max(counts)]
        if not winners:
            return False
        self.phase = "over"
        names = whom(winners)
        text = f"{names} win{'s' * (len(winners) == 1)} PIP Cycle with " + \
            "-".join(str(c) for c in counts) + " trophies."
        self.result = Result({s: counts[s] for s in range(self.n)}, winners, text,
                             {"rounds": self.round, "trophies": [list(t) for t in self.trophies]})
        self.emit("game.over", text, winners=winners)
        return True

    # ------------------------------------------------------------------ meanings

    def meaning(self, ask: Ask, selection: Selection) -> str:
        """An answer as what it does: where a rider starts and which way it faces, the
        cards played (never the card kept), which card goes on which rider, a match as a
        Movement or a suit's power, a Movement as the points it passes."""
        topic = ask.topic
        if topic == "pipcycle.place":
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            facing = FACING_WORDS[G.FACINGS[G.INWARD[self.edges[ask.seat]]]]
            return f"a rider on {wheel.faces[selection[CENTRE]].label}, facing {facing}"
        if topic == "pipcycle.play":
            hand = self.hands[ask.seat]
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            if len(wheel.faces) == 1 and len(hand) > 1:
                played = list(hand)  # the whole hand (its one face may read "all 3")
            else:
                played = wheel.faces[selection[CENTRE]].label.split()  # a card, or cards
            played.sort(key=C.check_key)
            return ("plays " + " ".join(played) + " face down" if len(played) > 1
                    else f"plays {played[0]} face down")
        if topic == "pipcycle.assign":
            left, right = ask.wheels[LEFT], ask.wheels[RIGHT]
            assert left is not None and right is not None
            point = right.faces[selection[RIGHT]].label.split()[0]
            return f"{left.faces[selection[LEFT]].label} on the rider at {point}"
        if topic == "pipcycle.match":
            card = ask.text.split()[0]
            if selection[CENTRE] == 0:
                return f"{card} moves the rider (rank match)"
            wheel = ask.wheels[CENTRE]
            assert wheel is not None
            after = wheel.faces[selection[CENTRE]].label.split(":")[-1].strip()
            return f"{card} as {C.SUIT_NAMES[C.suit(card)]}: Pips to {after}"
        if topic == "pipcycle.move" and self.move is not None and self.move.ask is ask:
            return self._move_meaning(self.move, selection)
        return super().meaning(ask, selection)

    def _move_meaning(self, m: MoveChoice, selection: Selection) -> str:
        r = m.rider
        out = G.outcome(r.at, r.facing, m.ap, m.menu.nodes[selection[LEFT]], m.status)
        path = "-".join(G.name(p) for p in out.path)
        if out.crash == "edge":
            return f"{path}, crashes leaving the grid"
        if out.crash == "line":
            return f"{path}, crashes on a claimed line"
        if out.crash == "occupied":
            return f"{path}, crashes on the rider at {G.name(out.end)}"
        facing = (out.facing + G.END_TURNS[selection[RIGHT]][1]) % 4
        return f"{path}, ends facing {FACING_WORDS[G.FACINGS[facing]]}"

    # ------------------------------------------------------------------ legality

    def explain(self, ask: Ask, selection: Selection) -> str | None:
        m = self.move
        if m is None or m.ask is not ask or selection in m.menu.allowed:
            return None
        tree, nodes = G.TREES[m.ap], m.menu.nodes
        if not 0 <= selection[LEFT] < len(nodes):
            return "not a Movement this rider can make"
        node = tree[nodes[selection[LEFT]]]
        wheel = ask.wheels[LEFT]
        assert wheel is not None
        if wheel.faces[selection[LEFT]].label.endswith(G.CRASH_MARK) and selection[RIGHT] != 0:
            return f"{node.text} crashes: a crashed rider does not turn (ahead on the right)"
        cost = G.END_TURNS[selection[RIGHT]][2] if 0 <= selection[RIGHT] < 4 else 0
        return (f"{node.text} uses {node.cost} AP: turning at the end too needs "
                f"{node.cost + cost}, the rider has {m.ap}")

    def legal(self, ask: Ask) -> Iterator[Selection]:
        m = self.move
        if m is not None and m.ask is ask:
            return iter(m.menu.legal)
        # no other PIP Cycle question has a rule across wheels: every combination is legal
        r0, r1, r2 = (w.choices if w is not None else (INACTIVE,) for w in ask.wheels)
        return iter([(a, b, c) for a in r0 for b in r1 for c in r2])
