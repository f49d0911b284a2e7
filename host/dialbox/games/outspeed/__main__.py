"""Watch bots race: `python -m dialbox.games.outspeed [players] [seed]` prints the game's events."""

from __future__ import annotations

import sys

from dialbox.engine.bots import play_out
from dialbox.games.outspeed.bots import RacerBot
from dialbox.games.outspeed.game import Outspeed


def main(argv: list[str]) -> int:
    players = int(argv[0]) if argv else 4
    seed = int(argv[1]) if len(argv) > 1 else 1
    game = Outspeed({"players": players, "seed": seed})
    decisions = play_out(game, {s: RacerBot(seed * 10 + s) for s in range(players)})
    for e in game.events:
        if e.kind != "dice.rolled":
            print(e.text)
    assert game.result is not None
    print(f"-- {decisions} decisions; {game.result.text}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
