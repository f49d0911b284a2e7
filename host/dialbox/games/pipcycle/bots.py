"""PIP Cycle bots: a rider that keeps itself free and boxes the others in, from its own view.

The bot reads only what its seat's view shows (its own hand, the riders, the claimed lines,
the played cards, the card check) and the prompt. Every Movement it weighs is recomputed
from the view with the grid's own rules (grid.py), so it never needs the game object.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import permutations
from typing import Any

from dialbox.engine.decisions import Ask
from dialbox.engine.wheels import CENTRE, LEFT, RIGHT, Selection
from dialbox.games.pipcycle import cards as C
from dialbox.games.pipcycle import grid as G

CRASH = 100.0
"""What a crash of one of the bot's riders costs (and one of the others' riders earns)."""
TRAPPED = 30.0
"""A rider standing where its next Movement (at its AP) can only crash: a crash waiting."""
CAP = 6
"""Safe programs counted at most: beyond a handful, more choice hardly matters."""
AREA_CAP = 30
"""Points of reachable grid counted at most (the flood fill stops there)."""
OPP_WEIGHT = 0.8
"""How much hurting an opponent's rider counts against keeping the bot's own rider free."""

_LEGS = ((0, 1), (3, 2), (1, 2), (2, 3))
"""(quarter turns clockwise, AP) of each leg, cheapest first (as grid.LEGS)."""


@dataclass(slots=True)
class _Rider:
    id: int
    seat: int
    at: G.Point
    facing: int
    pips: int


@dataclass(slots=True)
class _Table:
    """The grid as the seat's view shows it."""

    seat: int
    players: int
    size: int
    claimed: dict[G.Line, int]
    riders: list[_Rider]

    @classmethod
    def of(cls, view: Mapping[str, Any], seat: int) -> _Table:
        claimed: dict[G.Line, int] = {}
        for x1, y1, x2, y2, owner in view["lines"]:
            claimed[(min(x1, x2), min(y1, y2), 0 if y1 == y2 else 1)] = int(owner)
        riders = [_Rider(int(r["id"]), int(r["seat"]), (int(r["x"]), int(r["y"])),
                         G.FACINGS.index(r["facing"]), int(r["pips"])) for r in view["riders"]]
        return cls(seat, int(view["players"]), int(view["grid"]), claimed, riders)

    def mine(self) -> list[_Rider]:
        return [r for r in self.riders if r.seat == self.seat]

    def others(self) -> list[_Rider]:
        return [r for r in self.riders if r.seat != self.seat]

    def rider(self, rid: int) -> _Rider | None:
        return next((r for r in self.riders if r.id == rid), None)


Step = tuple[G.Point, int, G.Line]
"""One Forward: the point reached, its index (x * size + y) and the line travelled."""


@cache
def _steps(size: int) -> tuple[tuple[Step | None, ...], ...]:
    """For each point (index x * size + y) and facing: the Forward from it (None: off the
    grid)."""
    out = []
    for x in range(size):
        for y in range(size):
            row: list[Step | None] = []
            for dx, dy in G.STEP:
                nx, ny = x + dx, y + dy
                if 0 <= nx < size and 0 <= ny < size:
                    row.append(((nx, ny), nx * size + ny,
                                (min(x, nx), min(y, ny), 1 if dx == 0 else 0)))
                else:
                    row.append(None)
            out.append(tuple(row))
    return tuple(out)


def safe_count(at: G.Point, facing: int, ap: int, size: int, claimed: Mapping[G.Line, int] |
               set[G.Line], occupied: set[G.Point], cap: int = CAP) -> int:
    """How many Movement programs of at most `ap` AP end well (no crash), counted up to `cap`.

    The same rules as grid.statuses (no claimed line, no line twice, not off the grid, no
    ending on a rider, no going straight through one), searched depth first so that an open
    position stops early.
    """
    steps = _steps(size)
    used: list[G.Line] = []
    count = 0

    def walk(i: int, f: int, budget: int, on_rider: bool) -> bool:
        nonlocal count
        here = steps[i]
        for turn, cost in _LEGS:
            if cost > budget:
                break
            if on_rider and turn == 0:
                continue
            nf = (f + turn) & 3
            step = here[nf]
            if step is None:
                continue
            q, qi, ln = step
            if ln in claimed or ln in used:
                continue
            occ = q in occupied
            if not occ:
                count += 1
                if count >= cap:
                    return True
            used.append(ln)
            if walk(qi, nf, budget - cost, occ):
                return True
            used.pop()
        return False

    walk(at[0] * size + at[1], facing, ap, False)
    return count


def area(start: G.Point, size: int, claimed: Mapping[G.Line, int] | set[G.Line],
         cap: int = AREA_CAP) -> int:
    """Points reachable from `start` along unclaimed lines, counted up to `cap`."""
    steps = _steps(size)
    first = start[0] * size + start[1]
    seen = {first}
    todo = [first]
    while todo:
        for step in steps[todo.pop()]:
            if step is not None and step[1] not in seen and step[2] not in claimed:
                seen.add(step[1])
                if len(seen) >= cap:
                    return cap
                todo.append(step[1])
    return len(seen)


def freedom(at: G.Point, facing: int, pips: int, size: int,
            claimed: Mapping[G.Line, int] | set[G.Line], occupied: set[G.Point],
            room: int | None = None) -> float:
    """How safe a rider standing at `at` is for its next Movement with `pips` Pips.

    Safe programs at its AP count most (none: a crash waiting), then whether a plain Forward
    stays safe (Pips may fall to 1 before it moves) and the open grid around it.
    """
    ap = G.ap_for(pips)
    s = safe_count(at, facing, ap, size, claimed, occupied)
    score = -TRAPPED if s == 0 else 3.0 * s
    if ap > 1 and safe_count(at, facing, 1, size, claimed, occupied, 1):
        score += 2.0
    if ap < 4:
        score += 0.5 * safe_count(at, facing, 4, size, claimed, occupied)
    if room is None:
        room = area(at, size, claimed)
    score += 0.3 * room
    if room < 6:
        score -= 3.0 * (6 - room)
    return score


class RiderBot:
    """Plays PIP Cycle from its own view: never crashes when a safe Movement exists, keeps
    room around its riders, closes the others' exits, and plays cards to move when moving
    pays (and to stay put when its rider is boxed in or an opponent must crash if it moves).

    A little noise from its own RNG keeps two bots from playing in step.
    """

    def __init__(self, seed: int = 0, noise: float = 0.5) -> None:
        self.rng = random.Random(seed)
        self.noise = noise
        self._seen: dict[tuple[Any, ...], list[tuple[float, int, int]]] = {}
        """Movement scores by table (a card prompt and the Movement after it share them)."""
        self._assigned: dict[str, int] = {}
        """card -> rider id for the cards this bot assigned in the current exchange."""

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        if len(legal) == 1:
            return legal[0]
        topic = ask.topic
        table = _Table.of(view, ask.seat)
        if topic == "pipcycle.move":
            return self._move(table, ask, legal)
        if topic == "pipcycle.play":
            return self._play(view, table, ask, legal)
        if topic == "pipcycle.assign":
            return self._assign(view, table, ask, legal)
        if topic == "pipcycle.match":
            return self._match(view, table, ask, legal)
        if topic == "pipcycle.place":
            return self._place(view, table, ask, legal)
        return legal[self.rng.randrange(len(legal))]

    # -------------------------------------------------------------- Movement

    def _others_score(self, table: _Table, mover: _Rider, end: G.Point,
                      claimed: Mapping[G.Line, int] | set[G.Line]) -> float:
        """The bot's gain from where the other riders stand (`mover` now at `end`): the
        opponents' freedom counts against it, its own other riders' for it."""
        points = {r.at for r in table.riders if r is not mover}
        points.add(end)
        total = 0.0
        for r in table.riders:
            if r is mover:
                continue
            points.discard(r.at)
            ap = G.ap_for(r.pips)
            s = safe_count(r.at, r.facing, ap, table.size, claimed, points)
            value = -TRAPPED if s == 0 else 3.0 * s
            if s and ap > 1 and not safe_count(r.at, r.facing, 1, table.size, claimed, points, 1):
                value -= 2.0
            points.add(r.at)
            if r.seat == table.seat:
                total += 0.5 * value
            else:
                total -= OPP_WEIGHT * (value + 0.2 * area(r.at, table.size, claimed))
        return total

    def _moves(self, table: _Table, rider: _Rider) -> list[tuple[float, int, int]]:
        """(score, program index in TREES[ap], end turn) for every Movement the rider can
        make (the Movement prompt's legal pairs), remembered for the same table."""
        key = (rider.id, rider.at, rider.facing, rider.pips, table.seat,
               tuple((r.id, r.at, r.facing, r.pips) for r in table.riders),
               frozenset(table.claimed.items()))
        got = self._seen.get(key)
        if got is None:
            if len(self._seen) > 64:
                self._seen.clear()
            got = self._seen[key] = self._score_moves(table, rider)
        return got

    def _score_moves(self, table: _Table, rider: _Rider) -> list[tuple[float, int, int]]:
        ap = G.ap_for(rider.pips)
        tree = G.TREES[ap]
        occupied = {r.at for r in table.riders if r is not rider}
        status = G.statuses(rider.at, rider.facing, ap, table.size, table.claimed, occupied)
        choices = [(i, t) for i, st in enumerate(status) if st != G.BARRED
                   for t, (_, _, cost) in enumerate(G.END_TURNS)
                   if (t == 0 or st == G.OK) and tree[i].cost + cost <= ap]
        claimed = set(table.claimed)
        after = C.decay(rider.pips)
        done: dict[int, tuple[G.Outcome, float, int]] = {}
        out: list[tuple[float, int, int]] = []
        base = self._others_score(table, rider, rider.at, table.claimed)
        for i, t in choices:
            if status[i] != G.OK:
                out.append((self._crash_score(table, rider, status, ap, i), i, t))
                continue
            got = done.get(i)
            if got is None:
                o = G.outcome(rider.at, rider.facing, ap, i, status)
                claimed.update(o.lines)
                got = (o, self._others_score(table, rider, o.end, claimed) - base,
                       area(o.end, table.size, claimed))
                claimed.difference_update(o.lines)
                done[i] = got
            o, others, room = got
            facing = (o.facing + G.END_TURNS[t][1]) & 3
            claimed.update(o.lines)
            mine = freedom(o.end, facing, after, table.size, claimed, occupied, room)
            claimed.difference_update(o.lines)
            score = mine + others + self.noise * self.rng.random()
            out.append((score, i, t))
        return out

    def _crash_score(self, table: _Table, rider: _Rider, status: tuple[int, ...], ap: int,
                     i: int) -> float:
        """A crash: the worst, less bad when nobody captures the die (3 players, "cause")."""
        score = -CRASH - 0.01 * G.TREES[ap][i].cost
        if table.players > 2:
            o = G.outcome(rider.at, rider.facing, ap, i, status)
            owner: int | None = None
            if o.crash == "line" and isinstance(o.hit, tuple) and len(o.hit) == 3:
                owner = table.claimed.get(o.hit)
            elif o.crash == "occupied":
                owner = next((r.seat for r in table.riders if r.at == o.end and r is not rider),
                             None)
            if owner is None or owner == table.seat:
                score += 5.0
        return score

    def _move_value(self, table: _Table, rider: _Rider) -> float:
        """The best the rider can do with a Movement now (-CRASH if every one crashes)."""
        return max(s for s, _, _ in self._moves(table, rider))

    def _stay_value(self, table: _Table, rider: _Rider, pips: int,
                    memo: dict[tuple[int, int], float] | None = None) -> float:
        """The rider staying where it is with `pips` Pips (scored like a Movement's end;
        Movements count the change they make to the others, so staying counts none).

        `memo` keeps the open grid around the rider (key (id, -2)) between calls."""
        memo = {} if memo is None else memo
        if (rider.id, -2) not in memo:
            memo[(rider.id, -2)] = area(rider.at, table.size, table.claimed)
        occupied = {r.at for r in table.riders if r is not rider}
        return freedom(rider.at, rider.facing, pips, table.size, table.claimed, occupied,
                       int(memo[(rider.id, -2)]))

    def _move(self, table: _Table, ask: Ask, legal: Sequence[Selection]) -> Selection:
        rider = self._asked_rider(table, ask.text)
        left = ask.wheels[LEFT]
        if rider is None or left is None:
            return legal[0]
        ap = G.ap_for(rider.pips)
        index = {n.text: i for i, n in enumerate(G.TREES[ap])}
        by_choice: dict[tuple[int, int], Selection] = {}
        safe: set[tuple[int, int]] = set()
        for sel in legal:
            label = left.faces[sel[LEFT]].label
            key = (index[label.removesuffix(G.CRASH_MARK)], sel[RIGHT])
            by_choice[key] = sel
            if not label.endswith(G.CRASH_MARK):
                safe.add(key)
        scored = [m for m in self._moves(table, rider) if (m[1], m[2]) in by_choice]
        if not scored:
            return legal[0]
        # a safe Movement always beats a crash, whatever the scores say
        _, i, t = max(scored, key=lambda m: ((m[1], m[2]) in safe, m[0]))
        return by_choice[(i, t)]

    @staticmethod
    def _asked_rider(table: _Table, text: str) -> _Rider | None:
        """The rider a Movement prompt names ("Move c4, 3 AP: ...")."""
        words = text.split()
        if len(words) < 2:
            return None
        try:
            at = G.parse(words[1].rstrip(",:"), table.size)
        except ValueError:
            return None
        return next((r for r in table.mine() if r.at == at), None)

    # -------------------------------------------------------------- cards

    def _win_chance(self, view: Mapping[str, Any], table: _Table, card: str) -> float:
        """The chance `card` wins the card check, if each opponent card is an unseen card."""
        hand = [c for c in view["hands"][table.seat]]
        seen = set(hand) | set(view["played"])
        top = max([6 if table.players == 2 else 9] + [C.rank(c) for c in seen])
        unseen = [r for r in range(1, top + 1) for s in C.SUITS if f"{r}{s}" not in seen]
        if not unseen:
            return 1.0
        r = C.rank(card)
        below = sum(1 for u in unseen if u < r) / len(unseen)
        tie = sum(1 for u in unseen if u == r) / len(unseen)
        starter = int(view["starter"])
        order = [(starter + i) % table.players for i in range(table.players)]
        chance = 1.0
        for s in range(table.players):
            if s == table.seat:
                continue
            riders = sum(1 for x in table.riders if x.seat == s)
            held = view["hands"][s]
            cards = min(riders, held if isinstance(held, int) else len(held))
            if cards == 0:
                continue
            after_me = order.index(s) > order.index(table.seat)
            p = below + (0.0 if after_me else tie)
            chance *= p ** cards
        return chance

    def _others_move(self, table: _Table) -> float:
        """The bot's gain when an opponent wins the check and must move: a trapped opponent
        crashes."""
        gain = 0.0
        for s in range(table.players):
            if s == table.seat:
                continue
            riders = [r for r in table.riders if r.seat == s]
            if not riders:
                continue
            points = {r.at for r in table.riders}
            free = 0
            for r in riders:
                points.discard(r.at)
                free = max(free, safe_count(r.at, r.facing, G.ap_for(r.pips), table.size,
                                            table.claimed, points, 1))
                points.add(r.at)
            gain += CRASH * 0.6 if free == 0 else -1.0
        return gain / max(1, table.players - 1)

    def _stay(self, table: _Table, rider: _Rider, pips: int,
              stay: dict[tuple[int, int], float]) -> float:
        key = (rider.id, pips)
        if key not in stay:
            stay[key] = self._stay_value(table, rider, pips, stay)
        return stay[key]

    def _card_value(self, table: _Table, card: str, rider: _Rider, wins: float,
                    move: dict[int, float], stay: dict[tuple[int, int], float]) -> float:
        """What `card` resolved on `rider` is worth, if it wins with chance `wins`."""
        def stay_at(pips: int) -> float:
            return self._stay(table, rider, pips, stay)

        if rider.id not in move:
            move[rider.id] = self._move_value(table, rider)
        moved = move[rider.id]
        if C.suit(card) == "C":
            lose = moved
        else:
            lose = stay_at(C.apply_suit(card, rider.pips))
            if C.rank(card) == rider.pips:
                lose = max(lose, moved)
        return wins * moved + (1.0 - wins) * lose

    def _best_spread(self, table: _Table, played: Sequence[str], riders: Sequence[_Rider],
                     wins: Mapping[str, float], move: dict[int, float],
                     stay: dict[tuple[int, int], float]) -> float:
        """The value of the best way to give `played` to `riders`, one card each (a rider
        left without a card keeps its Pips; a card left without a rider counts nothing)."""
        def value(c: str, r: _Rider) -> float:
            return self._card_value(table, c, r, wins.get(c, 0.0), move, stay)

        best = -float("inf")
        if len(played) >= len(riders):
            for cs in permutations(played, len(riders)):
                best = max(best, sum(value(c, r) for c, r in zip(cs, riders, strict=True)))
            return best
        for rs in permutations(riders, len(played)):
            v = sum(value(c, r) for c, r in zip(played, rs, strict=True))
            v += sum(self._stay(table, r, r.pips, stay) for r in riders if r not in rs)
            best = max(best, v)
        return best

    @staticmethod
    def _keep_value(kept: Iterable[str]) -> float:
        return sum(0.3 * C.rank(c) + (1.0 if C.suit(c) == "C" else 0.0) for c in kept)

    def _play(self, view: Mapping[str, Any], table: _Table, ask: Ask,
              legal: Sequence[Selection]) -> Selection:
        wheel = ask.wheels[CENTRE]
        riders = table.mine()
        if wheel is None or not riders:
            return legal[self.rng.randrange(len(legal))]
        self._assigned.clear()
        hand = [f.label for f in wheel.faces]
        k = min(len(riders), len(hand))
        held = view["hands"][table.seat]
        if 1 < k < len(held):  # each face is the cards played (one card of the hand kept)
            hand = list(held)
        others = self._others_move(table)
        move: dict[int, float] = {}
        stay: dict[tuple[int, int], float] = {}
        best: tuple[float, Selection] | None = None
        for sel in legal:
            pick = hand[sel[CENTRE]]  # keep_wheels: face i keeps hand[i]
            played = [pick] if k == 1 else [c for c in hand if c != pick]
            kept = [c for c in hand if c not in played]
            top = max(played, key=C.check_key)
            chance = self._win_chance(view, table, top)
            value = self._best_spread(table, played, riders, {top: chance}, move, stay)
            value += (1.0 - chance) * others + self._keep_value(kept)
            value += 0.2 * self.rng.random()
            if best is None or value > best[0]:
                best = (value, sel)
        assert best is not None
        return best[1]

    def _won(self, view: Mapping[str, Any], seat: int) -> str | None:
        check = view.get("check")
        if not check:
            return None
        s, card = check["winner"]
        return str(card) if s == seat else None

    def _assign(self, view: Mapping[str, Any], table: _Table, ask: Ask,
                legal: Sequence[Selection]) -> Selection:
        lw, rw = ask.wheels[LEFT], ask.wheels[RIGHT]
        if lw is None or rw is None:
            return legal[0]
        cards = [f.label for f in lw.faces]
        riders = [table.rider(f.value) for f in rw.faces]
        won = self._won(view, table.seat)
        wins = {c: (1.0 if c == won else 0.0) for c in cards}
        move: dict[int, float] = {}
        stay: dict[tuple[int, int], float] = {}
        best: tuple[float, Selection] | None = None
        for sel in legal:
            card, rider = cards[sel[LEFT]], riders[sel[RIGHT]]
            if rider is None:
                continue
            value = self._card_value(table, card, rider, wins[card], move, stay)
            rest_cards = [c for i, c in enumerate(cards) if i != sel[LEFT]]
            rest_riders = [r for i, r in enumerate(riders) if i != sel[RIGHT] and r is not None]
            if rest_cards and rest_riders:
                value += self._best_spread(table, rest_cards, rest_riders, wins, move, stay)
            if best is None or value > best[0]:
                best = (value, sel)
        if best is None:
            return legal[0]
        rider = riders[best[1][RIGHT]]
        if rider is not None:
            self._assigned[cards[best[1][LEFT]]] = rider.id
        return best[1]

    def _match(self, view: Mapping[str, Any], table: _Table, ask: Ask,
               legal: Sequence[Selection]) -> Selection:
        card = ask.text.split()[0]
        rider = self._matched_rider(view, table, card)
        if rider is None:
            return next((s for s in legal if s[CENTRE] == 0), legal[0])
        moved = self._move_value(table, rider)
        stayed = self._stay_value(table, rider, C.apply_suit(card, rider.pips))
        want = 0 if moved >= stayed else 1
        return next((s for s in legal if s[CENTRE] == want), legal[0])

    def _matched_rider(self, view: Mapping[str, Any], table: _Table, card: str) -> _Rider | None:
        """The rider a rank-match prompt is about: the one the bot gave `card` to, else its
        one rider still without a card this exchange with Pips equal to the card's rank."""
        done = {int(e["rider"]) for e in view.get("resolved") or ()}
        fits = [r for r in table.mine() if r.id not in done and r.pips == C.rank(card)]
        rid = self._assigned.get(card)
        if rid is not None and any(r.id == rid for r in fits):
            return table.rider(rid)
        return fits[0] if fits else None

    # -------------------------------------------------------------- start points

    def _place(self, view: Mapping[str, Any], table: _Table, ask: Ask,
               legal: Sequence[Selection]) -> Selection:
        self._assigned.clear()
        wheel = ask.wheels[CENTRE]
        if wheel is None:
            return legal[self.rng.randrange(len(legal))]
        facing = G.INWARD[view["edges"][table.seat]]
        occupied = {r.at for r in table.riders}
        mid = (table.size - 1) / 2
        best: tuple[float, Selection] | None = None
        for sel in legal:
            at = G.parse(wheel.faces[sel[CENTRE]].label, table.size)
            if at in occupied:
                continue
            score = freedom(at, facing, 3, table.size, table.claimed, occupied)
            # away from the corners, where a turn soon meets the edge
            score -= 0.4 * (abs(at[0] - mid) if facing in (0, 2) else abs(at[1] - mid))
            score += 2.0 * self.rng.random()
            if best is None or score > best[0]:
                best = (score, sel)
        return best[1] if best is not None else legal[0]
