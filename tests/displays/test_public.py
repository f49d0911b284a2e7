"""The public table state refuses to carry a choice before its prompt is revealed."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dialbox.displays.public import (
    AskView,
    ChoiceView,
    FaceView,
    PromptView,
    SeatView,
    TableView,
)

CHOICE = ChoiceView(seat=0, faces=(FaceView(wheel="left", label="E"),), text="E")
ASKS = (AskView(seat=0, text="Move", status="locked"),)


@pytest.mark.parametrize("phase", ["open", "alllocked", "void"])
def test_no_choices_before_the_reveal(phase: str) -> None:
    with pytest.raises(ValidationError, match="sealed until revealed"):
        PromptView(pid=3, sealed=True, topic="t", text="Move", asks=ASKS, phase=phase,  # type: ignore[arg-type]
                   choices=(CHOICE,))


def test_revealed_prompt_carries_choices() -> None:
    p = PromptView(pid=3, sealed=True, topic="t", text="Move", asks=ASKS, phase="revealed",
                   choices=(CHOICE,))
    assert p.choices[0].text == "E"


def test_reveal_slot_holds_only_revealed_prompts() -> None:
    open_prompt = PromptView(pid=1, sealed=True, topic="t", text="x", asks=ASKS)
    with pytest.raises(ValidationError):
        TableView(reveal=open_prompt)


def test_frame_is_json_with_seats() -> None:
    v = TableView(seats=(SeatView(seat=0, name="Red", colour="e53935", occupant="bot",
                                  status="waiting"),))
    f = v.frame()
    assert f["type"] == "table"
    assert f["state"]["seats"][0]["colour"] == "e53935"


def test_bad_colour_is_refused() -> None:
    with pytest.raises(ValidationError):
        SeatView(seat=0, name="Red", colour="#e53935")


def test_a_seat_names_its_player_and_the_menu_is_a_stage() -> None:
    from dialbox.displays.public import MenuView, MenuWheelView, VoteView

    red = SeatView(seat=0, name="Red", colour="e53935", occupant="controller",
                   status="waiting", player="Anna")
    menu = MenuView(stage="vote", text="Play Pixoid?", chooser=0,
                    wheels=(MenuWheelView(label="Game", faces=("Pixoid",), at=0), None, None),
                    voters=(1,), votes=(VoteView(seat=1, yes=True),))
    state = TableView(stage="menu", seats=(red,), menu=menu, number=2).frame()["state"]
    assert state["seats"][0]["player"] == "Anna" and state["seats"][0]["name"] == "Red"
    assert state["stage"] == "menu" and state["menu"]["votes"] == [{"seat": 1, "yes": True}]
    assert SeatView(seat=1, name="Blue", colour="1e88e5").player is None
    with pytest.raises(ValidationError):
        MenuWheelView(label="Game", faces=("Pixoid",), at=-1)
