"""Seats in a game's words: every text names a seat by its colour, and says where it does.

Event texts and result texts name seats by colour ("Blue pays 19 Energy"), as the panels,
the LED strip and the controllers do. A display that knows a player's name puts it in
(“Ann (Blue) pays 19 Energy”) without guessing at words: a game writes `who(seat)` into the
text it emits, the engine turns each such mark into the colour's name and records where
that name stands, as `[start, end, seat]` spans in the event's `data["named"]` (a Result's
`details["named"]`). `render` replaces exactly those spans, and only where the text there is
still that seat's colour name, so a word that merely looks like a colour ("the Red Sunz",
"the red route") is never touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from dialbox.engine.seats import PLAYER_COLOURS

NAMED = "named"
"""The key of the spans in an event's `data` and a result's `details`."""

_OPEN, _CLOSE = "\x1e", "\x1f"
"""A seat's mark: record separator, the seat's index, unit separator (never in real text)."""

Span = tuple[int, int, int]
"""(start, end, seat): text[start:end] is that seat's colour name."""


def colour_name(seat: int) -> str:
    """The seat's colour as people call it ("Red", "Blue"...; past the six colours "Player
    7"). Plain text: for prompts, wheel reasons and headlines, which are never rendered."""
    if 0 <= seat < len(PLAYER_COLOURS):
        return PLAYER_COLOURS[seat][0]
    return f"Player {seat + 1}"


def who(seat: int) -> str:
    """The seat, marked, for an event's or a result's text: the engine writes its colour
    name there and records the place (`said`), so a display can put the player's name in."""
    return f"{_OPEN}{seat}{_CLOSE}"


def whom(seats: Iterable[int], joiner: str = " and ") -> str:
    """Several seats, marked: "Red and Blue", or with `joiner` ", "."""
    marks = [who(s) for s in seats]
    if joiner != " and " or len(marks) < 3:
        return joiner.join(marks)
    return ", ".join(marks[:-1]) + " and " + marks[-1]


def marked(text: str) -> bool:
    return _OPEN in text


def said(text: str) -> tuple[str, list[Span]]:
    """The text with every mark replaced by the seat's colour name, and where each stands."""
    if _OPEN not in text:
        return text, []
    out: list[str] = []
    spans: list[Span] = []
    length = 0
    rest = text
    while True:
        head, sep, tail = rest.partition(_OPEN)
        out.append(head)
        length += len(head)
        if not sep:
            break
        number, close, rest = tail.partition(_CLOSE)
        if not close or not number.isdigit():
            raise ValueError(f"a broken seat mark in {text!r}")
        seat = int(number)
        name = colour_name(seat)
        out.append(name)
        spans.append((length, length + len(name), seat))
        length += len(name)
    return "".join(out), spans


def plain(text: str) -> str:
    """The text with its marks turned into colour names (no spans)."""
    return said(text)[0]


def spans_of(raw: object) -> list[Span]:
    """The spans stored in `data["named"]` (lists in JSON), checked; bad entries dropped."""
    out: list[Span] = []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return out
    for item in raw:
        if (isinstance(item, Sequence) and not isinstance(item, str) and len(item) == 3
                and all(isinstance(v, int) and not isinstance(v, bool) for v in item)):
            out.append((item[0], item[1], item[2]))
    return out


def render(text: str, spans: Iterable[Sequence[int]], names: Mapping[int, str]
           ) -> tuple[str, list[Span]]:
    """`text` with each named seat called by `names[seat]` (e.g. "Ann (Blue)") where given,
    and the spans moved to where the names now stand. A span is used only if the text there
    is still that seat's colour name: other words, and stale spans, are left alone."""
    good = sorted((s for s in spans_of(list(spans))
                   if 0 <= s[0] < s[1] <= len(text) and text[s[0]:s[1]] == colour_name(s[2])),
                  key=lambda s: s[0])
    out: list[str] = []
    moved: list[Span] = []
    at = length = 0
    for start, end, seat in good:
        if start < at:
            continue  # overlapping spans: keep the first
        out.append(text[at:start])
        length += start - at
        name = names.get(seat) or text[start:end]
        out.append(name)
        moved.append((length, length + len(name), seat))
        length += len(name)
        at = end
    out.append(text[at:])
    return "".join(out), moved


def player_label(colour: str, player: str | None) -> str:
    """How people call a seat: "Ann (Blue)" when its player took a name, else "Blue"."""
    return f"{player} ({colour})" if player else colour
