"""The console's menu: what an idle table asks its controllers, page by page (pure logic).

A `Menu` knows the games, the seats that have a controller (and their players' names) and
the table's last game. `asks()` says what each seat is asked now; `answer(seat, sel)` takes
one seat's pressed selection and says what the console must do: nothing more than ask
again, journal a player's name (`Named`), or start a game (`Start`). The console
(`dialbox.console.console`) does the sending, the journaling and the switching.

The flow (docs/host.md, "The console"): while idle, every seated controller is asked for
an action (Play, Rematch, Swap, Name); the first press wins. Play: the chooser picks the
game, then players, variant and bot strength, then the game's on/off options; the other
players vote (open votes; a majority of the seated players, the chooser counting as yes,
starts the game). Rematch (same game, options and seats, new seed) and Swap (the same, every
seat moved one place on) start at once. Name: the player picks a recent name of this table,
or spells one, a letter a press.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, get_args

from dialbox.engine.errors import EngineError
from dialbox.engine.registry import GameInfo, game_info, game_names
from dialbox.engine.seats import PLAYER_COLOURS
from dialbox.engine.wheels import INACTIVE, LABEL_MAX, Face, Selection, Wheel, Wheels
from dialbox.runner.runner import SeatPlan
from dialbox.table.state import MenuStage

ACTIONS = ("Play", "Rematch", "Swap", "Name")
PLAY, REMATCH, SWAP, NAME = range(4)
BACK = "Back"
YES_NO = ("Yes", "No")
END = "END"
LETTERS = (END, *"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "-")
"""The spelling wheel's faces: END stops the name there (without a letter)."""
THEN = ("next", "done")
"""The right wheel while spelling: another letter after this one, or the name is done.
(One letter a press: a prompt with two 28-face wheels would pass the protocol's 1 KB.)"""
NAME_MAX = LABEL_MAX
"""Characters in a player name: a recent name is a face on a wheel, so at most a label."""
RECENT_SHOWN = 28
"""Recent names offered on the Name page (a wheel holds 32 faces: two are Spell and Back)."""
TOGGLE_OFF_ON = ("off", "on")
MAX_SEATS = len(PLAYER_COLOURS)


def short_title(info: GameInfo) -> str:
    """A game's name on a wheel face: its title without spaces, or its first word."""
    joined = info.title.replace(" ", "")
    return joined if len(joined) <= LABEL_MAX else info.title.split()[0][:LABEL_MAX]


def fold_name(spelled: str) -> str:
    """A spelled name as players read it: "BOB" -> "Bob", "ANN-MARIE"[:8] -> "Ann-Mari"."""
    return "-".join(p.capitalize() for p in spelled.split("-"))[:NAME_MAX]


def clean_name(name: str) -> str | None:
    """A player name as the console keeps it (None if nothing is left)."""
    kept = "".join(c for c in name.strip() if c.isalnum() or c in " -")[:NAME_MAX].strip()
    return kept or None


@dataclass(frozen=True, slots=True)
class Toggle:
    """One on/off (or two-way) option of a game, offered as one wheel."""

    field: str
    values: tuple[Any, ...]
    labels: tuple[str, ...]
    default: Any


def toggles(info: GameInfo) -> list[Toggle]:
    """The game's options the menu offers: each bool field, and each field with a few named
    values short enough for a wheel (its `variant` is offered on the setup page)."""
    out: list[Toggle] = []
    for name, f in info.game.Options.model_fields.items():
        if name in ("players", "seed", "variant"):
            continue
        if f.annotation is bool:
            out.append(Toggle(name, (False, True), TOGGLE_OFF_ON, f.default))
            continue
        values = get_args(f.annotation)
        if values and all(isinstance(v, str) and len(v) <= LABEL_MAX for v in values) \
                and 2 <= len(values) <= 8 and f.default in values:
            out.append(Toggle(name, tuple(values), tuple(values), f.default))
    return out


def variants(info: GameInfo) -> tuple[str, ...]:
    """The game's variants (its `variant` field's named values, else just its default)."""
    f = info.game.Options.model_fields["variant"]
    values = tuple(v for v in get_args(f.annotation) if isinstance(v, str))
    return values or (str(f.default),)


def seats_for(info: GameInfo, players: int) -> int | None:
    """Controllers a table of this game needs with `players` players (None: cannot)."""
    try:
        return info.seats({"players": players})
    except EngineError:
        return None


def counts(info: GameInfo, humans: int) -> tuple[int, ...]:
    """Player counts the game offers a table with `humans` seated controllers: one seat for
    each of them, bots in the rest, at most six seats."""
    out = []
    for n in info.players:
        seats = seats_for(info, n)
        if seats is not None and humans <= seats <= MAX_SEATS:
            out.append(n)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class MenuAsk:
    """What one seat is asked: the controller's text, its wheels, what each wheel picks (for
    the screen), and whether it is dialled in public (`live`: the screen follows it)."""

    text: str
    wheels: Wheels
    labels: tuple[str | None, str | None, str | None] = (None, None, None)
    live: bool = False


@dataclass(frozen=True, slots=True)
class LastGame:
    """The table's latest game: what a rematch repeats and a swap turns round."""

    number: int
    game: str
    options: dict[str, Any]
    bot: str | None
    seats: tuple[SeatPlan, ...]
    result: dict[str, Any] | None = None

    @property
    def title(self) -> str:
        try:
            return game_info(self.game).title
        except EngineError:
            return self.game


@dataclass(frozen=True, slots=True)
class Start:
    """Start this game now (journaled by the console as a new segment)."""

    how: str
    """menu, rematch or swap."""
    game: str
    options: dict[str, Any]
    bot: str | None
    seats: tuple[SeatPlan, ...]


@dataclass(frozen=True, slots=True)
class Named:
    """The controller `uid` took the player name `name`."""

    uid: str
    name: str


Outcome = Start | Named | None


def _wheel(labels: Sequence[str], allowed: Sequence[int] | None = None, start: int = -1,
           reasons: Mapping[int, str] | None = None) -> Wheel:
    faces = tuple(Face(label, i) for i, label in enumerate(labels))
    w = Wheel.of(faces, allowed, reasons)
    return replace(w, start=start) if start in w.allowed else w


@dataclass(slots=True)
class Menu:
    """The menu of one idle table (see the module's docstring for the flow)."""

    humans: dict[int, str]
    """seat -> the uid of the controller seated there (online)."""
    names: dict[str, str] = field(default_factory=dict)
    """uid -> the player's name."""
    recent: list[str] = field(default_factory=list)
    """Names lately used at this table, newest first."""
    last: LastGame | None = None
    new_seed: Callable[[], int] = lambda: 0
    games: tuple[str, ...] = field(default_factory=lambda: tuple(game_names()))
    stage: MenuStage = "idle"
    chooser: int | None = None
    choice: dict[str, Any] = field(default_factory=dict)
    page: int = 0
    votes: dict[int, bool] = field(default_factory=dict)
    voters: tuple[int, ...] = ()
    spelled: str = ""
    note: str = ""

    # ------------------------------------------------------------------ who is asked what

    def asks(self) -> dict[int, MenuAsk]:
        """Each seat asked now, and what."""
        if self.stage == "idle":
            ask = self._idle_ask()
            return {seat: ask for seat in sorted(self.humans)}
        if self.stage == "vote":
            ask = self._vote_ask()
            return {seat: ask for seat in self.voters if seat not in self.votes}
        assert self.chooser is not None
        return {self.chooser: self._chooser_ask()}

    def text(self) -> str:
        """The question of the moment, for the screen."""
        if self.stage == "idle":
            return "Press to open the menu, rematch, swap roles or take a name"
        if self.stage == "vote":
            return self._vote_ask().text
        return self._chooser_ask().text

    def _idle_ask(self) -> MenuAsk:
        allowed = [PLAY, NAME]
        reasons = {REMATCH: "no game played yet", SWAP: "no game played yet"}
        if self.last is not None:
            allowed += [REMATCH, SWAP]
        head = ""
        if self.last is not None and self.last.result:
            head = str(self.last.result.get("text", ""))[:36] + " | "
        return MenuAsk(f"{head}Menu: turn and press",
                       (_wheel(ACTIONS, allowed, reasons=reasons), None, None),
                       ("Action", None, None))

    def _vote_ask(self) -> MenuAsk:
        c = self.choice
        who = PLAYER_COLOURS[self.chooser or 0][0]
        return MenuAsk(f"{who}: play {c['title']}, {c['players']} players?",
                       (_wheel(YES_NO), None, None), ("Vote", None, None))

    def _chooser_ask(self) -> MenuAsk:
        humans = len(self.humans)
        if self.stage == "game":
            infos = [game_info(g) for g in self.games]
            ok = [i for i, info in enumerate(infos) if counts(info, humans)]
            reasons = {i: f"{info.title} seats {info.players_text}, not {humans} controllers"
                       for i, info in enumerate(infos) if i not in ok}
            labels = [short_title(info) for info in infos] + [BACK]
            start = self.games.index(self.choice["game"]) if "game" in self.choice else -1
            return MenuAsk("Choose a game", (_wheel(labels, ok + [len(infos)], start, reasons),
                                             None, None), ("Game", None, None), live=True)
        if self.stage == "name":
            recent = self.recent[:RECENT_SHOWN]
            return MenuAsk("Your name: pick one or Spell",
                           (_wheel([*recent, "Spell", BACK], start=0), None, None),
                           ("Name", None, None), live=True)
        if self.stage == "spell":
            last = len(self.spelled) + 1 >= NAME_MAX
            return MenuAsk(f"Name: {self.spelled}_ (END ends)",
                           (_wheel(LETTERS, start=1), None,
                            _wheel(THEN, [1] if last else None, start=1 if last else 0)),
                           ("Letter", None, "Then"), live=True)
        info = game_info(self.choice["game"])
        if self.stage == "setup":
            players = counts(info, humans)
            kinds = list(info.bot_kinds)
            default_bot = kinds.index(info.default_bot) if info.default_bot in kinds else 0
            return MenuAsk(
                f"{info.title}: players, variant, bots",
                (_wheel([*map(str, players), BACK], start=0),
                 _wheel([v[:LABEL_MAX] for v in variants(info)], start=0),
                 _wheel([k[:LABEL_MAX] for k in kinds], start=default_bot)),
                ("Players", "Variant", "Bots"), live=True)
        if self.stage == "options":
            shown = toggles(info)[3 * self.page:3 * self.page + 3]
            wheels = [_wheel(t.labels, start=t.values.index(
                self.choice["options"].get(t.field, t.default))) for t in shown]
            labels = [t.field for t in shown]
            pages = -(-len(toggles(info)) // 3)
            names = ", ".join(t.field.replace("_", " ") for t in shown)
            return MenuAsk(f"Options {self.page + 1}/{pages}: {names}"[:60],
                           _three(wheels), _three(labels), live=True)
        raise AssertionError(self.stage)

    # ------------------------------------------------------------------ answers

    def answer(self, seat: int, sel: Selection) -> Outcome:
        """Seat `seat` pressed with `sel` (checked against its ask by the console)."""
        self.note = ""
        if self.stage == "idle":
            return self._action(seat, sel[0])
        if self.stage == "vote":
            return self._vote(seat, sel[0] == 0)
        if seat != self.chooser:
            return None
        if self.stage == "game":
            return self._game(sel[0])
        if self.stage == "setup":
            return self._setup(sel)
        if self.stage == "options":
            return self._options(sel)
        if self.stage == "name":
            return self._name(sel[0])
        return self._spell(sel)

    def _action(self, seat: int, action: int) -> Outcome:
        who = PLAYER_COLOURS[seat][0]
        if action == PLAY:
            self.stage, self.chooser, self.choice = "game", seat, {}
            self.note = f"{who} opened the menu"
        elif action == NAME:
            self.stage, self.chooser = "name" if self.recent else "spell", seat
            self.spelled = ""
        elif action in (REMATCH, SWAP) and self.last is not None:
            return self._again(action == SWAP)
        return None

    def _again(self, swap: bool) -> Start:
        last = self.last
        assert last is not None
        seats = list(last.seats)
        if swap:  # every seat moves one place on: roles, colours and turn order change
            seats = seats[-1:] + seats[:-1]
        # the controllers seated now take the places their uids had; a place whose
        # controller is gone gets a bot
        here = set(self.humans.values())
        plans = tuple(p if p.bot or p.uid in here else SeatPlan(bot=True) for p in seats)
        plans = tuple(replace(p, name=self.names.get(p.uid)) if p.uid else p for p in plans)
        options = {**last.options, "seed": self.new_seed()}
        return Start("swap" if swap else "rematch", last.game, options, last.bot, plans)

    def _game(self, index: int) -> Outcome:
        if index >= len(self.games):  # Back
            self._idle()
            return None
        self.choice = {"game": self.games[index], "title": game_info(self.games[index]).title,
                       "options": {}}
        self.stage = "setup"
        return None

    def _setup(self, sel: Selection) -> Outcome:
        info = game_info(self.choice["game"])
        players = counts(info, len(self.humans))
        if sel[0] >= len(players):  # Back
            self.stage = "game"
            return None
        kinds = list(info.bot_kinds)
        self.choice.update(players=players[sel[0]], variant=variants(info)[sel[1]],
                           bot=kinds[sel[2]])
        self.page = 0
        self.stage = "options" if toggles(info) else "vote"
        return self._check_then_vote() if self.stage == "vote" else None

    def _options(self, sel: Selection) -> Outcome:
        info = game_info(self.choice["game"])
        all_toggles = toggles(info)
        for i, t in enumerate(all_toggles[3 * self.page:3 * self.page + 3]):
            self.choice["options"][t.field] = t.values[sel[i]]
        if 3 * (self.page + 1) < len(all_toggles):
            self.page += 1
            return None
        return self._check_then_vote()

    def options(self) -> dict[str, Any]:
        """The chosen game's options (seed aside)."""
        c = self.choice
        return {"players": c["players"], "variant": c["variant"], **c["options"]}

    def _check_then_vote(self) -> Outcome:
        info = game_info(self.choice["game"])
        try:
            info.game.parse_options({**self.options(), "seed": 0})
        except EngineError as e:
            self.note = str(e)[:120]
            self.stage, self.page = "options" if toggles(info) else "setup", 0
            return None
        self.voters = tuple(s for s in sorted(self.humans) if s != self.chooser)
        self.votes = {}
        self.stage = "vote"
        return self._decide()

    def _vote(self, seat: int, yes: bool) -> Outcome:
        if seat in self.voters and seat not in self.votes:
            self.votes[seat] = yes
        return self._decide()

    def _decide(self) -> Outcome:
        """A majority of the seated players (the chooser counts as yes) starts the game; the
        vote fails as soon as a majority can no longer be reached."""
        voters = [s for s in self.voters if s in self.humans]
        yes = 1 + sum(1 for s in voters if self.votes.get(s))
        waiting = sum(1 for s in voters if s not in self.votes)
        need = (len(voters) + 1) // 2 + 1
        if yes >= need:
            return self._start()
        if yes + waiting < need:
            self.note = f"Vote failed: {yes} of {len(voters) + 1} for {self.choice['title']}"
            self._idle()
        return None

    def _start(self) -> Start:
        info = game_info(self.choice["game"])
        options = {**self.options(), "seed": self.new_seed()}
        seats = info.seats(options)
        humans = [SeatPlan(uid=uid, name=self.names.get(uid))
                  for _s, uid in sorted(self.humans.items())]
        plans = tuple(humans + [SeatPlan(bot=True)] * (seats - len(humans)))
        start = Start("menu", self.choice["game"], options, self.choice.get("bot"), plans)
        self._idle()
        return start

    def _name(self, index: int) -> Outcome:
        recent = self.recent[:RECENT_SHOWN]
        if index < len(recent):
            return self._named(recent[index])
        if index == len(recent):
            self.stage, self.spelled = "spell", ""
        else:
            self._idle()
        return None

    def _spell(self, sel: Selection) -> Outcome:
        done = LETTERS[sel[0]] == END
        if not done:
            self.spelled += LETTERS[sel[0]]
            done = THEN[sel[2]] == "done" or len(self.spelled) >= NAME_MAX
        if not done:
            return None
        name = clean_name(fold_name(self.spelled))
        if name is None:
            self._idle()
            return None
        return self._named(name)

    def _named(self, name: str) -> Named:
        assert self.chooser is not None
        uid = self.humans[self.chooser]
        self.names[uid] = name
        if name in self.recent:
            self.recent.remove(name)
        self.recent.insert(0, name)
        self.note = f"{PLAYER_COLOURS[self.chooser][0]} is {name}"
        self._idle()
        return Named(uid, name)

    def _idle(self) -> None:
        self.stage, self.chooser, self.page = "idle", None, 0
        self.votes, self.voters, self.spelled = {}, (), ""

    # ------------------------------------------------------------------ seats come and go

    def seated(self, seat: int, uid: str) -> None:
        self.humans[seat] = uid

    def left(self, seat: int) -> Outcome:
        """A controller went away: a chooser's menu closes; a voter no longer counts (the
        vote may be decided by that)."""
        self.humans.pop(seat, None)
        if seat == self.chooser:
            self.note = f"{PLAYER_COLOURS[seat][0]} left the menu"
            self._idle()
        elif self.stage == "vote":
            self.voters = tuple(s for s in self.voters if s != seat)
            self.votes.pop(seat, None)
            return self._decide()
        return None


def why_not(ask: MenuAsk, sel: Selection) -> str | None:
    """Why `sel` does not answer `ask` (None: it does)."""
    if len(sel) != 3:
        return "a selection names a face on each of the 3 wheels"
    for wheel, i in zip(ask.wheels, sel, strict=True):
        if wheel is None:
            if i != INACTIVE:
                return "that wheel is not used here"
        elif i not in wheel.allowed:
            return wheel.why_not(i)
    return None


def labels_of(ask: MenuAsk, sel: Selection) -> str:
    """The faces chosen, in words (the `revealed` frame's choice)."""
    return " ".join(w.faces[i].label for w, i in zip(ask.wheels, sel, strict=True)
                    if w is not None and 0 <= i < len(w.faces))[:24]


def _three(items: Sequence[Any]) -> Any:
    out = list(items)[:3]
    return tuple(out + [None] * (3 - len(out)))
