"""Draws a Stadium seat view as rich text for the terminal (`dialbox play stadium`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from dialbox.engine.naming import colour_name
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.games.stadium.base import TEAM_NAMES, TEAMS

TEAM_STYLE = ("bold #1e88e5", "bold #e53935")
SKIP = {"key", "name", "talk", "summary", "share_left"}
SEAT = {"lifter", "archer", "golfer", "ball", "bidder", "share_to"}
SEATS = {"runners", "riding", "vaulters", "standing", "tested", "competitors"}


def shown(key: str, value: Any) -> str:
    """A Trial-state value for people: seats by colour, as in the game's texts."""
    if key in SEAT and isinstance(value, int):
        return colour_name(value)
    if key in SEATS and isinstance(value, list | tuple):
        return ", ".join(colour_name(s) for s in value)
    return str(value)


def draw(view: Mapping[str, Any]) -> Group:
    """The track, the current Trial and its tile state, the Athletes and the Medal boards."""
    track = Text("Track: ")
    revealed: int = view["revealed"]
    for i, tile in enumerate(view["track"]):
        style = "bold reverse" if i == revealed - 1 else ("" if i < revealed else "dim")
        track.append(f"{i + 1}.{tile}", style=style)
        track.append("  ")
    parts: list[Any] = [track]
    trial: Mapping[str, Any] = view["trial"]
    if trial:
        head = Text(f"{trial['name']}", style="bold")
        head.append(f"  (communication {trial['talk']})  ", style="italic")
        head.append(str(trial.get("summary", "")), style="dim")
        parts.append(head)
        state = ", ".join(f"{k} {shown(k, v)}" for k, v in trial.items() if k not in SKIP)
        if state:
            parts.append(Text(state, style="dim"))
    athletes = Table(box=None, pad_edge=False)
    for column in ("Athlete", "Team", "Energy", "Score", ""):
        athletes.add_column(column)
    for seat, energy in enumerate(view["energy"]):
        team = seat % 2
        score = view["score"][seat]
        marks = ("first player " if seat == view["first"] else "") + (
            "you" if seat == view.get("seat") else "")
        athletes.add_row(Text(colour_name(seat), style=f"bold #{PLAYER_COLOURS[seat][1]}"
                              if seat < len(PLAYER_COLOURS) else ""),
                         Text(TEAM_NAMES[team], style=TEAM_STYLE[team]),
                         str(energy), "-" if score is None else str(score), marks)
    parts.append(athletes)
    medals = Text()
    for team, name in enumerate(TEAMS):
        g, s, b = view["medals"][name]
        medals.append(f"{TEAM_NAMES[team]}: ", style=TEAM_STYLE[team])
        medals.append(f"{g} gold  {s} silver  {b} bronze  = {view['points'][team]} points   ")
    parts.append(medals)
    return Group(*parts)
