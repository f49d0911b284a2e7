"""The adapter from the daemon's TableState (and link facts) to the displays' TableView."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.tablefeed import TableFollower, table_view
from dialbox.table import (
    EventState,
    Feed,
    LinkInfo,
    PromptState,
    ResultState,
    RevealState,
    SeatState,
    TableState,
)

NAMES = [("Red", "e53935"), ("Blue", "1e88e5"), ("Green", "43a047")]


def seat(i: int, kind: str = "controller", online: bool = True, state: str = "idle",
         uid: str | None = None) -> SeatState:
    return SeatState.model_validate({
        "seat": i, "name": NAMES[i][0], "colour": NAMES[i][1], "kind": kind,
        "uid": uid or (f"c{i}" if kind == "controller" else None), "online": online,
        "state": state})


def prompt(phase: str = "open", locked: tuple[int, ...] = (2,), seats: tuple[int, ...] = (0, 1, 2),
           pid: int = 7) -> PromptState:
    return PromptState.model_validate({"pid": pid, "kind": "sealed", "phase": phase,
                                       "seats": seats, "locked": locked,
                                       "text": {s: "Move" for s in seats}})


def state(**changes: Any) -> TableState:
    base: dict[str, Any] = {
        "table": "t", "game": "pixoid",
        "seats": (seat(0, state="editing"), seat(1), seat(2, kind="bot")),
        "prompt": prompt(), "view": {"round": 1},
    }
    base.update(changes)
    reveals = base.get("reveals", ())
    base.setdefault("revealed", reveals[-1] if reveals else None)
    return TableState(**base)


def reveal(pid: int, choices: tuple[tuple[int, str], ...], kind: str = "sealed",
           text: str = "Move") -> RevealState:
    return RevealState.model_validate({"pid": pid, "kind": kind, "choices": choices,
                                       "summary": "moved",
                                       "text": {s: text for s, _ in choices}})


LINKS = {"c0": LinkInfo("serial", "1.0.0", 0.4, 3.0, 0),
         "c1": LinkInfo("mqtt", "1.0.0", 1.2, None, 2)}


def test_seats_and_prompt_status_without_choices() -> None:
    v = table_view(state(), LINKS)
    assert v.stage == "playing"
    assert [a.status for a in v.prompt.asks] == ["programming", "waiting", "locked"]  # type: ignore[union-attr]
    red = v.seats[0]
    assert (red.transport, red.firmware, red.heartbeat_age, red.link) == ("serial", "1.0.0",
                                                                           0.4, 1.0)
    assert v.seats[1].link == 0.5  # two reliable frames waiting for an ack
    assert v.seats[2].occupant == "bot" and v.seats[2].transport is None
    assert v.prompt is not None and v.prompt.choices == () and v.reveal is None


def test_all_locked_then_revealed_with_labels() -> None:
    locked = state(prompt=prompt("alllocked", locked=(0, 1, 2)))
    v = table_view(locked, LINKS)
    assert v.prompt is not None and v.prompt.phase == "alllocked"
    assert {a.status for a in v.prompt.asks} == {"locked"}
    done = state(prompt=None, reveals=(reveal(7, ((0, "N 3"), (1, "E 1"), (2, "S 2"))),))
    v = table_view(done, LINKS)
    assert v.reveal is not None and v.reveal.sealed and v.reveal.text == "Move"
    assert [(c.seat, c.text, [f.label for f in c.faces]) for c in v.reveal.choices] == [
        (0, "N 3", ["N", "3"]), (1, "E 1", ["E", "1"]), (2, "S 2", ["S", "2"])]


def test_a_private_reveal_shows_no_choice() -> None:
    private = RevealState(pid=8, kind="private", announced=((1, "plays a token face down"),),
                          summary="Seat 2 plays a Bonus token face down.", text={1: "Bonus?"})
    v = table_view(state(prompt=None, reveals=(private,)), LINKS)
    assert v.reveal is None
    with pytest.raises(ValidationError, match="private"):
        RevealState(pid=8, kind="private", choices=((1, "Nitro"),))
    for leak in ({"meanings": {1: "plays the Nitro"}}, {"named": {1: ((0, 4, 1),)}},
                 {"faces": {1: [{"wheel": "centre", "label": "Nitro"}]}}):
        with pytest.raises(ValidationError, match="private"):
            RevealState.model_validate({"pid": 8, "kind": "private", **leak})


def test_the_state_refuses_a_choice_of_the_open_prompt() -> None:
    with pytest.raises(ValidationError, match="prompt 7 is open"):
        state(reveals=(reveal(7, ((0, "N 3"),)),))


def test_offline_controller_and_void_are_told() -> None:
    s = state(seats=(seat(0, online=False), seat(1), seat(2, kind="bot")),
              events=(EventState(kind="prompt.void", text="Asked again: seat 2: no"),))
    v = table_view(s, {"c0": LinkInfo("serial", "1.0.0", 3.2, None, 3, online=False)})
    assert v.seats[0].status == "offline" and v.seats[0].heartbeat_age == 3.2
    codes = {n.code: n for n in v.notices}
    assert "Red's controller (c0) is offline" in codes["offline"].text
    assert "asked again" in codes["void"].text
    over = table_view(state(seats=(seat(0, online=False),), prompt=None, over=True,
                            result=ResultState(text="Red wins", scores={0: 3}, winners=(0,))))
    assert over.stage == "over" and not over.notices and over.seats[0].status == "waiting"
    assert over.result is not None and over.result.scores == {0: 3}


def test_lobby_until_the_first_prompt() -> None:
    v = table_view(state(prompt=None, seats=(seat(0), seat(1, kind="empty", uid=None)),
                         pairing=("c9",)))
    assert v.stage == "lobby" and v.pairing[0].uid == "c9" and "press" in v.pairing[0].text
    assert v.progress is not None and (v.progress.done, v.progress.total) == (1, 2)
    assert v.seats[1].status == "empty"


class FakeRunner:
    """What the follower reads of a runner: its feed, its state and its links."""

    def __init__(self) -> None:
        self.feed: Feed[TableState] = Feed(source=self.state)
        self.current = state()

    def state(self) -> TableState:
        return self.current

    def links(self) -> dict[str, LinkInfo]:
        return dict(LINKS)

    def publish(self, st: TableState) -> None:
        self.current = st
        self.feed.publish(st)


def test_follower_publishes_every_state_and_marks_moments() -> None:
    async def go() -> tuple[list[TableView], list[str]]:
        runner = FakeRunner()
        feed = PublicFeed()
        seen: list[TableView] = []
        feed.listen(seen.append)
        moments: list[str] = []

        async def camera(view: TableView, moment: str) -> None:
            moments.append(moment)

        follower = TableFollower(runner, feed, pace=0.001, on_moment=camera)
        task = asyncio.create_task(follower.run())
        runner.publish(state(prompt=prompt("alllocked", locked=(0,), seats=(0,))))
        runner.publish(state(prompt=None, reveals=(reveal(7, ((0, "N 1"),)),)))
        await follower.drained()
        task.cancel()
        return seen, moments

    seen, moments = asyncio.run(go())
    assert [v.prompt.phase if v.prompt else "none" for v in seen[:3]] == [
        "open", "alllocked", "none"]
    assert moments == ["alllocked", "reveal"]  # no lobby: the table was already playing
    assert seen[0].seats[0].transport == "serial"  # link facts from runner.links()


def test_a_burst_of_reveals_gives_each_its_moment() -> None:
    async def go() -> list[TableView]:
        runner = FakeRunner()
        feed = PublicFeed()
        seen: list[TableView] = []
        feed.listen(seen.append)

        async def camera(view: TableView, moment: str) -> None:
            pass

        follower = TableFollower(runner, feed, on_moment=camera)
        task = asyncio.create_task(follower.run())
        reveals = (reveal(7, ((0, "N 1"),)),
                   reveal(8, ((1, "Keep"),), kind="open", text="Keep which?"))
        runner.publish(state(prompt=None, reveals=reveals))  # one state after two reveals
        await follower.drained()
        task.cancel()
        return seen

    seen = asyncio.run(go())
    shown = [v.reveal.pid for v in seen if v.reveal is not None]
    assert shown == [7, 8]
    assert seen[-2].reveal is not None and seen[-2].reveal.sealed
    assert seen[-2].reveal.text == "Move" and seen[-2].prompt is None
    assert seen[-1].reveal is not None and not seen[-1].reveal.sealed


def test_the_follower_goes_from_a_game_to_the_menu_and_back() -> None:
    """The game ends, the table turns to its menu (the wheel followed live), the next game
    starts: every state reaches the screen, in order, as its stage."""
    from dialbox.table.state import MenuState, MenuWheel

    def menu_at(at: int) -> TableState:
        wheel = MenuWheel(label="Game", faces=("Pixoid", "Stadium"), allowed=(0, 1), at=at)
        return state(prompt=None, phase="menu", number=1, over=True,
                     result=ResultState(scores={0: 3}, winners=(0,), text="Red wins"),
                     menu=MenuState(stage="game", text="Choose a game", chooser=0,
                                    wheels=(wheel, None, None)))

    async def go() -> list[TableView]:
        runner = FakeRunner()
        feed = PublicFeed()
        seen: list[TableView] = []
        feed.listen(seen.append)
        follower = TableFollower(runner, feed)
        task = asyncio.create_task(follower.run())
        for at in (0, 1):
            runner.publish(menu_at(at))
        runner.publish(state(number=2))
        await follower.drained()
        task.cancel()
        return seen

    seen = asyncio.run(go())
    assert [v.stage for v in seen] == ["playing", "menu", "menu", "playing"]
    assert [v.menu.wheels[0].at for v in seen[1:3]  # type: ignore[union-attr]
            if v.menu is not None] == [0, 1]
    assert seen[-1].menu is None and seen[-1].number == 2 and seen[-1].prompt is not None


def named_seats() -> tuple[SeatState, ...]:
    """Red took the name Ann; Blue none; Green (a bot) is Gil."""
    ann = seat(0).model_copy(update={"player": "Ann"})
    gil = seat(2, kind="bot").model_copy(update={"player": "Gil"})
    return (ann, seat(1), gil)


def test_a_reveal_shows_faces_in_their_colours_and_what_each_choice_means() -> None:
    r = RevealState.model_validate({
        "pid": 9, "kind": "sealed", "choices": ((0, "A 5"), (1, "C"), (2, "7")),
        "faces": {0: [{"wheel": "centre", "label": "5", "colour": "fb8c00"},
                      {"wheel": "right", "label": "A", "colour": "e53935"}],
                  1: [{"wheel": "right", "label": "C", "colour": "43a047"}]},
        "meanings": {0: "Attack Blue", 1: "Rest"}, "named": {0: ((7, 11, 1),)},
        "summary": "", "text": {0: "A+colour Attack", 1: "A+colour Attack", 2: "Wager"}})
    v = table_view(state(prompt=None, reveals=(r,), seats=named_seats()), LINKS)
    assert v.reveal is not None
    red, blue, green = v.reveal.choices
    assert red.text == "Attack Blue"  # Blue took no name
    assert [(f.wheel, f.label, f.colour) for f in red.faces] == [("centre", "5", "fb8c00"),
                                                                  ("right", "A", "e53935")]
    assert blue.text == "Rest" and blue.faces[0].colour == "43a047"
    assert green.text == "7" and [f.label for f in green.faces] == ["7"]  # labels only
    # the question each seat was asked, not "each seat answers its own question"
    assert v.reveal.text == "Ann (Red), Blue — A+colour Attack · Gil (Green) — Wager"
    assert [a.text for a in v.reveal.asks] == ["A+colour Attack", "A+colour Attack", "Wager"]
    r2 = r.model_copy(update={"named": {0: ((7, 12, 2),)}, "meanings": {0: "Attack Green"}})
    v2 = table_view(state(prompt=None, reveals=(r2,), seats=named_seats()), LINKS)
    assert v2.reveal is not None and v2.reveal.choices[0].text == "Attack Gil (Green)"


def test_a_prompt_shows_each_seats_own_question() -> None:
    p = PromptState.model_validate({"pid": 7, "kind": "sealed", "phase": "open",
                                    "seats": (0, 1, 2), "text": {0: "Pixoid: arrow and distance",
                                                                 1: "Bug: arrow and distance",
                                                                 2: "Bug: arrow and distance"}})
    v = table_view(state(prompt=p, seats=named_seats()), LINKS)
    assert v.prompt is not None
    assert v.prompt.text == ("Ann (Red) — Pixoid: arrow and distance · Blue, Gil (Green) — "
                             "Bug: arrow and distance")
    assert [a.text for a in v.prompt.asks] == ["Pixoid: arrow and distance",
                                               "Bug: arrow and distance",
                                               "Bug: arrow and distance"]
    assert "own question" not in v.model_dump_json()
    same = table_view(state(), LINKS)
    assert same.prompt is not None and same.prompt.text == "Move"


def test_events_and_the_result_call_seats_by_their_players_names() -> None:
    events = (
        EventState(kind="stadium.medal", text="Red wins a gold Medal for the Red Sunz.",
                   data={"seat": 0, "named": [[0, 3, 0]]}),
        EventState(kind="x.many", text="Blue pays Green; Red watches.",
                   data={"named": [[0, 4, 1], [10, 15, 2], [17, 20, 0]]}),
        EventState(kind="x.old", text="Red and Green, with no spans."),
        EventState(kind="x.stale", text="Green wins.", data={"named": [[0, 5, 0]]}),
    )
    result = ResultState(text="The Starz (Red and Green) win, 9 points to 4.",
                         scores={0: 9, 1: 4, 2: 9}, winners=(0, 2),
                         details={"named": [[11, 14, 0], [19, 24, 2]]})
    v = table_view(state(prompt=None, events=events, seats=named_seats(), over=True,
                         result=result), LINKS)
    texts = [e.text for e in v.events]
    assert texts == ["Ann (Red) wins a gold Medal for the Red Sunz.",
                     "Blue pays Gil (Green); Ann (Red) watches.",
                     "Red and Green, with no spans.", "Green wins."]
    many = v.events[1]
    assert [many.text[a:b] for a, b, _ in many.data["named"]] == ["Blue", "Gil (Green)",
                                                                   "Ann (Red)"]
    assert v.result is not None
    assert v.result.text == "The Starz (Ann (Red) and Gil (Green)) win, 9 points to 4."
    # without players' names, every text is the game's own
    plain = table_view(state(prompt=None, events=events, over=True, result=result), LINKS)
    assert [e.text for e in plain.events] == [e.text for e in events]
    assert plain.result is not None and plain.result.text == result.text
