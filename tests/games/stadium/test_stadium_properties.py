"""Stadium properties over random full games: termination, Medal and Energy bookkeeping, replay."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dialbox.engine import Game, InvalidOptions, get_game
from dialbox.engine.bots import Bot, RandomBot, answer_with_bots
from dialbox.games.stadium import Stadium
from dialbox.games.stadium.bots import StadiumBot
from dialbox.games.stadium.components import load_tiles
from dialbox.games.stadium.medals import MEDALS, points

SAMPLE = load_tiles("sample")
TILES, LAYOUT = SAMPLE.tiles, SAMPLE.layout
GAMES = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def seat_bots(players: int, seed: int, mix: int) -> dict[int, Bot]:
    """Heuristic bots, with some seats played by uniformly random legal choices."""
    return {s: (RandomBot(seed + s) if (mix >> s) & 1 else StadiumBot(seed + s))
            for s in range(players)}


def play(game: Stadium, bots: dict[int, Bot], watch: Any = None) -> int:
    n = 0
    while game.pending is not None:
        d = game.pending
        if watch is not None:
            watch(game, d)
        game.apply(answer_with_bots(game, bots))
        n += 1
        assert all(0 <= e <= 30 for e in game.energy), game.energy
        assert n < 20_000
    return n


def medals_from_history(game: Stadium) -> list[list[int]]:
    """Medals won minus Medals lost, rebuilt from the Trial history and the events."""
    board = [[0, 0, 0], [0, 0, 0]]
    for h in game.history:
        for a in h["awards"]:
            board[0 if a["team"] == "blue" else 1][MEDALS.index(a["medal"])] += 1
    for e in game.events:
        if e.kind == "stadium.medal_lost" and e.data["medal"] is not None:
            board[0 if e.data["team"] == "blue" else 1][MEDALS.index(e.data["medal"])] -= 1
    return board


HOUSE_RULES = st.fixed_dictionaries({}, optional={
    "wager_limit": st.sampled_from([9, 15, 30]),
    "fencing_zero_dice": st.sampled_from(["green-red-yellow", "red-yellow"]),
    "equestrian_zero_ranked": st.booleans(),
})


@GAMES
@given(players=st.sampled_from([4, 6]), seed=st.integers(0, 2**32 - 1), mix=st.integers(0, 63),
       physical=st.booleans(), house=HOUSE_RULES)
def test_random_games_end_after_ten_trials_with_consistent_books(
    players: int, seed: int, mix: int, physical: bool, house: dict[str, Any]
) -> None:
    game = Stadium({"players": players, "seed": seed, "physical_dice": physical, **house})
    assert [TILES[k].kind for k in game.track] == list(LAYOUT)
    assert len(set(game.track)) == 10

    def watch(g: Stadium, d: Any) -> None:
        for ask in d.asks:
            assert len(ask.text) <= 60, ask.text
            # `dialbox play` reads one typed label per wheel, split on spaces
            assert all(" " not in f.label for w in ask.wheels if w for f in w.faces), ask
            fast = list(g.legal(ask))
            assert fast, ask
            if isinstance(bots[ask.seat], StadiumBot):
                probe = StadiumBot(seed)  # same kind of bot, separate dice: leave theirs alone
                assert probe.decide(g.view(ask.seat), ask) in fast, ask
            assert fast == list(Game.legal(g, ask))  # same answers as the generic driver
            if not ask.topic.startswith("dice."):
                assert ask.default is not None
                g.check(ask, ask.default)  # the timeout answer is always legal

    bots = seat_bots(players, seed, mix)
    play(game, bots, watch)
    assert game.over and game.result is not None
    assert [h["trial"] for h in game.history] == game.track
    assert game.medals == medals_from_history(game)
    assert all(v >= 0 for board in game.medals for v in board)
    pts = [points(game.medals[0]), points(game.medals[1])]
    assert game.result.scores == {s: pts[s % 2] for s in range(players)}
    if pts[0] == pts[1]:
        assert game.result.winners == list(range(players))
    else:
        assert game.result.winners == [s for s in range(players)
                                       if s % 2 == (0 if pts[0] > pts[1] else 1)]
    for h in game.history:
        kinds = TILES[h["trial"]].medals
        if kinds == "gold":
            assert {a["medal"] for a in h["awards"]} == {"gold"}
            assert 1 <= len(h["awards"]) <= 2 and all(a["seat"] is None for a in h["awards"])
        elif kinds == "three" and h["trial"] != "team_gymnastics":
            assert all(a["seat"] is not None for a in h["awards"])
            golds = sum(a["medal"] == "gold" for a in h["awards"])
            assert h["awards"] == [] or golds >= 1
            # Awarding stops once 3 Medals are out: a group never starts after that.
            medal_groups = [m for m in MEDALS if any(a["medal"] == m for a in h["awards"])]
            before_last = sum(1 for a in h["awards"] if a["medal"] != medal_groups[-1]) \
                if medal_groups else 0
            assert before_last < 3


@settings(max_examples=20, deadline=None)
@given(players=st.sampled_from([4, 6]), seed=st.integers(0, 2**32 - 1), mix=st.integers(0, 63))
def test_replay_is_deterministic(players: int, seed: int, mix: int) -> None:
    game = Stadium({"players": players, "seed": seed})
    play(game, seat_bots(players, seed, mix))
    saved = json.loads(json.dumps(game.to_json()))
    again = Stadium.from_json(saved)
    assert again.state_hash() == game.state_hash()
    assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
    twin = Stadium({"players": players, "seed": seed})
    play(twin, seat_bots(players, seed, mix))
    assert twin.log == game.log and twin.state_hash() == game.state_hash()


@settings(max_examples=20, deadline=None)
@given(players=st.sampled_from([4, 6]), seed=st.integers(0, 2**32 - 1))
def test_views_hide_unrevealed_tiles_and_locked_in_wagers(players: int, seed: int) -> None:
    """Seats lock in one at a time (Game.stage): until the last is in, no other seat's view
    shows a locked-in answer; unrevealed tiles show only their backs."""
    game = Stadium({"players": players, "seed": seed})
    bots = seat_bots(players, seed, 0)
    checked = 0

    def public(view: dict[str, Any]) -> str:
        pending = dict(view["pending"] or {})
        pending.pop("locked", None)
        pending.pop("mine", None)  # checked separately: only the seat's own answers
        return json.dumps({**view, "pending": pending, "seat": None}, sort_keys=True)

    while (d := game.pending) is not None:
        hidden = game.track[game.revealed:]
        for seat in range(players):
            v = game.view(seat)
            assert v["track"][game.revealed:] == [TILES[k].kind for k in hidden]
            assert all(f'"{k}"' not in json.dumps(v["track"]) for k in hidden)
        picks = answer_with_bots(game, bots)
        if not d.sealed or len(d.asks) < 2:
            game.apply(picks)
            continue
        before = {s: public(game.view(s)) for s in range(players)}
        *first, last = d.seats
        for s in first:
            assert game.stage(s, picks[s]) is None
            for other in range(players):
                v = game.view(other)
                assert public(v) == before[other]  # only who has locked in changed
                mine = v["pending"]["mine"]
                assert mine == ({str(other): list(picks[other])} if other in game.locked
                                else {})
            checked += 1
        assert game.stage(last, picks[last]) is not None  # the last lock reveals and applies
    assert checked > 0


@pytest.mark.parametrize("players", [1, 2, 3, 5, 7])
def test_only_four_or_six_players(players: int) -> None:
    with pytest.raises(InvalidOptions, match="4 or 6 players"):
        get_game("stadium")({"players": players})


def test_house_rule_limits_are_checked() -> None:
    with pytest.raises(InvalidOptions, match="wager_limit"):
        Stadium({"players": 4, "wager_limit": 31})
    with pytest.raises(InvalidOptions, match="unknown Trial"):
        Stadium({"players": 4, "track": ["curling"]})
    with pytest.raises(InvalidOptions, match="energy"):
        Stadium({"players": 4, "energy": [25, 25, 25]})


def test_coin_flip_gives_the_token_to_seat_1_or_their_left() -> None:
    firsts = {Stadium({"players": 6, "seed": s}).first for s in range(40)}
    assert firsts == {0, 1}


def test_track_is_revealed_one_tile_at_a_time() -> None:
    game = Stadium({"players": 4, "seed": 5})
    bots = seat_bots(4, 5, 0)
    revealed = [game.revealed]
    while game.pending is not None:
        game.apply(answer_with_bots(game, bots))
        revealed.append(game.revealed)
    assert revealed == sorted(revealed) and revealed[-1] == 10
    reveals = [e.data["index"] for e in game.events if e.kind == "stadium.reveal"]
    assert reveals == list(range(10))


@pytest.mark.parametrize("seed", range(6))
def test_two_humans_and_two_bots(seed: int) -> None:
    """Seats 1 and 3 are people who answer every prompt by its timeout default (or, for dice,
    the first face); seats 2 and 4 are StadiumBots reading only their own views."""
    game = Stadium({"players": 4, "seed": seed, "physical_dice": seed % 2 == 1})
    bots = {1: StadiumBot(seed), 3: StadiumBot(seed + 1)}
    talk = set()
    while (d := game.pending) is not None:
        talk.add(game.view(0)["trial"]["talk"])
        answers = {}
        for ask in d.asks:
            if ask.seat in bots:
                answers[ask.seat] = bots[ask.seat].choose(game.view(ask.seat), ask,
                                                          list(game.legal(ask)))
            else:
                answers[ask.seat] = ask.default or next(game.legal(ask))
        game.apply(answers)
    assert game.result is not None and len(game.history) == 10
    assert talk <= {"allowed", "forbidden", "numbers only"}
