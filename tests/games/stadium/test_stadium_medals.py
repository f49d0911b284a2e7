"""The 3 Medals Rule, victory points and the tile and dice data files."""

from __future__ import annotations

import doctest

import pytest

from dialbox.games.stadium import medals
from dialbox.games.stadium.components import load_dice, load_tiles
from dialbox.games.stadium.medals import Podium, points, three_medals


def test_doctests() -> None:
    assert doctest.testmod(medals).failed == 0


@pytest.mark.parametrize(("scores", "expected"), [
    # the rulebook's two worked examples
    ({0: 4, 1: 4, 2: 3, 3: 3, 4: 3, 5: 1},
     {0: "gold", 1: "gold", 2: "bronze", 3: "bronze", 4: "bronze"}),
    ({0: 4, 1: 4, 2: 4, 3: 3, 4: 3, 5: 1}, {0: "gold", 1: "gold", 2: "gold"}),
    # one Gold, one Silver, then the third place takes Bronze
    ({0: 9, 1: 5, 2: 3, 3: 3, 4: 1}, {0: "gold", 1: "silver", 2: "bronze", 3: "bronze"}),
    # one Gold and two tied Silvers make 3: stop
    ({0: 9, 1: 5, 2: 5, 3: 1}, {0: "gold", 1: "silver", 2: "silver"}),
    # not enough Athletes ranked: stop early
    ({0: 2}, {0: "gold"}),
    ({0: 2, 1: 1}, {0: "gold", 1: "silver"}),
    ({}, {}),
])
def test_three_medals_rule(scores: dict[int, int], expected: dict[int, str]) -> None:
    assert three_medals(scores) == expected


def test_podium_continues_across_rounds() -> None:
    p = Podium()
    assert p.award([3]) == "gold"
    assert p.award([1]) == "silver"
    assert p.award([0, 2]) == "bronze"
    assert p.closed and p.award([5]) is None


def test_points_and_tiles() -> None:
    sample = load_tiles("sample")
    tiles, layout, dice = sample.tiles, sample.layout, load_dice("sample")
    assert points([1, 1, 1]) == 7 and points([2, 0, 3]) == 11
    kinds = [t.kind for t in tiles.values()]
    assert (kinds.count("standard"), kinds.count("rest"), kinds.count("final")) == (9, 3, 4)
    assert layout.count("standard") == 6 and layout[-2:] == ("final", "final")
    assert tiles["pole_vault"].number("rungs") == [9, 7, 5, 3, 2, 1]
    assert tiles["equestrian"].number("obstacles")[1] == 4  # the booklet's example
    assert set(dice) == {"white", "green", "yellow", "blue", "red"}
    assert any(f.mark == "intercept" for f in dice["white"].faces)
    assert any(f.value < 0 for f in dice["yellow"].faces)
