"""Outspeed's rules as an engine flow: Bonus, Programming, Resolution and Reveal, 13 turns."""

from __future__ import annotations

import random
import re
from collections.abc import Generator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dialbox.engine.decisions import Ask
from dialbox.engine.errors import InvalidOptions, InvalidPosition
from dialbox.engine.game import Flow, Game, GameOptions, Result
from dialbox.engine.naming import who, whom
from dialbox.engine.wheels import (
    CENTRE,
    DIGIT_FACES,
    LETTER_FACES,
    RIGHT,
    Face,
    Selection,
    Wheel,
    Wheels,
    wheels,
)
from dialbox.games.outspeed.boards import START_ZONE, Racetrack
from dialbox.games.outspeed.dice import load_dice
from dialbox.games.outspeed.tiles import (
    ROUTES,
    Amount,
    Route,
    TileFormatError,
    TileSet,
    TileSide,
    TrackTile,
    load_tile_set,
)
from dialbox.games.outspeed.tokens import (
    ELECTROMAGNET,
    FLAMETHROWER,
    FORCEFIELD,
    FORCEFIELD_TOKENS,
    FUEL_TANK,
    ION_CANNON,
    KINDS,
    NAMES,
    NITRO,
    SHORT,
    BonusStack,
    full_set,
)

START_FUEL = 12
ROUTE_LETTER = {c: LETTER_FACES[i].label for i, c in enumerate(ROUTES)}
"""Right wheel: A = red light, B = yellow light, C = green light; D (blue) is never a route."""
_X = re.compile(r"\bX\b")


def route_name(colour: str) -> str:
    """A route in texts: by its wheel letter first, its light after ("route B (yellow)"), so
    it does not read as a seat (seats are named by colour too: "Yellow takes route B")."""
    return f"route {ROUTE_LETTER[colour]} ({colour})"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]
Step = Generator[Any, dict[int, Selection], Any]

WheelKey = tuple[int, str, int, str, str]
"""(tile number, side, Fuel, forced_routes, x_dial): all a route prompt's wheels depend on."""


class PromptCache:
    """Per tile set, shared by all games using it: routes' best costs and route prompts.

    Tile sets never change once loaded, and the dice data is fixed, so these depend only on
    their keys. The cache holds its tile set, so the route ids it is keyed by stay unique.
    """

    __slots__ = ("tileset", "min_costs", "route_wheels")

    def __init__(self, tileset: TileSet) -> None:
        self.tileset = tileset
        self.min_costs: dict[int, int] = {}
        self.route_wheels: dict[WheelKey, tuple[str, Wheels]] = {}


_CACHES: dict[int, PromptCache] = {}


def prompt_cache(tileset: TileSet) -> PromptCache:
    cache = _CACHES.get(id(tileset))
    if cache is None or cache.tileset is not tileset:
        if len(_CACHES) > 64:
            _CACHES.clear()
        cache = _CACHES[id(tileset)] = PromptCache(tileset)
    return cache

TOKEN_FACES: tuple[Face, ...] = (Face("Pass", 0, "9e9e9e"),) + tuple(
    Face(SHORT[k], i + 1, c)
    for i, (k, c) in enumerate(zip(KINDS, ("8e24aa", "3949ab", "e53935", "00acc1", "fdd835",
                                           "fb8c00"), strict=True))
)
"""Centre wheel in the Bonus prompt: face 0 passes, faces 1-6 are the six token kinds."""


class OutspeedPosition(BaseModel):
    """A position to start from instead of the usual setup (scenarios, puzzles, tests)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tiles: list[int]
    """The remaining tile stack; the first is the tile in view this turn."""
    zones: list[int | None]
    """Each seat's zone (absolute; the rear board starts at `rear`); null = eliminated."""
    fuel: list[int]
    tokens: list[list[str]] = Field(default_factory=list)
    bonus_stack: list[str] | None = None
    """Top first. Default: the Bonus tokens nobody holds, shuffled."""
    discard: list[str] = Field(default_factory=list)
    forcefields: dict[int, int] = Field(default_factory=dict)
    rear: int = 0
    boards: int = 2
    side: Literal["3-4", "5-6"] | None = None


Position = OutspeedPosition
"""The older name, still used by scenario files and saves."""


class OutspeedOptions(GameOptions):
    """Outspeed's options; see docs/rules-notes.md for why each named option exists."""

    tile_set: str = "sample"
    """A bundled tile set by name, a path to a tile-set TOML file, or a registered name."""
    x_dial: Literal["programming", "resolution"] = "programming"
    """When the centre-wheel X is dialled: with the route, or after the routes are revealed."""
    forced_routes: Literal["any", "cheapest"] = "any"
    """When no lit route is affordable: any lit route may be programmed, or only the cheapest."""
    position: OutspeedPosition | None = None

    @model_validator(mode="after")
    def _check(self) -> OutspeedOptions:
        if not 3 <= self.players <= 6:
            raise ValueError(f"Outspeed is for 3 to 6 players, not {self.players}")
        if self.variant not in ("standard", "first-game"):
            raise ValueError(
                f"variant is 'standard' or 'first-game' (tiles 1-13 in order), not {self.variant!r}"
            )
        return self


class Outspeed(Game):
    """The race: 3-6 Ships, 12 Track tiles and a Finish Line tile, Bonus tokens."""

    name = "outspeed"
    Options = OutspeedOptions
    Position = OutspeedPosition

    def setup_position(self, position: BaseModel) -> None:
        """`Game.from_position`: the same as the `position` option (kept for old saves)."""
        assert isinstance(position, OutspeedPosition)
        opts = self.options
        assert isinstance(opts, OutspeedOptions)
        self.options = opts.model_copy(update={"position": position})
        self.setup()

    # ------------------------------------------------------------------ setup and state

    def setup(self) -> None:
        opts = self.options
        assert isinstance(opts, OutspeedOptions)
        self.opts: OutspeedOptions = opts
        n = opts.players
        try:
            self.tileset: TileSet = load_tile_set(opts.tile_set)
        except TileFormatError as e:
            raise InvalidOptions(f"outspeed: {e}") from None
        self.dice = load_dice()
        self._cache = prompt_cache(self.tileset)
        self.turn = 1
        self.phase = "setup"
        self.track = Racetrack()
        self.held: list[list[str]] = [[] for _ in range(n)]
        self.alive = [True] * n
        self.eliminated_on: dict[int, int] = {}
        self.facedown: dict[int, str] = {}
        self.drawing: tuple[int, list[str]] | None = None
        self.last_routes: dict[int, str] = {}
        self._under: list[tuple[int, int]] = []
        """(keep decision, depth from the top) of each token put back under the stack."""
        pos = opts.position
        if pos is None:
            self.side = "5-6" if n >= 5 else "3-4"
            self.fuel = [START_FUEL] * n
            for s in range(n):
                self.track.zones[s] = START_ZONE
            if opts.variant == "first-game":
                self.stack = list(range(1, 14))
                missing = [t for t in self.stack if t not in self.tileset.tiles]
                if missing:
                    raise InvalidOptions(f"outspeed: the first game needs tiles 1-13; missing "
                                         f"{missing}")
            else:
                track = self.tileset.track
                self.chance.shuffle(track)
                finish = self.tileset.finish
                self.stack = track[:12] + [finish[self.chance.randrange(len(finish))]]
            tokens = full_set()
            self.chance.shuffle(tokens)
            self.bonus = BonusStack(tokens)
        else:
            self._setup_position(pos)
        self._check_side()

    def _setup_position(self, pos: OutspeedPosition) -> None:
        n = self.opts.players
        for field, values in (("zones", pos.zones), ("fuel", pos.fuel), ("tokens", pos.tokens)):
            if values and len(values) != n or field != "tokens" and not values:
                raise InvalidPosition(f"outspeed position: {field}: one entry per seat ({n}), "
                                      f"not {len(values)}")
        if pos.boards not in (2, 3):
            raise InvalidPosition(f"outspeed position: boards: 2 or 3, not {pos.boards}")
        if any(f < 0 for f in pos.fuel):
            raise InvalidPosition("outspeed position: fuel: no negative Fuel")
        bad = [t for t in pos.tiles if t not in self.tileset.tiles]
        if not pos.tiles or bad:
            raise InvalidPosition(f"outspeed position: tiles: unknown to the tile set "
                                  f"{self.opts.tile_set!r}: {bad or 'none given'}")
        piles = [(f"tokens.{s}", hand) for s, hand in enumerate(pos.tokens)]
        piles += [("bonus_stack", pos.bonus_stack or []), ("discard", pos.discard)]
        for where, pile in piles:
            for k in pile:
                if k not in KINDS:
                    raise InvalidPosition(f"outspeed position: {where}: unknown Bonus token "
                                          f"{k!r} (one of {', '.join(KINDS)})")
        self.stack = list(pos.tiles)
        self.fuel = list(pos.fuel)
        self.side = pos.side or ("5-6" if n >= 5 else "3-4")
        self.track = Racetrack(pos.rear, pos.boards)
        self.track.forcefields = {int(z): c for z, c in pos.forcefields.items() if c}
        for s, z in enumerate(pos.zones):
            if z is None:
                self.alive[s] = False
                self.eliminated_on[s] = 0
            elif not self.track.rear <= z <= self.track.front:
                raise InvalidPosition(f"outspeed position: zones.{s}: zone {z} is not on the "
                                      f"boards ({self.track.rear}-{self.track.front})")
            else:
                self.track.zones[s] = z
        self.held = [list(h) for h in pos.tokens] if pos.tokens else [[] for _ in range(n)]
        if pos.bonus_stack is not None:
            stack = list(pos.bonus_stack)
        else:
            stack = full_set()
            for k in [k for h in self.held for k in h] + list(pos.discard):
                if k in stack:
                    stack.remove(k)
            self.chance.shuffle(stack)
        self.bonus = BonusStack(stack, list(pos.discard))

    @property
    def tile(self) -> TrackTile:
        return self.tileset.tiles[self.stack[0]]

    @property
    def routes(self) -> TileSide:
        return self.tile.side(self.side)

    def racing(self) -> list[int]:
        return [s for s in range(self.opts.players) if self.alive[s]]

    def snapshot(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "phase": self.phase,
            "side": self.side,
            "stack": list(self.stack),
            "fuel": list(self.fuel),
            "alive": list(self.alive),
            "zones": [self.track.zones.get(s) for s in range(self.opts.players)],
            "rear": self.track.rear,
            "boards": self.track.boards,
            "forcefields": {str(z): c for z, c in sorted(self.track.forcefields.items())},
            "entered": sorted(self.track.entered),
            "tokens": [list(h) for h in self.held],
            "bonus_stack": list(self.bonus.stack),
            "discard": list(self.bonus.discard),
            "facedown": {str(s): k for s, k in sorted(self.facedown.items())},
            "drawing": None if self.drawing is None else [self.drawing[0], list(self.drawing[1])],
            "eliminated_on": {str(s): t for s, t in sorted(self.eliminated_on.items())},
            "last_routes": {str(s): c for s, c in self.last_routes.items()},
        }

    def view(self, seat: int | None) -> dict[str, Any]:
        """The table as `seat` sees it: own tokens; others' only counted; stacks face down."""
        v = self.snapshot()
        v["seat"] = seat
        v["stack"] = v["stack"][:1]
        v["tiles_left"] = len(self.stack)
        v["bonus_stack"] = len(self.bonus.stack)
        v["tokens"] = [h if s == seat else len(h) for s, h in enumerate(v["tokens"])]
        v["facedown"] = {k: (t if k == str(seat) else "?") for k, t in v["facedown"].items()}
        if self.drawing is not None and self.drawing[0] != seat:
            v["drawing"] = [self.drawing[0], len(self.drawing[1])]
        v["tile"] = tile_view(self.tile, self.side) if self.stack else None
        return v

    # ------------------------------------------------------------------ legality

    def min_cost(self, route: Route) -> int:
        """The best possible Fuel cost of a route as printed (X counted as 0)."""
        low = self._cache.min_costs.get(id(route))
        if low is None:
            a = route.fuel_cost
            low = a.fixed + sum(1 for c in a.colours if c == route.colour)
            for d in a.dice:
                low += min(abs(f.value) for f in self.dice[d].faces)
            self._cache.min_costs[id(route)] = low
        return low

    def route_choice(self, seat: int) -> tuple[list[str], dict[int, str], bool]:
        """Programmable routes for `seat`, reasons for the others, and whether it is forced."""
        fuel = self.fuel[seat]
        lit = self.routes.routes
        reasons: dict[int, str] = {3: "D (blue) is not an Outspeed route: A red, B yellow, C green"}
        costs = {c: self.min_cost(r) for c, r in lit.items()}
        ok = [c for c in ROUTES if c in lit and costs[c] <= fuel]
        forced = not ok
        if forced:
            least = min(costs.values())
            ok = [c for c in ROUTES if c in lit
                  and (self.opts.forced_routes == "any" or costs[c] == least)]
        for i, c in enumerate(ROUTES):
            if c not in lit:
                reasons[i] = f"the {c} light is off on this tile: no {c} route"
            elif c not in ok:
                reasons[i] = (f"the {c} route costs at least {costs[c]} Fuel and you have {fuel}"
                              if not forced else
                              f"no route is affordable; the {c} route is not among the cheapest")
        return ok, reasons, forced

    def x_limit(self, seat: int, route: Route, forced: bool) -> int:
        """The largest X `seat` may dial on an X route (0 when forced onto it)."""
        if forced:
            return 0
        return max(0, min(9, self.fuel[seat] - self.min_cost(route)))

    def _route_ask(self, seat: int) -> Ask:
        opts = self.opts
        key = (self.stack[0], self.side, self.fuel[seat], opts.forced_routes, opts.x_dial)
        store = self._cache.route_wheels
        cached = store.get(key)
        if cached is None:
            if len(store) > 20_000:
                store.clear()
            cached = store[key] = self._build_route_wheels(seat)
        text, ws = cached
        return Ask(seat, "outspeed.route", text, ws)

    def _build_route_wheels(self, seat: int) -> tuple[str, Wheels]:
        """The route prompt's text and wheels; they depend only on tile, side and Fuel."""
        ok, reasons, forced = self.route_choice(seat)
        right = Wheel.of(LETTER_FACES, [ROUTES.index(c) for c in ok], reasons)
        centre = None
        limits = self.x_limits(seat, ok, forced)
        if limits and self.opts.x_dial == "programming":
            top = max(limits.values())
            centre = Wheel.of(DIGIT_FACES, range(top + 1), {
                d: f"X costs {d} Fuel on top of the route's cost; you can dial at most {top}"
                for d in range(top + 1, 10)
            })
        tile = self.tile
        kind = "Finish" if tile.finish else "Tile"
        text = f"{kind} {tile.number}: route (A red B yellow C green)"
        if forced:
            text = f"{kind} {tile.number}: no affordable route, pick one"
        return text, wheels(None, centre, right)

    def x_limits(self, seat: int, ok: list[str], forced: bool) -> dict[str, int]:
        """The largest X `seat` may dial on each X route of the tile in view."""
        return {
            c: self.x_limit(seat, r, forced or c not in ok)
            for c, r in self.routes.routes.items() if r.uses_x
        }

    def explain(self, ask: Ask, selection: Selection) -> str | None:
        if ask.topic != "outspeed.route" or ask.wheels[CENTRE] is None:
            return None
        colour = ROUTES[selection[RIGHT]]
        route = self.routes.routes.get(colour)
        if route is None:
            return None
        x = selection[CENTRE]
        if not route.uses_x:
            if x != 0:
                return (f"the centre wheel (X) only counts for a route marked X; leave it on 0 "
                        f"for the {colour} route")
            return None
        ok, _, forced = self.route_choice(ask.seat)
        top = self.x_limit(ask.seat, route, forced or colour not in ok)
        if x > top:
            return f"on the {colour} route X costs {x} Fuel on top of its cost; at most {top}"
        return None

    # ------------------------------------------------------------------ the flow

    def flow(self) -> Flow:
        self._announce_tile()
        while True:
            self.phase = "bonus"
            yield from self._bonus_phase()
            if self._race_over():
                break
            self.phase = "programming"
            asks = [self._route_ask(s) for s in self.racing()]
            answers = yield self.sealed(asks)
            self.phase = "resolution"
            yield from self._resolution(answers)
            if self._race_over():
                break
            self.phase = "reveal"
            if self._reveal():
                break
        self.phase = "over"
        self._finish()

    def _race_over(self) -> bool:
        return sum(self.alive) <= 1

    # ------------------------------------------------------------------ Bonus phase

    def playable(self, seat: int) -> tuple[set[str], dict[str, str]]:
        """Token kinds `seat` may play now, and why each other held kind may not."""
        zone = self.track.zones[seat]
        rearmost = min(self.track.zones.values())
        ok: set[str] = set()
        why: dict[str, str] = {}
        for k in set(self.held[seat]):
            if k in (ION_CANNON, ELECTROMAGNET) and zone != rearmost:
                why[k] = f"{NAMES[k]}: your Ship must be on the furthest back occupied zone"
            elif k == FORCEFIELD and self.tile.finish:
                why[k] = "Forcefield cannot be played while the Finish Line tile is showing"
            else:
                ok.add(k)
        return ok, why

    def _bonus_ask(self, seat: int, ok: set[str], why: dict[str, str]) -> Ask:
        allowed = [0] + [i + 1 for i, k in enumerate(KINDS) if k in ok]
        reasons = {
            i + 1: why.get(k, f"you hold no {NAMES[k]} token") for i, k in enumerate(KINDS)
        }
        return Ask(seat, "outspeed.bonus", "Play a Bonus token? (Pass or a token)",
                   wheels(None, Wheel.of(TOKEN_FACES, allowed, reasons), None), (-1, 0, -1))

    def _bonus_phase(self) -> Step:
        """Front to back, every Ship holding a token says whether it plays one; the token
        itself is a private answer, face down until all have decided (rulebook, Bonus)."""
        order = sorted(self.racing(), key=lambda s: (-self.track.zones[s], s))
        played: dict[int, str] = {}
        decisions = []
        for s in order:
            if not self.held[s]:
                continue
            # A Ship whose tokens are all unplayable now is still asked (it can only pass):
            # skipping it would tell the table that it holds no playable token.
            ok, why = self.playable(s)
            d = self.private([self._bonus_ask(s, ok, why)])
            decisions.append(d)
            answers = yield d
            idx = answers[s][CENTRE]
            if idx == 0:
                self.emit("outspeed.bonus.pass", f"{who(s)} plays no Bonus token.", seat=s)
                continue
            kind = KINDS[idx - 1]
            self.held[s].remove(kind)
            self.facedown[s] = kind
            played[s] = kind
            self.emit("outspeed.bonus.announce", f"{who(s)} plays a Bonus token face down.",
                      seat=s)
            self.emit("outspeed.bonus.facedown", f"You play your {NAMES[kind]} face down.",
                      to=s, seat=s, token=kind)
        self.disclose(*decisions)
        if not played:
            return
        self.facedown = {}
        self.emit("outspeed.bonus.reveal", "Bonus tokens revealed: " + ", ".join(
            f"{who(s)}'s {NAMES[k]}" for s, k in sorted(played.items())) + ".",
            played={str(s): k for s, k in sorted(played.items())})
        by_zone: dict[int, list[int]] = {}
        for s in played:
            by_zone.setdefault(self.track.zones[s], []).append(s)
        for zone in sorted(by_zone, reverse=True):
            users = [s for s in sorted(by_zone[zone]) if self.alive[s]]
            self._apply_bonuses(zone, {s: played[s] for s in users})
            if self._race_over():
                break
        self.bonus.discard.extend(played[s] for s in sorted(played))

    def _apply_bonuses(self, zone: int, used: dict[int, str]) -> None:
        """Apply the tokens played from one zone at once; their effects add up."""
        zones = dict(self.track.zones)
        ahead = sorted({z for z in zones.values() if z > zone})
        move: dict[int, int] = {}
        loss: dict[int, int] = {}
        gain: dict[int, int] = {}
        for s, kind in sorted(used.items()):
            if kind == ION_CANNON:
                for t, z in zones.items():
                    if z > zone:
                        loss[t] = loss.get(t, 0) + 2
            elif kind == ELECTROMAGNET and ahead:
                front = ahead[-1]
                for t, z in zones.items():
                    if z == front:
                        move[t] = move.get(t, 0) - 3
                    elif zone < z < front:
                        move[t] = move.get(t, 0) - 2
            elif kind == FLAMETHROWER and ahead:
                for t, z in zones.items():
                    if z == ahead[0]:
                        move[t] = move.get(t, 0) - 2
            elif kind == FORCEFIELD:
                if sum(self.track.forcefields.values()) >= FORCEFIELD_TOKENS:
                    self.emit("outspeed.forcefield.none", f"{who(s)}'s Forcefield has no "
                              "effect: all Forcefield markers are on the boards.", seat=s)
                    continue
                self.track.forcefields[zone] = self.track.forcefields.get(zone, 0) + 1
                self.emit("outspeed.forcefield", f"{who(s)} raises a Forcefield on zone "
                          f"{zone}.", seat=s, zone=zone)
            elif kind == FUEL_TANK:
                gain[s] = gain.get(s, 0) + 2
            elif kind == NITRO:
                move[s] = move.get(s, 0) + 1
        for t in sorted(set(loss) | set(gain)):
            before = self.fuel[t]
            self.fuel[t] = max(0, before + gain.get(t, 0) - loss.get(t, 0))
            self.emit("outspeed.fuel", f"{who(t)}: Fuel {before} -> {self.fuel[t]}.",
                      seat=t, before=before, after=self.fuel[t])
            if self.fuel[t] == 0:
                self._eliminate(t, "ran out of Fuel")
        for t in sorted(move):
            if self.alive[t] and move[t] and self._move(t, move[t], "bonus") is None:
                self._eliminate(t, "was pushed back past the last zone")
        self._check_side()

    # ------------------------------------------------------------------ Resolution

    def _resolution(self, answers: dict[int, Selection]) -> Step:
        lit = self.routes.routes
        choice = {s: ROUTES[sel[RIGHT]] for s, sel in sorted(answers.items())}
        xs = {s: max(0, sel[CENTRE]) for s, sel in answers.items()}
        self.last_routes = choice
        by_route: dict[str, list[int]] = {c: [] for c in ROUTES}
        for s, c in choice.items():
            by_route[c].append(s)
        counts = {c: len(by_route[c]) for c in ROUTES}
        if not self.quiet:
            self.emit("outspeed.routes", "Routes: " + "; ".join(
                f"{ROUTE_LETTER[c]} ({c}) for {whom(by_route[c])}" for c in ROUTES
                if by_route[c]) + ".",
                routes={str(s): c for s, c in choice.items()}, counts=counts)
        pay: list[int] = []
        gain: list[int] = []
        for colour, route in lit.items():
            takers = by_route[colour]
            if not takers:
                continue
            if route.capacity is not None and len(takers) > route.capacity:
                self.emit("outspeed.overflow", f"{cap(route_name(colour))} has room for "
                          f"{route.capacity}; {whom(takers)} took it and all lose their turn.",
                          route=colour, seats=takers)
            elif route.alone:
                if len(takers) == 1:
                    gain += takers
                    self.emit("outspeed.alone", f"{who(takers[0])} is alone on "
                              f"{route_name(colour)}: the benefit is free.", route=colour,
                              seats=takers)
                else:
                    pay += takers
                    self.emit("outspeed.crowded", f"{whom(takers)} share "
                              f"{route_name(colour)}: they pay and gain nothing.", route=colour,
                              seats=takers)
            else:
                pay += takers
                gain += takers
        pay.sort()
        gain.sort()
        if self.opts.x_dial == "resolution":
            dialers = sorted({s for s in pay + gain if lit[choice[s]].uses_x})
            if dialers:
                asks = []
                for s in dialers:
                    top = max(0, min(9, self.fuel[s] - self.min_cost(lit[choice[s]])))
                    asks.append(Ask(s, "outspeed.x", "Dial X: zones to move, Fuel to spend",
                                    wheels(None, Wheel.of(DIGIT_FACES, range(top + 1)), None)))
                got = yield self.sealed(asks)
                for s in dialers:
                    xs[s] = got[s][CENTRE]
        # Costs, all at once.
        finish = self.tile.finish
        due: dict[int, int] = {}
        for s in pay:
            a = lit[choice[s]].fuel_cost
            due[s] = (yield from self._value(a, s, counts, xs[s])) if a.dice else \
                self._plain(a, counts, xs[s])
        out: list[tuple[int, str]] = []
        for s in pay:
            cost = due[s]
            before = self.fuel[s]
            if cost > before:
                self.fuel[s] = 0
                out.append((s, f"had to spend {cost} Fuel with only {before}"))
            else:
                self.fuel[s] = before - cost
                if self.fuel[s] == 0 and not finish:
                    out.append((s, "ran out of Fuel"))
            if cost and not self.quiet:
                self.emit("outspeed.fuel", f"{who(s)} pays {cost} Fuel: {before} -> "
                          f"{self.fuel[s]}.", seat=s, before=before, after=self.fuel[s])
        for s, why in out:
            self._eliminate(s, why)
        self._check_side()
        if self._race_over():
            return
        # Benefits, all at once.
        gain = [s for s in gain if self.alive[s]]
        steps: dict[int, int] = {}
        fuel: dict[int, int] = {}
        draws: dict[int, int] = {}
        for s in gain:
            r = lit[choice[s]]
            x = xs[s]
            steps[s] = (yield from self._value(r.move, s, counts, x)) if r.move.dice else \
                self._plain(r.move, counts, x)
            fuel[s] = (yield from self._value(r.fuel_gain, s, counts, x)) if r.fuel_gain.dice \
                else self._plain(r.fuel_gain, counts, x)
            draws[s] = (yield from self._value(r.bonus, s, counts, x)) if r.bonus.dice else \
                self._plain(r.bonus, counts, x)
        for s in gain:
            if fuel[s]:
                before = self.fuel[s]
                self.fuel[s] += fuel[s]
                if not self.quiet:
                    self.emit("outspeed.fuel", f"{who(s)} gains {fuel[s]} Fuel: "
                              f"{before} -> {self.fuel[s]}.", seat=s, before=before,
                              after=self.fuel[s])
            if steps[s] > 0:
                self._move(s, steps[s], "tile")
        boards = self.track.boards
        lost = self.track.remove_rear_board()
        if self.track.boards < boards:
            self.emit("outspeed.board_removed", "The rearmost Progression board is removed.",
                      seats=lost, rear=self.track.rear)
        for s in lost:
            self._eliminate(s, "was on the rearmost Progression board when it was removed")
        self._check_side()
        if self._race_over():
            return
        for s in sorted((s for s in gain if self.alive[s] and draws[s] > 0),
                        key=lambda s: (-self.track.zones[s], s)):
            for _ in range(draws[s]):
                yield from self._gain_token(s)

    def _value(self, amount: Amount, seat: int, counts: dict[str, int], x: int) -> Step:
        """Evaluate an amount for one Ship, rolling its dice (each Ship rolls for itself)."""
        v = amount.fixed
        for c in amount.colours:
            v += counts[c]
        if amount.x:
            v += x
        for d in amount.dice:
            face = yield from self.roll(self.dice[d], seat)
            v += abs(face.value)
        return v

    @staticmethod
    def _plain(amount: Amount, counts: dict[str, int], x: int) -> int:
        """An amount that rolls no dice (no generator round trip on the hot path)."""
        v = amount.fixed
        for c in amount.colours:
            v += counts[c]
        if amount.x:
            v += x
        return v

    def meaning(self, ask: Ask, selection: Selection) -> str:
        """A route by its light and what it costs and gives ("yellow route (B): pay 2 Fuel ->
        move 3", with the X dialled), an X by its route, a Bonus token by its name (private
        answers: never shown to the table, which learns `public_part`)."""
        topic = ask.topic
        if topic == "outspeed.route":
            colour = ROUTES[selection[RIGHT]]
            route = self.routes.routes.get(colour)
            head = cap(route_name(colour))
            if route is None:
                return head
            effect = route.effect_text()
            if route.uses_x and selection[CENTRE] >= 0:
                x = selection[CENTRE]
                return f"{head}: {_X.sub(str(x), effect)} (X = {x})"
            return f"{head}: {effect}"
        if topic == "outspeed.x":
            taken = self.last_routes.get(ask.seat)
            on = f" on {route_name(taken)}" if taken else ""
            return f"X = {selection[CENTRE]}{on}"
        if topic == "outspeed.bonus":
            if selection[CENTRE] == 0:
                return "plays no Bonus token"
            return f"plays the {NAMES[KINDS[selection[CENTRE] - 1]]} face down"
        if topic == "outspeed.keep" and self.drawing is not None:
            got = self.drawing[1]
            keep = got[selection[CENTRE]]
            back = [k for i, k in enumerate(got) if i != selection[CENTRE]]
            rest = f", the {NAMES[back[0]]} to the bottom" if back else ""
            return f"keeps the {NAMES[keep]}{rest}"
        return super().meaning(ask, selection)

    def public_part(self, ask: Ask, selection: Selection) -> str | None:
        """Whether a Ship plays a Bonus token is announced aloud; which one stays face down."""
        if ask.topic == "outspeed.bonus":
            return "pass" if selection[CENTRE] == 0 else "plays a token face down"
        return None

    def swap_hidden(self, player: int, rng: random.Random) -> bool:
        """Swap one token `player` holds with a token of another kind inside the stack."""
        held = self.held[player]
        stack = self.bonus.stack
        options = [(i, j) for i, k in enumerate(held) for j, t in enumerate(stack) if t != k]
        if not options:
            return False
        i, j = options[rng.randrange(len(options))]
        held[i], stack[j] = stack[j], held[i]
        return True

    def _drawn(self, n: int) -> None:
        """n tokens left the top of the stack: a token put back under it by a private keep
        decision that is now drawn makes that decision's consequence visible to another
        seat, so the decision counts as disclosed (see Game.disclose)."""
        left = []
        for d, depth in self._under:
            if depth - n < 0:
                self.disclose(d)
            else:
                left.append((d, depth - n))
        self._under = left

    def _gain_token(self, seat: int) -> Step:
        got = self.bonus.draw(2, self.chance)
        self._drawn(len(got))
        if not got:
            self.emit("outspeed.bonus.none", "No Bonus token is left to draw.", seat=seat)
            return
        keep = got[0]
        if len(got) == 2:
            self.drawing = (seat, got)
            faces = tuple(Face(SHORT[k], i) for i, k in enumerate(got))
            ask = Ask(seat, "outspeed.keep", "Keep which Bonus token? (other to the bottom)",
                      wheels(None, Wheel.of(faces), None), (-1, 0, -1))
            d = self.private([ask])
            answers = yield d
            self.drawing = None
            keep = got[answers[seat][CENTRE]]
            got.remove(keep)
            self.bonus.to_bottom(got[0])
            self._under.append((d.id, len(self.bonus.stack) - 1))
            if not self.quiet:
                self.emit("outspeed.bonus.keep", f"You keep the {NAMES[keep]}; the "
                          f"{NAMES[got[0]]} goes to the bottom of the stack.", to=seat,
                          seat=seat, token=keep, returned=got[0])
        self.held[seat].append(keep)
        if not self.quiet:
            self.emit("outspeed.bonus.gain", f"{who(seat)} gains a Bonus token.", seat=seat)

    def _move(self, seat: int, steps: int, cause: str) -> int | None:
        boards = self.track.boards
        m = self.track.move(seat, steps)
        if self.quiet:
            return m.end
        if m.added_board:
            self.emit("outspeed.board_added", "The third Progression board is placed ahead.",
                      boards=self.track.boards, front=self.track.front)
        word = "forward" if steps > 0 else "back"
        if m.end is None:
            self.emit("outspeed.move", f"{who(seat)} moves {word} off the back of the "
                      "track.", seat=seat, start=m.start, end=None, cause=cause)
            return None
        extra = ""
        if m.forcefield:
            extra = " (stopped by a Forcefield)"
        elif m.capped:
            extra = " (the end of the third board)"
        self.emit("outspeed.move", f"{who(seat)} moves {word} from zone {m.start} to "
                  f"zone {m.end}{extra}.", seat=seat, start=m.start, end=m.end,
                  forcefield=m.forcefield, boards=boards, cause=cause)
        return m.end

    def _eliminate(self, seat: int, why: str) -> None:
        if not self.alive[seat]:
            return
        self.alive[seat] = False
        self.eliminated_on[seat] = self.turn
        self.track.zones.pop(seat, None)
        self.emit("outspeed.eliminated", f"{who(seat)} is eliminated: {why}.", seat=seat,
                  reason=why)

    def _check_side(self) -> None:
        if self.side == "5-6" and sum(self.alive) <= 4:
            self.side = "3-4"
            self.emit("outspeed.flip", "Four or fewer Ships remain: all tiles turn to their "
                      "3-4 player side.")

    # ------------------------------------------------------------------ Reveal and the end

    def _reveal(self) -> bool:
        done = self.stack.pop(0)
        cleared = self.track.clear_entered_forcefields()
        if cleared:
            self.emit("outspeed.forcefield.cleared", "Forcefields removed from zone(s) "
                      + ", ".join(str(z) for z in cleared) + ".", zones=cleared)
        finished = self.tileset.tiles[done].finish or not self.stack
        if not finished:
            self.turn += 1
            self._announce_tile()
        return finished

    def _announce_tile(self) -> None:
        if self.quiet:
            return
        tile = self.tile
        self.emit("outspeed.tile", f"Turn {self.turn}: {tile.title} ({self.side} side).",
                  tile=tile.number, turn=self.turn, finish=tile.finish, side=self.side)

    def standings(self) -> list[int]:
        """Racing Ships from first to last: furthest zone, then most Fuel, then most tokens."""
        return sorted(self.racing(), key=lambda s: (-self.track.zones[s], -self.fuel[s],
                                                    -len(self.held[s]), s))

    def _key(self, s: int) -> tuple[int, int, int]:
        return (self.track.zones[s], self.fuel[s], len(self.held[s]))

    def _finish(self) -> None:
        order = self.standings()
        winners = [s for s in order if self._key(s) == self._key(order[0])] if order else []
        scores = {s: (self.track.zones[s] if self.alive[s] else -1)
                  for s in range(self.opts.players)}
        if not winners:
            text = "Every Ship was eliminated: no winner."
        elif len(winners) == 1:
            text = f"{who(winners[0])} wins the race."
        else:
            text = f"Shared victory: {whom(winners)}."
        self.result = Result(scores, winners, text, {
            "order": order,
            "fuel": list(self.fuel),
            "tokens": [len(h) for h in self.held],
            "eliminated_on": {str(s): t for s, t in sorted(self.eliminated_on.items())},
        })
        self.emit("outspeed.end", text, winners=winners)


def amount_view(a: Amount) -> dict[str, Any]:
    return {"fixed": a.fixed, "colours": list(a.colours), "dice": list(a.dice), "x": a.x}


def tile_view(tile: TrackTile, side: str) -> dict[str, Any]:
    """The tile in view as plain data (for displays and bots)."""
    return {
        "number": tile.number,
        "title": tile.title,
        "finish": tile.finish,
        "side": side,
        "routes": {
            c: {
                "capacity": r.capacity,
                "alone": r.alone,
                "cost": amount_view(r.fuel_cost),
                "move": amount_view(r.move),
                "fuel": amount_view(r.fuel_gain),
                "bonus": amount_view(r.bonus),
                "text": r.text(),
                "condition": r.condition_text(),
                "effect": r.effect_text(),
            }
            for c, r in tile.side(side).routes.items()
        },
    }
