"""The thin adapter from the daemon's table to the displays: TableState in, TableView out.

The game runner publishes its public state as a frozen `dialbox.table.TableState` on its own
feed (`GameRunner.state()`, `GameRunner.feed`); `table_view()` reads that model, plus a
snapshot of each seated controller's link facts (`GameRunner.links()`: transport, firmware,
heartbeat age, round trip, unacknowledged frames; never a session, never a frame's content),
into the typed TableView the displays show. `TableFollower` does it for every state the
runner publishes, and can hold each public moment on screen for a minimum time (`pace`) so a
demo of fast simulated controllers stays watchable. See docs/displays.md.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import SeatStatus
from dialbox.displays.public import (
    AskView,
    ChoiceView,
    EventView,
    FaceView,
    JoinView,
    LastGameView,
    MenuView,
    MenuWheelView,
    Notice,
    Pairing,
    Progress,
    PromptPhase,
    PromptView,
    ResultView,
    SeatView,
    Stage,
    TableView,
    VoteView,
    game_choices,
)
from dialbox.engine import game_names
from dialbox.engine.naming import NAMED, colour_name, player_label, render
from dialbox.table import Feed, LinkInfo, PromptState, RevealState, SeatState, TableState
from dialbox.table.state import EventState, MenuState, MenuWheel, ResultState

__all__ = ["LinkInfo", "RunnerLike", "TableFollower", "event_view", "menu_view", "player_names",
           "prompt_text", "replay_view", "result_view", "reveal_view", "table_view"]

PHASES: dict[str, PromptPhase] = {
    "open": "open", "alllocked": "alllocked", "complete": "revealed", "void": "void",
}
PAIRING_TEXT = "Controller {uid}: press its button to take the next free seat"


class RunnerLike(Protocol):
    """What the adapter reads of a dialbox.runner.GameRunner."""

    @property
    def feed(self) -> Feed[TableState]: ...

    def state(self) -> TableState: ...

    def links(self) -> Mapping[str, LinkInfo]:
        """Each live controller's link facts now."""
        ...


class JoinLike(Protocol):
    """A free seat's join code (dialbox.phone.codes.JoinCode, or as a worker reported it)."""

    @property
    def code(self) -> str: ...

    @property
    def seat(self) -> int: ...


def joins_of(runner: object) -> list[JoinLike]:
    """The join codes a followed table offers now (a runner without phones: none)."""
    join_codes = getattr(runner, "join_codes", None)
    if join_codes is None:
        return []
    return list(join_codes())


def phone_of(runner: object) -> object | None:
    """The phone gateway of a followed table, if it takes phones (its `phone`)."""
    return getattr(runner, "phone", None)


def _status(seat: SeatState, prompt: PromptState | None, online: bool) -> SeatStatus:
    if seat.kind == "empty":
        return "empty"
    if seat.kind == "controller" and not online:
        return "offline"
    if prompt is None or seat.seat not in prompt.seats:
        return "waiting"
    if prompt.phase in ("alllocked", "complete") or seat.seat in prompt.locked:
        return "locked"
    return "programming" if seat.state == "editing" else "waiting"


def player_names(seats: Sequence[SeatState]) -> dict[int, str]:
    """How people call each seat whose player took a name: "Ann (Blue)"."""
    return {s.seat: player_label(s.name, s.player) for s in seats if s.player}


def _who(seat: int, names: Mapping[int, str]) -> str:
    return names.get(seat) or colour_name(seat)


def prompt_text(texts: Mapping[int, str], names: Mapping[int, str] | None = None) -> str:
    """The prompt's question: the one question all its seats were asked, or each seat's own
    ("Red — Pixoid: arrow and distance · Blue, Green, Yellow — Bug: arrow and distance";
    seats asked the same question together, named as people call them)."""
    names = names or {}
    by_text: dict[str, list[int]] = {}
    for seat in sorted(texts):
        by_text.setdefault(texts[seat], []).append(seat)
    if len(by_text) <= 1:
        return next(iter(by_text), "")
    return " · ".join(", ".join(_who(s, names) for s in seats) + " — " + text
                      for text, seats in by_text.items())


def event_view(n: int, e: EventState, names: Mapping[int, str]) -> EventView:
    """An event with each seat it names called as people call it ("Ann (Blue)"): only the
    places its `data["named"]` marks, so no other word changes (dialbox.engine.naming)."""
    spans = e.data.get(NAMED)
    if not names or not spans:
        return EventView(n=n, kind=e.kind, text=e.text, data=e.data)
    text, moved = render(e.text, spans, names)
    return EventView(n=n, kind=e.kind, text=text,
                     data={**e.data, NAMED: [list(m) for m in moved]})


def result_view(r: ResultState, names: Mapping[int, str]) -> ResultView:
    text = r.text
    spans = r.details.get(NAMED)
    if names and spans:
        text = render(text, spans, names)[0]
    return ResultView(text=text, scores=dict(r.scores), winners=r.winners)


def reveal_view(r: RevealState, names: Mapping[int, str] | None = None) -> PromptView | None:
    """One of the runner's reveals as the table sees it: each choice's faces (label and the
    colour the controller showed) and its meaning in the game's words (`Game.meaning`), seats
    named as people call them (`names`: seat -> "Ann (Blue)"). None when there is no choice
    to show (a private prompt: what it announced is among the public events)."""
    if not r.choices:
        return None
    names = names or {}
    choices = []
    for seat, label in r.choices:
        shown = r.faces.get(seat)
        faces = (tuple(FaceView(wheel=f.wheel, label=f.label, colour=f.colour) for f in shown)
                 if shown else tuple(FaceView(label=part) for part in label.split()))
        text = r.meanings.get(seat) or label
        if names and seat in r.named:
            text = render(text, r.named[seat], names)[0]
        choices.append(ChoiceView(seat=seat, faces=faces, text=text))
    return PromptView(
        pid=r.pid, sealed=r.kind == "sealed", topic="",
        text=(prompt_text(r.text, names) if r.text else "") or r.summary,
        asks=tuple(AskView(seat=c.seat, text=r.text.get(c.seat, ""), status="revealed")
                   for c in choices),
        phase="revealed", choices=tuple(choices), verified=r.verified,
    )


def _wheel_view(w: MenuWheel | None) -> MenuWheelView | None:
    if w is None:
        return None
    return MenuWheelView(label=w.label, faces=w.faces, allowed=w.allowed, at=max(0, w.at))


def _last_view(last: Mapping[str, Any] | None) -> LastGameView | None:
    """The menu's previous game: game, title, number and its result's text (given as
    `text`, or as `result`, a text or a result with a `text`)."""
    if not last:
        return None
    result = last.get("result")
    text = last.get("text") or (result.get("text") if isinstance(result, Mapping) else result)
    number = last.get("number")
    game = str(last.get("game") or "")
    return LastGameView(game=game, title=str(last.get("title") or game),
                        number=number if isinstance(number, int) else None,
                        text=str(text or ""))


def menu_view(m: MenuState) -> MenuView:
    """The console's menu as the table sees it (all of it is public)."""
    left, centre, right = m.wheels
    return MenuView(
        stage=m.stage, text=m.text, chooser=m.chooser,
        wheels=(_wheel_view(left), _wheel_view(centre), _wheel_view(right)),
        choice=dict(m.choice), voters=m.voters,
        votes=tuple(VoteView(seat=s, yes=yes) for s, yes in m.votes),
        note=m.note, games=max(0, m.games), last=_last_view(m.last),
    )


def table_view(
    state: TableState,
    links: Mapping[str, LinkInfo] | None = None,
    reveal_of: RevealState | None = None,
    joins: Sequence[JoinLike] = (),
) -> TableView:
    """The daemon's public state as a TableView.

    `reveal_of`: show this one of the state's `reveals` as the latest, with no prompt open
    (the moment just after it, when one published state followed several reveals).
    """
    links = links or {}
    in_menu = state.phase == "menu"
    if in_menu:
        reveal_of = None
    p = state.prompt if reveal_of is None and not in_menu else None
    result = state.result
    over = state.over and result is not None
    # After a game, and while the menu is idle, controllers may go to sleep: not "offline".
    resting = over or (in_menu and (state.menu is None or state.menu.stage == "idle"))
    seats: list[SeatView] = []
    notices: list[Notice] = []
    for s in state.seats:
        info = links.get(s.uid) if s.uid else None
        # The seat learns its controller is online from the snapshot after the handshake;
        # a live session that has been welcomed already counts.
        online = s.online or (info is not None and info.online)
        status = _status(s, p, online)
        if resting and status == "offline":
            status = "waiting"  # the game is over: controllers may go to sleep
        seats.append(SeatView(
            seat=s.seat, name=s.name, colour=s.colour.lower(), occupant=s.kind, uid=s.uid,
            transport=info.transport if info else None,
            firmware=info.firmware if info else None,
            link=info.quality if info else None,
            heartbeat_age=info.heartbeat_age if info else None,
            rtt_ms=info.rtt_ms if info else None,
            online=online, status=status, team=s.team, role=s.role, player=s.player,
        ))
        if status == "offline":
            notices.append(Notice(
                code="offline", seat=s.seat, level="error",
                text=f"{s.name}'s controller ({s.uid}) is offline: check its cable or WiFi; "
                     "it rejoins the menu when it is back." if in_menu else
                     f"{s.name}'s controller ({s.uid}) is offline. Its lock, if any, is kept: "
                     "check its cable or WiFi; it picks up where it left off.",
            ))
    names = player_names(state.seats)
    prompt: PromptView | None = None
    if p is not None:
        text = prompt_text(p.text, names)
        prompt = PromptView(
            pid=p.pid, sealed=p.kind == "sealed", topic="", text=text,
            phase=PHASES[p.phase],
            asks=tuple(AskView(seat=seat, text=p.text.get(seat, text),
                               status=next((v.status for v in seats if v.seat == seat),
                                           "waiting"))
                       for seat in p.seats),
        )
    reveals = [x for x in state.reveals if x.choices and not in_menu]
    r = reveal_of or (reveals[-1] if reveals else None)
    reveal = None if r is None else reveal_view(r, names)
    events = tuple(event_view(i + 1, e, names) for i, e in enumerate(state.events))
    if not in_menu and any(e.kind == "prompt.void" for e in events[-2:]):
        why = next(e.text for e in reversed(events) if e.kind == "prompt.void")
        notices.append(Notice(code="void", level="warning",
                              text=f"A choice could not be verified, so the turn is asked "
                                   f"again. ({why})"))
    stage: Stage = "menu" if in_menu else "over" if over else (
        "playing" if p is not None or r is not None or events else "lobby")
    taken = sum(1 for s in seats if s.occupant != "empty")
    progress = (Progress(label="Players seated", done=taken, total=len(seats))
                if stage == "lobby" and seats else None)
    return TableView(
        table=state.table,
        stage=stage,
        progress=progress,
        games=game_choices(game_names()),
        game=(state.game or None) if in_menu else state.game,
        pairing=tuple(Pairing(uid=u, transport=links[u].transport if u in links else "link",
                              text=PAIRING_TEXT.format(uid=u)) for u in state.pairing),
        join=tuple(JoinView(seat=j.seat, name=colour_name(j.seat), code=j.code)
                   for j in joins if not over),
        seats=tuple(seats),
        prompt=prompt,
        reveal=reveal,
        board=state.view,
        events=events,
        notices=tuple(notices),
        result=None if result is None else result_view(result, names),
        menu=menu_view(state.menu) if in_menu and state.menu is not None else None,
        number=max(0, state.number),
    )


def replay_view(state: TableState, seq: int = 0) -> TableView:
    """A journaled state as the table screen's replay draws it (`/replay/<table>/<n>`):
    the same TableView as live, numbered `seq`, with every controller seat shown online
    (a replay has no links; the journal does not say when a controller was away)."""
    seats = tuple(s.model_copy(update={"online": True}) if s.kind == "controller" else s
                  for s in state.seats)
    return table_view(state.model_copy(update={"seats": seats})).model_copy(
        update={"seq": seq})


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
        self._queue: deque[TableView] = deque()
        self._wake = asyncio.Event()
        self._last_state: TableState | None = None
        self._shown_reveal: int | None = None
        self._lobby_shown = False
        self._seen_reveals: set[int] = set()
        self._started = False
        feed.phone = phone_of(runner)  # the screen hands phones to the table's gateway
        runner.feed.listen(self.on_state)
        self.on_state(runner.state())

    def on_state(self, state: TableState) -> None:
        self._last_state = state
        links = self.runner.links()
        joins = joins_of(self.runner)
        reveals = [r for r in state.reveals if r.choices]
        new = [r for r in reveals if r.pid not in self._seen_reveals]
        self._seen_reveals.update(r.pid for r in reveals)
        # Several reveals since the last state (a burst): each gets its moment on screen.
        for r in new[:-1] if self._started else ():
            self.emit(table_view(state, links, reveal_of=r, joins=joins))
        self._started = True
        self.emit(table_view(state, links, joins=joins))

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
                    self.feed.publish(table_view(self._last_state, self.runner.links(),
                                                 joins=joins_of(self.runner)))
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
