"""The Game contract every rules module implements, and the driver that runs its flow.

A game's rules are written as a generator (`flow`) that yields Decisions and receives the
answers. The driver validates answers before the flow sees them, records them in the log,
and collects the events. A game is saved as its options plus the answer log and a snapshot
of its state; loading replays the log and checks that it reaches the same state hash.
"""

from __future__ import annotations

import hashlib
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Generator, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import product
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, ValidationError

from dialbox.engine.chance import Chance, Die, DieFace
from dialbox.engine.decisions import Answers, Ask, Decision
from dialbox.engine.errors import (
    CorruptSave,
    IllegalChoice,
    InvalidOptions,
    InvalidPosition,
    NotPending,
)
from dialbox.engine.events import Event
from dialbox.engine.naming import NAMED, marked, said
from dialbox.engine.wheels import CENTRE, INACTIVE, Face, Selection, Wheel, wheels

Flow = Generator[Decision, dict[int, Selection], None]
"""A game's rules: yields each Decision, receives the verified answers to it."""


TRIM_SLACK = 64
"""How far a bounded history (`Game.log_kept`, the table's public events) may run past its
size before it is trimmed back. Small, so the memory a history takes hardly moves: trimmed
from twice its size in one chunk, the tables' histories made a sawtooth whose joint high
points kept rising, and a daemon's memory with them (docs/host.md, "Benchmarks", RSS)."""


class GameOptions(BaseModel):
    """Options every game takes; games subclass this to add their own."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: int
    seed: int = 0
    variant: str = "standard"
    physical_dice: bool = False


@dataclass(slots=True)
class Result:
    """The end of a game: points (or medals) per seat and who won (several on a tie).

    `text` names seats by colour; a game writes `naming.who(seat)` in it and the result
    records where each name stands in `details["named"]` (dialbox.engine.naming)."""

    scores: dict[int, int]
    winners: list[int]
    text: str
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if marked(self.text):
            self.text, spans = said(self.text)
            self.details = {**self.details, NAMED: [list(s) for s in spans]}

    def to_json(self) -> dict[str, Any]:
        return {
            "scores": {str(k): v for k, v in self.scores.items()},
            "winners": self.winners,
            "text": self.text,
            "details": self.details,
        }


def canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


class Game(ABC):
    """Base of every game. Subclasses set `name`, `Options`, and implement the hooks."""

    name: ClassVar[str]
    Options: ClassVar[type[GameOptions]] = GameOptions
    Position: ClassVar[type[BaseModel] | None] = None
    """The model of a position this game can start from (`from_position`), if any."""

    def __init__(self, options: GameOptions | Mapping[str, Any], *, quiet: bool = False,
                 position: BaseModel | None = None) -> None:
        self.options = self.parse_options(options)
        self.start_position = position
        """The position the game started from (None: the usual setup)."""
        self.quiet = quiet
        """Quiet games (bot playouts, benchmarks) record no events; flows may skip
        building event texts when it is set."""
        self.chance = Chance(self.options.seed, self.options.physical_dice)
        self.events: list[Event] = []
        self._staged: dict[int, Selection] = {}
        self.log: list[dict[int, Selection]] = []
        """Every answered decision, oldest first (see `log_kept`)."""
        self.decided = 0
        """Decisions answered so far (the log's length unless the log is bounded)."""
        self.log_kept: int | None = None
        """None: keep the whole log and every event (saves, replays, tests). A number: a
        long-running host keeps only about that many recent log entries and events (between
        it and it + TRIM_SLACK), so memory stays flat over a game of any length; the journal holds
        every answer. `to_json` then refuses: the log no longer replays from the start."""
        self.result: Result | None = None
        self._next_decision = 1
        self.undisclosed: set[int] = set()
        """Private decisions whose answers no rule has revealed yet (see `disclose`)."""
        self.meanings: dict[int, str] = {}
        """What each answer of the last applied decision means, seat -> words (`meaning`),
        recorded as it was applied, before the rules moved on; empty in quiet games."""
        self.meant = 0
        """The id of the decision `meanings` belong to (0: none yet)."""
        if position is None:
            self.setup()
        else:
            self.setup_position(position)
        self._flow: Flow = self.flow()
        self._pending: Decision | None = self._advance(None)

    # ------------------------------------------------------------ hooks for games

    @abstractmethod
    def setup(self) -> None:
        """Build the starting state from self.options (randomness via self.chance)."""

    def setup_position(self, position: BaseModel) -> None:
        """Build the state from a validated position instead of the usual setup. Games that
        declare `Position` implement it (raise InvalidPosition naming the field if the
        position breaks a rule); the flow then starts from that state."""
        raise InvalidPosition(f"{self.name} cannot be set up from a position")

    @classmethod
    def from_position(cls, options: GameOptions | Mapping[str, Any],
                      position: BaseModel | Mapping[str, Any]) -> Game:
        """A game set up from `position` (docs/engine.md, "Positions")."""
        model = cls.Position
        if model is None:
            raise InvalidPosition(f"{cls.name} cannot be set up from a position")
        if not isinstance(position, model):
            raw = position.model_dump() if isinstance(position, BaseModel) else position
            try:
                position = model.model_validate(raw)
            except ValidationError as e:
                err = e.errors()[0]
                where = ".".join(str(p) for p in err["loc"]) or "position"
                more = f" (and {len(e.errors()) - 1} more)" if len(e.errors()) > 1 else ""
                raise InvalidPosition(f"{cls.name} position: {where}: {err['msg']}{more}") \
                    from None
        return cls(options, position=position)

    @abstractmethod
    def flow(self) -> Flow:
        """The rules as a generator of Decisions. Set self.result before returning."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """The whole state as JSON-able data (hidden information included). Never shown:
        it feeds state hashes and saves only."""

    @abstractmethod
    def view(self, seat: int | None) -> dict[str, Any]:
        """What player `seat` may see (None: the public table, e.g. the screen and the
        retained MQTT state). There is deliberately no default: a game states what is public.
        A seat sees its own private information only; the generic non-interference test
        (tests/engine/test_secrets.py) checks every registered game."""

    def headline(self) -> str | None:
        """Where the game stands, in one public line of at most 60 characters that every
        seated controller shows between its own prompts (e.g. "Round 2 Adventure: Blue's
        turn"); None: the controllers just wait. Public information only: the generic
        non-interference test compares it like the public view."""
        return None

    def public_part(self, ask: Ask, selection: Selection) -> str | None:
        """What the table learns at once from a private answer, in words (None: nothing),
        e.g. that a Ship plays a Bonus token, not which one. Shown with the reveal; the
        non-interference test compares only answers with the same public part."""
        return None

    def meaning(self, ask: Ask, selection: Selection) -> str:
        """What a legal answer to `ask` means, in the game's words, for the table's reveal:
        "→ right 3", "Route B (yellow): pay 2 Fuel -> move 3", "Attack Blue". The default is the
        faces' labels ("E 3"); a die the table rolls by hand reads "the green die shows 4".

        The driver calls it as it applies the answers, with the game still as it was when
        `ask` was asked (so it may read the state), and keeps the words in `meanings` for
        the runner; quiet games skip it. It is called for private answers too, but only a
        sealed or open answer's meaning is shown: a private one stays with the engine (the
        table learns `public_part`). At most about 60 characters; seats may be named with
        `naming.who(seat)`, as in event texts."""
        if ask.topic.startswith("dice."):
            name = ask.topic[5:]
            die = "the die" if name in ("", "die") else f"the {name} die"
            return f"{die} shows {self.labels(ask, selection)}"
        return self.labels(ask, selection)

    def _meaning(self, ask: Ask, selection: Selection) -> str:
        """`meaning`, or the labels if it fails: words for a display never stop a game (the
        generic test, tests/engine/test_meanings.py, calls `meaning` itself and sees any
        failure)."""
        try:
            return self.meaning(ask, selection)
        except Exception:
            return self.labels(ask, selection)

    def meanings_of(self, decision: Decision) -> dict[int, str]:
        """The meanings recorded when `decision` was applied ({} if it was not the last one
        applied, or the game is quiet): what the runner tells the table."""
        return dict(self.meanings) if self.meant == decision.id else {}

    @staticmethod
    def labels(ask: Ask, selection: Selection) -> str:
        """The selection in its faces' own labels, e.g. "E 3" (inactive wheels skipped)."""
        return " ".join(w.faces[selection[i]].label for i, w in enumerate(ask.wheels)
                        if w is not None and 0 <= selection[i] < len(w.faces))

    def swap_hidden(self, player: int, rng: random.Random) -> bool:
        """Test hook for hidden dealt components: change what only `player` knows (a card in
        its hand, a token it holds) for something else the table cannot tell apart (e.g. a
        card still in the deck), keeping all public information. Return False if `player`
        holds nothing hidden now. The non-interference test calls it on a copy of a game and
        checks that no other view changes; games that deal hidden components implement it."""
        return False

    def explain(self, ask: Ask, selection: Selection) -> str | None:
        """Rules that span wheels: return why `selection` is illegal, or None if legal."""
        return None

    # ------------------------------------------------------------ helpers for flows

    @classmethod
    def parse_options(cls, options: GameOptions | Mapping[str, Any]) -> GameOptions:
        if isinstance(options, cls.Options):
            return options
        raw = options.model_dump() if isinstance(options, GameOptions) else dict(options)
        try:
            return cls.Options.model_validate(raw)
        except ValidationError as e:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'options'}: {err['msg']}"
                for err in e.errors()
            )
            raise InvalidOptions(f"{cls.name}: {problems}") from None

    def sealed(self, asks: list[Ask] | tuple[Ask, ...], unlock: bool = True) -> Decision:
        """A simultaneous secret decision for several seats (commit-reveal, revealed together)."""
        d = Decision(self._next_decision, "sealed", tuple(asks), unlock)
        self._next_decision += 1
        return d

    def open(self, ask: Ask) -> Decision:
        """An open decision for one acting seat: its answer is public at once."""
        d = Decision(self._next_decision, "open", (ask,), True)
        self._next_decision += 1
        return d

    def private(self, asks: list[Ask] | tuple[Ask, ...], unlock: bool = True) -> Decision:
        """A private decision: each answer stays in its own seat's view (and private events,
        `emit(..., to=seat)`) until the rules reveal it with `disclose(decision)`."""
        d = Decision(self._next_decision, "private", tuple(asks), unlock)
        self._next_decision += 1
        self.undisclosed.add(d.id)
        return d

    def disclose(self, *decisions: Decision | int) -> None:
        """The rules have revealed these private decisions' answers (or their consequences)
        to the table. Only the non-interference test reads this: it compares the other
        seats' views only while a private answer is still undisclosed."""
        for d in decisions:
            self.undisclosed.discard(d if isinstance(d, int) else d.id)

    def emit(self, kind: str, text: str, *, to: int | None = None, **data: Any) -> None:
        """Record an event; `to`: the one player who may see it (private), None: public.

        Name seats in `text` with `naming.who(seat)`: the event reads the colour's name
        there, and `data["named"]` says where, for displays that show players' names."""
        if not self.quiet:
            if marked(text):
                text, spans = said(text)
                data[NAMED] = [list(s) for s in spans]
            self.events.append(Event(kind, text, data, to))

    def roll(self, die: Die, seat: int) -> Generator[Decision, dict[int, Selection], DieFace]:
        """Roll a die: from the RNG, or (physical dice) ask `seat` to dial the rolled face."""
        if not self.chance.physical:
            face = self.chance.roll(die)
        else:
            faces = tuple(Face(f.label, f.value) for f in die.faces)
            ask = Ask(seat, f"dice.{die.name}", f"Roll the {die.name} die", wheels(
                None, Wheel.of(faces), None
            ))
            answers = yield self.open(ask)
            face = die.faces[answers[seat][CENTRE]]
        what = "The die" if die.name == "die" else f"The {die.name} die"
        self.emit("dice.rolled", f"{what} shows {face.label}.", die=die.name,
                  label=face.label, value=face.value, seat=seat)
        return face

    # ------------------------------------------------------------ the driver

    def _advance(self, answers: dict[int, Selection] | None) -> Decision | None:
        try:
            return next(self._flow) if answers is None else self._flow.send(answers)
        except StopIteration:
            return None

    @property
    def pending(self) -> Decision | None:
        """What the game needs next; None once the game is over."""
        return self._pending

    @property
    def over(self) -> bool:
        return self._pending is None

    def check(self, ask: Ask, selection: Selection) -> None:
        """Raise IllegalChoice if `selection` does not answer `ask` legally."""
        if len(selection) != 3:
            raise IllegalChoice(ask.seat, "a selection names a face on each of the 3 wheels")
        for pos, wheel in enumerate(ask.wheels):
            idx = selection[pos]
            if wheel is None:
                if idx != INACTIVE:
                    raise IllegalChoice(ask.seat, f"wheel {pos + 1} is not used in this choice")
            elif idx not in wheel.allowed:
                raise IllegalChoice(ask.seat, wheel.why_not(idx))
        if type(self).explain is not Game.explain:
            why = self.explain(ask, selection)
            if why is not None:
                raise IllegalChoice(ask.seat, why)

    def legal(self, ask: Ask) -> Iterator[Selection]:
        """Every legal selection for `ask` (all allowed face combinations that pass explain)."""
        ranges = [w.choices if w is not None else (INACTIVE,) for w in ask.wheels]
        for combo in product(*ranges):
            sel: Selection = (combo[0], combo[1], combo[2])
            if self.explain(ask, sel) is None:
                yield sel

    def apply(self, answers: Answers, decision_id: int | None = None) -> list[Event]:
        """Answer the pending decision; returns the events it caused."""
        d = self._pending
        if d is None:
            raise NotPending("the game is over")
        if decision_id is not None and decision_id != d.id:
            raise NotPending(f"decision {decision_id} is not pending (pending: {d.id})")
        if answers.keys() != d.seat_set:
            raise NotPending(
                f"decision {d.id} needs answers from seats "
                f"{sorted(s + 1 for s in d.seats)}, got {sorted(s + 1 for s in answers)}"
            )
        clean: dict[int, Selection] = {}
        for ask in d.asks:
            sel = answers[ask.seat]
            self.check(ask, sel)
            clean[ask.seat] = (int(sel[0]), int(sel[1]), int(sel[2]))
        if not self.quiet:  # before the rules move on: a meaning may read the state
            self.meanings = {a.seat: self._meaning(a, clean[a.seat]) for a in d.asks}
            self.meant = d.id
        start = len(self.events)
        self.log.append(clean)
        self.decided += 1
        self._staged = {}
        self._pending = self._advance(clean)
        new = self.events[start:]
        kept = self.log_kept
        if kept is not None:  # in small chunks: amortised O(kept / TRIM_SLACK) per decision
            most = kept + min(TRIM_SLACK, kept)
            if len(self.log) > most:
                del self.log[:len(self.log) - kept]
            if len(self.events) > most:
                del self.events[:len(self.events) - kept]
        return new

    # ------------------------------------------------------------ one seat at a time

    def stage(self, seat: int, selection: Selection) -> list[Event] | None:
        """Lock in one seat's answer to the pending decision, checked at once.

        The answer stays unrevealed (no view shows it to another player) until every seat of
        the decision is in; then all are applied together and their events returned. Until
        then returns None. Staged answers are not saved: a save holds applied decisions only.
        """
        d = self._pending
        if d is None:
            raise NotPending("the game is over")
        try:
            ask = d.ask_for(seat)
        except KeyError:
            raise NotPending(f"seat {seat + 1} has nothing to answer in decision {d.id}") from None
        self.check(ask, selection)
        self._staged[seat] = (int(selection[0]), int(selection[1]), int(selection[2]))
        if len(self._staged) < len(d.asks):
            return None
        return self.apply(dict(self._staged))

    def unstage(self, seat: int) -> None:
        """Take back a seat's staged answer (if the pending decision allows unlocking)."""
        d = self._pending
        if d is None or seat not in self._staged:
            raise NotPending(f"seat {seat + 1} has no answer locked in")
        if not d.unlock:
            raise NotPending(f"decision {d.id} does not allow unlocking")
        del self._staged[seat]

    @property
    def locked(self) -> tuple[int, ...]:
        """Seats whose answers to the pending decision are staged."""
        return tuple(sorted(self._staged))

    def pending_view(self, player: int | None) -> dict[str, Any] | None:
        """The pending decision as `player` may see it: who still has to answer, who has
        locked in, and only this player's own staged selections. Games put it in view()."""
        d = self._pending
        if d is None:
            return None
        mine = {
            str(a.seat): list(self._staged[a.seat])
            for a in d.asks
            if a.seat in self._staged and a.answerer == player
        }
        return {
            "decision": d.id,
            "kind": d.kind,
            "sealed": d.sealed,
            "seats": list(d.seats),
            "locked": list(self.locked),
            "mine": mine,
        }

    # ------------------------------------------------------------ saving and replay

    def state_hash(self) -> str:
        pending = self._pending.id if self._pending is not None else 0
        text = canonical({"state": self.snapshot(), "pending": pending})
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> dict[str, Any]:
        if self.decided != len(self.log):
            raise ValueError(f"only the last {len(self.log)} of {self.decided} decisions are "
                             "kept (log_kept): this game cannot be saved")
        out: dict[str, Any] = {"game": self.name, "options": self.options.model_dump()}
        if self.start_position is not None:
            out["position"] = self.start_position.model_dump(mode="json")
        return {
            **out,
            "log": [[[seat, list(sel)] for seat, sel in sorted(a.items())] for a in self.log],
            "state": self.snapshot(),
            "hash": self.state_hash(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Game:
        """Rebuild a saved game by replaying its log; CorruptSave if it does not match."""
        if data.get("game") != cls.name:
            raise CorruptSave(f"save is for {data.get('game')!r}, not {cls.name!r}")
        position = data.get("position")
        game = cls(data["options"]) if position is None else \
            cls.from_position(data["options"], position)
        for i, entry in enumerate(data.get("log", [])):
            answers = {int(seat): (int(s[0]), int(s[1]), int(s[2])) for seat, s in entry}
            try:
                game.apply(answers)
            except (IllegalChoice, NotPending) as e:
                raise CorruptSave(f"step {i + 1} of the saved log does not replay: {e}") from None
        if "hash" in data and game.state_hash() != data["hash"]:
            raise CorruptSave("the replayed game does not reach the saved state")
        return game
