"""A seat's own view, for a controller that can show it (the phone page): `seatview` frames.

A hardware controller shows only its prompts; the phone controller page also shows what its
seat privately holds (a PIP Cycle hand, Outspeed's drawn Bonus tokens) and its own public
figures (Stadium energy, Outspeed fuel). The host sends that inside the protocol, as the
reliable down message `seatview` (docs/protocol.md), to links whose hello lists the
`seatview` capability, after the welcome and whenever the text changes.

What goes in is built from the engine's per-seat view only (`Game.view(seat)`, held by
tests/engine/test_secrets.py to show a seat nothing of another seat's hidden answers or
components) and its public view (`Game.view(None)`):

    {"game": "pipcycle", "seat": 0, "phase": "game",
     "private": {"hands": [["2H","5H","2C"], 3]},
     "own": {"reserve": 3, "lost": 0},
     "headline": "Round 1: place your riders"}

- `private`: the top-level keys where the seat's view differs from the public view, minus
  `seat` (the seat's private information and its own staged answers, which the host never
  holds before everyone has revealed: a sealed choice reaches the host only as a
  commitment);
- `own`: the seat's entry of each public per-seat list (a list of plain values with one
  entry per player: energy, fuel, scores...; not the keys of `private`), public anyway;
- `headline`: the game's public headline.

The whole view (1.5 to 25 KB of JSON) does not fit a frame (1024 bytes); the part above is
at most a few hundred characters in every registered game. If one ever outgrows the frame,
`own` goes first, then `private` is replaced by `{"too_big": true}`, so the frame is always
valid and never truncated JSON (see `seatview_text`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Container, Iterable
from typing import Any, Protocol

from dialbox.engine.game import Game
from dialbox_protocol import codec
from dialbox_protocol.models import Hello, Message, SeatView

log = logging.getLogger("dialbox.seatview")

CAP = "seatview"
"""The hello capability of a controller that wants `seatview` frames."""
VIEW_MAX = 900
"""Characters of a seatview's JSON text (the model's limit): with JSON's escaping of its
quotes inside the frame, the frame stays under codec.MAX_FRAME (checked when sent)."""
_SCALAR = (int, float, str, bool, type(None))


def _compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=True, sort_keys=False)


def private_part(game: Game, seat: int,
                 public: dict[str, Any] | None = None) -> dict[str, Any]:
    """The keys of the seat's view that differ from the public view (its private part);
    `public`: the game's public view, if already made."""
    mine = game.view(seat)
    public = game.view(None) if public is None else public
    return {k: v for k, v in mine.items() if k != "seat" and public.get(k, _MISSING) != v}


_MISSING = object()


def own_part(game: Game, seat: int, skip: Container[str] = (),
             public: dict[str, Any] | None = None) -> dict[str, Any]:
    """The seat's entry of each public per-seat list of plain values (energy, fuel...),
    but for the keys in `skip` (those of the private part)."""
    players = game.options.players
    out: dict[str, Any] = {}
    for k, v in (game.view(None) if public is None else public).items():
        if (k not in skip and isinstance(v, list) and len(v) == players and players > 0
                and all(isinstance(x, _SCALAR) for x in v) and 0 <= seat < players):
            out[k] = v[seat]
    return out


def fits(text: str) -> bool:
    """Whether a seatview frame carrying `text` stays within the codec's frame limit."""
    if len(text) > VIEW_MAX:
        return False
    try:
        codec.encode("seatview", codec.MAX_SEQ, [text])
    except ValueError:
        return False
    return True


def player_of(game: Game, seat: int) -> int:
    """The player whose view a seat's controller shows: the seat's own, or, for a seat
    beyond the players (Pixoid's 3 Player Variant), the player who dials it now."""
    if seat < game.options.players or game.pending is None:
        return seat
    return next((a.answerer for a in game.pending.asks if a.seat == seat), seat)


def seatview_text(game: Game | None, seat: int, *, name: str | None = None,
                  phase: str = "game") -> str:
    """The `view` field of a `seatview` frame for `seat` (a seat of `game`; None: the
    table is in its menu). Compact JSON, always within the frame limit."""
    if game is not None:
        seat = player_of(game, seat)
    if game is None or phase != "game" or not 0 <= seat < game.options.players:
        return _compact({"game": name, "seat": seat, "phase": phase, "private": {},
                         "own": {}, "headline": ""})
    base: dict[str, Any] = {"game": name or game.name, "seat": seat, "phase": phase}
    public = game.view(None)
    private = private_part(game, seat, public)
    own = own_part(game, seat, private, public)
    headline = game.headline() or ""
    text = _compact({**base, "private": private, "own": own, "headline": headline})
    if fits(text):
        return text
    text = _compact({**base, "private": private, "own": {}, "headline": headline})
    if fits(text):
        return text
    log.warning("%s: seat %d's private view is too big for a frame: sent without it",
                game.name, seat + 1)
    return _compact({**base, "private": {"too_big": True}, "own": {}, "headline": ""})


MIN_GAP = 0.25
"""Seconds between two `seatview` frames to one controller (the latest text wins)."""


class _Poster(Protocol):
    """What SeatViews needs of a session (dialbox.sessions.Session)."""

    hello: Hello | None
    welcomed: bool
    online: bool

    def post(self, msg: Message) -> None: ...


def wants(session: _Poster) -> bool:
    """Whether this controller asked for seatviews (its hello's caps) and is welcomed."""
    return (session.hello is not None and CAP in session.hello.caps and session.welcomed
            and session.online)


class SeatViews:
    """Sends each seatview-capable controller its seat's view when the text changes, at
    most one frame every MIN_GAP seconds per controller (a change within the gap is sent at
    its end: `again` is called then, to push what is current)."""

    def __init__(self, again: Callable[[], None], gap: float = MIN_GAP) -> None:
        self.again = again
        self.gap = gap
        self._sent: dict[int, str] = {}
        self._at: dict[int, float] = {}
        self._timer: asyncio.TimerHandle | None = None
        self.frames = 0
        """Seatview frames posted so far."""

    def forget(self, session: object) -> None:
        """A new welcome: the controller gets its view again (the old frame may be lost)."""
        self._sent.pop(id(session), None)
        self._at.pop(id(session), None)

    def push(self, seats: Iterable[tuple[_Poster, int]], make: Callable[[int], str]) -> None:
        """Post the view of each (session, seat) whose text changed since it was sent."""
        now = time.monotonic()
        present: set[int] = set()
        late = False
        for session, seat in seats:
            key = id(session)
            present.add(key)
            if not wants(session):
                continue
            text = make(seat)
            if self._sent.get(key) == text:
                continue
            if now - self._at.get(key, -self.gap) < self.gap:
                late = True
                continue
            session.post(SeatView(view=text))
            self._sent[key], self._at[key] = text, now
            self.frames += 1
        for key in [k for k in self._sent if k not in present]:
            self._sent.pop(key, None)
            self._at.pop(key, None)
        if late and self._timer is None:
            with contextlib.suppress(RuntimeError):  # (no loop: nothing to send later)
                self._timer = asyncio.get_running_loop().call_later(self.gap, self._due)

    def _due(self) -> None:
        self._timer = None
        self.again()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
