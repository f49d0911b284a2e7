"""The terminal view draws seats, lock status, the reveal, notices and the result."""

from __future__ import annotations

from rich.console import Console

from dialbox.displays.public import TableView
from dialbox.displays.terminal import render
from tests.displays.helpers import GAMES, Recorded


def text_of(view: TableView) -> str:
    console = Console(record=True, width=120, color_system=None)
    console.print(render(view, ((255, 0, 0),) * 10))
    return console.export_text()


def test_the_game_in_the_terminal() -> None:
    rec = Recorded(GAMES[0]).play()
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
    voting = choosing.model_copy(update={"menu": MenuState(
        stage="vote", text="Red: play Stadium, 4 players?", chooser=0, voters=(1, 2),
        votes=((1, True),))})
    out = text_of(table_view(voting))
    assert "votes: Blue yes, Green ..." in out
