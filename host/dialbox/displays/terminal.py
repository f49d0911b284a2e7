"""The terminal view: a live rich picture of the table: seats and scores, lock status, the
reveal, the game's board (drawn by the game itself) and the result.

Seat colours are the controllers' (`dialbox.engine.seats.PLAYER_COLOURS`). A truecolor
terminal gets them exactly; a 256-colour one the nearest of its 240 fixed colours (the 6x6x6
cube and the grey ramp, never the 16 the user's theme redefines); a terminal without colour
still reads every seat's colour name beside it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import Any

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import Frame, RecordingBackend
from dialbox.displays.lights import seat_lights
from dialbox.displays.public import SeatView, TableView

log = logging.getLogger("dialbox.displays.terminal")

STATUS_STYLE = {
    "empty": ("empty", "dim"),
    "waiting": ("waiting", "dim"),
    "programming": ("dialling…", "cyan"),
    "locked": ("LOCKED", "bold green"),
    "offline": ("OFFLINE", "bold red blink"),
    "revealed": ("revealed", "yellow"),
}
PHASE_TEXT = {
    "open": "dial and lock",
    "alllocked": "ALL LOCKED — revealing",
    "revealed": "revealed",
    "void": "a reveal failed: asked again",
}
SCORE_KEYS = ("scores", "score", "vp", "trophies")
"""Keys of a public view that may hold a score per seat, in seat order: a number, None (not
counted yet), or a list of things won (counted: PIP Cycle's trophies)."""
NO_SCORE = "–"

# ---- colours ---------------------------------------------------------------------------------

_CUBE = (0, 95, 135, 175, 215, 255)
"""The levels of xterm's 6x6x6 colour cube (colours 16-231); 232-255 are greys 8, 18 ... 238."""


def _xterm_rgb(n: int) -> tuple[int, int, int]:
    if n >= 232:
        g = 8 + 10 * (n - 232)
        return g, g, g
    n -= 16
    return _CUBE[n // 36], _CUBE[n // 6 % 6], _CUBE[n % 6]


def nearest_256(rgb: str) -> int:
    """The xterm-256 colour (16-255) nearest to `rgb` ("rrggbb"), by distance in RGB."""
    r, g, b = (int(rgb[i:i + 2], 16) for i in (0, 2, 4))

    def distance(n: int) -> int:
        x, y, z = _xterm_rgb(n)
        return (x - r) ** 2 + (y - g) ** 2 + (z - b) ** 2

    return min(range(16, 256), key=distance)


def colour_style(rgb: str, color_system: str | None = "truecolor") -> str:
    """A rich colour for `rgb` on a console of `color_system`: exact in truecolor, the
    nearest fixed entry in 256 colours (rich downgrades the rest itself)."""
    if color_system == "256":
        return f"color({nearest_256(rgb)})"
    return f"#{rgb}"


def seat_label(seat: SeatView) -> str:
    """How people call a seat, its colour's name always in it: "Ann (Red)" or "Red"."""
    return f"{seat.player} ({seat.name})" if seat.player else seat.name


# ---- parts -----------------------------------------------------------------------------------

def strip_text(frame: Frame, width: int = 60, color_system: str | None = "truecolor") -> Text:
    """The LED strip as a row of coloured blocks (pixels squeezed into `width` cells)."""
    out = Text()
    if not frame:
        return out
    step = max(1, len(frame) // width)
    for i in range(0, len(frame), step):
        r, g, b = frame[i]
        out.append("█", style=colour_style(f"{r:02x}{g:02x}{b:02x}", color_system))
    return out


def _score(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return f"{value:g}"
    if isinstance(value, list | tuple):
        return str(len(value))
    return None


def seat_scores(view: TableView) -> dict[int, str]:
    """Each seat's score as the table knows it now: the result's at the end; during the game
    what the public view holds per seat (`SCORE_KEYS`), or a team game's `points` per team
    (teams in seat order, as `GameInfo.teams` gives them); {} while nothing is counted."""
    if view.result is not None:
        return {s: str(v) for s, v in view.result.scores.items()}
    board = view.board or {}
    for key in SCORE_KEYS:
        values = board.get(key)
        if isinstance(values, list | tuple):
            shown = {s: _score(v) for s, v in enumerate(values[:len(view.seats)])}
            if any(v is not None for v in shown.values()):
                return {s: v for s, v in shown.items() if v is not None}
    points = board.get("points")
    teams = [s.team for s in view.seats]
    order = list(dict.fromkeys(t for t in teams if t))
    if (order and isinstance(points, list | tuple) and len(points) == len(order)
            and all(isinstance(p, int | float) for p in points)):
        out = {}
        for s in view.seats:
            if s.team:
                mates = [m.name for m in view.seats if m.team == s.team and m.seat != s.seat]
                out[s.seat] = (f"{points[order.index(s.team)]:g}"
                               + (f" (with {', '.join(mates)})" if mates else ""))
        return out
    return {}


def seats_table(view: TableView, color_system: str | None = "truecolor") -> Table:
    t = Table(expand=True, show_edge=False, pad_edge=False)
    for col in ("seat", "who", "link", "status", "score"):
        t.add_column(col, justify="right" if col == "score" else "left")
    statuses = {light.seat: light.status for light in seat_lights(view)}
    scores = seat_scores(view)
    for s in view.seats:
        word, style = STATUS_STYLE[statuses.get(s.seat, s.status)]
        who = s.occupant if s.occupant != "controller" else str(s.uid)
        if s.transport:
            who += f" ({s.transport}{', fw ' + s.firmware if s.firmware else ''})"
        link = "—"
        if s.heartbeat_age is not None:
            link = f"{s.heartbeat_age:.1f} s"
            if s.link is not None:
                link += f", {s.link:.0%}"
        t.add_row(Text(f"■ {seat_label(s)}", style=colour_style(s.colour, color_system)),
                  who, link, Text(word, style=style),
                  Text(scores.get(s.seat, NO_SCORE), style="bold"))
    if not scores and view.stage == "playing":
        t.caption = "scores: counted at the end of the game"
    return t


def menu_text(view: TableView, color_system: str | None = "truecolor") -> Text:
    """The console's menu in a few lines: the question, the chooser's wheels, the votes."""
    m = view.menu
    assert m is not None
    names = {s.seat: s for s in view.seats}
    out = Text(f"menu: {m.text}", style="bold")
    if m.chooser is not None and m.chooser in names:
        who = names[m.chooser]
        out.append(f"  ({who.player or who.name} chooses)",
                   style=colour_style(who.colour, color_system))
    for w in m.wheels:
        if w is not None:
            out.append(f"\n  {w.label}: ")
            out.append(w.faces[w.at] if 0 <= w.at < len(w.faces) else "?", style="bold")
    if m.stage == "vote":
        given = {v.seat: v.yes for v in m.votes}
        out.append("\n  votes: " + ", ".join(
            f"{names[s].name if s in names else s + 1} "
            f"{'yes' if given.get(s) else 'no' if s in given else '...'}" for s in m.voters))
    if m.note:
        out.append(f"\n  {m.note}", style="dim")
    return out


def _short(value: Any, width: int = 70) -> str:
    text = str(value)
    return text if len(text) <= width else text[:width - 1] + "…"


def generic_board(board: Mapping[str, Any]) -> Table:
    """A game without a terminal renderer: its public view as a key/value table."""
    t = Table(show_header=False, box=None, pad_edge=False)
    t.add_column(style="dim")
    t.add_column()
    for key, value in board.items():
        if key not in ("pending", "seat", "you", "history"):
            t.add_row(str(key), _short(value))
    return t


def game_title(view: TableView) -> str:
    for g in view.games:
        if g.name == view.game:
            return g.title
    return view.game or "no game"


def board_renderable(view: TableView) -> RenderableType | None:
    """The game's board, drawn by the game's own terminal renderer (`GameInfo.draw`) from the
    public view; the generic key/value table for a game without one, or whose renderer fails
    on this view. None outside a game (lobby, menu) or without a board."""
    if view.board is None or view.game is None or view.stage not in ("playing", "over"):
        return None
    from dialbox.engine.registry import game_info

    try:
        draw = game_info(view.game).draw
    except Exception:  # an unknown or broken game package: still show its view
        draw = None
    if draw is not None:
        try:
            drawn: RenderableType = draw(view.board)
        except Exception:  # a renderer that cannot draw this view: say so, show the view
            log.debug("the %s terminal renderer failed", view.game, exc_info=True)
            return Group(Text("(the game's own drawing failed on this state)", style="dim"),
                         generic_board(view.board))
        if isinstance(drawn, Text):
            drawn.rstrip()  # a renderer's last newline would leave a blank line in the panel
        return drawn
    return generic_board(view.board)


def compose(view: TableView, strip: Frame = (),
            color_system: str | None = "truecolor") -> RenderableType:
    """One screenful for `view` on a console of `color_system` (pure)."""
    parts: list[RenderableType] = []
    head = Text(f"dialbox · {view.table} · {game_title(view)} · {view.stage}", style="bold")
    parts.append(head)
    if strip:
        parts.append(strip_text(strip, color_system=color_system))
    for n in view.notices:
        parts.append(Text(n.text, style={"error": "bold red", "warning": "yellow",
                                         "info": "green"}[n.level]))
    if view.progress is not None:
        pg = view.progress
        parts.append(Group(Text(f"{pg.label} {pg.done}/{pg.total}"),
                           ProgressBar(total=max(1, pg.total), completed=pg.done, width=40)))
    parts.append(seats_table(view, color_system))
    names = {s.seat: s for s in view.seats}
    if view.prompt is not None:
        p = view.prompt
        locked = sum(1 for a in p.asks if a.status in ("locked", "revealed"))
        line = Text(f"{'sealed' if p.sealed else 'open'} question: {p.text or p.topic}  ",
                    style="bold")
        line.append(PHASE_TEXT[p.phase], style="bold green" if p.phase == "alllocked" else "")
        if p.sealed and p.phase == "open":
            line.append(f"  ({locked}/{len(p.asks)} locked)")
        parts.append(line)
    if view.reveal is not None:
        line = Text("reveal: ")
        for c in view.reveal.choices:
            seat = names.get(c.seat)
            line.append(f"{seat_label(seat) if seat else c.seat + 1} ",
                        style=colour_style(seat.colour, color_system) if seat else "")
            line.append(f"{c.text}   ", style="bold")
        parts.append(line)
    if view.menu is not None:
        parts.append(menu_text(view, color_system))
    board = board_renderable(view)
    if board is not None:
        parts.append(Panel(board, title=game_title(view), title_align="left",
                           border_style="dim"))
    for e in view.events[-5:]:
        parts.append(Text(f"· {e.text}", style="dim"))
    if view.result is not None:
        r = view.result
        scores = Text()
        for s, v in sorted(r.scores.items(), key=lambda kv: -kv[1]):
            seat = names.get(s)
            if scores:
                scores.append(", ")
            scores.append(f"{seat_label(seat) if seat else s + 1} {v}",
                          style=colour_style(seat.colour, color_system) if seat else "")
        parts.append(Panel(Group(Text(r.text, style="bold yellow"), scores), title="result"))
    return Panel(Group(*parts), border_style="blue")


class Screen:
    """One screenful for `view`, drawn for the console it is printed on (its colours)."""

    def __init__(self, view: TableView, strip: Frame = ()) -> None:
        self.view = view
        self.strip = strip

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield compose(self.view, self.strip, console.color_system)


def render(view: TableView, strip: Frame = ()) -> RenderableType:
    """One screenful for `view` (pure: tests render it to text)."""
    return Screen(view, strip)


class TerminalView:
    """Redraws the terminal from the newest state and strip frame, about 8 times a second."""

    def __init__(self, feed: PublicFeed, console: Console | None = None,
                 strip: RecordingBackend | None = None) -> None:
        self.feed = feed
        self.console = console or Console()
        self.strip = strip

    def renderable(self) -> RenderableType:
        return render(self.feed.latest, self.strip.last if self.strip is not None else ())

    async def run(self) -> None:
        from rich.live import Live

        with Live(get_renderable=self.renderable, console=self.console,
                  refresh_per_second=8, transient=False):
            while True:
                await asyncio.sleep(3600)
