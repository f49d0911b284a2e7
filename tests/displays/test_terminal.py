"""The terminal view draws seats and scores, lock status, the reveal, the game's own board,
notices and the result, in the seats' colours (truecolor, 256 colours or none)."""

from __future__ import annotations

import functools
import io
import re
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import pytest
from rich.console import Console

from dialbox.displays.public import SeatView, TableView
from dialbox.displays.terminal import nearest_256, render, seat_scores
from dialbox.engine.registry import game_info
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.paths import repo_root
from tests.displays.helpers import GAMES, Recorded


def text_of(view: TableView, width: int = 120) -> str:
    console = Console(record=True, width=width, color_system=None)
    console.print(render(view, ((255, 0, 0),) * 10))
    return console.export_text()


@functools.cache
def recorded(game: str) -> Recorded:
    return Recorded(game).play()


def midgame(rec: Recorded) -> TableView:
    """A state halfway through the game, with a prompt open and the last one revealed."""
    playing = [s for s in rec.states if s.stage == "playing" and s.prompt and s.reveal]
    return playing[len(playing) // 2]


def test_the_game_in_the_terminal() -> None:
    rec = recorded(GAMES[0])
    lobby = next(s for s in rec.states if s.progress is not None)
    assert "Seating players" in text_of(lobby)
    locking = next(s for s in rec.states if s.prompt and s.prompt.phase == "open"
                   and any(a.status == "locked" for a in s.prompt.asks))
    out = text_of(locking)
    assert "LOCKED" in out and "locked)" in out and "Red" in out and "sim-01" in out
    alllocked = next(s for s in rec.states if s.prompt and s.prompt.phase == "alllocked")
    assert "ALL LOCKED" in text_of(alllocked)
    revealed = next(s for s in rec.states if s.prompt and s.prompt.phase == "revealed")
    assert revealed.prompt is not None
    out = text_of(revealed)
    assert "reveal:" in out and all(c.text in out for c in revealed.prompt.choices)
    offline = next(s for s in rec.states if s.notices)
    assert "offline" in text_of(offline)
    final = text_of(rec.states[-1])
    assert rec.states[-1].result is not None and rec.states[-1].result.text in final
    assert "█" in final  # the strip


@pytest.mark.parametrize("game", GAMES)
def test_mid_game_the_terminal_draws_the_board_and_the_scores(game: str) -> None:
    rec = recorded(game)
    view = midgame(rec)
    assert view.board is not None and view.game == game
    out = text_of(view)
    draw = game_info(game).draw
    assert draw is not None
    console = Console(record=True, width=100, color_system=None)
    console.print(draw(view.board))
    own = [line.strip() for line in console.export_text().splitlines() if line.strip()]
    assert own and own[0] in out  # the game's own drawing, in its panel
    assert f"─ {game_info(game).title} ─" in out
    # every seat by its colour's name, with its score (or "–" while the game counts none)
    scores = seat_scores(view)
    for seat in view.seats:
        row = next(line for line in out.splitlines() if f"■ {seat.name} " in line)
        assert re.search(re.escape(scores.get(seat.seat, "–")) + r"\s*│$", row), row
    if game == "pixoid":  # its public view counts points as the game goes
        assert scores == {s: str(v) for s, v in enumerate(view.board["scores"])}
    if game == "stadium":  # a team game: each seat shows its team's points
        assert scores[0].startswith(f"{view.board['points'][0]} (with Green)")
        assert scores[1].startswith(f"{view.board['points'][1]} (with Yellow)")
    assert not re.search(r"prompt \d", out)


@pytest.mark.parametrize("game", GAMES)
def test_no_state_shows_a_prompt_id(game: str) -> None:
    rec = recorded(game)
    for view in rec.states[::7]:
        assert not re.search(r"prompt \d", text_of(view)), view.seq


def test_the_scores_at_the_end_are_the_results() -> None:
    rec = recorded(GAMES[0])
    final = rec.states[-1]
    assert final.result is not None
    assert seat_scores(final) == {s: str(v) for s, v in final.result.scores.items()}
    out = text_of(final)
    for seat in final.seats:
        assert f"{seat.name} {final.result.scores[seat.seat]}" in out


def view_of(game: str | None, board: dict[str, Any]) -> TableView:
    seats = tuple(SeatView(seat=i, name=n, colour=c, occupant="bot", status="waiting")
                  for i, (n, c) in enumerate(PLAYER_COLOURS[:2]))
    return TableView(stage="playing", game=game, seats=seats, board=board)


def test_a_game_without_a_terminal_renderer_shows_its_view_as_keys_and_values() -> None:
    from dialbox.engine.registry import register, unregister

    register("tinyboard", "tests.displays.tinyboard")
    try:
        assert game_info("tinyboard").draw is None
        out = text_of(view_of("tinyboard", {"round": 2, "scores": [7, 3], "seat": None}))
    finally:
        unregister("tinyboard")
    assert re.search(r"round\s+2", out) and re.search(r"scores\s+\[7, 3\]", out)
    row = next(line for line in out.splitlines() if "■ Red " in line)
    assert re.search(r"7\s*│$", row)
    out = text_of(view_of("nosuchgame", {"tiles": ["a", "b"]}))  # not even registered
    assert re.search(r"tiles\s+\['a', 'b'\]", out)


def test_a_renderer_that_fails_leaves_the_view_readable(monkeypatch: pytest.MonkeyPatch) -> None:
    from dialbox.engine import registry
    from tests.displays.tinyboard import INFO

    def broken(view: Mapping[str, Any]) -> Any:
        raise KeyError("cubes")

    monkeypatch.setattr(registry, "game_info", lambda name: INFO.__class__(
        game=INFO.game, title="Tiny", players=(2,), draw=broken))
    out = text_of(view_of("tinyboard", {"round": 1, "scores": [0, 0]}))
    assert "drawing failed" in out and re.search(r"round\s+1", out)


def test_without_colour_every_seat_is_named() -> None:
    view = midgame(recorded(GAMES[0]))
    file = io.StringIO()
    Console(file=file, force_terminal=True, width=120, color_system=None).print(render(view))
    out = file.getvalue()
    assert "\x1b[" not in out  # no colour at all...
    for seat in view.seats:  # ...and each seat still by its colour's name
        assert f"■ {seat.name}" in out
    assert view.reveal is not None
    for choice in view.reveal.choices:
        assert f"{view.seats[choice.seat].name} {choice.text}" in out


def test_nearest_256_is_the_closest_fixed_xterm_colour() -> None:
    from rich._palettes import EIGHT_BIT_PALETTE
    from rich.color import Color, ColorSystem

    def distance(rgb: str, n: int) -> int:
        r, g, b = (int(rgb[i:i + 2], 16) for i in (0, 2, 4))
        x, y, z = EIGHT_BIT_PALETTE[n]
        return (x - r) ** 2 + (y - g) ** 2 + (z - b) ** 2

    for rgb in [c for _, c in PLAYER_COLOURS] + ["000000", "ffffff", "808080", "1a2b3c",
                                                  "3a0d0d", "0f7f10"]:
        n = nearest_256(rgb)
        assert 16 <= n <= 255
        assert distance(rgb, n) == min(distance(rgb, k) for k in range(16, 256)), rgb
    for _, rgb in PLAYER_COLOURS:  # rich's own downgrade (the games' drawings) agrees
        assert Color.parse(f"#{rgb}").downgrade(ColorSystem.EIGHT_BIT).number == \
            nearest_256(rgb)


# rich keeps the ANSI codes of a style from the first time it renders it, whatever console
# did: one process rendering for two colour systems would see the first one's codes. So each
# colour system is drawn in a fresh interpreter, as a terminal of that kind would get it.
PRINT = """
import sys
from rich.console import Console
from dialbox.displays.public import TableView
from dialbox.displays.terminal import render
view = TableView.model_validate_json(sys.stdin.read())
Console(file=sys.stdout, force_terminal=True, color_system=sys.argv[1], width=120).print(
    render(view, ((229, 57, 53),) * 8))
"""


def ansi(view: TableView, color_system: str) -> str:
    return subprocess.run([sys.executable, "-c", PRINT, color_system], cwd=repo_root(),
                          input=view.model_dump_json(), capture_output=True, text=True,
                          check=True, timeout=120).stdout


def seat_rows(out: str, view: TableView) -> dict[str, str]:
    return {s.name: next(line for line in out.splitlines() if f"■ {s.name} " in line)
            for s in view.seats}


def test_in_256_colours_each_seat_gets_the_nearest_fixed_colour() -> None:
    from rich._palettes import EIGHT_BIT_PALETTE

    view = midgame(recorded(GAMES[0]))
    out = ansi(view, "256")
    assert "\x1b[38;2;" not in out and "\x1b[48;2;" not in out  # the game's board too
    rows = seat_rows(out, view)
    for seat in view.seats:
        n = nearest_256(seat.colour)
        assert f"\x1b[38;5;{n}m■ {seat.name}" in rows[seat.name]
        r, g, b = (int(seat.colour[i:i + 2], 16) for i in (0, 2, 4))
        x, y, z = EIGHT_BIT_PALETTE[n]
        assert max(abs(x - r), abs(y - g), abs(z - b)) <= 50  # close to the palette
    assert f"\x1b[38;5;{nearest_256('e53935')}m█" in out  # the strip


def test_in_truecolor_each_seat_gets_its_controllers_colour() -> None:
    view = midgame(recorded(GAMES[0]))
    out = ansi(view, "truecolor")
    rows = seat_rows(out, view)
    for seat in view.seats:
        r, g, b = (int(seat.colour[i:i + 2], 16) for i in (0, 2, 4))
        assert f"\x1b[38;2;{r};{g};{b}m■ {seat.name}" in rows[seat.name]
    assert "\x1b[38;5;" not in out  # nothing was brought down to 256 colours


def test_the_menu_in_the_terminal() -> None:
    from dialbox.displays.tablefeed import table_view
    from dialbox.table import SeatState, TableState
    from dialbox.table.state import MenuState, MenuWheel

    seats = tuple(SeatState(seat=i, name=n, colour="e53935", kind="controller", uid=f"u{i}",
                            online=True, player=p)
                  for i, (n, p) in enumerate((("Red", "Ann"), ("Blue", None), ("Green", None))))
    choosing = TableState(table="t", game="", seats=seats, phase="menu", menu=MenuState(
        stage="game", text="Choose a game", chooser=0, note="Red opened the menu",
        wheels=(MenuWheel(label="Game", faces=("Pixoid", "Stadium"), allowed=(0, 1), at=1),
                None, None)))
    out = text_of(table_view(choosing))
    assert "menu: Choose a game" in out and "Ann chooses" in out
    assert "Game: Stadium" in out and "Red opened the menu" in out
    assert "Ann (Red)" in out  # the seat by the player's name, its colour's name beside it
    voting = choosing.model_copy(update={"menu": MenuState(
        stage="vote", text="Red: play Stadium, 4 players?", chooser=0, voters=(1, 2),
        votes=((1, True),))})
    out = text_of(table_view(voting))
    assert "votes: Blue yes, Green ..." in out
