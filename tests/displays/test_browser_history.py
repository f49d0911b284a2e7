"""The table screen's past games: `/history`, `/api/history`, and the replay page.

A real journal is made by the game runner with bots in every seat (as tests/host/test_runner.py
plays a game): table t1 plays Pixoid, then a second game started the way the console starts
one (`GameStart`), and table t2 plays Outspeed. The screen, given the journal, lists them and
replays one step by step in Chromium, drawn by the live screen's own renderers; unknown
tables and games are 404 with a one-line JSON error. Screenshots land in
artifacts/displays/history-*.png (gitignored).
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.screen import STATIC, TableScreen
from dialbox.journal import Journal
from dialbox.runner import GameRunner, TableSettings
from dialbox.runner.runner import GameStart, SeatPlan
from tests.displays.helpers import artifacts, chromium_page

pytestmark = [pytest.mark.timeout(180)]

GAMES = [("t1", 1, "pixoid"), ("t1", 2, "stadium"), ("t2", 1, "outspeed")]


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal of three finished games of bots."""
    path = tmp_path_factory.mktemp("history") / "dialbox.db"
    j = Journal(path)
    first = GameRunner(TableSettings("t1", "pixoid", 4, seed=3, bots=[0, 1, 2, 3]), j)
    assert first.game.over
    second = GameRunner(
        TableSettings("t1", "stadium", 4, seed=4, bots=[0, 1, 2, 3]), j,
        start=GameStart(first_pid=10**6, how="rematch",
                        seats=tuple(SeatPlan(bot=True) for _ in range(4))))
    assert second.game.over
    other = GameRunner(TableSettings("t2", "outspeed", 3, seed=5, bots=[0, 1, 2]), j)
    assert other.game.over
    j.close()
    return path


@asynccontextmanager
async def serving(journal: Path | None) -> AsyncIterator[TableScreen]:
    screen = TableScreen(PublicFeed(), journal=journal)
    server = asyncio.create_task(screen.serve())
    try:
        while not screen.server.started:
            await asyncio.sleep(0.01)
        yield screen
    finally:
        screen.stop()
        await asyncio.wait_for(server, 10)


def get(url: str) -> tuple[int, str, bytes]:
    """status, content type, body"""
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.headers.get("content-type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("content-type", ""), e.read()


async def fetch_all(journal: Path | None, paths: list[str]) -> dict[str, tuple[int, str, bytes]]:
    async with serving(journal) as screen:
        base = screen.url.rstrip("/")
        return {p: await asyncio.to_thread(get, base + p) for p in paths}


# ---------------------------------------------------------------- the JSON routes

def test_the_journal_games_as_json(journal: Path) -> None:
    got = asyncio.run(fetch_all(journal, ["/api/history", "/api/history?table=t2",
                                          "/api/history/t1/1"]))
    status, kind, body = got["/api/history"]
    assert status == 200 and kind.startswith("application/json")
    games = json.loads(body)
    assert [(g["table"], g["number"], g["game"]) for g in games] == GAMES
    assert all(g["finished"] and g["result"]["text"] for g in games)
    assert [g["how"] for g in games] == ["config", "rematch", "config"]
    assert [p["kind"] for p in games[0]["players"]] == ["bot"] * 4
    assert [g["table"] for g in json.loads(got["/api/history?table=t2"][2])] == ["t2"]

    status, _kind, body = got["/api/history/t1/1"]
    assert status == 200
    rp = json.loads(body)
    assert (rp["table"], rp["number"], rp["title"], rp["hash_ok"]) == ("t1", 1, "Pixoid", True)
    assert rp["game"]["steps"] == len(rp["steps"]) > 10
    views = [TableView.model_validate(rp["start"])] + [
        TableView.model_validate(s["view"]) for s in rp["steps"]]
    assert [v.seq for v in views] == list(range(len(views)))
    assert [s["step"] for s in rp["steps"]] == list(range(1, len(views)))
    assert all(v.game == "pixoid" and v.board for v in views)
    assert views[-1].stage == "over" and views[-1].result is not None
    assert views[-1].result.text == games[0]["result"]["text"]
    assert not any(n.code == "offline" for v in views for n in v.notices)


@pytest.mark.parametrize(("path", "error"), [
    ("/api/history/t9/1", "no table 't9' (tables: t1, t2)"),
    ("/api/history/t1/3", "table t1 has no game 3"),
    ("/api/history/t2/0", "table t2 has no game 0"),
    ("/api/history/t1/two", "no game 'two'"),
])
def test_an_unknown_table_or_game_is_404_with_one_line(journal: Path, path: str,
                                                       error: str) -> None:
    status, kind, body = asyncio.run(fetch_all(journal, [path]))[path]
    assert status == 404 and kind.startswith("application/json")
    text = body.decode()
    assert "\n" not in text.strip() and error in json.loads(text)["error"]
    assert str(journal.parent) not in text  # no server path on the network


def test_the_replay_page_is_404_for_an_unknown_game(journal: Path) -> None:
    got = asyncio.run(fetch_all(journal, ["/replay/t1/5", "/replay/t3/1", "/replay/t1/1",
                                          "/"]))
    assert 'href="/history"' in got["/"][2].decode()  # the live page links its past games
    assert got["/replay/t1/5"][0] == 404 and got["/replay/t3/1"][0] == 404
    status, _kind, page = got["/replay/t1/1"]
    assert status == 200
    text = page.decode()
    assert 'data-mode="replay"' in text and 'data-table="t1"' in text
    assert "/static/replay.js" in text and "/games/pixoid/board.js" in text


def test_a_screen_without_a_journal_says_so() -> None:
    got = asyncio.run(fetch_all(None, ["/api/history", "/api/history/t1/1", "/replay/t1/1",
                                       "/history", "/"]))
    assert "/history" not in got["/"][2].decode()
    for path in ("/api/history", "/api/history/t1/1"):
        assert got[path][0] == 404
        assert json.loads(got[path][2]) == {"error": "this table screen has no journal"}
    assert got["/replay/t1/1"][0] == 404
    assert got["/history"][0] == 200  # the page says there is nothing to list


def test_a_file_that_is_not_a_journal_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a journal")
    status, _kind, body = asyncio.run(fetch_all(bad, ["/api/history"]))["/api/history"]
    assert status == 500
    error = json.loads(body)["error"]
    assert error.startswith("journal notes.txt: ") and str(tmp_path) not in error


def test_the_history_pages_need_no_network() -> None:
    for name in ("history.html", "history.js", "replay.js"):
        text = (STATIC / name).read_text()
        assert "http://" not in text and "https://" not in text and "//cdn" not in text


# ---------------------------------------------------------------- in Chromium

STEP = "() => window.dialboxReplay"
LAST_SEQ = "() => (window.dialbox.log.at(-1) || {seq: null}).seq"
"""The seq of the state the page drew last (screen.js's log)."""


async def browse(journal: Path, profile: Path) -> dict[str, Any]:
    shots = artifacts()
    seen: dict[str, Any] = {}
    async with serving(journal) as screen, chromium_page(profile) as (page, _frames, errors):
        replay_json = json.loads((await asyncio.to_thread(
            get, screen.url + "api/history/t1/1"))[2])
        views = [replay_json["start"]] + [s["view"] for s in replay_json["steps"]]
        seen["steps"] = len(views) - 1

        # The list of games.
        await page.goto(screen.url + "history")
        await page.wait_for_selector("#history tbody tr")
        seen["rows"] = await page.eval_on_selector_all(
            "#history tbody tr",
            "els => els.map(e => [e.dataset.table, Number(e.dataset.number), e.dataset.game,"
            " e.querySelector('a.replay').getAttribute('href'), e.innerText])")
        seen["status"] = await page.inner_text("#history-status")
        await page.screenshot(path=shots / "history-1-list.png")

        # Its replay link opens the replay page, at the start.
        await page.click('#history tr[data-table=t1][data-number="1"] a.replay')
        await page.wait_for_function("() => window.dialboxReplay && window.dialboxReplay.ready")
        seen["url"] = page.url
        seen["start"] = [await page.inner_text("#replay-step"),
                         await page.evaluate(LAST_SEQ),
                         await page.is_disabled("#replay-prev")]
        seen["title"] = await page.inner_text("#replay-title")
        seen["check"] = await page.inner_text("#replay-check")

        # Forward, forward, back: the counter, the page's own log and the board follow.
        seen["walk"] = []
        for button in ("#replay-next", "#replay-next", "#replay-next", "#replay-prev"):
            await page.click(button)
            at = (await page.evaluate(STEP))["at"]
            await page.wait_for_selector(f'#replay-bar[data-step="{at}"]')
            reveal = await page.get_attribute("#reveal", "data-pid")
            shown_reveal = None if await page.is_hidden("#reveal") else reveal
            seen["walk"].append({
                "at": at, "counter": await page.inner_text("#replay-step"),
                "seq": await page.evaluate(LAST_SEQ),
                "board": await page.locator("svg[data-board=pixoid]").count(),
                "reveal": None if shown_reveal is None else int(shown_reveal),
                "events": await page.locator("#event-list li").count(),
            })
        await page.screenshot(path=shots / "history-2-replay.png")

        # The keyboard steps too.
        await page.focus("body")
        await page.keyboard.press("ArrowRight")
        await page.wait_for_selector('#replay-bar[data-step="3"]')

        # The slider to the end: the final scores.
        last = len(views) - 1
        await page.eval_on_selector(
            "#replay-slider",
            "(e, v) => { e.value = v; e.dispatchEvent(new Event('input')); }", last)
        await page.wait_for_selector(f'#replay-bar[data-step="{last}"]')
        await page.wait_for_selector("#result:not([hidden])")
        seen["end"] = [await page.inner_text("#replay-step"), await page.inner_text("#result"),
                       await page.is_disabled("#replay-next"), await page.evaluate(LAST_SEQ)]
        await page.screenshot(path=shots / "history-3-end.png")

        # Play from the end starts again from the start and goes on by itself; pause stops.
        await page.click("#replay-play")
        await page.wait_for_function("() => window.dialboxReplay.at >= 2")
        await page.click("#replay-play")
        await page.wait_for_selector('#replay-bar[data-playing="no"]')
        seen["paused"] = await page.inner_text("#replay-play")

        seen["views"] = [{"reveal": (v["reveal"] or {}).get("pid"), "events": len(v["events"]),
                          "stage": v["stage"]} for v in views]
        seen["errors"] = list(errors)
    return seen


def test_the_history_page_and_a_replay_in_chromium(journal: Path, tmp_path: Path) -> None:
    seen = asyncio.run(browse(journal, tmp_path / "chromium-profile"))
    assert seen["errors"] == []

    rows = seen["rows"]
    assert sorted((t, n, g) for t, n, g, _href, _text in rows) == sorted(GAMES)
    assert {(t, n): href for t, n, _g, href, _text in rows} == {
        ("t1", 1): "/replay/t1/1", ("t1", 2): "/replay/t1/2", ("t2", 1): "/replay/t2/1"}
    t1 = next(text for t, n, _g, _h, text in rows if (t, n) == ("t1", 1))
    assert "Pixoid" in t1 and "Red (bot)" in t1 and "wins" in t1
    assert seen["status"] == "3 games."

    assert seen["url"].endswith("/replay/t1/1")
    assert seen["title"] == "Pixoid — game 1 of t1"
    assert seen["check"].startswith("✓")
    counter, seq, prev_disabled = seen["start"]
    assert counter == f"Start ({seen['steps']} steps)" and seq == 0 and prev_disabled

    views = seen["views"]
    assert [w["at"] for w in seen["walk"]] == [1, 2, 3, 2]
    for w in seen["walk"]:
        assert w["counter"] == f"Step {w['at']} of {seen['steps']}"
        assert w["seq"] == w["at"]
        assert w["board"] == 1  # drawn by Pixoid's own board.js
        assert w["reveal"] == views[w["at"]]["reveal"]
        assert w["events"] == min(14, views[w["at"]]["events"])

    counter, result, next_disabled, seq = seen["end"]
    assert counter == f"Step {seen['steps']} of {seen['steps']}" and next_disabled
    assert seq == seen["steps"] and "Final scores" in result and "wins" in result
    assert "null" not in result and "undefined" not in result
    assert views[-1]["stage"] == "over"
    assert seen["paused"] == "▶ play"
