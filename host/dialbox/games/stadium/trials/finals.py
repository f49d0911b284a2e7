"""Final Trials, Team duels over many rounds: Basketball, Fencing, Rugby and Taekwondo."""

from __future__ import annotations

from dialbox.engine import CENTRE, RIGHT, DieFace
from dialbox.engine.naming import who
from dialbox.games.stadium.base import (
    CIRCLE,
    CRESCENT,
    TEAMS,
    TRIANGLE,
    StadiumBase,
    Sub,
    colour_digit,
    digit_seat,
    symbol_wheel,
    teams_text,
)
from dialbox.games.stadium.trials.rolls import reroll_prompt


def rugby(g: StadiumBase) -> Sub:
    """Team wager sums push the cube one space per round; reaching your end wins Gold."""
    goal = int(g.tile.number("spaces_to_goal"))
    cube = 0  # positive: towards the blue end, negative: towards the red end
    rounds = 0
    while abs(cube) < goal:
        if rounds >= g.opts.round_limit or not any(g.energy):
            why = "round limit" if rounds >= g.opts.round_limit else "no Energy left"
            lead = None if cube == 0 else (0 if cube > 0 else 1)
            g.emit("stadium.stalemate", f"Rugby stops ({why}); the cube's side decides.",
                   reason=why)
            g.award_winner(lead)
            return
        rounds += 1
        g.trial = {**g.trial, "cube": cube, "round": rounds}
        bets = yield from g.ask_all_wagers(g.order())
        totals = [sum(bets[s] for s in g.members(t)) for t in (0, 1)]
        if totals[0] != totals[1]:
            cube += 1 if totals[0] > totals[1] else -1
        for s, v in bets.items():
            g.spend(s, v)
        g.emit("stadium.rugby", f"{teams_text(totals)}: cube at {cube}.", totals=totals,
               cube=cube)
    g.trial = {**g.trial, "cube": cube}
    g.award_winner(0 if cube > 0 else 1)


def fencing_dice(g: StadiumBase, wager: int) -> list[str]:
    table: list[list[str]] = g.tile.number("dice_by_wager")
    if wager == 0 and g.opts.fencing_zero_dice == "red-yellow":
        return ["red", "yellow"]
    return list(table[min(wager, len(table) - 1)])


def fencing(g: StadiumBase) -> Sub:
    """Rounds of wager + dice; a Team that wins two rounds in a row (ties aside) wins Gold."""
    need = int(g.tile.number("wins_in_a_row"))
    streak_team: int | None = None
    streak = 0
    rounds = 0
    while streak < need:
        if rounds >= g.opts.round_limit:
            g.emit("stadium.stalemate", "Fencing stops (round limit); the cube's side decides.",
                   reason="round limit")
            g.award_winner(streak_team)
            return
        rounds += 1
        g.trial = {**g.trial, "round": rounds,
                   "cube": TEAMS[streak_team] if streak_team is not None else "0"}
        bets = yield from g.ask_all_wagers(g.order())
        scores: dict[int, int] = {}
        for s in g.order():
            g.spend(s, bets[s])
            colours = fencing_dice(g, bets[s])
            shown: list[DieFace] = []
            for c in colours:
                shown.append((yield from g.roll_die(c, s)))
            for _ in range(max(0, bets[s] - 3)):
                pick = yield from reroll_prompt(g, s, colours, shown, "stadium.fencing.reroll",
                                                f"Total {sum(f.value for f in shown)}: "
                                                "re-roll a die?", "Done")
                if pick is None:
                    break
                shown[pick] = yield from g.roll_die(colours[pick], s)
            scores[s] = sum(f.value for f in shown)
            g.score[s] = scores[s]
        totals = [sum(scores[s] for s in g.members(t)) for t in (0, 1)]
        if totals[0] != totals[1]:
            won = 0 if totals[0] > totals[1] else 1
            streak = streak + 1 if won == streak_team else 1
            streak_team = won
        g.emit("stadium.fencing", f"{teams_text(totals)}.", totals=totals,
               leader=None if streak_team is None else TEAMS[streak_team], streak=streak)
    g.award_winner(streak_team)


def taekwondo(g: StadiumBase) -> Sub:
    """Wager + 1 is your Score; then Attack (A + colour), Block (B) or Wait (C) until one Team
    has nobody standing."""
    damage = int(g.tile.number("attack_damage"))
    bets = yield from g.ask_all_wagers(g.order())
    for s, v in bets.items():
        g.spend(s, v)
        g.score[s] = v + 1
    standing = g.order()
    rounds = 0
    while all(any(g.team(s) == t for s in standing) for t in (0, 1)):
        if rounds >= g.opts.round_limit:
            counts = [sum(1 for s in standing if g.team(s) == t) for t in (0, 1)]
            g.emit("stadium.stalemate", "Taekwondo stops (round limit); more Athletes "
                   "standing wins.", reason="round limit")
            g.award_winner(None if counts[0] == counts[1] else (0 if counts[0] > counts[1]
                                                                 else 1))
            return
        rounds += 1
        g.trial = {**g.trial, "round": rounds, "standing": tuple(standing)}
        right = symbol_wheel((TRIANGLE, CIRCLE, CRESCENT), "A = Attack, B = Block, C = Wait")
        asks = [g.ask(s, "stadium.taekwondo.action", "A+colour Attack  B Block  C Wait",
                    (None, g.colour_wheel([o for o in standing if o != s]), right))
                for s in standing]
        answers = yield g.sealed(asks)
        act = {s: answers[s][RIGHT] for s in standing}
        target = {s: digit_seat(answers[s][CENTRE]) for s in standing if act[s] == TRIANGLE}
        hits = dict.fromkeys(standing, 0)
        for a, t in target.items():
            if act[t] == CIRCLE:
                hits[a] += damage
            else:
                hits[t] += damage
        for b in standing:
            if act[b] == CIRCLE and b not in target.values():
                hits[b] += damage
        g.emit("stadium.taekwondo", "; ".join(
            f"{who(s)} " + ({TRIANGLE: f"attacks {who(target.get(s, 0))}",
                                 CIRCLE: "blocks", CRESCENT: "waits"}[act[s]])
            for s in standing), actions={s: act[s] for s in standing}, targets=target)
        for s in standing:
            score = g.score[s]
            assert score is not None
            g.score[s] = score - hits[s]
        fallen = [s for s in standing if (g.score[s] or 0) <= 0]
        for s in fallen:
            g.emit("stadium.eliminated", f"{who(s)} is eliminated.", seat=s)
        standing = [s for s in standing if s not in fallen]
    left = {g.team(s) for s in standing}
    g.award_winner(left.pop() if len(left) == 1 else None)


def basketball(g: StadiumBase) -> Sub:
    """The ball holder Shoots (A + wager) or Passes (C + teammate colour); the other Team Blocks
    (A + wager) or Intercepts (C). First Team to score twice wins Gold."""
    to_win = int(g.tile.number("points_to_win"))
    margin = int(g.tile.number("score_margin"))
    holder = g.first
    points = [0, 0]
    rounds = 0
    while max(points) < to_win:
        if rounds >= g.opts.round_limit:
            g.emit("stadium.stalemate", "Basketball stops (round limit); the higher score "
                   "wins.", reason="round limit")
            g.award_winner(None if points[0] == points[1] else (0 if points[0] > points[1]
                                                                 else 1))
            return
        rounds += 1
        team = g.team(holder)
        defenders = [s for s in g.order(g.left_of(holder)) if g.team(s) != team]
        mates = frozenset(colour_digit(s) for s in g.members(team) if s != holder)
        g.trial = {**g.trial, "ball": holder, "points": tuple(points), "round": rounds}
        asks = [g.ask(holder, "stadium.basketball.ball", "A+wager: Shoot  C+colour: Pass",
                    (None, g.wager_wheel(holder, mates),
                     symbol_wheel((TRIANGLE, CRESCENT), "A = Shoot, C = Pass")))]
        asks += [g.ask(d, "stadium.basketball.defence", "A+wager: Block  C: Intercept",
                     (None, g.wager_wheel(d),
                      symbol_wheel((TRIANGLE, CRESCENT), "A = Block, C = Intercept")))
                 for d in defenders]
        answers = yield g.sealed(asks)
        blocks = {d: answers[d][CENTRE] for d in defenders if answers[d][RIGHT] == TRIANGLE}
        for d, v in blocks.items():
            g.spend(d, v)
        if answers[holder][RIGHT] == TRIANGLE:
            shot = answers[holder][CENTRE]
            g.spend(holder, shot)
            face = yield from g.roll_die("green", holder)
            wall = sum(blocks.values())
            scored = shot + face.value >= wall + margin
            if scored:
                points[team] += 1
            g.emit("stadium.shot", f"{who(holder)} shoots {shot}+{face.value} against "
                   f"{wall}: " + ("scores!" if scored else "misses."), seat=holder,
                   total=shot + face.value, block=wall, scored=scored, points=list(points))
            holder = g.left_of(holder)
        else:
            receiver = digit_seat(answers[holder][CENTRE])
            thief: int | None = None
            for d in defenders:
                if answers[d][RIGHT] != TRIANGLE:
                    face = yield from g.roll_die("white", d)
                    if face.mark == "intercept":
                        thief = d
                        break
            if thief is None:
                g.emit("stadium.pass", f"{who(holder)} passes to {who(receiver)}.",
                       seat=holder, receiver=receiver)
                holder = receiver
            else:
                g.emit("stadium.intercept", f"{who(thief)} intercepts the pass.",
                       seat=thief)
                holder = thief
    g.trial = {**g.trial, "points": tuple(points)}
    g.award_winner(0 if points[0] >= to_win else 1)
