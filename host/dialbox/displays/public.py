"""The public table state every display shows: a small typed model that can hold no early secret.

This is the display-side contract (docs/displays.md). Whoever drives the displays (the daemon,
or the rehearsal table) publishes a `TableView`; the web screen sends it to browsers as JSON,
the LED strip and the terminal view read it. A prompt's choices exist in it only once the
prompt is revealed: the model refuses to be built otherwise, so a bug upstream fails loudly
at the display boundary instead of leaking a sealed choice to the table.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from dialbox.displays.ledstrip import SeatStatus
from dialbox.engine.registry import game_info

Occupant = Literal["empty", "controller", "bot"]
Stage = Literal["lobby", "playing", "over", "menu"]
"""menu: the table is idle and its controllers choose the next game (`TableView.menu`)."""
PromptPhase = Literal["open", "alllocked", "revealed", "void"]
"""open: seats are dialling; alllocked: every seat locked, reveals being verified;
revealed: every choice verified and public; void: a reveal failed and the turn is asked again."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SeatView(_Frozen):
    """One seat as the table sees it: who sits there, how their controller is linked, status."""

    seat: int = Field(ge=0)
    name: str
    """The seat's colour name (Red, Blue...)."""
    colour: str = Field(pattern=r"^[0-9a-f]{6}$")
    occupant: Occupant = "empty"
    uid: str | None = None
    transport: str | None = None
    """serial, mqtt, phone, local (in-process) or None for a bot or an empty seat."""
    firmware: str | None = None
    link: float | None = Field(None, ge=0, le=1)
    """Link quality 0..1 (share of recent heartbeats received), if known."""
    heartbeat_age: float | None = Field(None, ge=0)
    """Seconds since the controller was last heard from."""
    rtt_ms: float | None = Field(None, ge=0)
    """Round trip of the last heartbeat, if measured."""
    online: bool = False
    status: SeatStatus = "empty"
    team: str | None = None
    role: str | None = None
    player: str | None = None
    """The name the seat's player took on the controller, if any (the colour stays `name`)."""


class FaceView(_Frozen):
    """One wheel's face in a revealed choice, as the controller showed it."""

    wheel: Literal["left", "centre", "right"] | None = None
    """None when the publisher knows only the labels."""
    label: str
    colour: str = "ffffff"
    """The face's colour on the controller's wheel (rrggbb), e.g. a digit's own colour."""


class ChoiceView(_Frozen):
    """A seat's verified choice, public only after the reveal."""

    seat: int
    faces: tuple[FaceView, ...]
    text: str
    """What the choice means in the game's words (`Game.meaning`): "→ right 3", "yellow
    route: pay 2 Fuel -> move 3", "Attack Ann (Blue)"; the labels when the game says no
    more. Seats in it are named as people call them (the player's name with the colour)."""


class AskView(_Frozen):
    """One seat's part of the current prompt: the question and how far the seat has got."""

    seat: int
    text: str
    """The question this seat was asked (seats of one prompt may be asked different ones)."""
    status: SeatStatus


class PromptView(_Frozen):
    """The current prompt: per-seat status, and the choices once (and only once) revealed."""

    pid: int
    sealed: bool
    topic: str
    text: str
    """The question: the one every asked seat got, or each seat's own, named ("Red —
    Pixoid: arrow and distance · Blue, Green — Bug: arrow and distance")."""
    asks: tuple[AskView, ...]
    phase: PromptPhase = "open"
    choices: tuple[ChoiceView, ...] = ()
    verified: bool = False
    """A revealed sealed prompt whose every choice hashes to the commitment its seat locked
    (RevealState.verified): the screen marks it."""

    @model_validator(mode="after")
    def _sealed_until_revealed(self) -> PromptView:
        if self.choices and self.phase != "revealed":
            raise ValueError(
                f"prompt {self.pid} is {self.phase}: its choices stay sealed until revealed"
            )
        return self


class EventView(_Frozen):
    """One game event, numbered in the order the table saw it."""

    n: int
    kind: str
    text: str
    """Seats named by colour, or by the player's name with it ("Ann (Blue)")."""
    data: dict[str, Any] = Field(default_factory=dict)
    """The game's details; `named`: [start, end, seat] where `text` names each seat."""


class Notice(_Frozen):
    """Something the table should know, in plain words (a controller offline, a bad reveal)."""

    code: str
    text: str
    seat: int | None = None
    level: Literal["info", "warning", "error"] = "warning"


class Pairing(_Frozen):
    """A controller waiting to be seated, and what its owner has to do."""

    uid: str
    transport: str
    text: str


class JoinView(_Frozen):
    """A free seat's join code for a phone (public on purpose: the screen shows it to the
    room; it pairs one phone, once, for a few minutes). The page adds the QR code of
    `/phone?code=CODE` (`/phone/qr/CODE.svg`)."""

    seat: int = Field(ge=0)
    name: str
    """The seat's colour name."""
    code: str = Field(pattern=r"^[A-HJ-NP-Z2-9]{6}$")


class GameChoice(_Frozen):
    name: str
    title: str
    players: str
    """Seats the game takes, e.g. "3-4"."""


class ResultView(_Frozen):
    text: str
    scores: dict[int, int]
    winners: tuple[int, ...]


class Progress(_Frozen):
    """A long operation in progress (starting controllers, loading a saved game)."""

    label: str
    done: int
    total: int


MenuStage = Literal["idle", "game", "setup", "options", "vote", "name", "spell"]
"""As dialbox.table.state.MenuStage: idle (any seated controller may open the menu), game,
setup (players, variant, bots), options, vote (the others confirm), name and spell (a player
takes a name)."""


class MenuWheelView(_Frozen):
    """One wheel of the menu as the chooser's controller shows it, followed live."""

    label: str
    faces: tuple[str, ...]
    allowed: tuple[int, ...] = ()
    """Indexes of the faces the wheel may stop on (the others are shown dimmed)."""
    at: int = Field(0, ge=0)
    """The face the chooser's wheel shows now."""


class VoteView(_Frozen):
    """A vote given in the menu's vote stage (votes are open)."""

    seat: int = Field(ge=0)
    yes: bool


class LastGameView(_Frozen):
    """The table's previous game, as the menu recalls it."""

    game: str
    title: str
    number: int | None = None
    text: str = ""
    """Its result in words."""


class MenuView(_Frozen):
    """The console's menu: the question, who drives it, the wheels as they turn, the votes.

    Public by design: unlike a game's prompts, nothing in the menu is a secret."""

    stage: MenuStage
    text: str
    """The question on the controllers ("Choose a game", "Play Stadium, 4 players?")."""
    chooser: int | None = None
    """The seat driving the menu (None while idle)."""
    wheels: tuple[MenuWheelView | None, MenuWheelView | None, MenuWheelView | None] = (
        None, None, None)
    """Left, centre, right."""
    choice: dict[str, Any] = Field(default_factory=dict)
    """What is chosen so far: game, title, players, variant, bot, options (name -> on)."""
    voters: tuple[int, ...] = ()
    votes: tuple[VoteView, ...] = ()
    note: str = ""
    """The latest outcome ("Blue opened the menu", "Vote failed: 1 of 3 for")."""
    games: int = Field(0, ge=0)
    """Games played at this table so far."""
    last: LastGameView | None = None


class TableView(_Frozen):
    """Everything a display may show about one table at one moment."""

    table: str = "table"
    seq: int = 0
    """Increases with every published state."""
    stage: Stage = "lobby"
    games: tuple[GameChoice, ...] = ()
    game: str | None = None
    pairing: tuple[Pairing, ...] = ()
    join: tuple[JoinView, ...] = ()
    """The join codes of the free seats (phones as controllers: docs/displays.md)."""
    seats: tuple[SeatView, ...] = ()
    prompt: PromptView | None = None
    reveal: PromptView | None = None
    """The last revealed prompt (the page clears it once the next prompt opens and someone
    dials or locks: docs/displays.md, "One layout, from a phone to a TV")."""
    board: dict[str, Any] | None = None
    """The game's public view, `Game.view(None)`."""
    events: tuple[EventView, ...] = ()
    """The most recent events, oldest first."""
    notices: tuple[Notice, ...] = ()
    result: ResultView | None = None
    progress: Progress | None = None
    menu: MenuView | None = None
    """Stage menu only: the console's menu (choosing the next game)."""
    number: int = Field(1, ge=0)
    """The game's number at its table (1: the first game of its journal)."""

    @model_validator(mode="after")
    def _reveal_is_revealed(self) -> TableView:
        if self.reveal is not None and self.reveal.phase != "revealed":
            raise ValueError("`reveal` holds only a revealed prompt")
        return self

    @model_validator(mode="after")
    def _menu_only_in_the_menu(self) -> TableView:
        if self.menu is not None and self.stage != "menu":
            raise ValueError(f"a menu belongs to stage menu, not {self.stage}")
        if self.stage == "menu" and self.prompt is not None:
            raise ValueError("stage menu has no game prompt open")
        return self

    def frame(self) -> dict[str, Any]:
        """The JSON object sent to browsers."""
        return {"type": "table", "state": self.model_dump(mode="json")}


def game_choices(names: list[str]) -> tuple[GameChoice, ...]:
    """The lobby's game list, from each game package's GameInfo."""
    out = []
    for n in names:
        info = game_info(n)
        out.append(GameChoice(name=n, title=info.title, players=info.players_text))
    return tuple(out)
