"""Property tests for Pixoid: legal states only, save/load, replay, and sealed views."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dialbox.engine import Selection
from dialbox.engine.bots import Bot, LegalAnswers, RandomBot, answer_with_bots
from dialbox.games.pixoid import Pixoid, PixoidBot
from dialbox.games.pixoid.rules import SPARE, turned_mask

FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

options_st = st.fixed_dictionaries({
    "players": st.sampled_from([3, 4]),
    "seed": st.integers(0, 10_000),
    "variant": st.sampled_from(["standard", "short"]),
    "arrows": st.sampled_from(["screen", "seat"]),
    "layout": st.sampled_from(["1a 2a 3a 4a", "4b 3a 2b 1b", "random"]),
    "bonus_before_catch": st.booleans(),
}).map(lambda o: {**o, "first_pixoid": o["seed"] % o["players"]})


def make_bots(game: Pixoid, seed: int, heuristic: bool) -> dict[int, Bot]:
    kind = PixoidBot if heuristic else RandomBot
    return {p: kind(seed + p) for p in range(game.players)}


def assert_legal_state(game: Pixoid) -> None:
    board = game.board
    n2 = board.size * board.size
    assert 0 <= game.reserve <= 12
    assert len(game.bonus) + game.bonus_taken == len(board.bonus)
    assert game.bonus <= set(board.bonus)
    assert 1 <= game.round <= game.rounds
    d = game.pending
    if d is None:
        assert game.result is not None
        return
    if d.asks[0].topic == "pixoid.move":
        assert 1 <= game.turn <= 12
        assert all(0 <= p < n2 for p in game.cubes)
        bugs = [game.cubes[b] for b in game.bugs]
        assert game.cubes[game.pixoid] not in bugs, "Pixoid shares a Pix with a Bug mid-round"
        assert d.sealed and d.seats == tuple(range(game.controllers))
        for ask in d.asks:
            left = ask.wheels[0]
            assert left is not None and ask.wheels[1] is not None and ask.wheels[2] is None
            assert 0 not in ask.wheels[1].allowed
            dial_open = turned_mask(board.open[game.cubes[ask.seat]], game.turns[ask.seat])
            assert left.allowed == {2 * k for k in range(4) if dial_open >> k & 1}
            assert 0 <= ask.answerer < game.players
            if ask.seat == SPARE and game.players == 3:
                assert ask.answerer != game.pixoid
    else:
        assert not d.sealed and len(d.asks) == 1
        placed = [p for p in game.cubes if p >= 0]
        assert len(set(placed)) == len(placed)
        assert set(placed) <= set(board.starts)


@FAST
@given(options_st, st.booleans())
def test_random_games_stay_legal_and_finish(options: dict[str, Any], heuristic: bool) -> None:
    game = Pixoid(options)
    bots = make_bots(game, options["seed"], heuristic)
    assert_legal_state(game)
    scores_before = list(game.scores)
    steps = 0
    while not game.over:
        game.apply(answer_with_bots(game, bots))
        assert_legal_state(game)
        assert all(a >= b for a, b in zip(game.scores, scores_before, strict=True))
        scores_before = list(game.scores)
        steps += 1
        assert steps < 500
    result = game.result
    assert result is not None
    history = result.details["rounds"]
    if options["variant"] == "standard":
        assert sorted(h["pixoid"] for h in history) == list(range(game.players))
        top = max(game.scores)
        assert result.winners == [p for p, s in enumerate(game.scores) if s == top]
        for h in history:
            assert h["points"][h["pixoid"]] == (12 if not h["caught"] else h["taken"]) + h["bonus"]
    else:
        assert len(history) == 1
        assert (game.pixoid in result.winners) == (not history[0]["caught"])


@FAST
@given(options_st, st.integers(0, 60))
def test_save_load_round_trip_at_any_step(options: dict[str, Any], steps: int) -> None:
    game = Pixoid(options)
    bots = make_bots(game, 7, heuristic=False)
    for _ in range(steps):
        if game.over:
            break
        game.apply(answer_with_bots(game, bots))
    saved = json.loads(json.dumps(game.to_json()))
    again = Pixoid.from_json(saved)
    assert again.state_hash() == game.state_hash()
    assert again.snapshot() == game.snapshot()
    assert again.view(0) == game.view(0)
    # Both play on identically from here.
    bots_a = make_bots(game, 99, heuristic=False)
    bots_b = make_bots(again, 99, heuristic=False)
    while not game.over:
        game.apply(answer_with_bots(game, bots_a))
        again.apply(answer_with_bots(again, bots_b))
        assert again.state_hash() == game.state_hash()
    assert again.over


@FAST
@given(options_st)
def test_replaying_the_log_gives_the_same_hash_at_every_step(options: dict[str, Any]) -> None:
    game = Pixoid(options)
    bots = make_bots(game, 3, heuristic=False)
    hashes = [game.state_hash()]
    while not game.over:
        game.apply(answer_with_bots(game, bots))
        hashes.append(game.state_hash())
    replay = Pixoid(options, quiet=True)
    assert replay.state_hash() == hashes[0]
    for answers, expected in zip(game.log, hashes[1:], strict=True):
        replay.apply(answers)
        assert replay.state_hash() == expected
    assert replay.result is not None and game.result is not None
    assert replay.result.to_json() == game.result.to_json()


def _two_choices(game: Pixoid, seat: int, pick: int) -> Selection:
    legal = LegalAnswers(game, game.pending.ask_for(seat))  # type: ignore[union-attr]
    return legal[pick % len(legal)]


@FAST
@given(options_st, st.integers(0, 40), st.integers(0, 10_000), st.integers(0, 10_000))
def test_a_view_never_shows_another_players_sealed_choice(
    options: dict[str, Any], steps: int, pick_a: int, pick_b: int
) -> None:
    game = Pixoid(options)
    bots = make_bots(game, 5, heuristic=False)
    for _ in range(steps):
        if game.over:
            break
        game.apply(answer_with_bots(game, bots))
    # Get to a sealed move decision.
    while game.pending is not None and not game.pending.sealed:
        game.apply(answer_with_bots(game, bots))
    if game.pending is None:
        return
    saved = game.to_json()
    a, b = Pixoid.from_json(saved), Pixoid.from_json(saved)
    watcher = a.pending.asks[0].answerer  # type: ignore[union-attr]
    mine = [x.seat for x in a.pending.asks if x.answerer == watcher]  # type: ignore[union-attr]
    others = [x.seat for x in a.pending.asks if x.answerer != watcher]  # type: ignore[union-attr]
    before = a.view(watcher)
    for seat in others:
        a.stage(seat, _two_choices(a, seat, pick_a + seat))
        b.stage(seat, _two_choices(b, seat, pick_b * 7 + seat))
    view_a, view_b = a.view(watcher), b.view(watcher)
    assert view_a == view_b
    assert view_a["pending"]["locked"] == sorted(others)
    assert {k: v for k, v in view_a.items() if k != "pending"} == {
        k: v for k, v in before.items() if k != "pending"
    }
    # The watcher does see its own locked choice.
    own = _two_choices(a, mine[0], pick_a)
    a.stage(mine[0], own)
    if a.pending is not None and a.pending.id == before["pending"]["decision"]:
        assert a.view(watcher)["pending"]["mine"][str(mine[0])] == list(own)


def _mean_turns(pixoid_bot: type, bug_bot: type, games: int = 40) -> float:
    total = 0
    for seed in range(games):
        game = Pixoid({"players": 4, "variant": "short", "seed": seed}, quiet=True)
        bots: dict[int, Bot] = {0: pixoid_bot(seed)}
        bots.update({p: bug_bot(seed * 10 + p) for p in (1, 2, 3)})
        while not game.over:
            game.apply(answer_with_bots(game, bots))
        total += game.turn
    return total / games


def test_heuristic_pixoid_survives_longer_than_a_random_one() -> None:
    assert _mean_turns(PixoidBot, RandomBot) > _mean_turns(RandomBot, RandomBot) + 1


def test_heuristic_bugs_catch_sooner_than_random_ones() -> None:
    assert _mean_turns(RandomBot, PixoidBot) < _mean_turns(RandomBot, RandomBot) - 1
