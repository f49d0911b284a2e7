"""What each seat and the table are told once a decision is answered: pure, no I/O.

A sealed or open decision's answers are public: every asked seat gets the same `revealed`
frame (each seat's face labels and the summary of the public events) and the table the same
choices. A private decision's answers are not: each asked seat's frame carries its own
choice only, the table gets what the rules announce (`Game.public_part`) and no choice. In
every case a seat's summary holds the public events plus the private events meant for the
player who answers on that controller, never another player's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from dialbox.engine.decisions import Ask, Decision
from dialbox.engine.events import Event
from dialbox.engine.wheels import Selection
from dialbox.table.state import RevealState
from dialbox_protocol.models import Revealed

LABELS_MAX = 24
SUMMARY_MAX = 120

PublicPart = Callable[[Ask, Selection], str | None]
"""`Game.public_part`: what the table learns at once from a private answer."""


@dataclass(frozen=True, slots=True)
class Telling:
    frames: dict[int, Revealed]
    """seat -> the `revealed` frame its controller gets (one shared object when all are the
    same)."""
    public: RevealState
    """What the table learns (the public state's reveal)."""


def labels(ask: Ask, sel: Selection) -> str:
    """A selection in the faces' own labels, e.g. "N 3" (at most 24 characters)."""
    parts = []
    for pos, wheel in enumerate(ask.wheels):
        if wheel is not None and 0 <= sel[pos] < len(wheel.faces):
            parts.append(wheel.faces[sel[pos]].label)
    return " ".join(parts)[:LABELS_MAX]


def summary(events: Sequence[Event]) -> str:
    return " ".join(e.text for e in events)[:SUMMARY_MAX] or "Revealed."


def tell(pid: int, decision: Decision, answers: Mapping[int, Selection],
         events: Sequence[Event], public_part: PublicPart) -> Telling:
    """The frames and the public reveal of `decision`, answered with `answers` under prompt
    `pid`, whose resolution emitted `events`."""
    public = [e for e in events if e.to is None]
    text = {a.seat: a.text for a in decision.asks}
    said = summary(public)
    if decision.private:
        frames = {
            a.seat: Revealed(seq=1, pid=pid, choices=[(a.seat, labels(a, answers[a.seat]))],
                             summary=summary([e for e in events if e.visible_to(a.answerer)]))
            for a in decision.asks
        }
        announced = tuple((a.seat, part) for a in decision.asks
                          if (part := public_part(a, answers[a.seat])) is not None)
        return Telling(frames, RevealState(pid=pid, kind="private", announced=announced,
                                           summary=said, text=text))
    choices = [(a.seat, labels(a, answers[a.seat])) for a in decision.asks]
    shared = Revealed(seq=1, pid=pid, choices=choices, summary=said)
    frames = {a.seat: shared for a in decision.asks}
    if len(public) < len(events):  # private events: each seat's summary adds its own only
        for a in decision.asks:
            mine = [e for e in events if e.visible_to(a.answerer)]
            if len(mine) > len(public):
                frames[a.seat] = Revealed(seq=1, pid=pid, choices=choices,
                                          summary=summary(mine))
    return Telling(frames, RevealState(pid=pid, kind=decision.kind, choices=tuple(choices),
                                       summary=said, text=text))
