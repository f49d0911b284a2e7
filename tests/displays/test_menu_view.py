"""The console's menu and the players' names, from the daemon's TableState to the TableView."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from dialbox.displays.public import MenuView, PromptView, TableView
from dialbox.displays.tablefeed import menu_view, table_view
from dialbox.table import (
    EventState,
    LinkInfo,
    PromptState,
    ResultState,
    RevealState,
    SeatState,
    TableState,
)
from dialbox.table.state import MenuState, MenuWheel

NAMES = [("Red", "e53935"), ("Blue", "1e88e5"), ("Green", "43a047")]
GAMES = MenuWheel(label="Game", faces=("Pixoid", "Outspeed", "Stadium"), allowed=(0, 2), at=2)
PLAYERS = MenuWheel(label="Players", faces=("2", "3", "4"), allowed=(0, 1, 2), at=1)


def seat(i: int, kind: str = "controller", player: str | None = None,
         online: bool = True) -> SeatState:
    return SeatState.model_validate({
        "seat": i, "name": NAMES[i][0], "colour": NAMES[i][1], "kind": kind,
        "uid": f"c{i}" if kind == "controller" else None, "online": online, "player": player})


def menu(**changes: Any) -> MenuState:
    base: dict[str, Any] = {
        "stage": "vote", "text": "Play Stadium, 3 players?", "chooser": 1,
        "wheels": (GAMES, PLAYERS, None),
        "choice": {"game": "stadium", "title": "Stadium", "players": 3, "variant": "",
                   "bot": "heuristic", "options": {"talk": True, "short": False}},
        "voters": (0, 2), "votes": ((0, True),), "note": "Blue opened the menu", "games": 2,
        "last": {"game": "pixoid", "title": "Pixoid", "number": 2, "text": "Red wins 12 to 9"},
    }
    base.update(changes)
    return MenuState.model_validate(base)


def menu_state(**changes: Any) -> TableState:
    base: dict[str, Any] = {
        "table": "t", "game": "pixoid", "phase": "menu", "menu": menu(), "number": 3,
        "seats": (seat(0, player="Anna"), seat(1, player="Bo"), seat(2, kind="bot")),
    }
    base.update(changes)
    return TableState(**base)


def test_the_menu_maps_field_by_field() -> None:
    v = table_view(menu_state())
    assert v.stage == "menu" and v.prompt is None and v.reveal is None
    assert v.game == "pixoid" and v.number == 3
    m = v.menu
    assert isinstance(m, MenuView)
    assert (m.stage, m.text, m.chooser, m.note, m.games) == (
        "vote", "Play Stadium, 3 players?", 1, "Blue opened the menu", 2)
    left, centre, right = m.wheels
    assert left is not None and centre is not None and right is None
    assert (left.label, left.faces, left.allowed, left.at) == (
        "Game", ("Pixoid", "Outspeed", "Stadium"), (0, 2), 2)
    assert (centre.label, centre.at) == ("Players", 1)
    assert m.choice["title"] == "Stadium" and m.choice["options"] == {"talk": True,
                                                                        "short": False}
    assert m.voters == (0, 2)
    assert [(x.seat, x.yes) for x in m.votes] == [(0, True)]
    assert m.last is not None
    assert (m.last.game, m.last.title, m.last.number, m.last.text) == (
        "pixoid", "Pixoid", 2, "Red wins 12 to 9")


def test_the_menu_reaches_browsers_as_json() -> None:
    state = table_view(menu_state()).frame()["state"]
    assert state["stage"] == "menu" and state["number"] == 3
    assert state["menu"]["wheels"][0]["at"] == 2 and state["menu"]["wheels"][2] is None
    assert state["menu"]["votes"] == [{"seat": 0, "yes": True}]
    assert [s["player"] for s in state["seats"]] == ["Anna", "Bo", None]
    assert TableView.model_validate(state) == table_view(menu_state())


def test_the_wheel_followed_as_it_turns() -> None:
    for at in (0, 1, 2):
        wheel = GAMES.model_copy(update={"at": at})
        v = table_view(menu_state(menu=menu(stage="game", wheels=(wheel, None, None))))
        assert v.menu is not None and v.menu.wheels[0] is not None
        assert v.menu.wheels[0].at == at


@pytest.mark.parametrize(("last", "text"), [
    ({"game": "stadium", "title": "Stadium", "number": 1, "result": "Blue Starz win"},
     "Blue Starz win"),
    ({"game": "stadium", "title": "Stadium", "number": 1,
      "result": {"text": "Red Sunz win", "scores": {}}}, "Red Sunz win"),
    ({"game": "stadium"}, ""),
])
def test_the_previous_game_with_its_result_in_words(last: dict[str, Any], text: str) -> None:
    m = menu_view(menu(last=last))
    assert m.last is not None and m.last.text == text and m.last.game == "stadium"
    assert m.last.title == last.get("title", "stadium")


def test_an_idle_menu_before_any_game() -> None:
    idle = menu(stage="idle", text="Press to open the menu", chooser=None,
                wheels=(None, None, None), choice={}, voters=(), votes=(), note="", games=0,
                last=None)
    v = table_view(menu_state(game="", menu=idle, number=1, over=False))
    assert v.stage == "menu" and v.game is None
    assert v.menu is not None and v.menu.chooser is None and v.menu.last is None
    assert v.menu.wheels == (None, None, None) and v.menu.games == 0


def test_the_menu_shows_no_prompt_reveal_or_void_of_the_last_game() -> None:
    """What the runner still holds of the last game stays off the menu's screen."""
    old = RevealState.model_validate({"pid": 4, "kind": "sealed", "choices": ((0, "N 3"),),
                                      "summary": "moved", "text": {0: "Move"}})
    st = menu_state(
        reveals=(old,), revealed=old,
        events=(EventState(kind="prompt.void", text="seat 1's reveal did not match"),),
        over=True, result=ResultState(scores={0: 1, 1: 0}, winners=(0,), text="Red wins"),
    )
    v = table_view(st)
    assert v.stage == "menu" and v.reveal is None and v.prompt is None
    assert not any(n.code == "void" for n in v.notices)
    assert table_view(st, reveal_of=old).reveal is None


def test_an_offline_controller_in_the_menu_is_told() -> None:
    v = table_view(menu_state(seats=(seat(0, online=False), seat(1), seat(2, kind="bot"))))
    assert v.seats[0].status == "offline"
    notice = next(n for n in v.notices if n.code == "offline")
    assert "Red's controller (c0) is offline" in notice.text and "menu" in notice.text


def test_while_the_menu_is_idle_controllers_may_sleep() -> None:
    """As after a game: nobody is asked anything, so a controller away is no alarm."""
    idle = menu(stage="idle", chooser=None, wheels=(None, None, None), voters=(), votes=())
    v = table_view(menu_state(menu=idle, seats=(seat(0, online=False), seat(1))))
    assert v.seats[0].status == "waiting" and not v.notices


def test_player_names_in_a_game() -> None:
    p = PromptState.model_validate({"pid": 7, "kind": "sealed", "phase": "open",
                                    "seats": (0, 1), "locked": (1,), "text": {0: "Move",
                                                                              1: "Move"}})
    st = TableState(table="t", game="pixoid", number=4, prompt=p, view={"round": 1},
                    seats=(seat(0, player="Anna"), seat(1), seat(2, kind="bot")))
    v = table_view(st, {"c0": LinkInfo("serial", "1.0.0", 0.4, 3.0, 0)})
    assert v.stage == "playing" and v.menu is None and v.number == 4
    assert [s.player for s in v.seats] == ["Anna", None, None]
    assert [s.name for s in v.seats] == ["Red", "Blue", "Green"]  # the colour stays the name


def test_a_game_state_has_no_menu_and_keeps_its_stage() -> None:
    st = TableState(table="t", game="pixoid", seats=(seat(0),), menu=menu())
    v = table_view(st)  # phase "game": the menu is not the table's business now
    assert v.stage == "lobby" and v.menu is None and v.game == "pixoid"


def test_the_view_refuses_a_menu_outside_the_menu_stage() -> None:
    m = menu_view(menu())
    with pytest.raises(ValidationError, match="stage menu"):
        TableView(stage="playing", menu=m)
    asks = ()
    open_prompt = PromptView(pid=1, sealed=True, topic="", text="Move", asks=asks)
    with pytest.raises(ValidationError, match="no game prompt"):
        TableView(stage="menu", menu=m, prompt=open_prompt)
    assert TableView(stage="menu", menu=m).menu == m
