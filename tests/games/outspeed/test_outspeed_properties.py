"""Property tests: random Outspeed games end, keep Fuel and positions consistent, and replay."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dialbox.engine.bots import Bot, RandomBot, answer_with_bots
from dialbox.games.outspeed import Outspeed
from dialbox.games.outspeed.bots import RacerBot
from dialbox.games.outspeed.tokens import COPIES, FORCEFIELD_TOKENS

# 13 turns; each turn at most: one Bonus prompt per seat, the routes, an X prompt, dice rolls
# (physical dice: two per cost and two per benefit), and token keeps. Far below this bound.
MAX_DECISIONS = 13 * 6 * 12

options = st.fixed_dictionaries({
    "players": st.integers(3, 6),
    "seed": st.integers(0, 2**32 - 1),
    "variant": st.sampled_from(["standard", "first-game"]),
    "physical_dice": st.booleans(),
    "x_dial": st.sampled_from(["programming", "resolution"]),
    "forced_routes": st.sampled_from(["any", "cheapest"]),
})
bot_kinds = st.lists(st.sampled_from(["random", "racer"]), min_size=6, max_size=6)


def seat_bots(kinds: list[str], seed: int) -> dict[int, Bot]:
    return {
        s: (RacerBot(seed + s) if k == "racer" else RandomBot(seed + s))
        for s, k in enumerate(kinds)
    }


def check_invariants(game: Outspeed) -> None:
    snap = game.snapshot()
    n = game.opts.players
    for s in range(n):
        zone = snap["zones"][s]
        assert snap["alive"][s] == (zone is not None)
        assert snap["fuel"][s] >= 0
        if zone is not None:
            assert snap["rear"] <= zone <= game.track.front
            # Only the Finish Line tile lets a racing Ship sit on 0 Fuel, and it ends the race.
            assert snap["fuel"][s] > 0 or game.over or (
                game.tile.finish and game.phase == "resolution"
            )
    assert snap["boards"] in (2, 3)
    if game.pending is not None and game.pending.asks[0].topic == "outspeed.keep":
        assert snap["boards"] == 2, "the rearmost board goes once movement is over"
    tokens: Counter[str] = Counter(snap["bonus_stack"]) + Counter(snap["discard"])
    for hand in snap["tokens"]:
        tokens.update(hand)
    tokens.update(snap["facedown"].values())
    if snap["drawing"] is not None:
        tokens.update(snap["drawing"][1])
    assert tokens == Counter(COPIES), "the 32 Bonus tokens are all accounted for"
    assert sum(snap["forcefields"].values()) <= FORCEFIELD_TOKENS


def check_event_chains(game: Outspeed, start: dict[str, Any]) -> None:
    """Fuel and move events chain from the start state to the final state, seat by seat."""
    fuel = list(start["fuel"])
    zones = list(start["zones"])
    for e in game.events:
        d = e.data
        if e.kind == "outspeed.fuel":
            assert d["before"] == fuel[d["seat"]], e.text
            fuel[d["seat"]] = d["after"]
        elif e.kind == "outspeed.move":
            assert d["start"] == zones[d["seat"]], e.text
            if d["cause"] == "tile":
                assert d["end"] is not None and d["end"] >= d["start"], "tiles never move back"
            zones[d["seat"]] = d["end"]
        elif e.kind == "outspeed.eliminated":
            zones[d["seat"]] = None
    assert fuel == game.fuel
    assert zones == [game.track.zones.get(s) for s in range(game.opts.players)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(options, bot_kinds)
def test_random_games_end_consistently(opts: dict[str, Any], kinds: list[str]) -> None:
    game = Outspeed(opts)
    start = game.snapshot()
    bots = seat_bots(kinds, opts["seed"] % 1000)
    steps = 0
    while game.pending is not None:
        assert steps < MAX_DECISIONS, "the race must end"
        game.apply(answer_with_bots(game, bots))
        check_invariants(game)
        steps += 1
    assert game.result is not None
    check_event_chains(game, start)
    racing = [s for s in range(opts["players"]) if game.alive[s]]
    assert set(game.result.winners) <= set(racing)
    assert bool(game.result.winners) == bool(racing)
    if len(racing) > 1:
        assert game.turn <= 13
        assert not game.stack or game.tileset.tiles[game.stack[0]].finish or game.turn == 13
    assert game.result.winners == sorted(game.result.winners) or len(game.result.winners) == 1


@settings(max_examples=50, deadline=None)
@given(options, bot_kinds)
def test_replay_is_deterministic(opts: dict[str, Any], kinds: list[str]) -> None:
    game = Outspeed(opts)
    bots = seat_bots(kinds, 7)
    n = 0
    while game.pending is not None and n < 40:
        game.apply(answer_with_bots(game, bots))
        n += 1
    saved = game.to_json()
    again = Outspeed.from_json(saved)
    assert again.state_hash() == game.state_hash()
    assert [e.to_json() for e in again.events] == [e.to_json() for e in game.events]
    # The same options and answers give the same game, decision for decision.
    twin = Outspeed(opts)
    quiet = Outspeed(opts, quiet=True)
    for answers in game.log:
        twin.apply(answers)
        quiet.apply(answers)
    assert twin.snapshot() == game.snapshot()
    assert quiet.snapshot() == game.snapshot() and quiet.events == []


# ------------------------------------------------------------------ any tile the format allows

COLOURS = ("red", "yellow", "green")


@st.composite
def amounts(draw: st.DrawFn, x: bool = False) -> int | str:
    fixed = draw(st.integers(0, 4))
    terms = [str(fixed)] if fixed or draw(st.booleans()) else []
    terms += draw(st.lists(st.sampled_from(COLOURS), max_size=1))
    terms += [f"{d} die" for d in draw(st.lists(st.sampled_from(["yellow", "blue"]),
                                                 max_size=2))]
    if x:
        terms.append("X")
    if not terms:
        return 0
    return fixed if terms == [str(fixed)] else " + ".join(terms)


@st.composite
def routes(draw: st.DrawFn) -> dict[str, Any]:
    x = draw(st.integers(0, 9)) == 0
    route: dict[str, Any] = {
        "cost": {"fuel": draw(amounts(x))},
        "benefit": {"move": draw(amounts(x)), "fuel": draw(amounts()),
                    "bonus": draw(st.integers(0, 2))},
    }
    cond = draw(st.sampled_from(["none", "capacity", "alone"]))
    if cond == "capacity":
        route["capacity"] = draw(st.integers(1, 3))
    elif cond == "alone":
        route["alone"] = True
    return route


@st.composite
def tile_sets(draw: st.DrawFn) -> dict[str, Any]:
    tiles = []
    finish = draw(st.integers(1, 4))
    for number in range(1, 13 + finish):
        tile: dict[str, Any] = {"number": number}
        for side in ("3-4", "5-6"):
            lit = draw(st.lists(st.sampled_from(COLOURS), min_size=1, max_size=3, unique=True))
            tile[side] = {c: draw(routes()) for c in lit}
        tiles.append(tile)
    return {"set": {"name": "generated"}, "tile": tiles}


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(tile_sets(), options, bot_kinds)
def test_any_tile_set_in_the_format_plays_to_the_end(
    data: dict[str, Any], opts: dict[str, Any], kinds: list[str]
) -> None:
    from dialbox.games.outspeed.tiles import parse_tile_set, register_tile_set

    register_tile_set("generated-for-tests", parse_tile_set(data))
    game = Outspeed({**opts, "tile_set": "generated-for-tests"})
    start = game.snapshot()
    bots = seat_bots(kinds, 3)
    steps = 0
    while game.pending is not None:
        assert steps < MAX_DECISIONS * 3, "the race must end"
        game.apply(answer_with_bots(game, bots))
        check_invariants(game)
        steps += 1
    check_event_chains(game, start)
    assert game.result is not None
