"""The thin adapter from the daemon's table to the displays: runner state in, TableView out.

The game runner publishes its public state as a plain dict on its own feed
(`GameRunner.state()`, `dialbox.table.Feed`); `table_view()` reads that dict, plus the link
details of each seated controller's session (transport, firmware, heartbeat age, round trip,
unacknowledged frames; never a frame's content), into the typed TableView the displays show.
`TableFollower` does it for every state the runner publishes, and can hold each public moment
on screen for a minimum time (`pace`) so a demo of fast simulated controllers stays watchable.
See docs/displays.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import SeatStatus
from dialbox.displays.public import (
    AskView,
    ChoiceView,
    EventView,
    FaceView,
    Notice,
    Pairing,
    Progress,
    PromptPhase,
    PromptView,
    ResultView,
    SeatView,
    Stage,
    TableView,
    game_choices,
)
from dialbox.engine import game_names

PHASES: dict[str, PromptPhase] = {
    "open": "open", "alllocked": "alllocked", "complete": "revealed", "void": "void",
}


@dataclass(frozen=True, slots=True)
class LinkInfo:
    """What the table may know about one controller's link."""

    transport: str
    firmware: str | None
    heartbeat_age: float | None
    rtt_ms: float | None
    unacked: int
    online: bool = True

    @property
    def quality(self) -> float:
        """1.0 with every reliable frame acknowledged; lower as frames wait for an ack."""
        return max(0.0, 1.0 - self.unacked / 4)


class RunnerLike(Protocol):
    """The parts of dialbox.runner.GameRunner the adapter reads."""

    sessions: Mapping[str, Any]
    pairing: Mapping[str, int]
    feed: Any

    def state(self) -> dict[str, Any]: ...


def link_info(session: Any, now: float | None = None) -> LinkInfo:
    """Link details of a dialbox.sessions.Session (attributes read defensively)."""
    now = time.monotonic() if now is None else now
    hello = getattr(session, "hello", None)
    last = getattr(session, "_last_rx", None)
    link = getattr(session, "link", None)
    return LinkInfo(
        transport=str(getattr(link, "kind", "link")),
        firmware=getattr(hello, "fw", None),
        heartbeat_age=None if last is None else max(0.0, now - float(last)),
        rtt_ms=getattr(session, "rtt_ms", None),
        unacked=int(getattr(session, "unacked", 0) or 0),
        online=bool(getattr(session, "online", True)),
    )


@dataclass(slots=True)
class Memory:
    """What the adapter remembers between states: each prompt's texts and kind."""

    sealed: dict[int, bool] = field(default_factory=dict)
    texts: dict[int, str] = field(default_factory=dict)


def _status(seat: Mapping[str, Any], prompt: Mapping[str, Any] | None,
            online: bool) -> SeatStatus:
    kind = seat.get("kind", "empty")
    if kind == "empty":
        return "empty"
    if kind == "controller" and not online:
        return "offline"
    if prompt is None or seat["seat"] not in prompt.get("seats", []):
        return "waiting"
    phase = prompt.get("phase")
    if phase in ("alllocked", "complete") or seat["seat"] in prompt.get("locked", []):
        return "locked"
    return "programming" if seat.get("state") == "editing" else "waiting"


def _prompt_text(texts: Mapping[Any, str]) -> str:
    values = list(dict.fromkeys(texts.values()))
    return values[0] if len(values) == 1 else "Each seat answers its own question"


def reveal_view(r: Mapping[str, Any], memory: Memory) -> PromptView | None:
    """One of the runner's reveals (pid, sealed, choices as labels, summary, texts)."""
    if not r.get("choices"):
        return None  # a void prompt: nothing was revealed
    pid = int(r["pid"])
    choices = tuple(
        ChoiceView(seat=int(seat), text=str(label),
                   faces=tuple(FaceView(label=part) for part in str(label).split()))
        for seat, label in r["choices"]
    )
    texts = r.get("text")
    text = _prompt_text(texts) if texts else memory.texts.get(pid, "")
    return PromptView(
        pid=pid, sealed=bool(r.get("sealed", memory.sealed.get(pid, True))), topic="",
        text=text or str(r.get("summary", "")),
        asks=tuple(AskView(seat=c.seat, text="", status="revealed") for c in choices),
        phase="revealed", choices=choices,
    )


def table_view(
    state: Mapping[str, Any],
    links: Mapping[str, LinkInfo] | None = None,
    pairing: Mapping[str, str] | None = None,
    memory: Memory | None = None,
    reveal_of: Mapping[str, Any] | None = None,
) -> TableView:
    """The daemon's public state (GameRunner.state()) as a TableView.

    `reveal_of`: show this one of the state's `reveals` as the latest, with no prompt open
    (the moment just after it, when one published state followed several reveals).
    """
    links = links or {}
    memory = memory if memory is not None else Memory()
    p = state.get("prompt") if reveal_of is None else None
    result = state.get("result")
    over = bool(state.get("over")) and result is not None
    seats: list[SeatView] = []
    notices: list[Notice] = []
    for s in state.get("seats", []):
        uid = s.get("uid")
        info = links.get(uid) if uid else None
        # The seat learns its controller is online from the snapshot after the handshake;
        # a live session that has been welcomed already counts.
        online = bool(s.get("online")) or (info is not None and info.online)
        status = _status(s, p, online)
        if over and status == "offline":
            status = "waiting"  # the game is over: controllers may go to sleep
        seats.append(SeatView(
            seat=s["seat"], name=s["name"], colour=str(s["colour"]).lower(),
            occupant=s.get("kind", "empty"), uid=uid,
            transport=info.transport if info else None,
            firmware=info.firmware if info else None,
            link=info.quality if info else None,
            heartbeat_age=info.heartbeat_age if info else None,
            rtt_ms=info.rtt_ms if info else None,
            online=online, status=status,
            team=s.get("team"), role=s.get("role"),
        ))
        if status == "offline":
            notices.append(Notice(
                code="offline", seat=s["seat"], level="error",
                text=f"{s['name']}'s controller ({uid}) is offline. Its lock, if any, is kept: "
                     "check its cable or WiFi; it picks up where it left off.",
            ))
    prompt: PromptView | None = None
    if p is not None:
        pid = int(p["pid"])
        text = _prompt_text(p.get("text", {}))
        memory.sealed[pid] = bool(p["sealed"])
        memory.texts[pid] = text
        prompt = PromptView(
            pid=pid, sealed=bool(p["sealed"]), topic=str(p.get("topic", "")), text=text,
            phase=PHASES.get(str(p["phase"]), "open"),
            asks=tuple(AskView(seat=seat, text=str(p.get("text", {}).get(seat, text)),
                               status=next((v.status for v in seats if v.seat == seat),
                                           "waiting"))
                       for seat in p.get("seats", [])),
        )
    reveals = [x for x in state.get("reveals", []) if x.get("choices")]
    r = reveal_of or (reveals[-1] if reveals else state.get("revealed"))
    reveal = None if r is None else reveal_view(r, memory)
    raw_events = list(state.get("events", []))
    events = tuple(EventView(n=i + 1, kind=str(e.get("kind", "")), text=str(e.get("text", "")),
                             data=dict(e.get("data", {})))
                   for i, e in enumerate(raw_events))
    if any(e.kind == "prompt.void" for e in events[-2:]):
        why = next(e.text for e in reversed(events) if e.kind == "prompt.void")
        notices.append(Notice(code="void", level="warning",
                              text=f"A choice could not be verified, so the turn is asked "
                                   f"again. ({why})"))
    stage: Stage = "over" if over else (
        "playing" if p is not None or r is not None or raw_events else "lobby")
    taken = sum(1 for s in seats if s.occupant != "empty")
    progress = (Progress(label="Players seated", done=taken, total=len(seats))
                if stage == "lobby" and seats else None)
    return TableView(
        table=str(state.get("table", "table")),
        stage=stage,
        progress=progress,
        games=game_choices(game_names()),
        game=state.get("game"),
        pairing=tuple(Pairing(uid=u, transport=links[u].transport if u in links else "link",
                              text=t) for u, t in (pairing or {}).items()),
        seats=tuple(seats),
        prompt=prompt,
        reveal=reveal,
        board=state.get("view"),
        events=events,
        notices=tuple(notices),
        result=None if result is None else ResultView(
            text=str(result.get("text", "")),
            scores={int(k): int(v) for k, v in result.get("scores", {}).items()},
            winners=tuple(int(w) for w in result.get("winners", [])),
        ),
    )


HOLD = {"lobby": 1.5, "alllocked": 1.2, "reveal": 2.5, "answer": 1.0, "other": 0.25}
"""Seconds each kind of public moment stays on screen at pace 1.0 (answer: an open prompt's
reveal, e.g. a bot keeping a token)."""


class TableFollower:
    """Follows a game runner: every state it publishes becomes a TableView on `feed`.

    pace 0 publishes at once (a real table: people are slower than the screen). pace > 0
    queues the states and holds each moment for HOLD[kind] * pace seconds, so a game of fast
    simulated controllers can be watched; `drained` waits until the screen has caught up.
    """

    def __init__(
        self,
        runner: RunnerLike,
        feed: PublicFeed,
        pace: float = 0.0,
        on_moment: Callable[[TableView, str], Awaitable[None]] | None = None,
    ) -> None:
        self.runner = runner
        self.feed = feed
        self.pace = pace
        self.on_moment = on_moment
        """Awaited with each lobby, all-locked and reveal moment as it goes out (tests' cameras)."""
        self.memory = Memory()
        self._queue: deque[TableView] = deque()
        self._wake = asyncio.Event()
        self._last_state: dict[str, Any] | None = None
        self._shown_reveal: int | None = None
        self._lobby_shown = False
        self._seen_reveals: set[int] = set()
        self._started = False
        runner.feed.listen(self.on_state)
        self.on_state(runner.state())

    def links(self) -> dict[str, LinkInfo]:
        now = time.monotonic()
        return {uid: link_info(s, now) for uid, s in self.runner.sessions.items()}

    def pairing(self) -> dict[str, str]:
        return {uid: f"Controller {uid}: press its button to take the next free seat"
                for uid in self.runner.pairing}

    def on_state(self, state: dict[str, Any]) -> None:
        self._last_state = state
        links, pairing = self.links(), self.pairing()
        reveals = [r for r in state.get("reveals", []) if r.get("choices")]
        new = [r for r in reveals if r["pid"] not in self._seen_reveals]
        self._seen_reveals.update(r["pid"] for r in reveals)
        # Several reveals since the last state (a burst): each gets its moment on screen.
        for r in new[:-1] if self._started else ():
            self.emit(table_view(state, links, pairing, self.memory, reveal_of=r))
        self._started = True
        self.emit(table_view(state, links, pairing, self.memory))

    def emit(self, view: TableView) -> None:
        if self.pace <= 0 and self.on_moment is None:
            self.feed.publish(view)
            return
        self._queue.append(view)
        self._wake.set()

    def moment(self, view: TableView) -> str:
        """lobby (the first controller seated), alllocked, reveal (a new one) or other."""
        if (view.stage == "lobby" and not self._lobby_shown
                and any(s.occupant == "controller" for s in view.seats)):
            self._lobby_shown = True
            return "lobby"
        if view.prompt is not None and view.prompt.phase == "alllocked":
            return "alllocked"
        if view.reveal is not None and view.reveal.pid != self._shown_reveal:
            self._shown_reveal = view.reveal.pid
            return "reveal"
        return "other"

    async def run(self) -> None:
        """Publish queued states at pace, and refresh heartbeat ages once a second."""
        while True:
            if not self._queue:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), 1.0)
                if not self._queue and self._last_state is not None:
                    self.feed.publish(table_view(self._last_state, self.links(),
                                                 self.pairing(), self.memory))
                continue
            view = self.feed.publish(self._queue.popleft())
            kind = self.moment(view)
            if kind != "other" and self.on_moment is not None:
                await self.on_moment(view, kind)
            if kind == "reveal" and view.reveal is not None and not view.reveal.sealed:
                kind = "answer"
            await asyncio.sleep(HOLD[kind] * self.pace)  # at pace 0: let the screen send

    @property
    def caught_up(self) -> bool:
        return not self._queue

    async def drained(self) -> None:
        while self._queue:
            await asyncio.sleep(0.05)
