"""The race drawn for a terminal (rich): the tile in view, the Progression boards, the pilots."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from dialbox.games.outspeed.boards import ZONES_PER_BOARD
from dialbox.games.outspeed.tiles import ROUTES

ROUTE_STYLE = {"red": "bold red", "yellow": "bold yellow", "green": "bold green"}
LETTER = {"red": "A", "yellow": "B", "green": "C"}


def draw(view: Mapping[str, Any]) -> RenderableType:
    """A seat's (or the public) view as rich renderables."""
    parts: list[RenderableType] = []
    tile = view.get("tile")
    if tile is not None:
        head = Text(f"Turn {view['turn']}: {tile['title']} ({tile['side']} side)", style="bold")
        routes = Table(show_header=False, box=None, padding=(0, 1))
        for colour in ROUTES:
            r = tile["routes"].get(colour)
            text = "light off" if r is None else r["effect"]
            cond = "" if r is None else r["condition"]
            routes.add_row(Text(f"{LETTER[colour]} {colour}", style=ROUTE_STYLE[colour]),
                           Text(cond), Text(text, style="dim" if r is None else ""))
        parts += [head, routes]
    parts.append(_track(view))
    pilots = Table("Seat", "Zone", "Fuel", "Tokens", "Last route", box=None)
    for s, alive in enumerate(view["alive"]):
        hand = view["tokens"][s]
        tokens = ", ".join(hand) if isinstance(hand, list) else \
            (f"{hand} face down" if hand else "")
        last = view["last_routes"].get(str(s), "")
        pilots.add_row(str(s + 1), str(view["zones"][s]) if alive else "out",
                       str(view["fuel"][s]), tokens or "-",
                       Text(last, style=ROUTE_STYLE.get(last, "")))
    parts.append(pilots)
    return Group(*parts)


def _track(view: Mapping[str, Any]) -> Text:
    rear = view["rear"]
    zones = range(rear, rear + ZONES_PER_BOARD * view["boards"])
    fields = {int(z): c for z, c in view["forcefields"].items()}
    ships: dict[int, list[str]] = {}
    for s, z in enumerate(view["zones"]):
        if z is not None:
            ships.setdefault(z, []).append(str(s + 1))
    line = Text()
    for z in zones:
        if z > rear and (z - rear) % ZONES_PER_BOARD == 0:
            line.append("‖", style="dim")
        cell = "".join(ships.get(z, [])) or "·"
        style = "bold" if z in ships else "dim"
        if fields.get(z):
            cell = f"[{cell}]"
            style += " cyan"
        line.append(f" {cell} ", style=style)
    line.append(f"   zones {rear}-{zones[-1]}, [ ] = Forcefield", style="dim")
    return line
