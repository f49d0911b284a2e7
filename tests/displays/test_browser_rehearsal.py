"""The table screen in Chromium on the rehearsal table: moments held still to look at them.

The rehearsal waits for the test at each moment, so this checks exactly what the page shows
when a controller drops offline, when all lock and at the reveal, plus every WebSocket frame
and the final scores. test_browser.py plays the same page against the real daemon.
Screenshots land in artifacts/displays/ (gitignored).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.feed import PublicFeed
from dialbox.displays.public import TableView
from dialbox.displays.rehearsal import Rehearsal, choice_of
from dialbox.displays.show import Displays
from dialbox.engine import Decision, Selection
from tests.displays.helpers import (
    CHIP_STATUSES,
    CHOICES_SHOWN,
    READ_LOG,
    artifacts,
    assert_sealed_until_revealed,
    chromium_page,
    table_frames,
)

pytestmark = [
    pytest.mark.timeout(120),
]

GAME = "stadium"
"""One game is enough here (test_browser.py plays all three against the daemon)."""


async def play_in_browser(game: str, profile: Path) -> dict[str, Any]:
    shots = artifacts()
    feed = PublicFeed()
    answers: dict[int, Mapping[int, Selection]] = {}
    asks: dict[int, Any] = {}
    looked: dict[str, int] = {}

    async with chromium_page(profile) as (page, frames, errors):

        async def at_moment(view: TableView) -> None:
            """Look at the page when a controller drops, and when all lock and at the reveal."""
            p = view.prompt
            assert p is not None
            if view.notices and "offline" not in looked:
                await page.wait_for_selector(".notice.error")
                assert "offline" in await page.inner_text("#notices")
                await page.screenshot(path=shots / f"rehearsal-{game}-4-offline.png")
                looked["offline"] = p.pid
                return
            if not p.sealed or looked.get("alllocked", p.pid) != p.pid:
                return
            if p.phase == "alllocked":
                await page.wait_for_selector(
                    f'#prompt[data-pid="{p.pid}"][data-phase="alllocked"]')
                chips = await page.eval_on_selector_all(
                    "#prompt .chip", CHIP_STATUSES)
                assert chips and set(chips) == {"locked"}
                assert await page.is_visible("#alllocked")
                assert "All locked" in await page.inner_text("#alllocked")
                shown = await page.get_attribute("#reveal", "data-pid")
                assert shown is None or int(shown) < p.pid  # nothing of this prompt yet
                await page.screenshot(path=shots / f"rehearsal-{game}-2-alllocked.png")
                looked["alllocked"] = p.pid
            elif p.phase == "revealed" and "revealed" not in looked:
                await page.wait_for_selector(f'#reveal[data-pid="{p.pid}"]')
                shown_choices = await page.eval_on_selector_all("#reveal .choice",
                                                                CHOICES_SHOWN)
                # every seat's choice, in the game's words (its meaning, never empty)
                assert sorted(s for s, _t in shown_choices) == sorted(a.seat for a in asks[p.pid])
                assert all(t and t != "-" for _s, t in shown_choices), shown_choices
                assert all(choice_of(a, answers[p.pid][a.seat]).faces for a in asks[p.pid])
                assert not await page.is_visible("#alllocked")
                await page.wait_for_timeout(800)  # let the cards finish turning over
                await page.screenshot(path=shots / f"rehearsal-{game}-3-reveal.png")
                looked["revealed"] = p.pid

        def keep(pid: int, d: Decision, chosen: Mapping[int, Selection]) -> None:
            asks[pid] = d.asks
            answers[pid] = chosen

        rehearsal = Rehearsal(feed, game, players=4, seed=7, pace=0.25, controllers=3,
                              drop_seat=1, on_answers=keep, on_moment=at_moment)

        async with Displays(feed) as displays:
            assert displays.url is not None
            await page.goto(displays.url)
            await page.wait_for_selector("#link.ok")
            playing = asyncio.create_task(rehearsal.run())
            await page.wait_for_selector("#lobby .pair")
            await page.screenshot(path=shots / f"rehearsal-{game}-1-lobby.png")
            rehearsal.pace = 0.02
            await playing
            await page.wait_for_selector("#result:not([hidden])")
            result_text = await page.inner_text("#result")
            await page.screenshot(path=shots / f"rehearsal-{game}-5-result.png")
            log = await page.evaluate(READ_LOG)
    return {"frames": frames, "log": log, "errors": errors, "answers": answers,
            "asks": asks, "result": result_text, "final": feed.latest, "looked": looked}


def test_a_rehearsal_game_on_the_table_screen(tmp_path: Path) -> None:
    game = GAME
    run = asyncio.run(play_in_browser(game, tmp_path / "chromium-profile"))
    assert run["errors"] == []
    assert set(run["looked"]) == {"alllocked", "revealed", "offline"}

    # Every WebSocket frame the page received, in order: never a choice before all-locked.
    tables = table_frames(run["frames"])
    assert tables and tables[-1]["stage"] == "over"
    assert_sealed_until_revealed(tables)
    revealed_at: dict[int, int] = {}
    alllocked_at: dict[int, int] = {}
    for i, st in enumerate(tables):
        p = st["prompt"]
        if p is not None and p["sealed"] and p["phase"] == "alllocked":
            alllocked_at.setdefault(p["pid"], i)
        if p is not None and p["phase"] == "revealed":
            revealed_at.setdefault(p["pid"], i)
            # each seat's faces as dialled, and what they mean (never empty)
            expected = sorted([a.seat, [f.label for f in choice_of(
                a, run["answers"][p["pid"]][a.seat]).faces]] for a in run["asks"][p["pid"]])
            assert sorted([c["seat"], [f["label"] for f in c["faces"]]]
                          for c in p["choices"]) == expected
            assert all(c["text"] and c["text"] != "-" for c in p["choices"])
    for pid, i in alllocked_at.items():
        assert revealed_at[pid] > i  # the reveal reached the page only after all-locked

    # What the page drew for each frame: at all-locked every asked seat locked and no choice
    # of that prompt on screen; at the reveal every choice at once.
    log = run["log"]
    for pid in alllocked_at:
        at_lock = [e for e in log if e["pid"] == pid and e["phase"] == "alllocked"]
        assert at_lock and all(e["allLockedShown"] for e in at_lock)
        assert all(e["revealPid"] != pid for e in at_lock)
        at_reveal = [e for e in log if e["revealPid"] == pid]
        assert at_reveal and len(at_reveal[0]["choices"]) == len(run["asks"][pid])

    # The offline controller was told in plain words, and the final scores were shown.
    assert any("Blue's controller is offline" in n for e in log for n in e["notices"])
    final = run["final"].result
    assert final is not None and final.text in run["result"]
    assert (artifacts() / f"rehearsal-{game}-3-reveal.png").stat().st_size > 10_000
