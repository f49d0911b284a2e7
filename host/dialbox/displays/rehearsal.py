"""A rehearsal table: bots play a game at table pace and publish the public state displays show.

It stands in for the daemon when you only want to see the displays (`dialbox screen
--rehearse pixoid`, the browser tests, a kiosk check on the Pi). It goes through the same
public moments a real table does: seats fill in the lobby, each prompt opens, seats start
dialling and lock one by one, all lock, every choice is revealed at once, the game resolves.
The bots' choices stay inside this module until the reveal, as they stay inside the
controllers at a real table.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal

from dialbox import __version__
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
    PromptView,
    ResultView,
    SeatView,
    Stage,
    TableView,
    game_choices,
)
from dialbox.displays.tablefeed import prompt_text as tablefeed_prompt_text
from dialbox.engine import Ask, Decision, Event, Game, Selection, game_names
from dialbox.engine.bots import Bot
from dialbox.engine.registry import game_info
from dialbox.table import PLAYER_COLOURS

WHEEL_NAMES: tuple[Literal["left", "centre", "right"], ...] = ("left", "centre", "right")
EVENTS_KEPT = 40

def choice_of(ask: Ask, sel: Selection, game: Game | None = None) -> ChoiceView:
    """A revealed selection in the faces and words the table reads: the faces in the colours
    the controller shows, and what the answer means in the game's words (`Game.meaning`,
    asked before the answer is applied, as the engine does)."""
    faces: list[FaceView] = []
    for pos, wheel in enumerate(ask.wheels):
        if wheel is None or not 0 <= sel[pos] < len(wheel.faces):
            continue
        face = wheel.faces[sel[pos]]
        faces.append(FaceView(wheel=WHEEL_NAMES[pos], label=face.label, colour=face.colour.lower()))
    text = " ".join(f.label for f in faces) or "-"
    if game is not None:
        try:
            text = game.meaning(ask, sel) or text
        except Exception:  # a display never stops a game: the labels, then
            pass
    return ChoiceView(seat=ask.seat, faces=tuple(faces), text=text)


def prompt_text(d: Decision) -> str:
    """The one question, or each seat's own (as the daemon's table shows it)."""
    return tablefeed_prompt_text({a.seat: a.text for a in d.asks})


class Rehearsal:
    """Plays one game with bots in every seat, publishing each public moment to `feed`.

    `pace` is the base delay in seconds between moments (0 in tests that want speed).
    `controllers` seats are shown as simulated controllers on the in-process transport;
    the rest as bots. `drop_seat` makes that seat's controller go offline for a while during
    a sealed prompt (the third or a later one that asks it), to show how the table is told.
    """

    def __init__(
        self,
        feed: PublicFeed,
        game: str,
        players: int = 4,
        seed: int = 0,
        pace: float = 0.5,
        controllers: int = 0,
        drop_seat: int | None = None,
        options: Mapping[str, Any] | None = None,
        table: str = "demo",
        on_answers: Callable[[int, Decision, Mapping[int, Selection]], None] | None = None,
        on_moment: Callable[[TableView], Awaitable[None]] | None = None,
    ) -> None:
        self.feed = feed
        self.game_name = game
        self.players = players
        self.seed = seed
        self.pace = pace
        self.info = game_info(game)
        seats = self.info.seats({"players": players, "seed": seed, **dict(options or {})})
        self.controllers = min(controllers, seats)
        self.drop_seat = drop_seat
        self.options = dict(options or {})
        self.table = table
        self.on_answers = on_answers
        self.on_moment = on_moment
        self.rng = random.Random(seed)
        self.game: Game | None = None
        self.seats: list[SeatView] = [
            SeatView(seat=i, name=PLAYER_COLOURS[i][0], colour=PLAYER_COLOURS[i][1])
            for i in range(seats)
        ]
        self.prompt: PromptView | None = None
        self.reveal: PromptView | None = None
        self.events: list[EventView] = []
        self.notices: list[Notice] = []
        self.pairing: list[Pairing] = []
        self.progress: Progress | None = None
        self.stage: Stage = "lobby"
        self.result: ResultView | None = None
        self._event_n = 0
        self._pid = 0
        self._sealed_seen = 0
        self._board: dict[str, Any] | None = None

    # ------------------------------------------------------------ publishing

    def board(self) -> dict[str, Any] | None:
        """The game's public view; the last good one if the game cannot draw itself now."""
        if self.game is not None:
            try:
                self._board = self.game.view(None)
            except Exception:  # a game's view bug must not stop the table's displays
                pass
        return self._board

    def publish(self) -> TableView:
        view = TableView(
            table=self.table,
            stage=self.stage,
            games=game_choices(game_names()),
            game=self.game_name,
            pairing=tuple(self.pairing),
            seats=tuple(self.seats),
            prompt=self.prompt,
            reveal=self.reveal,
            board=self.board(),
            events=tuple(self.events[-EVENTS_KEPT:]),
            notices=tuple(self.notices),
            result=self.result,
            progress=self.progress,
        )
        return self.feed.publish(view)

    async def moment(self, view: TableView) -> None:
        """All-locked, reveal and offline moments: let a watcher (a test's camera) look."""
        if self.on_moment is not None:
            await self.on_moment(view)

    async def beat(self, k: float = 1.0) -> None:
        await asyncio.sleep(self.pace * k)

    def set_seat(self, seat: int, **changes: Any) -> None:
        self.seats[seat] = self.seats[seat].model_copy(update=changes)

    def set_ask(self, seat: int, status: SeatStatus) -> None:
        p = self.prompt
        assert p is not None
        asks = tuple(a.model_copy(update={"status": status}) if a.seat == seat else a
                     for a in p.asks)
        self.prompt = p.model_copy(update={"asks": asks})
        self.set_seat(seat, status=status)

    def add_events(self, events: Sequence[Event]) -> None:
        """The game's public events (a private one stays with its player)."""
        for e in events:
            if not e.public:
                continue
            self._event_n += 1
            self.events.append(EventView(n=self._event_n, kind=e.kind, text=e.text,
                                         data=dict(e.data)))

    # ------------------------------------------------------------ the lobby

    async def seat_everyone(self) -> None:
        total = len(self.seats)
        for i in range(total):
            self.progress = Progress(label="Seating players", done=i, total=total)
            if i < self.controllers:
                uid = f"sim-{i + 1:02d}"
                self.pairing = [Pairing(uid=uid, transport="local",
                                        text=f"Controller {uid}: press its button to take "
                                             f"seat {i + 1} ({self.seats[i].name})")]
                self.publish()
                await self.beat()
                self.set_seat(i, occupant="controller", uid=uid, transport="local",
                              firmware=f"{__version__} (simulated)", link=1.0,
                              heartbeat_age=0.0, online=True, status="waiting")
                self.pairing = []
            else:
                self.set_seat(i, occupant="bot", online=True, status="waiting")
            self.publish()
            await self.beat(0.5)
        self.progress = None

    # ------------------------------------------------------------ one decision

    async def sealed_prompt(self, d: Decision, answers: Mapping[int, Selection]) -> None:
        self._sealed_seen += 1
        drop = None
        if self._sealed_seen >= 3 and self.drop_seat in d.seats:
            drop, self.drop_seat = self.drop_seat, None
        order = list(d.seats)
        self.rng.shuffle(order)
        for s in order:
            self.set_ask(s, "programming")
            self.publish()
            await self.beat(0.4)
        for s in order:
            await self.beat(0.6)
            if s == drop:
                await self.controller_blip(s)
            self.set_ask(s, "locked")
            self.publish()
        assert self.prompt is not None
        self.prompt = self.prompt.model_copy(update={"phase": "alllocked"})
        await self.moment(self.publish())
        await self.beat(1.5)

    async def controller_blip(self, seat: int) -> None:
        """The controller in `seat` stops answering for a while, then comes back."""
        sv = self.seats[seat]
        self.set_seat(seat, online=False, heartbeat_age=3.2, link=0.4, status="offline")
        self.notices.append(Notice(
            code="offline", seat=seat, level="error",
            text=f"{sv.name}'s controller is offline (no heartbeat for 3 seconds). "
                 "Its lock is kept: check its cable or WiFi.",
        ))
        self.set_ask(seat, "offline")
        await self.moment(self.publish())
        await self.beat(4)
        self.notices = [n for n in self.notices if n.seat != seat]
        self.set_seat(seat, online=True, heartbeat_age=0.1, link=0.8)
        self.set_ask(seat, "programming")
        self.notices.append(Notice(code="back", seat=seat, level="info",
                                   text=f"{sv.name}'s controller is back; nothing was lost."))
        self.publish()
        await self.beat(1)
        self.notices = [n for n in self.notices if n.seat != seat]

    async def play_decision(self, game: Game, d: Decision, bots: Mapping[int, Bot]) -> None:
        # The bots dial now, in secret: their answers stay here until the reveal.
        answers = {a.seat: bots[a.answerer].choose(game.view(a.answerer), a, list(game.legal(a)))
                   for a in d.asks}
        self._pid += 1
        if self.on_answers is not None:
            self.on_answers(self._pid, d, answers)
        self.prompt = PromptView(
            pid=self._pid, sealed=d.sealed, topic=d.asks[0].topic, text=prompt_text(d),
            asks=tuple(AskView(seat=a.seat, text=a.text, status="waiting") for a in d.asks),
        )
        self.publish()
        await self.beat(0.5)
        if d.sealed:
            await self.sealed_prompt(d, answers)
        else:
            seat = d.asks[0].seat
            self.set_ask(seat, "programming")
            self.publish()
            await self.beat(0.8)
        for s in d.seats:
            self.set_ask(s, "revealed")
        # Nothing of a private answer is shown (as at a daemon's table): its public part
        # reaches the table through the game's events.
        if not d.private:
            choices = tuple(choice_of(a, answers[a.seat], game) for a in d.asks)
            assert self.prompt is not None
            self.prompt = self.prompt.model_copy(update={"phase": "revealed",
                                                         "choices": choices})
            self.reveal = self.prompt
            await self.moment(self.publish())
            await self.beat(1.0 if d.sealed else 0.3)
        self.add_events(game.apply(answers, d.id))
        self.prompt = None
        for s in d.seats:
            self.set_seat(s, status="waiting")
        self.publish()
        await self.beat(1.5 if d.sealed else 0.5)

    # ------------------------------------------------------------ the whole game

    async def run(self) -> ResultView | None:
        self.publish()
        await self.beat()
        await self.seat_everyone()
        info = self.info
        opts = {"players": self.players, "seed": self.seed, **self.options}
        game = info.game(opts)
        self.game = game
        bot = info.bot()
        bots = {s: bot(self.seed * 10 + s) for s in range(len(self.seats))}
        for i, team in enumerate(info.seat_teams(opts)):
            if team is not None:
                self.set_seat(i, team=team)
        self.stage = "playing"
        self.add_events(game.events)
        self.publish()
        await self.beat()
        while (d := game.pending) is not None:
            await self.play_decision(game, d, bots)
        r = game.result
        if r is not None:
            self.result = ResultView(text=r.text, scores=dict(r.scores),
                                     winners=tuple(r.winners))
        self.stage = "over"
        self.publish()
        return self.result
