"""The runner on its own (no event loop, no transport): private decisions, journal replay.

Controllers are stand-in sessions that record what the runner posts to them; bots play the
other seats. Outside an event loop the journal writes at once and the public state is
published at every change, so every state the table could have seen is checked.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from typing import Any, cast

import pytest

from dialbox.engine import Ask, Decision, Flow, Game, Result, Wheel, wheels
from dialbox.engine.errors import EngineError
from dialbox.engine.naming import who
from dialbox.engine.registry import GameInfo, game_info, game_names, register, unregister
from dialbox.engine.wheels import CENTRE, DIGIT_FACES, LETTER_FACES, Face, Selection
from dialbox.journal import Journal, JournalError
from dialbox.journal.entries import FORMAT
from dialbox.lockbox import Lockbox
from dialbox.runner import GameRunner, TableSettings
from dialbox.runner.prompts import PromptCycle
from dialbox.sessions import Session
from dialbox.table import TableState
from dialbox.table.state import FaceState
from dialbox_protocol import codec
from dialbox_protocol.models import Hello, Message, Prompt, Reveal, Revealed, Snapshot
from tests.host.games import DUEL, Duel

TOKENS = (Face("Nitro", 0), Face("Shield", 1), Face("Magnet", 2))


class Tokens(Game):
    """Red and Blue each keep a token face down (a private decision; each is told its own
    token in a private event, the table only that they kept one); then Green guesses a
    letter in the open."""

    name = "tokens"

    def setup(self) -> None:
        self.kept: dict[int, str] = {}
        self.guess = ""

    def snapshot(self) -> dict[str, Any]:
        return {"kept": {str(s): t for s, t in self.kept.items()}, "guess": self.guess}

    def view(self, seat: int | None) -> dict[str, Any]:
        mine = {str(s): t for s, t in self.kept.items() if s == seat}
        return {"kept": mine, "guess": self.guess, "pending": self.pending_view(seat)}

    def public_part(self, ask: Ask, selection: Selection) -> str | None:
        return "keeps a token face down"

    def meaning(self, ask: Ask, selection: Selection) -> str:
        if ask.topic == "tokens.keep":  # private: the engine knows it, the table never does
            return f"keeps the {TOKENS[selection[CENTRE]].label}"
        return f"{who(ask.seat)} guesses {LETTER_FACES[selection[2]].label}"

    def flow(self) -> Flow:
        keep = Wheel.of(TOKENS)
        answers = yield self.private([Ask(s, "tokens.keep", "Keep a token", wheels(None, keep))
                                      for s in (0, 1)])
        for s, sel in sorted(answers.items()):
            self.kept[s] = TOKENS[sel[CENTRE]].label
            self.emit("tokens.kept", f"You keep the {self.kept[s]}.", to=s)
        self.emit("tokens.hidden", "Red and Blue each keep a token face down.")
        guess = yield self.open(Ask(2, "tokens.guess", "Guess", wheels(
            None, None, Wheel.of(LETTER_FACES))))
        self.guess = LETTER_FACES[guess[2][2]].label
        self.emit("tokens.guess", f"Green guesses {self.guess}.")
        self.result = Result({0: 0, 1: 0, 2: 1}, [2], "done")


INFO = GameInfo(game=Tokens, title="Tokens", players=(3,))


class Seated:
    """A stand-in for a controller's Session: it records what the runner posts to it."""

    def __init__(self, uid: str) -> None:
        self.uid = uid
        self.seat: int | None = None
        self.online = True
        self.hello = Hello(fw="test", board="none", uid=uid)
        self.rtt_ms: float | None = None
        self.unacked = 0
        self.last_heard = time.monotonic()
        self.link = type("Link", (), {"kind": "local", "closed": False})()
        self.sent: list[Message] = []
        self._seq = 0

    def post(self, msg: Message) -> None:
        self.sent.append(msg)

    def seq(self) -> int:
        self._seq += 1
        return self._seq

    def text(self) -> str:
        """Every frame it was sent, as JSON."""
        return " ".join(m.model_dump_json() for m in self.sent)

    def prompts(self) -> list[Prompt]:
        return [m for m in self.sent if isinstance(m, Prompt)]


def sit(runner: GameRunner, seated: Seated) -> None:
    session = cast(Session, seated)
    runner.admit(session, seated.hello)
    runner.on_snapshot(session, Snapshot(seq=seated.seq(), pid=None, state="idle"))


def answer(runner: GameRunner, seated: Seated, pid: int, sel: Selection) -> None:
    runner.on_message(cast(Session, seated), Reveal(seq=seated.seq(), pid=pid, sel=sel,
                                                     nonce=codec.b64(bytes(12))))


@pytest.fixture
def tokens() -> Iterator[str]:
    register("tokens", __name__)
    yield "tokens"
    unregister("tokens")


def test_a_private_answer_reaches_only_its_own_seat(tokens: str) -> None:
    journal = Journal(":memory:")
    runner = GameRunner(TableSettings("t1", tokens, 3, bots=[1], pairing="auto"), journal)
    states: list[TableState] = []
    runner.feed.listen(states.append)  # every state the displays would get
    retained: list[bytes] = []  # what the daemon publishes on the MQTT `state` topic
    runner.watchers.append(lambda: retained.append(runner.state().to_json()))
    red, green = Seated("ctl-red"), Seated("ctl-green")
    sit(runner, red)
    sit(runner, green)

    # the private prompt runs like an open one on the controllers; Blue's bot answered it
    box = runner.box
    assert box is not None and not box.sealed and box.seats == (0, 1)
    (prompt,) = red.prompts()
    assert not prompt.sealed and prompt.text == "Keep a token"
    assert green.prompts() == []
    blue_sel = next(e.data["sel"] for e in journal.entries("t1") if e.kind == "reveal")
    blue = TOKENS[blue_sel[CENTRE]].label
    mine = next(t for t in TOKENS if t.label != blue)
    state = runner.state()
    assert state.prompt is not None and state.prompt.kind == "private"
    assert state.prompt.locked == (1,)  # Blue has answered: the table may know that, not what

    answer(runner, red, prompt.pid, (-1, mine.value, -1))

    told = [m for m in red.sent if isinstance(m, Revealed)]
    assert [(r.pid, r.choices) for r in told] == [(prompt.pid, [(0, mine.label)])]
    assert f"You keep the {mine.label}." in told[0].summary
    assert blue not in told[0].model_dump_json()  # (the prompt's wheel names every token)
    for other in (green.text(), *(s.model_dump_json() for s in states),
                  *(p.decode() for p in retained)):
        assert mine.label not in other and blue not in other and "You keep" not in other
    assert "You keep" not in " ".join(e.text for e in runner.events)
    last = states[-1]
    assert last.revealed is not None and last.revealed.kind == "private"
    assert last.revealed.choices == ()
    assert last.revealed.announced == ((0, "keeps a token face down"),
                                       (1, "keeps a token face down"))
    assert [e.text for e in last.events] == ["Red and Blue each keep a token face down."]
    assert TableState.model_validate_json(retained[-1]) == runner.state()  # the JSON shape

    # the game goes on in the open: Green's guess is public, for everyone
    (guess,) = green.prompts()
    answer(runner, green, guess.pid, (-1, -1, 1))
    assert runner.game.over and runner.finished.is_set()
    assert runner.state().revealed is not None
    assert runner.state().revealed.choices == ((2, "B"),)  # type: ignore[union-attr]
    # in the game's words, with the face as Green's controller showed it
    told = runner.state().revealed
    assert told is not None and told.meanings == {2: "Green guesses B"}
    assert told.named == {2: ((0, 5, 2),)}
    assert told.faces == {2: (FaceState(wheel="right", label="B",
                                        colour=LETTER_FACES[1].colour.lower()),)}
    private = next(r for r in runner.state().reveals if r.kind == "private")
    assert private.meanings == {} and private.faces == {} and private.named == {}
    assert "keeps the" not in runner.state().model_dump_json()

    # resumed from the journal: the same public state, the same frames told
    again = GameRunner(TableSettings("t1", tokens, 3, bots=[1], pairing="auto"), journal)
    # (the seats differ: nobody's controller is back yet)
    assert again.state().model_copy(update={"seats": ()}) == runner.state().model_copy(
        update={"seats": ()})
    assert again.cycle.told == runner.cycle.told


def play_duel(journal: Journal) -> GameRunner:
    """A whole Duel between two bots (it plays out as the runner starts)."""
    runner = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    assert runner.game.over
    return runner


def test_replay_reaches_every_journaled_state_hash() -> None:
    journal = Journal(":memory:")
    first = play_duel(journal)
    entries = journal.entries("t1")
    assert entries[0].data["format"] == FORMAT
    hashes = [e.data["hash"] for e in entries if e.kind == "applied"]
    assert len(hashes) == 6 and all(hashes)
    again = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    assert again.game.state_hash() == first.game.state_hash()
    assert again.state() == first.state()


def test_a_journal_whose_rules_changed_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    journal = Journal(":memory:")
    play_duel(journal)
    written = next(e.data["hash"] for e in journal.entries("t1") if e.kind == "applied")

    def setup(self: Duel) -> None:  # the rules changed: everybody starts with a point
        self.scores = [1] * self.options.players
        self.round = 0

    monkeypatch.setattr(Duel, "setup", setup)
    with pytest.raises(EngineError) as refused:
        GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    message = str(refused.value)
    assert message.startswith(f"journal step 1 of table t1 does not replay: hash {written} != ")
    assert message.endswith("; the rules or the game data changed since it was written; "
                            "start a new journal or use the old version")
    assert "\n" not in message


def test_a_journal_of_a_newer_format_is_refused() -> None:
    journal = Journal(":memory:")
    journal.append("t1", "table", format=FORMAT + 1, game=DUEL,
                   options={"players": 2, "seed": 3}, first_pid=5)
    with pytest.raises(EngineError, match=f"the journal of table t1 is format {FORMAT + 1}; "
                                          f"this dialbox reads formats 1 to {FORMAT}"):
        GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)


def test_a_format_1_journal_is_read_and_its_new_steps_carry_hashes() -> None:
    journal = Journal(":memory:")
    journal.append("t1", "table", game=DUEL, options=Duel.parse_options(
        {"players": 2, "seed": 3}).model_dump(), first_pid=5)  # no format: version 1
    first = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    assert first.game.over
    assert all(e.data["hash"] for e in journal.entries("t1") if e.kind == "applied")
    again = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    assert again.game.state_hash() == first.game.state_hash()


def test_a_damaged_entry_is_refused_with_its_place() -> None:
    journal = Journal(":memory:")
    play_duel(journal)
    journal.append("t1", "seat", seat="left", uid=None, bot=True)
    n = journal.entries("t1")[-1].n
    with pytest.raises(JournalError, match=f"journal entry {n} of table t1 \\(seat\\): seat: "):
        GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)


def test_a_long_game_keeps_a_bounded_history_in_memory_and_all_of_it_in_the_journal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import dialbox.runner.prompts as prompts
    import dialbox.runner.public as public
    import dialbox.runner.runner as runner_module

    monkeypatch.setattr(runner_module, "HISTORY_KEPT", 4)
    monkeypatch.setattr(prompts, "HISTORY_KEPT", 4)
    monkeypatch.setattr(public, "EVENTS_KEPT", 5)
    journal = Journal(":memory:")
    settings = TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1], options={"rounds": 50})
    runner = GameRunner(settings, journal)
    assert runner.game.over
    applied = [e for e in journal.entries("t1") if e.kind == "applied"]
    assert runner.game.decided == len(applied) > 8
    assert 4 <= len(runner.game.log) <= 8  # the latest answers only
    assert runner.game.log[-1] == {s: tuple(sel) for s, sel in applied[-1].data["answers"]}
    assert 4 <= len(runner.game.events) <= 8
    assert 5 <= len(runner.events) <= 10 and runner.events[-1] == runner.game.events[-1]
    assert runner.reveal_times.maxlen == 4 and runner.refused_reveals.maxlen == 4
    with pytest.raises(ValueError, match="cannot be saved"):
        runner.game.to_json()
    again = GameRunner(settings, journal)  # the journal still replays the whole game
    assert again.game.state_hash() == runner.game.state_hash()
    assert again.game.decided == runner.game.decided


def test_every_reveal_tells_what_the_choices_mean_with_their_faces() -> None:
    """A whole game of Pixoid between bots: every reveal carries each seat's faces (their
    labels and colours, as the controllers show them) and what each choice means."""
    runner = GameRunner(TableSettings("t1", "pixoid", 4, seed=5, bots=[0, 1, 2, 3]),
                        Journal(":memory:"))
    assert runner.game.over
    reveals = runner.state().reveals
    assert any(r.kind == "sealed" for r in reveals)
    digits = {f.label: f.colour.lower() for f in DIGIT_FACES}
    for r in reveals:
        assert set(r.faces) == set(r.meanings) == {s for s, _ in r.choices}
        if r.kind == "open":  # a Starting Pix, on the right wheel
            ((seat, label),) = r.choices
            assert [f.wheel for f in r.faces[seat]] == ["right"]
            assert r.meanings[seat].startswith(f"Starting Pix {label} (")
            continue
        for seat, label in r.choices:
            arrow, distance = r.faces[seat]
            assert (arrow.wheel, distance.wheel) == ("left", "centre")
            assert f"{arrow.label} {distance.label}" == label
            assert distance.colour == digits[distance.label]
            assert r.meanings[seat][0] in "\u2191\u2192\u2193\u2190"
            assert r.meanings[seat].endswith(f" {distance.label}")


@pytest.mark.parametrize("game", game_names())
def test_a_game_of_bots_alone_does_not_recurse_prompt_by_prompt(
        game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner opens each next prompt in a loop: the stack is as deep at the last prompt
    of a bots' game as at the first (a whole PIP Cycle game once overflowed it)."""
    depths: list[int] = []
    new_box = PromptCycle.new_box

    def opened(cycle: PromptCycle, pid: int, d: Decision) -> Lockbox:
        n, f = 0, sys._getframe()
        while f is not None:
            n, f = n + 1, f.f_back  # type: ignore[assignment]
        depths.append(n)
        return new_box(cycle, pid, d)

    monkeypatch.setattr(PromptCycle, "new_box", opened)
    players = game_info(game).players[-1]
    runner = GameRunner(TableSettings("t1", game, players, seed=7, bots=list(range(players))),
                        Journal(":memory:"))
    assert runner.game.over
    assert len(depths) > 20  # prompts opened
    assert max(depths) - min(depths) < 10, f"{min(depths)} to {max(depths)} frames deep"
