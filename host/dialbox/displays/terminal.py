"""The terminal view: a live rich picture of the seats, lock status, the reveal and the result."""

from __future__ import annotations

import asyncio

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table
from rich.text import Text

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import Frame, RecordingBackend
from dialbox.displays.lights import seat_lights
from dialbox.displays.public import TableView

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


def strip_text(frame: Frame, width: int = 60) -> Text:
    """The LED strip as a row of coloured blocks (pixels squeezed into `width` cells)."""
    out = Text()
    if not frame:
        return out
    step = max(1, len(frame) // width)
    for i in range(0, len(frame), step):
        r, g, b = frame[i]
        out.append("█", style=f"#{r:02x}{g:02x}{b:02x}")
    return out


def seats_table(view: TableView) -> Table:
    t = Table(expand=True, show_edge=False, pad_edge=False)
    for col in ("seat", "who", "link", "status"):
        t.add_column(col)
    statuses = {light.seat: light.status for light in seat_lights(view)}
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
        t.add_row(Text(f"■ {s.name}", style=f"#{s.colour}"), who, link, Text(word, style=style))
    return t


def menu_text(view: TableView) -> Text:
    """The console's menu in a few lines: the question, the chooser's wheels, the votes."""
    m = view.menu
    assert m is not None
    names = {s.seat: s for s in view.seats}
    out = Text(f"menu: {m.text}", style="bold")
    if m.chooser is not None and m.chooser in names:
        who = names[m.chooser]
        out.append(f"  ({who.player or who.name} chooses)", style=f"#{who.colour}")
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


def render(view: TableView, strip: Frame = ()) -> RenderableType:
    """One screenful for `view` (pure: tests render it to text)."""
    parts: list[RenderableType] = []
    head = Text(f"dialbox · {view.table} · {view.game or 'no game'} · {view.stage}", style="bold")
    parts.append(head)
    if strip:
        parts.append(strip_text(strip))
    for n in view.notices:
        parts.append(Text(n.text, style={"error": "bold red", "warning": "yellow",
                                         "info": "green"}[n.level]))
    if view.progress is not None:
        pg = view.progress
        parts.append(Group(Text(f"{pg.label} {pg.done}/{pg.total}"),
                           ProgressBar(total=max(1, pg.total), completed=pg.done, width=40)))
    parts.append(seats_table(view))
    if view.prompt is not None:
        p = view.prompt
        locked = sum(1 for a in p.asks if a.status in ("locked", "revealed"))
        line = Text(f"prompt {p.pid}: {p.text}  ", style="bold")
        line.append(PHASE_TEXT[p.phase], style="bold green" if p.phase == "alllocked" else "")
        if p.sealed and p.phase == "open":
            line.append(f"  ({locked}/{len(p.asks)} locked)")
        parts.append(line)
    if view.reveal is not None:
        names = {s.seat: s for s in view.seats}
        line = Text("reveal: ")
        for c in view.reveal.choices:
            seat = names.get(c.seat)
            line.append(f"{seat.name if seat else c.seat + 1} ", style=f"#{seat.colour}"
                        if seat else "")
            line.append(f"{c.text}   ", style="bold")
        parts.append(line)
    if view.menu is not None:
        parts.append(menu_text(view))
    for e in view.events[-5:]:
        parts.append(Text(f"· {e.text}", style="dim"))
    if view.result is not None:
        r = view.result
        scores = ", ".join(
            f"{view.seats[s].name if s < len(view.seats) else s + 1} {v}"
            for s, v in sorted(r.scores.items(), key=lambda kv: -kv[1])
        )
        parts.append(Panel(Text(f"{r.text}\n{scores}", style="bold yellow"), title="result"))
    return Panel(Group(*parts), border_style="blue")


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
