"""Circuit Board files: the text drawing, turning tiles, assembling the square, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbox.engine import InvalidOptions
from dialbox.games.pixoid import Board, BoardError, Pixoid, load_tiles, parse_side
from dialbox.games.pixoid.board import DOWN, LEFT, RIGHT, UP, assemble

SIDE = """
S .|.
  -
. . B

. . .
"""


def test_a_drawing_gives_walls_starts_and_bonus_pix() -> None:
    side = parse_side(SIDE)
    assert side.size == 3
    assert side.starts == {0} and side.bonus == {5}
    assert side.walls[1] == 1 << RIGHT | 1 << DOWN
    assert side.walls[2] == 1 << LEFT
    assert side.walls[4] == 1 << UP


def test_turning_a_side_four_times_is_the_same_side() -> None:
    side = parse_side(SIDE)
    assert side.turned(4) == side
    once = side.turned(1)
    # The top-left Starting Pix goes to the top-right corner; b1 becomes c2, its wall on
    # the right now below it and its wall below now on its left.
    assert once.starts == {2}
    assert once.walls[5] == 1 << DOWN | 1 << LEFT
    assert once.walls[8] == 1 << UP


def test_board_closes_the_border_and_precomputes_rays() -> None:
    board = Board(parse_side(SIDE))
    assert board.walls[0] == 1 << UP | 1 << LEFT
    assert board.path(0, RIGHT, 9) == (1,)  # the wall right of b1 stops the move
    assert board.path(2, DOWN, 9) == (5, 8)
    assert board.pix_name(5) == "c2" and board.pix_at("c2") == 5
    assert not board.open[0] >> UP & 1


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("S . X\n\n. . .\n\n. . .", "'X' is not a Pix mark"),
        ("S .\n", "at least 2 rows"),
        ("S . .\n\n. .\n\n. . .", "line 3"),
        ("S . .\n  +\n. . .\n\n. . .", "line 2, column 3"),
        ("S.. .\n\n. . .\n\n. . .", "between two Pix"),
    ],
)
def test_bad_drawings_say_where_and_why(text: str, message: str) -> None:
    with pytest.raises(BoardError, match=message):
        parse_side(text)


def test_a_walled_in_pix_is_refused() -> None:
    with pytest.raises(BoardError, match="walled in"):
        Board(parse_side(". . .\n  -\n.|.|.\n  -\n. . ."))


def test_the_sample_set_is_labelled_and_assembles_in_any_layout() -> None:
    tiles = load_tiles("sample")
    assert tiles.sample and "not the printed" in tiles.note
    assert tiles.tiles == ["1", "2", "3", "4"] and len(tiles.sides) == 8
    for layout in (["1a", "2a", "3a", "4a"], ["4b", "1b", "3a", "2b"]):
        board = Board(assemble(tiles, layout))
        assert board.size == 10 and len(board.starts) == 4 and len(board.bonus) == 4


def test_layouts_are_checked() -> None:
    with pytest.raises(InvalidOptions, match="uses a tile twice"):
        Pixoid({"players": 4, "layout": "1a 1b 3a 4a"})
    with pytest.raises(InvalidOptions, match="no tile side '5a'"):
        Pixoid({"players": 4, "layout": "5a 2a 3a 4a"})
    with pytest.raises(InvalidOptions, match="Starting Pix"):
        Pixoid({"players": 4, "board_map": "S . .\n\n. . .\n\n. . S"})


def test_random_layout_is_drawn_by_the_games_chance() -> None:
    names = {Pixoid({"players": 4, "layout": "random", "seed": s}).board.name for s in range(8)}
    assert len(names) > 1
    a = Pixoid({"players": 4, "layout": "random", "seed": 3}).board
    b = Pixoid({"players": 4, "layout": "random", "seed": 3}).board
    assert a.walls == b.walls


def test_owners_can_load_their_own_tile_file(tmp_path: Path) -> None:
    text = (Path(__file__).parents[3] / "host/dialbox/games/pixoid/tiles/sample.toml").read_text()
    mine = tmp_path / "mine.toml"
    mine.write_text(text.replace('name = "sample"', 'name = "mine"'))
    game = Pixoid({"players": 4, "tiles": str(mine)})
    assert game.board.name.startswith("mine:")
    with pytest.raises(InvalidOptions, match="cannot read"):
        Pixoid({"players": 4, "tiles": str(tmp_path / "missing.toml")})
