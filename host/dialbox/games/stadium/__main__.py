"""Play Stadium in a terminal: bots for every seat, or some human seats typing their answers.

    python -m dialbox.games.stadium --players 4 --seed 3
    python -m dialbox.games.stadium --humans 1,3          # seats 1 and 3 (1-based) type

A human answers with the wheel faces' labels: "5" (centre), "A+5", "C", "A+@3" (seat 3's
colour), "Hole 4", "Yel -3"; an empty line takes the prompt's default.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from dialbox.engine import CENTRE, INACTIVE, RIGHT, Ask, IllegalChoice, Selection
from dialbox.games.stadium.bots import StadiumBot
from dialbox.games.stadium.game import Stadium, colour_digit


def parse(ask: Ask, text: str) -> Selection:
    """A typed answer -> selection; ValueError if a label is not on the wheel."""
    if not text.strip():
        if ask.default is None:
            raise ValueError("no default here: dial a face")
        return ask.default
    sel = [INACTIVE if w is None else min(w.allowed) for w in ask.wheels]
    centre = ask.wheels[CENTRE]
    labels = [f.label for f in centre.faces] if centre is not None else []
    for part in [text] if text in labels else text.split("+"):
        part = part.strip()
        if ask.wheels[RIGHT] is not None and part.upper() in ("A", "B", "C", "D"):
            sel[RIGHT] = "ABCD".index(part.upper())
        elif part.startswith("@") and part[1:].isdigit():
            sel[CENTRE] = colour_digit(int(part[1:]) - 1)
        elif part in labels:
            sel[CENTRE] = labels.index(part)
        else:
            raise ValueError(f"{part!r} is not a face here")
    return (sel[0], sel[1], sel[2])


def faces_text(ask: Ask) -> str:
    parts = []
    for name, wheel in zip(("left", "centre", "right"), ask.wheels, strict=True):
        if wheel is not None:
            shown = " ".join(wheel.faces[i].label for i in sorted(wheel.allowed))
            parts.append(f"{name}: {shown}")
    return "; ".join(parts)


def run(players: int, seed: int, humans: set[int], physical: bool,
        read: Callable[[str], str] = input, out: Callable[[str], None] = print) -> Stadium:
    game = Stadium({"players": players, "seed": seed, "physical_dice": physical})
    bots = {s: StadiumBot(seed * 31 + s) for s in range(players) if s not in humans}
    shown = 0
    while True:
        for event in game.events[shown:]:
            prefix = "\n== " if event.kind == "stadium.reveal" else "   "
            out(prefix + event.text)
        shown = len(game.events)
        d = game.pending
        if d is None:
            break
        answers: dict[int, Selection] = {}
        for ask in d.asks:
            if ask.seat in bots:
                answers[ask.seat] = bots[ask.seat].choose(game.view(ask.seat), ask,
                                                          list(game.legal(ask)))
                continue
            energy = game.energy[ask.seat]
            while True:
                text = read(f"seat {ask.seat + 1} ({energy} Energy) {ask.text} "
                            f"[{faces_text(ask)}] > ")
                try:
                    sel = parse(ask, text)
                    game.check(ask, sel)
                except (ValueError, IllegalChoice) as e:
                    out(f"   {e}")
                    continue
                answers[ask.seat] = sel
                break
        game.apply(answers)
    assert game.result is not None
    out("\n" + game.result.text)
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dialbox.games.stadium",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4, choices=(4, 6))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--humans", default="", help="1-based seats typed at the keyboard")
    parser.add_argument("--physical-dice", action="store_true",
                        help="ask the rolling seat for every die face")
    args = parser.parse_args(argv)
    humans = {int(s) - 1 for s in args.humans.split(",") if s.strip()}
    try:
        run(args.players, args.seed, humans, args.physical_dice)
    except (EOFError, KeyboardInterrupt):
        print("\nstopped")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
