"""Trial of the Gods' CompanionBot: tables of bots finish short games with legal, plausible
dials, deterministically, from their own seat's view only."""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from dialbox.engine import CENTRE, LEFT, RIGHT, Ask, Selection
from dialbox.engine.bots import Bot, LegalAnswers, answer_with_bots, play_out
from dialbox.games.trial_of_the_gods import CompanionBot, TrialOfTheGods

BOUND = {1: 150, 2: 250, 3: 330, 4: 400}
"""Decisions a whole game may take at most (advanced mode, physical dice included). When this
was written the longest of 40 seeded 4-player games took 237."""
SEEDS = range(6)


class Checked:
    """Wraps a bot: every answer must be legal, and the same from a JSON copy of the view."""

    def __init__(self, bot: CompanionBot, game: TrialOfTheGods) -> None:
        self.bot = bot
        self.game = game
        self.dials: list[tuple[str, Selection]] = []

    def choose(self, view: Mapping[str, Any], ask: Ask, legal: Sequence[Selection]) -> Selection:
        twin = copy.deepcopy(self.bot)
        frozen = json.loads(json.dumps(dict(view)))
        sel = self.bot.choose(view, ask, legal)
        assert sel in list(self.game.legal(ask)), f"{ask.topic}: {sel} is not legal"
        assert twin.choose(frozen, ask, list(legal)) == sel, \
            f"{ask.topic}: a JSON copy of the view gives another answer"
        self.dials.append((ask.topic, sel))
        return sel


def play(players: int, seed: int, variant: str = "basic",
         physical: bool = False) -> tuple[TrialOfTheGods, list[Checked], int]:
    game = TrialOfTheGods({"players": players, "seed": seed, "variant": variant,
                           "physical_dice": physical}, quiet=True)
    bots = [Checked(CompanionBot(seed * 10 + p), game) for p in range(players)]
    table: dict[int, Bot] = dict(enumerate(bots))
    n = 0
    while game.pending is not None:
        game.apply(answer_with_bots(game, table))
        n += 1
        assert n <= BOUND[players], f"{players} players, seed {seed}: no end in {n} decisions"
    return game, bots, n


@pytest.mark.parametrize("players", [1, 2, 3, 4])
@pytest.mark.parametrize(("variant", "physical"), [("basic", False), ("advanced", True)])
def test_bot_games_end_with_legal_answers(players: int, variant: str, physical: bool) -> None:
    for seed in SEEDS:
        game, _, n = play(players, seed, variant, physical)
        assert game.over and game.result is not None
        assert game.snapshot()["round"] == (5 if variant == "advanced" else 4)
        assert n <= BOUND[players]


def test_four_bots_finish_in_a_few_hundred_decisions() -> None:
    for seed in range(12):
        game = TrialOfTheGods({"players": 4, "seed": seed, "physical_dice": seed % 2 == 1},
                              quiet=True)
        n = play_out(game, {p: CompanionBot(seed + p) for p in range(4)}, max_decisions=1000)
        assert game.over, f"seed {seed}"
        assert 60 <= n <= 300, f"seed {seed}: {n} decisions"


def test_the_bot_is_deterministic_from_its_seed() -> None:
    a, _, _ = play(3, 7, "advanced", True)
    b, _, _ = play(3, 7, "advanced", True)
    assert a.log == b.log
    assert a.state_hash() == b.state_hash()
    c, _, _ = play(3, 8, "advanced", True)
    assert c.log != a.log


def test_the_bot_dials_plausible_values() -> None:
    seen: Counter[str] = Counter()
    for seed in range(8):
        game, bots, _ = play(4, seed, "basic", seed % 2 == 0)
        for bot in bots:
            for topic, sel in bot.dials:
                seen[topic] += 1
                if topic == "trial.attack":
                    assert 2 <= sel[CENTRE] <= 9 and sel[RIGHT] <= 1
                    seen["free temple"] += sel[LEFT]
                elif topic in ("trial.enemy_damage", "trial.skills", "trial.fervor_bonus"):
                    assert sel[CENTRE] <= 2
                elif topic == "trial.restore":
                    assert sel[CENTRE] <= 3
                elif topic == "trial.competition":
                    assert sel[LEFT] <= 3 and sel[CENTRE] <= 3
                    seen["effect"] += sel[RIGHT]
                elif topic == "trial.count":
                    assert sel[CENTRE] <= 12 and sel[RIGHT] <= 2
                elif topic == "trial.tiebreak":
                    assert sel[CENTRE] <= 9
                elif topic == "trial.turn":
                    seen[f"turn {sel[CENTRE]}"] += 1
        final = game.snapshot()["final"]
        assert final is not None and len(final["standings"]) == 4
    # the bots pass, fight, change tracks, use Olympics Effects and claim Temples now and then
    for what in ("turn 0", "turn 1", "turn 2", "turn 3", "trial.track", "trial.enemy",
                 "effect", "free temple", "trial.temple", "trial.effect"):
        assert seen[what] > 0, f"never: {what}"
    assert seen["turn 1"] > seen["turn 2"]  # more passing than fighting


def test_the_bot_answers_from_a_plain_list_of_legal_answers() -> None:
    game = TrialOfTheGods({"players": 2, "seed": 3, "physical_dice": True}, quiet=True)
    bots = {p: CompanionBot(p) for p in range(2)}
    n = 0
    while game.pending is not None:
        d = game.pending
        answers = {}
        for ask in d.asks:
            legal = LegalAnswers(game, ask)
            answers[ask.seat] = bots[ask.seat].choose(game.view(ask.seat), ask, list(legal))
        game.apply(answers)
        n += 1
        assert n <= BOUND[2]
    assert game.result is not None
