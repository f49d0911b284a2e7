"""Outspeed unit tests: tile-set format, dice data, setup, route legality, X, tokens, views."""

from __future__ import annotations

from typing import Any

import pytest

from dialbox.engine import CENTRE, RIGHT, IllegalChoice, InvalidOptions, get_game
from dialbox.engine.chance import Chance
from dialbox.games.outspeed import Outspeed
from dialbox.games.outspeed.boards import Racetrack
from dialbox.games.outspeed.dice import load_dice
from dialbox.games.outspeed.tiles import (
    TileFormatError,
    load_tile_set,
    parse_amount,
    parse_tile_set,
)
from dialbox.games.outspeed.tokens import BonusStack, full_set


def at(tiles: list[int], fuel: list[int], zones: list[int | None] | None = None,
       **extra: Any) -> Outspeed:
    n = len(fuel)
    pos: dict[str, Any] = {"tiles": tiles, "fuel": fuel, "zones": zones or [2] * n}
    pos.update(extra.pop("pos", {}))
    return Outspeed({"players": n, "position": pos, **extra})


def route_wheel(game: Outspeed, seat: int) -> tuple[set[int], dict[int, str]]:
    d = game.pending
    assert d is not None and d.asks[0].topic == "outspeed.route"
    w = d.ask_for(seat).wheels[RIGHT]
    assert w is not None
    return set(w.allowed), dict(w.reasons)


# ------------------------------------------------------------------ data files


def test_sample_set_is_labelled_and_complete() -> None:
    ts = load_tile_set("sample")
    assert ts.sample and "sample" in ts.name
    assert ts.track == list(range(1, 13)) and ts.finish == [13, 14, 15, 16]
    assert all("Sample" in t.title for t in ts.tiles.values())
    eleven = ts.tiles[11].side("3-4").routes
    assert any(r.alone for r in eleven.values())
    green12 = ts.tiles[12].side("3-4").routes["green"].fuel_cost
    assert green12.fixed == 1 and green12.dice == ("yellow",)
    assert any(len(r.move.dice) >= 2 or len(r.fuel_cost.dice) >= 2
               for r in ts.tiles[14].side("3-4").routes.values())
    assert any(r.uses_x for t in ts.tiles.values() if t.finish
               for r in t.side("3-4").routes.values())


def test_amounts_parse_every_symbol() -> None:
    a = parse_amount("1 + yellow die + yellow die + red + X", "t")
    assert (a.fixed, a.dice, a.colours, a.x) == (1, ("yellow", "yellow"), ("red",), True)
    assert parse_amount(3, "t").fixed == 3
    with pytest.raises(TileFormatError, match="unknown term 'purple'"):
        parse_amount("purple", "tile 3.3-4.red.cost.fuel")
    with pytest.raises(TileFormatError, match="never negative"):
        parse_amount(-2, "t")


def _one_tile(route: dict[str, Any]) -> dict[str, Any]:
    tiles: list[dict[str, Any]] = [
        {"number": n, "3-4": {"red": {}}, "5-6": {"red": {}}} for n in range(1, 14)
    ]
    tiles[0]["3-4"] = {"red": route}
    return {"tile": tiles}


@pytest.mark.parametrize(("route", "message"), [
    ({"capacity": 0}, "silhouettes"),
    ({"capacity": 2, "alone": True}, "not both"),
    ({"cost": {"move": 1}}, "costs are Fuel"),
    ({"benefit": {"fuel": "X"}}, "X means"),
    ({"colour": "red"}, "unknown key"),
])
def test_tile_format_errors_name_the_tile(route: dict[str, Any], message: str) -> None:
    with pytest.raises(TileFormatError, match=message) as e:
        parse_tile_set(_one_tile(route))
    assert "tile 1" in str(e.value)


def test_a_set_needs_twelve_track_tiles_and_a_finish_line() -> None:
    data = _one_tile({})
    data["tile"] = data["tile"][:11]
    with pytest.raises(TileFormatError, match="12 Track tiles"):
        parse_tile_set(data)


def test_owner_tile_file_by_path(tmp_path: Any) -> None:
    path = tmp_path / "mine.toml"
    path.write_text("\n".join(
        f'[[tile]]\nnumber = {n}\n[tile.3-4.red]\nbenefit = {{ move = 1 }}\n'
        f'[tile.5-6.green]\nbenefit = {{ move = 2 }}\n' for n in range(1, 14)))
    g = Outspeed({"players": 3, "tile_set": str(path)})
    assert g.tileset.finish == [13] and not g.tileset.sample
    with pytest.raises(InvalidOptions, match="cannot read tile set"):
        Outspeed({"players": 3, "tile_set": str(tmp_path / "missing.toml")})


def test_dice_data_follows_what_is_known() -> None:
    dice = load_dice()
    yellow = [f.value for f in dice["yellow"].faces]
    blue = [f.value for f in dice["blue"].faces]
    assert all(v < 0 for v in yellow) and -3 in yellow and len(yellow) == 6
    assert all(v > 0 for v in blue) and 4 in blue and len(blue) == 6
    assert "+4" in [f.label for f in dice["blue"].faces]


# ------------------------------------------------------------------ setup and options


def test_registry_and_setup() -> None:
    g = get_game("outspeed")({"players": 4, "seed": 5})
    assert isinstance(g, Outspeed)
    assert g.fuel == [12] * 4 and set(g.track.zones.values()) == {2}
    assert len(g.stack) == 13 and sorted(g.stack[:12]) == list(range(1, 13))
    assert g.tileset.tiles[g.stack[12]].finish and g.side == "3-4"
    assert len(g.bonus.stack) == 32
    first = Outspeed({"players": 5, "variant": "first-game"})
    assert first.stack == list(range(1, 14)) and first.side == "5-6"


@pytest.mark.parametrize("opts", [
    {"players": 2}, {"players": 7}, {"players": 4, "variant": "sprint"},
    {"players": 4, "x_dial": "never"},
    {"players": 3, "position": {"tiles": [1, 13], "zones": [2, 2], "fuel": [5, 5]}},
    {"players": 3, "position": {"tiles": [99], "zones": [2, 2, 2], "fuel": [5, 5, 5]}},
    {"players": 3, "position": {"tiles": [1], "zones": [2, 2, 30], "fuel": [5, 5, 5]}},
    {"players": 3, "position": {"tiles": [1], "zones": [2, 2, 2], "fuel": [5, -1, 5]}},
    {"players": 3, "position": {"tiles": [1], "zones": [2, 2, 2], "fuel": [5, 5, 5],
                                "tokens": [["nitro"], ["laser"], []]}},
])
def test_bad_options(opts: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions):
        Outspeed(opts)


# ------------------------------------------------------------------ programming


def test_right_wheel_routes_lights_off_and_blue() -> None:
    g = at([6, 13], [9, 9, 9])  # sample tile 6: red and green lit, yellow off
    allowed, reasons = route_wheel(g, 0)
    assert allowed == {0, 2}
    assert "yellow light is off" in reasons[1] and "not an Outspeed route" in reasons[3]
    with pytest.raises(IllegalChoice, match="yellow light is off"):
        g.apply({0: (-1, -1, 1), 1: (-1, -1, 0), 2: (-1, -1, 0)})


def test_unaffordable_routes_are_refused_with_the_cost() -> None:
    g = at([10, 13], [1, 3, 9])  # tile 10: red pays 4, yellow 2, green free
    assert route_wheel(g, 0)[0] == {2}
    assert route_wheel(g, 1)[0] == {1, 2}
    assert route_wheel(g, 2)[0] == {0, 1, 2}
    assert "costs at least 4 Fuel and you have 1" in route_wheel(g, 0)[1][0]


def test_random_cost_counts_its_best_case() -> None:
    g = at([12, 13], [2, 1, 3])  # tile 12 green: 1 + yellow die, best case 2; red pays 2
    assert route_wheel(g, 0)[0] == {0, 2}
    assert route_wheel(g, 1)[0] == {0, 2}, "nothing affordable: forced onto any lit route"
    g2 = at([4, 13], [1, 1, 1])  # tile 4 red pays one per red taker: best case 1 (yourself)
    assert 0 in route_wheel(g2, 0)[0]


def test_forced_cheapest_option() -> None:
    g = at([7, 13], [1, 1, 1], pos={"side": "3-4"})
    assert 2 in route_wheel(g, 0)[0]  # tile 7 green is free: not forced
    g = at([12, 13], [1, 1, 1], forced_routes="cheapest")
    assert route_wheel(g, 0)[0] == {0, 2}  # both cost at least 2
    g = at([8, 13], [0 + 1, 1, 1], forced_routes="cheapest")  # red 2, yellow 1, green 3
    assert route_wheel(g, 0)[0] == {1}


def test_centre_wheel_x_with_the_route() -> None:
    g = at([16], [5, 9, 9])  # sample tile 16 red: pay X, move X
    d = g.pending
    assert d is not None
    centre = d.ask_for(0).wheels[CENTRE]
    assert centre is not None and centre.allowed == frozenset(range(6))
    with pytest.raises(IllegalChoice, match="at most 5"):
        g.apply({0: (-1, 6, 0), 1: (-1, 0, 2), 2: (-1, 0, 2)})
    with pytest.raises(IllegalChoice, match="only counts for a route marked X"):
        g.apply({0: (-1, 5, 0), 1: (-1, 3, 2), 2: (-1, 0, 2)})
    g.apply({0: (-1, 5, 0), 1: (-1, 9, 0), 2: (-1, 0, 2)})
    assert g.over and g.fuel == [0, 0, 9]
    assert [g.track.zones[s] for s in range(3)] == [7, 11, 3]
    assert g.result is not None and g.result.winners == [1]


def test_x_dialled_after_the_reveal_option() -> None:
    g = at([16], [4, 9, 9], x_dial="resolution")
    d = g.pending
    assert d is not None and d.ask_for(0).wheels[CENTRE] is None
    g.apply({0: (-1, -1, 0), 1: (-1, -1, 2), 2: (-1, -1, 0)})
    d = g.pending
    assert d is not None and d.sealed and d.asks[0].topic == "outspeed.x"
    assert d.seats == (0, 2)
    w = d.ask_for(0).wheels[CENTRE]
    assert w is not None and max(w.allowed) == 4
    g.apply({0: (-1, 3, -1), 2: (-1, 7, -1)})
    assert g.fuel == [1, 9, 2] and g.track.zones == {0: 5, 1: 3, 2: 9}


# ------------------------------------------------------------------ tokens and views


def test_take_two_keep_one_other_to_the_bottom() -> None:
    stack = ["nitro", "ion_cannon", "fuel_tank"]
    g = at([3, 13], [9, 9, 9], pos={"bonus_stack": stack})
    g.apply({0: (-1, -1, 0), 1: (-1, -1, 2), 2: (-1, -1, 2)})  # tile 3 red: 1 Bonus
    d = g.pending
    assert d is not None and not d.sealed and d.asks[0].topic == "outspeed.keep"
    labels = [f.label for f in d.asks[0].wheels[CENTRE].faces]  # type: ignore[union-attr]
    assert labels == ["Nitro", "Ion"]
    assert g.view(0)["drawing"] == [0, ["nitro", "ion_cannon"]]
    assert g.view(1)["drawing"] == [0, 2]
    g.apply({0: (-1, 1, -1)})
    assert g.held[0] == ["ion_cannon"] and g.bonus.stack == ["fuel_tank", "nitro"]
    v = g.view(1)
    assert v["tokens"][0] == 1 and v["bonus_stack"] == 2 and v["stack"] == [13]


def test_stack_reshuffles_discards_and_single_token_needs_no_choice() -> None:
    chance = Chance(1)
    b = BonusStack(["nitro"], ["fuel_tank", "forcefield"])
    got = b.draw(2, chance)
    assert got[0] == "nitro" and got[1] in ("fuel_tank", "forcefield")
    assert len(b.stack) == 1 and b.discard == []
    g = at([3, 13], [9, 9, 9], pos={"bonus_stack": ["nitro"], "discard": [],
                                     "tokens": [[], [], full_set()[:31]]})
    g.apply({2: (-1, 0, -1)})  # seat 3 holds the other 31 tokens and passes
    g.apply({0: (-1, -1, 0), 1: (-1, -1, 2), 2: (-1, -1, 2)})
    assert g.held[0] == ["nitro"] and g.pending is not None
    assert g.pending.asks[0].topic == "outspeed.bonus", "no keep prompt for a single token"


def test_face_down_token_is_hidden_until_revealed() -> None:
    g = at([1, 13], [9, 9, 9], [5, 3, 2],
           pos={"tokens": [["nitro"], ["fuel_tank"], []]})
    g.apply({0: (-1, 6, -1)})  # Nitro
    assert g.view(1)["facedown"] == {"0": "?"} and g.view(0)["facedown"] == {"0": "nitro"}
    events = g.apply({1: (-1, 5, -1)})  # Fuel Tank
    assert [e.kind for e in events][-1] == "outspeed.fuel"
    assert g.fuel == [9, 11, 9] and g.track.zones[0] == 6


def test_a_racing_ship_is_capped_at_the_end_of_the_third_board() -> None:
    t = Racetrack()
    t.zones = {0: 13, 1: 20}
    t.boards = 3
    m = t.move(1, 4)
    assert m.capped and m.end == 20 and t.front == 20
    assert t.remove_rear_board() == [] and t.rear == 7 and t.boards == 2


def test_views_after_the_race_and_racers_beat_random_play() -> None:
    from dialbox.engine.bots import RandomBot, play_out
    from dialbox.games.outspeed.bots import RacerBot

    racer_wins = random_wins = 0
    for seed in range(24):
        n = 3 + seed % 4
        g = Outspeed({"players": n, "seed": seed})
        play_out(g, {s: RacerBot(seed + s) if s % 2 == 0 else RandomBot(seed + s)
                     for s in range(n)})
        assert g.over and (g.view(0)["tile"] is None) == (not g.stack)
        assert g.result is not None
        racer_wins += sum(1 for w in g.result.winners if w % 2 == 0)
        random_wins += sum(1 for w in g.result.winners if w % 2 == 1)
    assert racer_wins > 2 * random_wins


def test_an_eighth_forcefield_has_no_marker_left() -> None:
    g = at([1, 13], [9, 9, 9], [2, 6, 9],
           pos={"tokens": [["forcefield"], [], []], "forcefields": {"3": 4, "12": 3}})
    events = g.apply({0: (-1, 4, -1)})  # Forcefield
    assert "outspeed.forcefield.none" in [e.kind for e in events]
    assert g.track.forcefields == {3: 4, 12: 3} and g.bonus.discard == ["forcefield"]


def test_the_race_draws_for_a_terminal() -> None:
    from rich.console import Console

    from dialbox.games.outspeed import draw

    g = at([11, 13], [9, 9, 9], [2, 6, 9], pos={"forcefields": {"6": 1}})
    console = Console(width=100, record=True)
    console.print(draw(g.view(0)))
    text = console.export_text()
    assert "Sample 11" in text and "alone" in text and "[2]" in text
