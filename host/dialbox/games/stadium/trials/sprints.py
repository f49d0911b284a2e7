"""One-shot wager Trials: Track Cycling, both Relays, 100 Meters and Beach Volleyball."""

from __future__ import annotations

from math import prod

from dialbox.engine import CENTRE, RIGHT
from dialbox.engine.naming import who
from dialbox.games.stadium.base import CRESCENT, TRIANGLE, StadiumBase, Step, Sub, symbol_wheel
from dialbox.games.stadium.medals import Podium


def track_cycling(g: StadiumBase) -> Sub:
    """Medals by wager; each medallist group pays the next wager down (0 if none lower)."""
    bets = yield from g.ask_all_wagers(g.order())
    values = sorted(set(bets.values()), reverse=True)
    podium = Podium()
    for rank, value in enumerate(values):
        if podium.closed:
            break
        group = [s for s in g.order() if bets[s] == value]
        price = values[rank + 1] if rank + 1 < len(values) else 0
        for s in group:
            g.spend(s, price)
            g.emit("stadium.energy", f"{who(s)} spends {price} Energy.", seat=s,
                   amount=-price)
        g.award_podium(podium, group)


def relay(g: StadiumBase) -> Sub:
    """Pairs wager in turn (first player and their left, then the next two...); Team sums."""
    order = g.order()
    bets: dict[int, int] = {}
    for leg in range(0, g.n, 2):
        pair = order[leg:leg + 2]
        g.trial = {**g.trial, "leg": leg // 2 + 1, "runners": tuple(pair)}
        bets.update((yield from g.ask_all_wagers(pair, "stadium.wager", "Relay leg: wager")))
    for s, v in bets.items():
        g.spend(s, v)
    g.award_gold([sum(bets[s] for s in g.members(t)) for t in (0, 1)], "Relay totals")


def medley_relay(g: StadiumBase) -> Sub:
    """Everyone wagers; each Team's score is the product of its Athletes' wagers."""
    bets = yield from g.ask_all_wagers(g.order())
    for s, v in bets.items():
        g.spend(s, v)
    g.award_gold([prod(bets[s] for s in g.members(t)) for t in (0, 1)], "Medley products")


def compete_or_rest(g: StadiumBase) -> Step[dict[int, int]]:
    """Sealed: triangle + wager to Compete, crescent to Rest (+3 Energy, up to 30)."""
    wheel_r = symbol_wheel((TRIANGLE, CRESCENT), "A = Compete, C = Rest")
    asks = [g.ask(s, "stadium.sprint", "A+wager: Compete  C: Rest",
                (None, g.wager_wheel(s), wheel_r)) for s in g.order()]
    answers = yield g.sealed(asks)
    gain = int(g.tile.number("rest_gain"))
    bets: dict[int, int] = {}
    for s in g.order():
        if answers[s][RIGHT] == TRIANGLE:
            bets[s] = answers[s][CENTRE]
            g.spend(s, bets[s])
        else:
            got = g.gain(s, gain)
            g.emit("stadium.rest", f"{who(s)} rests and gains {got} Energy.", seat=s,
                   amount=got)
    g.emit("stadium.wagers", "Competing: " + (", ".join(
        f"{who(s)} {v}" for s, v in sorted(bets.items())) or "nobody"), wagers=bets)
    g.trial = {**g.trial, "competitors": tuple(sorted(bets))}
    return bets


def hundred_meters(g: StadiumBase) -> Sub:
    bets = yield from compete_or_rest(g)
    for s, v in bets.items():
        g.score[s] = v
    g.award_ranking(bets)


def beach_volleyball(g: StadiumBase) -> Sub:
    bets = yield from compete_or_rest(g)
    g.award_gold([sum(v for s, v in bets.items() if g.team(s) == t) for t in (0, 1)],
                 "Beach Volleyball totals")
