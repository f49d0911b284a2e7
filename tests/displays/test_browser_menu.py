"""The console's menu on the table screen, drawn by Chromium as the chooser turns the wheels.

The screen is fed TableStates of a menu in progress, through the same adapter the daemon's
displays use (`tablefeed.table_view`): Blue picks the game (the left wheel's face moving
0 -> 1 -> 2), sets the players up, then the others vote. The page must follow: the
highlighted face is the one the wheel shows, the question, the chooser, the votes as they
arrive, the note and the previous game's result; the seat cards name the players. Then the
chosen game starts and the menu gives way to the board. Screenshots land in
artifacts/displays/menu-*.png (gitignored).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.tablefeed import table_view
from dialbox.table import PromptState, ResultState, SeatState, TableState
from dialbox.table.state import MenuState, MenuWheel
from tests.displays.helpers import READ_LOG, artifacts, screen_page

pytestmark = [pytest.mark.timeout(120)]

SEATS = (
    SeatState(seat=0, name="Red", colour="e53935", kind="controller", uid="c0", online=True,
              player="Anna"),
    SeatState(seat=1, name="Blue", colour="1e88e5", kind="controller", uid="c1", online=True,
              player="Bo"),
    SeatState(seat=2, name="Green", colour="43a047", kind="controller", uid="c2", online=True),
)
GAME_FACES = ("Pixoid", "Outspeed", "Stadium", "PIP Cycle")
LAST = {"game": "pixoid", "title": "Pixoid", "number": 1, "text": "Anna wins 14 to 9"}
CHOICE = {"game": "stadium", "title": "Stadium", "players": 3, "variant": "Standard",
          "bot": "heuristic", "options": {"talk": True, "short track": False}}


def at_menu(**menu: Any) -> TableState:
    base: dict[str, Any] = {"stage": "game", "text": "Choose a game", "chooser": 1,
                            "note": "Bo opened the menu", "games": 1, "last": LAST}
    base.update(menu)
    return TableState(table="t", game="pixoid", seats=SEATS, phase="menu", number=1,
                      menu=MenuState.model_validate(base))


def just_over() -> TableState:
    """The game has just ended: the table's menu is idle, the last result still in the
    state (as the daemon publishes it)."""
    state = at_menu(stage="idle", text="Press to open the menu, rematch, swap roles or take "
                    "a name", chooser=None, note="", last={**LAST, "result": LAST["text"]})
    return state.model_copy(update={"over": True, "result": ResultState(
        scores={0: 14, 1: 9, 2: 9}, winners=(0,), text="Anna wins 14 to 9")})


def choosing(at: int) -> TableState:
    wheel = MenuWheel(label="Game", faces=GAME_FACES, allowed=(0, 1, 2), at=at)
    return at_menu(wheels=(wheel, None, None), choice={"game": GAME_FACES[at].lower()})


def setting_up() -> TableState:
    return at_menu(stage="setup", text="Stadium: players and bots", wheels=(
        MenuWheel(label="Players", faces=("2", "3", "4"), allowed=(1, 2), at=1),
        MenuWheel(label="Variant", faces=("Standard", "Short"), allowed=(0, 1), at=0),
        MenuWheel(label="Bots", faces=("random", "heuristic"), allowed=(0, 1), at=1),
    ), choice={"game": "stadium", "title": "Stadium"})


def voting(*votes: tuple[int, bool], note: str = "Bo asks the table") -> TableState:
    return at_menu(stage="vote", text="Play Stadium, 3 players?", choice=CHOICE,
                   voters=(0, 2), votes=votes, note=note)


WHEEL_AT = """els => els.map(e => [e.dataset.wheel, e.dataset.at === undefined ? null
    : Number(e.dataset.at), (e.querySelector('.mface.at') || {}).textContent || null])"""
FACES = """els => els.map(e => [e.textContent, e.classList.contains('at'),
    e.classList.contains('off'), e.getAttribute('aria-current')])"""
VOTES = "els => els.map(e => [Number(e.dataset.voteSeat), e.dataset.vote, e.textContent])"


async def follow_menu(profile: Path) -> dict[str, Any]:
    shots = artifacts()
    seen: dict[str, Any] = {}
    async with screen_page(profile) as (page, feed, _frames, errors):

        # The game has just ended: its final scores stay up while the menu is idle.
        feed.publish(table_view(just_over()))
        await page.wait_for_selector("#result:not([hidden])")
        seen["idle"] = [await page.inner_text("#result"), await page.inner_text("#menu"),
                        await page.inner_text("#menu .mchooser")]
        await page.screenshot(path=shots / "menu-0-idle.png")

        # The chooser turns the left wheel: the highlight follows it, face by face.
        seen["turning"] = []
        for at in (0, 1, 2):
            feed.publish(table_view(choosing(at)))
            await page.wait_for_selector(
                f'#menu .mwheel[data-wheel=left][data-at="{at}"] '
                f'.mface.at[data-face="{at}"]')
            seen["turning"].append(await page.eval_on_selector_all(
                "#menu .mwheel[data-wheel=left] .mface", FACES))
            if at == 1:
                await page.screenshot(path=shots / "menu-1-game.png")
        seen["result-hidden"] = await page.is_hidden("#result")
        seen["question"] = await page.inner_text("#menu-question")
        seen["chooser"] = await page.inner_text("#menu .mchooser")
        seen["chooser-seat"] = await page.get_attribute("#menu .mchooser", "data-chooser")
        seen["note"] = await page.inner_text("#menu .mnote")
        seen["last"] = await page.inner_text("#menu .mlast")
        seen["stage"] = await page.inner_text("#stage")
        seen["hidden"] = [await page.is_hidden(sel) for sel in ("#lobby", "#reveal")]
        seen["board"] = await page.inner_html("#board")
        seen["seats"] = await page.eval_on_selector_all(
            "#seats .seat .who", "els => els.map(e => e.textContent)")
        seen["said"] = await page.inner_text("#menu-say")
        seen["wheel-name"] = await page.get_attribute(
            "#menu .mwheel[data-wheel=left]", "aria-label")

        # Setup: three wheels at once.
        feed.publish(table_view(setting_up()))
        await page.wait_for_selector("#menu[data-stage=setup]")
        seen["setup"] = await page.eval_on_selector_all("#menu .mwheel", WHEEL_AT)
        seen["setup-question"] = await page.inner_text("#menu-question")
        await page.screenshot(path=shots / "menu-2-setup.png")

        # The vote: every voter still to vote, then the votes as they arrive.
        seen["votes"] = []
        for votes in ((), ((0, True),), ((0, True), (2, False))):
            feed.publish(table_view(voting(*votes)))
            await page.wait_for_function(
                """n => document.querySelector('#menu[data-stage=vote]') &&
                   document.querySelectorAll('#menu [data-vote]:not([data-vote=pending])')
                   .length === n""", arg=len(votes))
            seen["votes"].append(await page.eval_on_selector_all(
                "#menu [data-vote-seat]", VOTES))
            if len(votes) == 1:
                await page.screenshot(path=shots / "menu-3-vote.png")
        seen["tally"] = await page.inner_text("#menu .mtally")
        seen["choice"] = await page.inner_text("#menu .mchoice")
        seen["vote-question"] = await page.inner_text("#menu-question")
        seen["vote-wheels"] = await page.locator("#menu .mwheels").count()
        seen["menu-text"] = [seen["chooser"], await page.inner_text("#menu")]
        seen["title"] = await page.inner_text("#game-title")

        # The game starts: the menu gives way to the board and the prompt.
        prompt = PromptState(pid=9, kind="sealed", phase="open", seats=(0, 1, 2),
                             text={0: "Move", 1: "Move", 2: "Move"})
        feed.publish(table_view(TableState(
            table="t", game="nosuchgame", seats=SEATS, number=2, prompt=prompt,
            view={"round": 1})))
        await page.wait_for_selector("[data-board=generic]")
        seen["after"] = {
            "menu-hidden": await page.is_hidden("#menu"),
            "stage": await page.inner_text("#stage"),
            "chips": await page.eval_on_selector_all(
                "#prompt .chip", "els => els.map(e => e.textContent)"),
        }
        seen["log"] = await page.evaluate(READ_LOG)
        seen["errors"] = list(errors)
    return seen


def test_the_screen_follows_the_menu(tmp_path: Path) -> None:
    seen = asyncio.run(follow_menu(tmp_path / "chromium-profile"))
    assert seen["errors"] == []

    result, idle, nobody = seen["idle"]
    assert "Final scores" in result and "Anna (Red)" in result and "next game" in result
    assert "Press to open the menu" in idle and "Anna wins 14 to 9" in idle
    assert "seated controller can open" in nobody
    assert seen["result-hidden"]  # the menu is open: the scores make way for it

    # The highlighted face is the one the chooser's wheel shows, as it turns.
    for at, faces in enumerate(seen["turning"]):
        assert [f[0].replace(" (not available)", "") for f in faces] == list(GAME_FACES)
        assert [f[1] for f in faces] == [i == at for i in range(4)]
        assert [f[3] for f in faces] == ["true" if i == at else None for i in range(4)]
        assert [f[2] for f in faces] == [False, False, False, True]  # PIP Cycle: dimmed
    menus = [e["menu"] for e in seen["log"] if e["menu"] is not None]
    assert [m["stage"] for m in menus[:1]] == ["idle"] and menus[0]["at"] == []
    assert [m["at"][0] for m in menus if m["stage"] == "game"] == [0, 1, 2]

    assert seen["question"] == "Choose a game"
    assert seen["chooser-seat"] == "1" and "Bo (Blue)" in seen["chooser"]
    assert "choosing" in seen["chooser"]
    assert seen["note"] == "Bo opened the menu"
    assert "Pixoid" in seen["last"] and "Anna wins 14 to 9" in seen["last"]
    assert "#1" in seen["last"]
    assert seen["stage"] == "menu"
    assert seen["hidden"] == [True, True] and seen["board"] == ""
    assert seen["seats"] == ["Anna Red", "Bo Blue", "Green"]
    assert "Choose a game" in seen["said"] and "Game: Stadium" in seen["said"]
    assert seen["wheel-name"] == "left wheel: Game, showing Stadium"

    assert seen["setup"] == [["left", 1, "3"], ["centre", 0, "Standard"],
                             ["right", 1, "heuristic"]]
    assert seen["setup-question"] == "Stadium: players and bots"

    first, second, third = seen["votes"]
    assert [(s, v) for s, v, _ in first] == [(0, "pending"), (2, "pending")]
    assert [(s, v) for s, v, _ in second] == [(0, "yes"), (2, "pending")]
    assert [(s, v) for s, v, _ in third] == [(0, "yes"), (2, "no")]
    assert "Anna (Red)" in third[0][2] and "yes" in third[0][2]
    assert "Green" in third[1][2] and "no" in third[1][2]
    assert "still to vote" in second[1][2]
    assert seen["tally"] == "1 for, 1 against"
    assert seen["vote-question"] == "Play Stadium, 3 players?"
    assert seen["vote-wheels"] == 0
    assert seen["title"] == "Next: Stadium"
    for text in seen["menu-text"]:
        assert "null" not in text and "undefined" not in text and "[object" not in text
    for part in ("Stadium", "3", "Standard", "heuristic", "talk: on", "short track: off"):
        assert part in seen["choice"]

    assert seen["after"]["menu-hidden"] and seen["after"]["stage"] == "playing"
    assert any(c.startswith("Anna (Red)") for c in seen["after"]["chips"])
    for n in (1, 2, 3):
        assert (artifacts() / f"menu-{n}-{('game', 'setup', 'vote')[n - 1]}.png").exists()
