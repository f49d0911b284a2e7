"""Draws a Pixoid view as rich text for the terminal (`dialbox play pixoid`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.text import Text

from dialbox.engine.naming import colour_name
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.games.pixoid.board import DOWN, LEFT, RIGHT, UP

SEAT_COLOURS = tuple(f"#{rgb}" for _, rgb in PLAYER_COLOURS[:4])
"""Each seat's colour, as on its controller and the table screen (Red, Blue, Green, Yellow)."""


def draw(view: Mapping[str, Any]) -> Text:
    """The board with walls, cubes, Bonus cubes and Starting Pix, then the scores."""
    board = view["board"]
    n: int = board["size"]
    walls: list[int] = list(board["walls"])
    starts: list[int] = list(board["starts"])
    cubes: list[int] = list(view["cubes"])
    pixoid: int = view["pixoid"]
    bonus = set(view["bonus"])
    out = Text()
    out.append(
        f"Round {view['round']}/{view['rounds']}  turn {view['turn']}  "
        f"reserve {view['reserve']}  bonus cubes taken {view['bonus_taken']}\n",
        style="bold",
    )
    out.append("   " + "".join(f" {chr(ord('a') + c)}  " for c in range(n)) + "\n", style="dim")
    for r in range(n):
        out.append("   ")
        for c in range(n):
            p = r * n + c
            out.append("+" + ("───" if walls[p] >> UP & 1 else "   "), style="blue")
        out.append("+\n", style="blue")
        out.append(f"{r + 1:>2} ", style="dim")
        for c in range(n):
            p = r * n + c
            out.append("│" if walls[p] >> LEFT & 1 else " ", style="blue")
            here = [s for s, q in enumerate(cubes) if q == p]
            if here:
                cell = Text()
                for s in here[:3]:
                    colour = SEAT_COLOURS[s % 4]
                    if s == pixoid:
                        cell.append("P", style=f"bold black on {colour}")
                    else:
                        cell.append(str(s + 1), style=f"bold {colour}")
                out.append_text(Text(" ") + cell if len(cell) < 3 else cell)
                out.append(" " * max(0, 2 - len(cell)))
            elif p in bonus:
                out.append(" ◆ ", style="bold white")
            elif p in starts:
                out.append(f" {chr(ord('A') + starts.index(p))} ", style="red")
            else:
                out.append(" · ", style="dim")
        last = r * n + n - 1
        out.append("│\n" if walls[last] >> RIGHT & 1 else " \n", style="blue")
    out.append("   ")
    for c in range(n):
        p = (n - 1) * n + c
        out.append("+" + ("───" if walls[p] >> DOWN & 1 else "   "), style="blue")
    out.append("+\n", style="blue")
    players: int = view["players"]
    for s in range(len(cubes)):
        colour = SEAT_COLOURS[s % 4]
        if s >= players:
            holder = view.get("spare")
            label = (f"spare Bug (held by {colour_name(holder)})" if holder is not None
                     else "spare Bug")
        else:
            role = "Pixoid" if s == pixoid else "Bug"
            score = "" if view["short"] else f"  {view['scores'][s]} points"
            label = f"{colour_name(s)}: {role}{score}"
        out.append(f"  ■ {label}\n", style=colour)
    return out
