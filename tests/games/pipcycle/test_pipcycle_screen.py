"""PIP Cycle drawn for a terminal (games/pipcycle/screen.py): the grid with its labels, lines
and riders, the card check with its winner, a crash, trophies, reserve and hands (a seat's own
cards only in its own view)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console

from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.engine.naming import colour_name
from dialbox.games.pipcycle import PipCycle, draw
from dialbox.games.pipcycle.cards import pretty

CRASH_POSITION = {
    "riders": [{"seat": 0, "at": "c1", "facing": "N"}, {"seat": 0, "at": "g1", "facing": "N"},
               {"seat": 1, "at": "c9", "facing": "S"}, {"seat": 1, "at": "g9", "facing": "S"}],
    "hands": [["1H", "2D", "5S"], ["4C", "3H", "6D"]],
    "pile": ["2H", "3S", "4D", "5H", "6S", "1C", "2C", "3C"],
    "lines": [["e4", "e5", 0], ["e5", "f5", 1]], "starter": 1,
}


def render(view: dict[str, Any]) -> str:
    console = Console(width=120, record=True, color_system=None)
    console.print(draw(view))
    return console.export_text()


def played_until(game: PipCycle, done: Callable[[dict[str, Any]], Any], seed: int) -> PipCycle:
    bots = {s: RandomBot(seed * 10 + s) for s in range(game.n)}
    for _ in range(500):
        if game.pending is not None and done(game.view(None)):
            return game
        assert game.pending is not None, "the game ended first"
        game.apply(answer_with_bots(game, bots))
    raise AssertionError("never reached")


def grid_rows(text: str, size: int) -> dict[int, str]:
    """Row number -> its line of the drawn grid (points at columns 3, 7, 11 ...)."""
    rows: dict[int, str] = {}
    for line in text.splitlines():
        head = line[:3].strip()
        if head.isdigit() and line.rstrip().endswith(" " + head) and int(head) <= size:
            rows.setdefault(int(head), line)
    return rows


def cell(rows: dict[int, str], name: str) -> str:
    x, y = ord(name[0]) - 97, int(name[1:])
    return rows[y][3 + 4 * x: 5 + 4 * x]


def test_the_grid_its_labels_lines_and_riders() -> None:
    game = PipCycle.from_position({"players": 2}, {
        "riders": [{"seat": 0, "at": "a1", "facing": "N", "pips": 5},
                   {"seat": 1, "at": "d9", "facing": "W", "pips": 2}],
        "hands": [["1H"], ["2H"]], "lines": [["e4", "e5", 0], ["e5", "f5", 1]]})
    text = render(game.view(None))
    rows = grid_rows(text, 9)
    assert sorted(rows) == list(range(1, 10))
    lines = text.splitlines()
    assert lines.index(rows[9]) < lines.index(rows[1])  # north at the top, south at the bottom
    assert cell(rows, "a1") == "5^" and cell(rows, "d9") == "2<" and cell(rows, "b1") == "· "
    assert [ln for ln in lines if ln.split() == list("abcdefghi")] != []
    # e5-f5 (east of e5), and e4-e5 (between rows 4 and 5, under e5)
    assert cell(rows, "e5") == "·─" and rows[5][3 + 4 * 4 + 2: 3 + 4 * 5] == "──"
    below5 = lines[lines.index(rows[5]) + 1]
    assert below5[3 + 4 * 4] == "│" and below5.count("│") == 1


def test_a_card_check_and_a_crash() -> None:
    game = played_until(PipCycle({"players": 2, "seed": 3}),
                        lambda v: v["check"] and v["resolved"], 3)
    view = game.view(None)
    text = render(view)
    check = view["check"]
    assert f"Card check (exchange {check['exchange']})" in text
    shown = [pretty(c) for _s, c in check["order"]]
    where = [text.index(f"{colour_name(s)} {pretty(c)}") for s, c in check["order"]]
    assert where == sorted(where) and len(shown) == len(check["order"])  # in check order
    win_seat, win_card = check["winner"]
    assert f"{colour_name(win_seat)} {pretty(win_card)} ★ wins" in text.replace("\n", "")
    assert text.count("★ wins") == 1

    start = PipCycle.from_position({"players": 2, "seed": 3}, CRASH_POSITION)
    assert isinstance(start, PipCycle)
    game = played_until(start, lambda v: v["crashes"], 3)
    view = game.view(None)
    crash = view["crashes"][0]
    assert not any(r["at"] == crash["at"] for r in view["riders"])
    text = render(view)
    assert cell(grid_rows(text, 9), crash["at"])[0] == "X"
    assert "Crashes this round:" in text and f"at {crash['at']}: trophy for " \
        f"{colour_name(crash['by'])}" in text
    capturer = next(ln for ln in text.splitlines() if ln.startswith(colour_name(crash['by'])))
    assert "■ 1" in capturer  # the trophy counted


def test_own_hand_only_in_own_view() -> None:
    game = played_until(PipCycle({"players": 2, "seed": 4}),
                        lambda v: v["phase"] == "play" and all(v["hands"]), 4)
    hands = [game.view(s)["hands"][s] for s in range(2)]
    assert all(hands)
    for s in range(2):
        text = render(game.view(s))
        mine = next(ln for ln in text.splitlines() if ln.startswith(f"{colour_name(s)} (you)"))
        assert all(pretty(c) in mine for c in hands[s])
        assert not any(pretty(c) in text for c in hands[1 - s])
        other = next(ln for ln in text.splitlines() if ln.startswith(f"{colour_name(1 - s)} "))
        assert f"{len(hands[1 - s])} card" in other
    public = render(game.view(None))
    assert not any(pretty(c) in public for h in hands for c in h)
    assert "(you)" not in public and public.count(" cards") >= 2


def test_three_players_and_the_end_of_a_round() -> None:
    game = played_until(PipCycle({"players": 3, "seed": 2}), lambda v: v["check"], 2)
    text = render(game.view(None))
    assert sorted(grid_rows(text, 11)) == list(range(1, 12)) and "west" in text
    game = played_until(PipCycle({"players": 2, "seed": 3}),
                        lambda v: v["rounds"] and v["round"] > v["rounds"][-1]["round"], 3)
    last = game.view(None)["rounds"][-1]
    text = render(game.view(None))
    assert f"Round {last['round']} ended:" in text and "crashed" in text
