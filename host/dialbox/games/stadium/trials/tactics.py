"""Trials of nerve: Pole Vault, Team Gymnastics (bidding as open prompts) and Anti Doping Test."""

from __future__ import annotations

from functools import lru_cache

from dialbox.engine import CENTRE, DIGIT_FACES, LETTER_FACES, RIGHT, Face, Wheel
from dialbox.engine.naming import who, whom
from dialbox.games.stadium.base import (
    CIRCLE,
    CRESCENT,
    TEAM_NAMES,
    TRIANGLE,
    StadiumBase,
    Sub,
    symbol_wheel,
)
from dialbox.games.stadium.medals import MEDALS, Podium


def pole_vault(g: StadiumBase) -> Sub:
    """Descending rungs: Jump (A) pays the rung and ranks you; Wait (C) on the lowest rung ends."""
    rungs: list[int] = list(g.tile.number("rungs"))
    podium = Podium()
    medalled: set[int] = set()
    for i, rung in enumerate(rungs):
        lowest = i == len(rungs) - 1
        vaulters = [s for s in g.order() if s not in medalled]
        if not vaulters or podium.closed:
            break
        g.trial = {**g.trial, "rung": rung, "lowest": lowest, "vaulters": tuple(vaulters)}
        asks = []
        for s in vaulters:
            if g.energy[s] >= rung:
                wheel = symbol_wheel((TRIANGLE, CRESCENT), "A = Jump, C = Wait")
            else:
                wheel = Wheel.of(LETTER_FACES, (CRESCENT,), {
                    TRIANGLE: f"a Jump here costs {rung} Energy; you have {g.energy[s]}",
                    CIRCLE: "B is not a choice here (A = Jump, C = Wait)",
                    3: "D is not a choice here (A = Jump, C = Wait)",
                })
            asks.append(g.ask(s, "stadium.pole_vault", f"Bar at {rung}: A Jump  C Wait",
                            (None, None, wheel)))
        answers = yield g.sealed(asks)
        jumpers = [s for s in vaulters if answers[s][RIGHT] == TRIANGLE]
        g.emit("stadium.vault", f"Bar at {rung}: " + (
            "jumping " + whom(jumpers) if jumpers
            else "nobody jumps") + ".", rung=rung, jumpers=jumpers)
        if jumpers:
            for s in jumpers:
                g.spend(s, rung)
                g.score[s] = rung
            g.award_podium(podium, jumpers)
            medalled.update(jumpers)
        if lowest:
            waiting = [s for s in vaulters if s not in jumpers]
            if waiting:
                g.emit("stadium.vault", "Waiting on the lowest rung ends the Trial.",
                       rung=rung, waiting=waiting)


@lru_cache(maxsize=4096)
def bid_wheel(low: int, high: int) -> Wheel:
    """'-' then the numbers low..high (at most 30 of them) for an announcement."""
    return Wheel.of((Face("-", -1, DIGIT_FACES[0].colour),) + tuple(
        Face(str(v), v, DIGIT_FACES[v % 10].colour) for v in range(low, high + 1)))


def team_gymnastics(g: StadiumBase) -> Sub:
    """Three auctions (Gold, Silver, Bronze) announced around the table; a Team that Passes
    lets the other Team win the Medal and pay its last number."""
    for medal in MEDALS:
        last: int | None = None
        last_by_team: list[int | None] = [None, None]
        announcer: list[int | None] = [None, None]
        turn = 0
        while True:
            s = g.order()[turn % g.n]
            turn += 1
            team = g.team(s)
            team_energy = sum(g.energy[m] for m in g.members(team))
            low = 0 if last is None else last + 1
            g.trial = {**g.trial, "medal": medal, "last": last, "bidder": s,
                       "announced": tuple(last_by_team)}
            if low <= team_energy:
                high = min(team_energy, low + 29)
                centre = bid_wheel(low, high)
                right = symbol_wheel((TRIANGLE, CRESCENT), "A = announce, C = We Pass")
                text = f"{medal.title()}: A+number (>{low - 1})  C: We Pass"
            else:
                centre = None
                right = symbol_wheel((CRESCENT,), "your Team cannot go higher: C = We Pass")
                text = f"{medal.title()}: {last} is beyond your Team: C: We Pass"
            answers = yield g.open(g.ask(s, "stadium.gymnastics.bid", text,
                                       (None, centre, right)))
            sel = answers[s]
            if sel[RIGHT] == TRIANGLE and centre is not None:
                last = centre.faces[sel[CENTRE]].value
                last_by_team[team] = last
                announcer[team] = s
                g.emit("stadium.announce", f"{who(s)} announces {last}.", seat=s,
                       number=last)
                continue
            winner = 1 - team
            cost = last_by_team[winner] or 0
            g.emit("stadium.pass", f"{who(s)} Passes for the {TEAM_NAMES[team]}.", seat=s)
            chooser = announcer[winner]
            if chooser is None:
                chooser = g.members(winner)[0]
            yield from g.share(chooser, winner, cost, paying=True)
            g.award(winner, medal)
            g.pass_token()
            break


def anti_doping(g: StadiumBase) -> Sub:
    """The first player and their left choose Accuse (A), Rest (B) or Dope (C) in secret."""
    pair = [g.first, g.left_of(g.first)]
    g.trial = {**g.trial, "tested": tuple(pair)}
    wheel = symbol_wheel((TRIANGLE, CIRCLE, CRESCENT), "A = Accuse, B = Rest, C = Dope")
    answers = yield g.sealed([g.ask(s, "stadium.anti_doping", "A Accuse  B Rest  C Dope",
                                  (None, None, wheel)) for s in pair])
    act = {s: answers[s][RIGHT] for s in pair}
    names = {TRIANGLE: "Accuse", CIRCLE: "Rest", CRESCENT: "Dope"}
    g.emit("stadium.anti_doping", ", ".join(f"{who(s)}: {names[act[s]]}" for s in pair),
           choices={s: names[act[s]] for s in pair})
    for s, other in ((pair[0], pair[1]), (pair[1], pair[0])):
        team = g.team(s)
        if act[s] == CRESCENT:
            if act[other] == TRIANGLE:
                g.emit("stadium.caught", f"{who(s)} is caught doping.", seat=s)
                g.lose_highest_medal(team)
            else:
                yield from g.share(s, team, int(g.tile.number("dope_gain")), paying=False)
        elif act[s] == CIRCLE:
            yield from g.share(s, team, int(g.tile.number("rest_gain")), paying=False)
