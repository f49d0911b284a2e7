"""Dice Trials: Equestrian, Golf, Weightlifting and Archery (the last two as open prompts)."""

from __future__ import annotations

from collections.abc import Mapping

from dialbox.engine import CENTRE, DIGIT_FACES, RIGHT, Die, DieFace, Face, Wheel
from dialbox.engine.naming import who
from dialbox.games.stadium.base import CRESCENT, TRIANGLE, StadiumBase, Step, Sub, symbol_wheel
from dialbox.games.stadium.components import DIE_ABBREVIATIONS


def equestrian(g: StadiumBase) -> Sub:
    """Up to 5 obstacles; wager, then roll green in turn: wager + die >= obstacle to clear it."""
    obstacles: list[int] = list(g.tile.number("obstacles"))
    riding = g.order()
    cleared = {s: 0 for s in riding}
    for k, height in enumerate(obstacles):
        if not riding:
            break
        g.trial = {**g.trial, "obstacle": k + 1, "height": height, "riding": tuple(riding)}
        bets = yield from g.ask_all_wagers(riding, "stadium.wager", f"Obstacle {k + 1}: wager")
        for s in [s for s in g.order() if s in riding]:
            g.spend(s, bets[s])
            face = yield from g.roll_die("green", s)
            total = bets[s] + face.value
            if total >= height:
                cleared[s] += 1
                g.score[s] = cleared[s]
                g.emit("stadium.jump", f"{who(s)} clears obstacle {k + 1} ({total}).",
                       seat=s, obstacle=k + 1, total=total, cleared=True)
            else:
                riding.remove(s)
                g.score[s] = cleared[s]
                g.emit("stadium.jump", f"{who(s)} fails obstacle {k + 1} ({total}) "
                       "and is eliminated.", seat=s, obstacle=k + 1, total=total, cleared=False)
    if not g.opts.equestrian_zero_ranked:
        cleared = {s: c for s, c in cleared.items() if c > 0}
    g.award_ranking(cleared)


def golf(g: StadiumBase) -> Sub:
    """Wager a Score; each turn costs 1 Score to roll green and claim the hole rolled."""
    holes: list[int] = list(g.tile.number("holes"))
    bets = yield from g.ask_all_wagers(g.order())
    score = {s: bets[s] for s in g.order()}
    for s, v in bets.items():
        g.spend(s, v)
        g.score[s] = v
    flags = {h: [False, False] for h in holes}

    def row_full(team: int) -> bool:
        return all(flags[h][team] for h in holes)

    def publish() -> None:
        g.trial = {**g.trial, "holes": {str(h): tuple(flags[h]) for h in holes}}

    publish()
    while any(score[s] > 0 and not row_full(g.team(s)) for s in score):
        for s in g.order():
            team = g.team(s)
            if score[s] <= 0 or row_full(team):
                continue
            score[s] -= 1
            g.score[s] = score[s]
            face = yield from g.roll_die("green", s)
            hole = face.value
            if hole in flags and not flags[hole][team]:
                target: int | None = hole
            elif hole in flags:
                reach = [h for h in holes if not flags[h][team] and abs(h - hole) <= score[s]]
                target = None
                if reach:
                    target = yield from golf_adjust(g, s, hole, reach)
                    if target is not None:
                        score[s] -= abs(target - hole)
                        g.score[s] = score[s]
            else:
                target = None
            if target is not None:
                flags[target][team] = True
                g.emit("stadium.golf", f"{who(s)} places a cube at hole {target}.",
                       seat=s, hole=target)
            else:
                g.emit("stadium.golf", f"{who(s)} places no cube.", seat=s, hole=None)
            publish()
    g.award_gold([sum(flags[h][t] for h in holes) for t in (0, 1)], "Holes claimed")


def golf_adjust(g: StadiumBase, seat: int, rolled: int, reach: list[int]) -> Step[int | None]:
    """Open prompt: move the roll to a free hole, paying the distance from the Score track."""
    faces = (Face("Keep", 0, DIGIT_FACES[0].colour),) + tuple(
        Face(f"H{h}", h, DIGIT_FACES[i % 10].colour) for i, h in enumerate(reach, 1))
    wheel = Wheel.of(faces)
    g.trial = {**g.trial, "golfer": seat, "rolled": rolled}
    text = f"Hole {rolled} taken: shift to H? (costs distance)"
    answers = yield g.open(g.ask(seat, "stadium.golf.adjust", text, (None, wheel, None)))
    pick = answers[seat][CENTRE]
    return None if pick == 0 else reach[pick - 1]


def weightlifting(g: StadiumBase) -> Sub:
    """Turns until everyone Passes: Lift a heavier weight (1 Energy per roll of green) or Pass."""
    table: list[tuple[int, int, int]] = [tuple(w) for w in g.tile.number("weights")]
    faces = (Face("-", 0, DIGIT_FACES[0].colour),) + tuple(
        Face(str(w), w, DIGIT_FACES[i].colour) for i, (w, _, _) in enumerate(table, 1))
    best: dict[int, int] = {}
    out: set[int] = set()
    while len(out) < g.n:
        for s in g.order():
            if s in out:
                continue
            heavier = [i for i, (w, _, _) in enumerate(table, 1) if w > best.get(s, 0)]
            if not heavier or g.energy[s] < 1:
                out.add(s)
                g.emit("stadium.pass", f"{who(s)} must Pass.", seat=s)
                continue
            wheel = Wheel.of(faces, [0, *heavier], {
                i: "choose a weight heavier than your last Lift" for i in range(len(faces))})
            ask = g.ask(s, "stadium.weightlifting.lift", "A+weight: Lift (1 Energy)  C: Pass",
                      (None, wheel, symbol_wheel((TRIANGLE, CRESCENT), "A = Lift, C = Pass")))
            answers = yield g.open(ask)
            if answers[s][RIGHT] != TRIANGLE:
                out.add(s)
                g.emit("stadium.pass", f"{who(s)} Passes.", seat=s)
                continue
            weight, low, high = table[answers[s][CENTRE] - 1]
            g.trial = {**g.trial, "lifter": s, "weight": weight}
            while True:
                g.spend(s, 1)
                face = yield from g.roll_die("green", s)
                if low <= face.value <= high:
                    best[s] = weight
                    g.score[s] = weight
                    g.emit("stadium.lift", f"{who(s)} lifts {weight}.", seat=s,
                           weight=weight)
                    break
                if g.energy[s] < 1:
                    out.add(s)
                    g.emit("stadium.pass", f"{who(s)} fails {weight} and must Pass.",
                           seat=s)
                    break
                retry = g.ask(s, "stadium.weightlifting.retry",
                            f"Missed {weight}. A: re-roll (1 Energy)  C: Pass",
                            (None, None, symbol_wheel((TRIANGLE, CRESCENT),
                                                      "A = re-roll, C = Pass")))
                again = yield g.open(retry)
                if again[s][RIGHT] != TRIANGLE:
                    out.add(s)
                    g.emit("stadium.pass", f"{who(s)} Passes.", seat=s)
                    break
    g.award_ranking(best)


def reroll_faces(dice: Mapping[str, Die], colours: list[str], shown: list[DieFace],
                 stop: str) -> tuple[Face, ...]:
    """`stop`, then each die rolled, labelled die + face shown (e.g. "Yel-3")."""
    return (Face(stop, -1, DIGIT_FACES[0].colour),) + tuple(
        Face(f"{DIE_ABBREVIATIONS[c]}{f.label}", i, dice[c].colour)
        for i, (c, f) in enumerate(zip(colours, shown, strict=True)))


def reroll_prompt(g: StadiumBase, seat: int, colours: list[str], shown: list[DieFace],
                  topic: str, text: str, stop: str) -> Step[int | None]:
    """Open prompt: which die to re-roll (index into `colours`), or None to stop."""
    wheel = Wheel.of(reroll_faces(g.dice, colours, shown, stop))
    answers = yield g.open(g.ask(seat, topic, text, (None, wheel, None)))
    pick = answers[seat][CENTRE]
    return None if pick == 0 else pick - 1


def archery(g: StadiumBase) -> Sub:
    """One turn each: roll blue, yellow, red and green; re-roll any die for 1 Energy each time."""
    colours: list[str] = list(g.tile.number("dice"))
    totals: dict[int, int] = {}
    for s in g.order():
        shown: list[DieFace] = []
        for c in colours:
            shown.append((yield from g.roll_die(c, s)))
        while g.energy[s] >= 1:
            g.trial = {**g.trial, "archer": s,
                       "dice": {c: f.value for c, f in zip(colours, shown, strict=True)}}
            pick = yield from reroll_prompt(g, s, colours, shown, "stadium.archery.reroll",
                                            f"Total {sum(f.value for f in shown)}: "
                                            "re-roll a die (1 Energy)?", "Shoot")
            if pick is None:
                break
            g.spend(s, 1)
            shown[pick] = yield from g.roll_die(colours[pick], s)
        totals[s] = sum(f.value for f in shown)
        g.score[s] = totals[s]
        g.emit("stadium.shot", f"{who(s)} scores {totals[s]}.", seat=s, total=totals[s])
    g.award_ranking(totals)
