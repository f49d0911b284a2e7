"""Properties of many seeded random-bot PIP Cycle games (2 and 3 players), checked after
every decision: games end; riders never share a point; no line is claimed twice; Pips stay
1-6; every player's 3 dice are always accounted for; the deck is conserved; hands hold at
most 3 cards."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.games.pipcycle import PipCycle

GAMES = 100
MAX_DECISIONS = 3000


def check_invariants(game: PipCycle, where: str) -> None:
    points = [r.at for r in game.riders]
    assert len(points) == len(set(points)), f"{where}: two riders share a point"
    for r in game.riders:
        assert 1 <= r.pips <= 6, f"{where}: rider {r.id} shows {r.pips}"
        assert 0 <= r.x < game.size and 0 <= r.y < game.size, f"{where}: rider off the grid"
    for s in range(game.n):
        dice = (game.captured_from(s) + game.lost[s] + len(game.riders_of(s))
                + game.reserve[s])
        assert dice == 3, f"{where}: seat {s} has {dice} dice accounted for"
        assert game.reserve[s] >= 0 and len(game.hands[s]) <= 3, where
        assert s not in game.trophies[s], f"{where}: seat {s} captured its own die"
    cards = game.pile + [c for h in game.hands for c in h] + game.played
    assert Counter(cards) == Counter(game.full_deck), f"{where}: the deck is not conserved"


def play(options: dict[str, Any], seed: int) -> tuple[PipCycle, Counter[str]]:
    players = options["players"]
    game = PipCycle({**options, "seed": seed}, quiet=True)
    bots = {p: RandomBot(seed * 10 + p) for p in range(players)}
    seen = Counter[str]()
    claimed: dict[Any, int] = dict(game.claimed)
    last = game.last_move
    round_ = game.round
    for n in range(MAX_DECISIONS):
        if game.pending is None:
            break
        game.apply(answer_with_bots(game, bots))
        where = f"{players}p seed {seed} decision {n + 1}"
        check_invariants(game, where)
        if game.round != round_:
            round_ = game.round
            assert not game.claimed, f"{where}: trails survive into round {round_}"
            claimed, last = {}, game.last_move
            continue
        if game.last_move is not last:
            last = game.last_move
            assert last is not None
            seen[last["crash"] or "ok"] += 1
            drawn = len(last["path"]) - 1
            # every line of the Movement was new: none was claimed before (or twice within it)
            assert len(game.claimed) == len(claimed) + drawn, f"{where}: a line claimed twice"
        for s in range(players):
            seen[f"riders {len(game.riders_of(s))}"] += 1
        for line, owner in claimed.items():
            assert game.claimed.get(line) == owner, f"{where}: a claimed line changed owner"
        claimed = dict(game.claimed)
    else:
        pytest.fail(f"{players}p seed {seed}: no end after {MAX_DECISIONS} decisions")
    return game, seen


@pytest.mark.parametrize("options", [
    {"players": 2},
    {"players": 2, "grid": 5, "ranks": 3},
    {"players": 3},
    {"players": 3, "capture": "winner", "target": 2},
], ids=["2p", "2p-small", "3p", "3p-winner"])
def test_random_games_keep_the_rules(options: dict[str, Any]) -> None:
    players = options["players"]
    causes = Counter[str]()
    ends = Counter[str]()
    for seed in range(GAMES):
        game, seen = play(options, seed)
        causes.update(seen)
        assert game.over and game.result is not None
        counts = [len(t) for t in game.trophies]
        assert game.result.winners and all(counts[w] == max(counts) for w in game.result.winners)
        if players == 2:
            (w,) = game.result.winners
            assert counts[w] == 3 or (counts[w] == 2 and counts[1 - w] == 0), counts
            ends["3" if counts[w] == 3 else "2-0"] += 1
        else:
            assert max(counts) >= options.get("target", 3) or min(game.reserve) == 0
    # the random games met every kind of Movement ending and Grid Escalation (to 3 riders
    # with the short deck: random riders rarely survive two whole decks)
    met = {"ok", "edge", "line", "occupied", "riders 2"} | ({"riders 3"} if "ranks" in options
                                                            else set())
    assert met <= set(causes), causes
    if players == 2:
        assert set(ends) == {"3", "2-0"}, ends
