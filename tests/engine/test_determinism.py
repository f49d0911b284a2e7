"""Every registered game replays identically in other processes, whatever PYTHONHASHSEED says.

A game saved in one process (the daemon before a restart, `dialbox play --save`) must load in
another. Rules that iterate a set of strings, or depend on hash() or id(), draw from the RNG
in an order that changes with the interpreter's hash seed; this test catches them by playing
games here, then replaying the saves and playing the same games again in subprocesses run
with different hash seeds (replay_hashes.py), comparing the state hash after every step.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from dialbox.engine import InvalidOptions, game_names, get_game

HELPER = Path(__file__).with_name("replay_hashes.py")
HASH_SEEDS = ("0", "1", "12345", "random")
SEEDS = (0, 1, 2, 3)
"""Odd seeds play with physical dice (random bots dial the faces); even ones roll the RNG."""
STEPS = 400
"""Decisions per game at most: enough for whole games, bounded for the time budget."""


def _helper() -> ModuleType:
    """replay_hashes.py as a module, so this process builds games and bots exactly as the
    subprocesses do (tests/engine is not a package)."""
    spec = importlib.util.spec_from_file_location("replay_hashes", HELPER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def player_counts(name: str) -> list[int]:
    """The smallest and the largest player count the game accepts (up to 8)."""
    cls = get_game(name)
    valid = []
    for players in range(1, 9):
        try:
            cls({"players": players})
        except InvalidOptions:
            continue
        valid.append(players)
    assert valid, f"{name} accepts no player count from 1 to 8"
    return sorted({valid[0], valid[-1]})


def cases() -> list[dict[str, Any]]:
    return [{"game": name, "bots": seed, "steps": STEPS,
             "options": {"players": players, "seed": seed, "physical_dice": seed % 2 == 1}}
            for name in game_names() for players in player_counts(name) for seed in SEEDS]


def run_elsewhere(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The helper's answer to `request` under each PYTHONHASHSEED, run side by side."""
    text = json.dumps(request)
    procs = {}
    for hash_seed in HASH_SEEDS:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        procs[hash_seed] = subprocess.Popen(
            [sys.executable, str(HELPER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, env=env)
    answers = {}
    for hash_seed, proc in procs.items():
        out, err = proc.communicate(text, timeout=120)
        assert proc.returncode == 0, f"PYTHONHASHSEED={hash_seed}: helper failed:\n{err}"
        answers[hash_seed] = json.loads(out)
    return answers


def first_difference(a: list[str], b: list[str]) -> str:
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return f"first differs after step {i} of {len(a) - 1}"
    return f"{len(a) - 1} steps here, {len(b) - 1} there"


def test_games_replay_and_play_alike_under_every_hash_seed() -> None:
    helper = _helper()
    plays = cases()
    saves: list[dict[str, Any]] = []
    expected: list[list[str]] = []
    for p in plays:
        game, hashes = helper.play(p["game"], p["options"], p["bots"], p["steps"])
        saves.append(json.loads(json.dumps(game.to_json())))
        expected.append(hashes)
    answers = run_elsewhere({"saves": saves, "plays": plays})
    assert len({a["probe"] for a in answers.values()}) > 1, "the hash seeds made no difference"
    problems = []
    for hash_seed, answer in answers.items():
        for p, want, replayed, played in zip(plays, expected, answer["saves"],
                                             answer["plays"], strict=True):
            where = f"PYTHONHASHSEED={hash_seed} {p['game']} {p['options']}"
            if replayed["error"] is not None:
                problems.append(f"{where}: the save does not load: {replayed['error']}")
            elif replayed["hashes"] != want:
                problems.append(f"{where}: replay {first_difference(want, replayed['hashes'])}")
            if played != want:
                problems.append(f"{where}: a fresh game {first_difference(want, played)}")
    assert not problems, "\n".join(problems)
