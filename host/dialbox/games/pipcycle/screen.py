"""PIP Cycle drawn for a terminal (rich): the grid with claimed lines and riders, the card
check, each player's trophies, reserve and hand (a seat sees its own cards, others counted)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from dialbox.engine.naming import colour_name
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.games.pipcycle import cards as C

ARROWS = {"N": "^", "E": ">", "S": "v", "W": "<"}
EDGE_WORDS = {"S": "south", "N": "north", "W": "west", "E": "east"}
CAUSES = {"edge": "off the edge", "line": "on the claimed line", "occupied": "onto a rider"}
HOW = {"wins": "moves: winning card", "club": "moves: Club", "match": "moves: rank match"}
SUIT_STYLE = {"H": "bold red", "D": "bold dark_orange", "S": "bold blue", "C": "bold green"}
CRASH_STYLE = "bold white on red"


def seat_style(seat: int | None) -> str:
    """The seat's colour as on the table (Red, Blue, Green ...)."""
    if seat is None or not 0 <= seat < len(PLAYER_COLOURS):
        return "white"
    return f"#{PLAYER_COLOURS[seat][1]}"


def seat_label(seat: int) -> str:
    """The seat by its colour, as in the game's texts and on the table screen."""
    return colour_name(seat)


def point(name: str) -> tuple[int, int] | None:
    """(x, y) of a point name like "c4" (None if it is not one)."""
    t = str(name).strip().lower()
    if len(t) < 2 or not t[0].isalpha() or not t[1:].isdigit():
        return None
    return ord(t[0]) - 97, int(t[1:]) - 1


def card_text(card: str) -> Text:
    return Text(C.pretty(card), style=SUIT_STYLE.get(C.suit(card), "bold"))


def draw(view: Mapping[str, Any]) -> RenderableType:
    """A seat's (or the public) view as rich renderables."""
    head = Text()
    head.append(f"PIP Cycle  round {view['round']}, exchange {view['exchange']}  "
                f"({view['phase']})", style="bold")
    head.append(f"   deck {_count(view['pile'])}, played {_count(view['played'])}",
                style="dim")
    parts: list[RenderableType] = [head, _grid(view), _check(view)]
    crashes = _crashes(view)
    if crashes is not None:
        parts.append(crashes)
    parts.append(_players(view))
    result = view.get("result")
    if result:
        parts.append(Text(str(result.get("text", "")), style="bold green"))
    return Group(*parts)


def _count(value: Any) -> int:
    if isinstance(value, int):
        return value
    return len(value) if isinstance(value, Sequence) else 0


def _grid(view: Mapping[str, Any]) -> Text:
    """Points 4 characters apart (a point cell of 2: glyph + arrow/line), rows 2 lines apart,
    north at the top; claimed lines coloured by the seat that claimed them."""
    n: int = view["grid"]
    east: dict[tuple[int, int], int] = {}
    north: dict[tuple[int, int], int] = {}
    for x1, y1, x2, y2, seat in view["lines"]:
        (ax, ay), (bx, by) = sorted(((x1, y1), (x2, y2)))
        (east if ay == by else north)[(ax, ay)] = seat
    riders = {(r["x"], r["y"]): r for r in view["riders"]}
    crashed: set[tuple[int, int]] = set()
    for c in view["crashes"]:
        p = point(c["at"])
        if p is not None:
            crashed.add(p)
    cols = Text("   ")
    for x in range(n):
        cols.append(f"{chr(97 + x)}   ", style="dim")
    out = Text()
    out.append_text(cols)
    out.append("\n")
    for y in range(n - 1, -1, -1):
        out.append(f"{y + 1:>2} ", style="dim")
        for x in range(n):
            r = riders.get((x, y))
            seat_e = east.get((x, y))
            line_e = "─" if seat_e is not None and x + 1 < n else " "
            if r is not None:
                style = f"bold reverse {seat_style(r['seat'])}"
                if (x, y) in crashed:
                    style = CRASH_STYLE
                out.append(f"{r['pips']}{ARROWS.get(r['facing'], '?')}", style=style)
            elif (x, y) in crashed:
                out.append("X", style=CRASH_STYLE)
                out.append(line_e, style=seat_style(seat_e))
            else:
                out.append("·", style="dim")
                out.append(line_e, style=seat_style(seat_e))
            if x + 1 < n:
                out.append("──" if seat_e is not None else "  ", style=seat_style(seat_e))
        out.append(f" {y + 1}", style="dim")
        out.append("\n")
        if y > 0:
            out.append("   ")
            for x in range(n):
                seat_n = north.get((x, y - 1))
                out.append("│" if seat_n is not None else " ", style=seat_style(seat_n))
                if x + 1 < n:
                    out.append("   ")
            out.append("\n")
    out.append_text(cols)
    return out


def _check(view: Mapping[str, Any]) -> Text:
    check = view.get("check")
    if not check:
        return Text("Card check: none yet this round", style="dim")
    winner = check.get("winner") or [None, None]
    out = Text()
    out.append(f"Card check (exchange {check.get('exchange', '?')}): ", style="bold")
    resolved = view.get("resolved") or []
    for k, (seat, card) in enumerate(check["order"]):
        if k:
            out.append(",  ")
        out.append(f"{seat_label(seat)} ", style=seat_style(seat))
        out.append_text(card_text(card))
        if [seat, card] == list(winner):
            out.append(" ★ wins", style="bold yellow")
        done = next((e for e in resolved if e["seat"] == seat and e["card"] == card), None)
        if done is not None:
            if done["how"] == "suit":
                pips = done.get("pips")
                how = f"Pips {pips[0]}→{pips[1]}" if pips else "suit power"
            else:
                how = HOW.get(done["how"], str(done["how"]))
            out.append(f" ({how})", style="dim")
        else:
            out.append(" (to resolve)", style="dim")
    return out


def _crash_text(c: Mapping[str, Any]) -> Text:
    out = Text()
    out.append("  X ", style="bold red")
    out.append(f"{seat_label(c['seat'])}", style=seat_style(c["seat"]))
    cause = CAUSES.get(c["cause"], str(c["cause"]))
    where = f" {c['where']}" if c["cause"] == "line" else ""
    out.append(f"'s rider crashed {cause}{where} at {c['at']}")
    by = c.get("by")
    out.append(": die out of the game" if by is None else f": trophy for {seat_label(by)}")
    return out


def _crashes(view: Mapping[str, Any]) -> Group | None:
    crashes = view["crashes"]
    if crashes:
        return Group(Text("Crashes this round:", style="bold"), *map(_crash_text, crashes))
    rounds = view.get("rounds") or []
    if rounds and rounds[-1]["crashes"] and view["round"] > rounds[-1]["round"]:
        last = rounds[-1]
        return Group(Text(f"Round {last['round']} ended:", style="bold"),
                     *map(_crash_text, last["crashes"]))
    return None


def _players(view: Mapping[str, Any]) -> Table:
    me = view.get("seat")
    table = Table("Seat", "Edge", "Riding", "Reserve", "Trophies", "Hand", box=None,
                  pad_edge=False)
    for s in range(view["players"]):
        name = Text(seat_label(s), style=f"bold {seat_style(s)}")
        if s == me:
            name.append(" (you)")
        if s == view.get("starter"):
            name.append(" ⚑", style="bold")
        riding = sum(1 for r in view["riders"] if r["seat"] == s)
        trophies = Text()
        for owner in view["trophies"][s]:
            trophies.append("■", style=seat_style(owner))
        trophies.append(f" {len(view['trophies'][s])}")
        lost = view["lost"][s]
        if lost:
            trophies.append(f"  ({lost} lost)", style="dim")
        reserve = Text("■" * view["reserve"][s], style=seat_style(s))
        reserve.append(f" {view['reserve'][s]}")
        held = view["hands"][s]
        if isinstance(held, list) and s == me:
            hand = Text()
            for k, card in enumerate(held):
                if k:
                    hand.append(" ")
                hand.append_text(card_text(card))
            if not held:
                hand.append("no cards", style="dim")
        else:
            count = _count(held)
            hand = Text(f"{count} card{'s' * (count != 1)}", style="dim")
        table.add_row(name, EDGE_WORDS.get(view["edges"][s], ""), str(riding), reserve,
                      trophies, hand)
    return table
