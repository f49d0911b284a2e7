"""What each seat and the table are told once a decision is answered: pure, no I/O.

A sealed or open decision's answers are public: every asked seat gets the same `revealed`
frame (each seat's face labels and the summary of the public events) and the table the same
choices: the labels, the faces with their colours and what each answer means in the game's
words (`Game.meaning`, recorded by the engine as it applied the answers: `Game.meanings`).
A private decision's answers are not: each asked seat's frame carries its own choice only,
the table gets what the rules announce (`Game.public_part`) and no choice, no face and no
meaning. In every case a seat's summary holds the public events plus the private events
meant for the player who answers on that controller, never another player's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from dialbox.engine.decisions import Ask, Decision
from dialbox.engine.events import Event
from dialbox.engine.naming import said
from dialbox.engine.wheels import Selection
from dialbox.runner.oled import oled_text
from dialbox.table.state import FaceState, RevealState, WheelName
from dialbox_protocol import codec
from dialbox_protocol.models import Revealed

LABELS_MAX = 24
SUMMARY_MAX = 120
MEANING_MAX = 80
WHEELS: tuple[WheelName, ...] = ("left", "centre", "right")

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


def _rgb(colour: str) -> str:
    c = colour.lower().removeprefix("#")
    return c if len(c) == 6 and all(ch in "0123456789abcdef" for ch in c) else "ffffff"


def faces(ask: Ask, sel: Selection) -> tuple[FaceState, ...]:
    """A selection's faces as the controller showed them: wheel, label and colour (white for
    a colour that is not rrggbb)."""
    return tuple(FaceState(wheel=WHEELS[pos], label=w.faces[sel[pos]].label,
                           colour=_rgb(w.faces[sel[pos]].colour))
                 for pos, w in enumerate(ask.wheels)
                 if w is not None and 0 <= sel[pos] < len(w.faces))


def summary(events: Sequence[Event]) -> str:
    return " ".join(e.text for e in events)[:SUMMARY_MAX] or "Revealed."


Proofs = Mapping[int, tuple[str, str]]
"""seat -> (nonce, uid) of its verified reveal (`Lockbox.proofs`)."""
Commitments = Mapping[int, tuple[str, str]]
"""seat -> (uid, commitment) it locked (`Lockbox.commitments`)."""


def _over(frame: Revealed) -> int:
    """Bytes by which the frame (with the largest seq) would pass MAX_FRAME."""
    body = codec.dumps([frame.type_name(), codec.MAX_SEQ, *frame.args()])
    return len(body) + 9 - codec.MAX_FRAME  # + CRC and newline


def fit(frame: Revealed) -> Revealed:
    """The frame, its summary shortened if the whole would not fit in one frame (1 KB):
    six seats' labels and reveals leave room for most of a summary, not for every escape.
    Its texts are folded to the OLED font's characters (`oled_text`)."""
    frame = frame.model_copy(update={
        "summary": oled_text(frame.summary)[:SUMMARY_MAX],
        "choices": [(seat, oled_text(text)[:LABELS_MAX]) for seat, text in frame.choices]})
    over = _over(frame)
    while over > 0 and frame.summary:
        frame = frame.model_copy(update={"summary": frame.summary[:-max(1, over // 6)]})
        over = _over(frame)
    return frame


def verified(pid: int, decision: Decision, answers: Mapping[int, Selection], proofs: Proofs,
             commitments: Commitments) -> bool:
    """A sealed decision whose every answer hashes to the commitment its seat locked (checked
    again here, as every controller checks it from its `alllocked` and `revealed`)."""
    if not decision.sealed:
        return False
    for a in decision.asks:
        proof, held = proofs.get(a.seat), commitments.get(a.seat)
        if proof is None or held is None or proof[1] != held[0]:
            return False  # a default: no commitment to check it against
        if not codec.verify_reveal(held[1], answers[a.seat], proof[0], pid, proof[1]):
            return False
    return True


def tell(pid: int, decision: Decision, answers: Mapping[int, Selection],
         events: Sequence[Event], public_part: PublicPart, proofs: Proofs | None = None,
         commitments: Commitments | None = None,
         meanings: Mapping[int, str] | None = None) -> Telling:
    """The frames and the public reveal of `decision`, answered with `answers` under prompt
    `pid`, whose resolution emitted `events`. Each frame carries the reveals (`proofs`) its
    controller may check: every seat's, or for a private decision the seat's own only.
    `meanings`: what each answer means (`Game.meanings`, recorded as the game applied
    them); a seat without one is told in its faces' labels. A private decision's meanings
    are never told."""
    proofs = proofs or {}
    public = [e for e in events if e.to is None]
    text = {a.seat: a.text for a in decision.asks}
    heard = summary(public)
    reveals = {s: (s, answers[s], nonce, uid) for s, (nonce, uid) in proofs.items()
               if s in answers}
    if decision.private:
        frames = {
            a.seat: fit(Revealed(
                seq=1, pid=pid, choices=[(a.seat, labels(a, answers[a.seat]))],
                summary=summary([e for e in events if e.visible_to(a.answerer)]),
                reveals=[reveals[a.seat]] if a.seat in reveals else []))
            for a in decision.asks
        }
        announced = tuple((a.seat, part) for a in decision.asks
                          if (part := public_part(a, answers[a.seat])) is not None)
        return Telling(frames, RevealState(pid=pid, kind="private", announced=announced,
                                           summary=heard, text=text))
    choices = [(a.seat, labels(a, answers[a.seat])) for a in decision.asks]
    every = [reveals[s] for s in sorted(reveals)]
    shared = fit(Revealed(seq=1, pid=pid, choices=choices, summary=heard, reveals=every))
    frames = {a.seat: shared for a in decision.asks}
    if len(public) < len(events):  # private events: each seat's summary adds its own only
        for a in decision.asks:
            mine = [e for e in events if e.visible_to(a.answerer)]
            if len(mine) > len(public):
                frames[a.seat] = fit(Revealed(seq=1, pid=pid, choices=choices,
                                              summary=summary(mine), reveals=every))
    ok = verified(pid, decision, answers, proofs, commitments or {})
    meant: dict[int, str] = {}
    named: dict[int, tuple[tuple[int, int, int], ...]] = {}
    for a, (_, label) in zip(decision.asks, choices, strict=True):
        words, spans = said((meanings or {}).get(a.seat) or label)
        meant[a.seat] = words[:MEANING_MAX]
        if spans and all(end <= MEANING_MAX for _, end, _ in spans):
            named[a.seat] = tuple(spans)
    return Telling(frames, RevealState(
        pid=pid, kind=decision.kind, choices=tuple(choices),
        faces={a.seat: faces(a, answers[a.seat]) for a in decision.asks},
        meanings=meant, named=named, summary=heard, text=text, verified=ok))
