"""Replays saved games and plays seeded random-bot games, reporting state hashes (a subprocess).

`test_determinism.py` runs this file with `sys.executable` under several PYTHONHASHSEED
values. It reads one JSON request on stdin,

    {"saves": [save, ...], "plays": [{"game": name, "options": {...}, "bots": seed,
                                      "steps": n}, ...]}

and writes one JSON answer on stdout:

    {"probe": hash("dialbox"), "saves": [{"hashes": [...], "error": null | "..."}, ...],
     "plays": [[hash, ...], ...]}

A save's `hashes` are the state hashes before the first and after every step of its log;
`error` is what `Game.from_json` (or the replay itself) raised, if anything. The test process
uses `play` itself, so both sides build the games and bots the same way.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

from dialbox.engine import EngineError, Game, get_game
from dialbox.engine.bots import RandomBot, play_out


def bots(players: int, seed: int) -> dict[int, RandomBot]:
    """One seeded random bot per player."""
    return {p: RandomBot(seed * 1000 + p) for p in range(players)}


def play(name: str, options: Mapping[str, Any], bot_seed: int,
         steps: int) -> tuple[Game, list[str]]:
    """A game played by random bots for at most `steps` decisions, and its state hashes."""
    game = get_game(name)(options)
    players = bots(game.options.players, bot_seed)
    hashes = [game.state_hash()]
    while not game.over and len(hashes) <= steps:
        play_out(game, players, max_decisions=1)
        hashes.append(game.state_hash())
    return game, hashes


def replay(save: Mapping[str, Any]) -> dict[str, Any]:
    """The state hashes of a saved game replayed step by step, and whether it loads."""
    cls = get_game(save["game"])
    error: str | None = None
    try:
        cls.from_json(save)
    except EngineError as e:
        error = f"{type(e).__name__}: {e}"
    game = cls(save["options"])
    hashes = [game.state_hash()]
    for entry in save["log"]:
        try:
            game.apply({int(seat): (int(s[0]), int(s[1]), int(s[2])) for seat, s in entry})
        except EngineError as e:
            error = error or f"{type(e).__name__}: {e}"
            break
        hashes.append(game.state_hash())
    return {"hashes": hashes, "error": error}


def main() -> None:
    request = json.load(sys.stdin)
    answer = {
        "probe": hash("dialbox"),
        "saves": [replay(save) for save in request["saves"]],
        "plays": [play(p["game"], p["options"], p["bots"], p["steps"])[1]
                  for p in request["plays"]],
    }
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
