"""The table's public state: one frozen model for the retained MQTT `state` topic and the displays.

The runner makes a `TableState` when someone follows the table (a display, the throttled MQTT
publisher); the daemon publishes `to_json()` of it (`model_dump_json()` made faster), retained,
and the displays' adapter (`dialbox.displays.tablefeed`) reads the model itself. What it can
hold is public by construction: a prompt carries who was asked and who has locked, never a
selection; choices exist only in a reveal, made once a prompt is answered; a private decision's
reveal carries no choice at all, only what the rules announce (`Game.public_part`); events are
public ones. The validators refuse the rest, so a bug upstream fails here instead of leaking to
the table. The JSON shape is documented in docs/host.md, "The public table state".
"""

from __future__ import annotations

import weakref
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

SeatKind = Literal["empty", "controller", "bot"]
PromptKind = Literal["sealed", "open", "private"]
"""As the engine's Decision.kind: sealed (commit-reveal), open (public at once), private (each
answer stays in its own seat's view until a rule reveals it)."""
PromptPhase = Literal["open", "alllocked", "complete", "void"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SeatState(_Frozen):
    """One seat: its colour, who sits there, and the controller's last reported state."""

    seat: int = Field(ge=0)
    name: str
    colour: str
    kind: SeatKind
    uid: str | None = None
    online: bool = False
    team: str | None = None
    role: str | None = None
    state: str = "idle"
    """idle, editing, locked, unlocked...: how far the controller is, never its choice."""
    player: str | None = None
    """The name the seat's player took on the controller (the console), if any."""


class PromptState(_Frozen):
    """The open prompt: who is asked, who has locked (or answered), what each was asked."""

    pid: int
    kind: PromptKind
    phase: PromptPhase
    seats: tuple[int, ...]
    locked: tuple[int, ...] = ()
    """Seats that locked a sealed choice or gave an open or private answer: never what."""
    text: dict[int, str] = Field(default_factory=dict)
    """Each asked seat's question."""


WheelName = Literal["left", "centre", "right"]


class FaceState(_Frozen):
    """One face of a revealed answer, as the controller showed it."""

    wheel: WheelName
    label: str
    colour: str = Field("ffffff", pattern=r"^[0-9a-f]{6}$")
    """The face's colour on the controller (`Face.colour`, rrggbb)."""


class RevealState(_Frozen):
    """An answered prompt as the table learns it."""

    pid: int
    kind: PromptKind
    choices: tuple[tuple[int, str], ...] = ()
    """(seat, face labels) of each answer: sealed and open prompts only."""
    faces: dict[int, tuple[FaceState, ...]] = Field(default_factory=dict)
    """Sealed and open prompts only: each answer's faces (wheel, label, colour)."""
    meanings: dict[int, str] = Field(default_factory=dict)
    """Sealed and open prompts only: what each answer means in the game's words
    (`Game.meaning`: "→ right 3", "Attack Blue"); seats are named by colour."""
    named: dict[int, tuple[tuple[int, int, int], ...]] = Field(default_factory=dict)
    """Where a meaning names a seat: seat -> (start, end, named seat) spans in it
    (dialbox.engine.naming), so a display can put in the player's name."""
    announced: tuple[tuple[int, str], ...] = ()
    """Private prompts only: (seat, what the rules announce of its answer), e.g. "plays a
    token face down" (Game.public_part); seats whose answer announces nothing are absent."""
    summary: str = ""
    """The public events of the answer, in words."""
    text: dict[int, str] = Field(default_factory=dict)
    verified: bool = False
    """Sealed prompts: every seat's answer came with a reveal that hashes to the commitment
    it locked (`codec.commitment(sel, nonce, pid, uid)`), and the controllers were sent
    every reveal to check it themselves. False when a seat took the game's default."""

    @model_validator(mode="after")
    def _private_stays_private(self) -> RevealState:
        if self.kind == "private" and (self.choices or self.faces or self.meanings
                                       or self.named):
            raise ValueError(f"prompt {self.pid} is private: its answers stay in their seats' "
                             "views, the table gets only what the rules announce")
        if self.kind != "private" and self.announced:
            raise ValueError(f"prompt {self.pid} is {self.kind}: it announces nothing, its "
                             "choices are public")
        return self


class EventState(_Frozen):
    """A public game event (a private one, `Event.to`, never reaches the table)."""

    kind: str
    text: str
    data: dict[str, Any] = Field(default_factory=dict)


class ResultState(_Frozen):
    scores: dict[int, int]
    winners: tuple[int, ...]
    text: str
    details: dict[str, Any] = Field(default_factory=dict)


MenuStage = Literal["idle", "game", "setup", "options", "vote", "name", "spell"]
"""idle: every seated controller may open the menu (or rematch, swap roles, take a name);
game: the chooser picks the game; setup: players, variant, bot strength; options: the
game's on/off options; vote: the others confirm; name/spell: a player takes a name."""


class MenuWheel(_Frozen):
    """One wheel of the menu as the chooser sees it on the controller, followed live."""

    label: str
    """What the wheel picks ("Game", "Players", "Variant", "Bots", an option's name)."""
    faces: tuple[str, ...]
    allowed: tuple[int, ...]
    at: int
    """The face the chooser's wheel shows now (live while they turn it; the menu is
    public, unlike a game's prompts, whose wheels never leave the controller)."""


class MenuState(_Frozen):
    """The console's menu: what is being chosen, by whom, and how far it is."""

    stage: MenuStage
    text: str
    """The question on the controllers ("Choose a game", "Play Stadium, 4 players?")."""
    chooser: int | None = None
    """The seat driving the menu (None while idle: any seated controller may open it)."""
    wheels: tuple[MenuWheel | None, MenuWheel | None, MenuWheel | None] = (None, None, None)
    choice: dict[str, Any] = Field(default_factory=dict)
    """What is chosen so far: game, title, players, variant, bot, options (names -> on)."""
    voters: tuple[int, ...] = ()
    """Seats asked to confirm (stage vote)."""
    votes: tuple[tuple[int, bool], ...] = ()
    """(seat, yes) of the votes given so far (votes are open)."""
    note: str = ""
    """The latest outcome ("Blue opened the menu", "Vote failed: 1 of 3 for")."""
    games: int = 0
    """Games played at this table so far (the journal's game segments)."""
    last: dict[str, Any] | None = None
    """The latest game: game, title, number, result text (rematch and swap repeat it)."""


class TableState(_Frozen):
    """Everything the table may know about its game at one moment."""

    table: str
    game: str
    seats: tuple[SeatState, ...]
    pairing: tuple[str, ...] = ()
    """Controllers (uids) waiting for a button press to take a seat."""
    prompt: PromptState | None = None
    reveals: tuple[RevealState, ...] = ()
    """The latest reveals, oldest first: several may have happened since the last state."""
    events: tuple[EventState, ...] = ()
    """The latest public events, oldest first."""
    view: dict[str, Any] = Field(default_factory=dict)
    """The game's public view, `Game.view(None)`."""
    over: bool = False
    result: ResultState | None = None
    phase: Literal["game", "menu"] = "game"
    """menu: the table is idle and its controllers choose the next game (`menu`)."""
    menu: MenuState | None = None
    number: int = 1
    """This game's number at its table (1 = the first game of the journal)."""

    revealed: RevealState | None = None
    """The latest reveal, the last of `reveals` (for readers that want only that one)."""

    @model_validator(mode="after")
    def _open_prompt_is_unanswered(self) -> TableState:
        p = self.prompt
        if p is not None and any(r.pid == p.pid for r in (*self.reveals, self.revealed)
                                 if r is not None):
            raise ValueError(f"prompt {p.pid} is open: its choices are not revealed yet")
        if self.revealed is not None and self.reveals and self.revealed != self.reveals[-1]:
            raise ValueError("`revealed` is the last of `reveals`")
        return self

    def to_json(self) -> bytes:
        """The state as JSON, for the retained MQTT `state` topic: the same object as
        `model_dump_json()` (with `reveals` and `revealed` last), made faster. A table's
        latest reveals are most of the text and stay the same from one state to the next
        (frozen, kept by the table's record), so each is written once (`reveal_json`)."""
        head = self.model_dump_json(exclude=_REVEAL_FIELDS).encode()
        revealed = b"null" if self.revealed is None else reveal_json(self.revealed)
        return b"".join((head[:-1], b',"reveals":[',
                         b",".join(reveal_json(r) for r in self.reveals),
                         b'],"revealed":', revealed, b"}"))


_REVEAL_FIELDS = {"reveals", "revealed"}
_reveal_json: dict[int, tuple[weakref.ref[RevealState], bytes]] = {}
"""id(reveal) -> (the reveal, weakly; its JSON), while the reveal lives."""


def reveal_json(reveal: RevealState) -> bytes:
    """`reveal.model_dump_json()`, made once per reveal (a RevealState is frozen)."""
    key = id(reveal)
    hit = _reveal_json.get(key)
    if hit is not None and hit[0]() is reveal:
        return hit[1]
    data = reveal.model_dump_json().encode()
    # the entry goes when the reveal does (its id may then be another object's)
    _reveal_json[key] = (weakref.ref(reveal, lambda _r: _reveal_json.pop(key, None)), data)
    return data
