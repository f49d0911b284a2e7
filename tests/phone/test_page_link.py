"""The phone page's link and its other prompts, against the scripted host: a live open prompt
(`dial` at most one per 100 ms and always where the wheels rest, the answer sent on lock), a
dropped link (offline shown, reconnect with backoff, the session resumed with a new
snapshot), and a refused pairing (auth_failed: no more reconnects, "join again")."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from dialbox_protocol import codec
from tests.phone.page_helpers import CODE, ScriptedHost, chromium, serve
from tests.phone.test_page import wait_state

pytestmark = [pytest.mark.timeout(240)]

LIVE = [None, [[["Pixoid", 0, "e53935"], ["Stadium", 1, "43a047"], ["Outspeed", 2, "1e88e5"],
                ["PIP", 3, "fdd835"]], 0b1111, 0], None]


def test_live_prompt_dials_rate_limited_and_an_open_prompt_answers_on_lock(
        tmp_path: Path) -> None:
    host = ScriptedHost(seat=0)

    async def run() -> tuple[list[tuple[float, dict[str, Any]]], dict[str, Any], list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            await page.goto(f"{base}/phone?code={CODE}")
            link = await host.next_link()
            await link.expect("snapshot")
            await link.send("prompt", [20, False, False, "Next game?", LIVE, True])
            await wait_state(page, "programming")
            assert "Everyone sees this" in await page.text_content("#state-line")
            await page.focus(".wheel[data-wheel='1'] .window")
            dials: list[tuple[float, dict[str, Any]]] = []
            for _ in range(7):  # a fast spin: 7 faces on in ~70 ms
                await page.keyboard.press("ArrowDown")
            end = time.monotonic() + 1.0
            while time.monotonic() < end:
                try:
                    m = await asyncio.wait_for(link.expect("dial"), end - time.monotonic())
                except (TimeoutError, AssertionError):
                    break
                dials.append((time.monotonic(), m))
            await page.tap("#lock")
            reveal = await link.expect("reveal")
            return dials, reveal, errors

    dials, reveal, errors = asyncio.run(run())
    assert errors == []
    assert dials, "no dial frame for a live prompt"
    assert len(dials) <= 3, dials
    assert dials[-1][1]["sel"] == [-1, 3, -1], "the face the wheel rests on is always sent"
    ups = [m for m in host.up() if m["t"] == "dial"]
    assert all(m["pid"] == 20 for m in ups)
    assert reveal["sel"] == [-1, 3, -1] and len(codec.unb64(reveal["nonce"]) or b"") == 12


def test_a_dropped_link_shows_offline_then_resumes(tmp_path: Path) -> None:
    host = ScriptedHost(seat=0)

    async def run() -> tuple[list[str], dict[str, Any], list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            await page.goto(f"{base}/phone?code={CODE}")
            link = await host.next_link()
            await link.expect("snapshot")
            await page.wait_for_selector("#link.ok")
            await link.ws.close(1013, "try again later")
            await page.wait_for_selector("#link.bad")
            shown = [await page.text_content("#link")]
            link = await host.next_link()
            snap = await link.expect("snapshot")
            await page.wait_for_selector("#link.ok")
            shown.append(await page.text_content("#link"))
            return shown, snap, errors

    shown, snap, errors = asyncio.run(run())
    assert errors == []
    assert shown[0].startswith("offline — retrying in"), shown
    assert shown[1] == "online"
    assert snap["seq"] == 1 and snap["state"] == "idle"
    assert len(host.hellos) == 2 and host.hellos[0]["mac"] != host.hellos[1]["mac"]


def test_a_refused_pairing_stops_and_offers_to_join_again(tmp_path: Path) -> None:
    host = ScriptedHost(seat=0)

    async def run() -> tuple[str, bool, list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            await page.goto(f"{base}/phone?code={CODE}")
            link = await host.next_link()
            await link.expect("snapshot")
            await link.send("error", [codec.E_AUTH, "ph-0a1b2c3d: wrong device key", 0])
            await wait_state(page, "error")
            await page.wait_for_selector("#rejoin:not([hidden])")
            line = await page.text_content("#state-line")
            await link.ws.close(1008, "auth failed")
            await asyncio.sleep(2.5)
            again = len(host.hellos) > 1
            await page.tap("#rejoin")
            await page.wait_for_selector("#pair-view:not([hidden])")
            return line, again, errors

    line, again, errors = asyncio.run(run())
    assert errors == []
    assert line == "ph-0a1b2c3d: wrong device key"
    assert not again, "a refused phone must not keep knocking"


def test_keyboard_locks_holds_to_unlock_and_a_screen_reader_click_locks(tmp_path: Path) -> None:
    """Enter locks; Enter held 0.6 s unlocks; a click no pointer made (a screen reader's
    activation) locks too."""
    host = ScriptedHost(seat=0)
    wheels = [None, [None, 0b1111111110, 1], None]

    async def run() -> tuple[list[str], list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            await page.goto(f"{base}/phone?code={CODE}")
            link = await host.next_link()
            await link.expect("snapshot")
            await link.send("prompt", [30, True, True, "Wager?", wheels, False])
            await wait_state(page, "programming")
            await page.focus("#lock")
            await page.keyboard.press("Enter")
            await link.expect("commit")
            await wait_state(page, "locked")
            await page.keyboard.down("Enter")
            await asyncio.sleep(0.8)
            await page.keyboard.up("Enter")
            await link.expect("uncommit")
            await wait_state(page, "programming")
            await asyncio.sleep(1.0)  # (a screen reader's activation comes on its own)
            await page.evaluate("() => document.querySelector('#lock').click()")
            await link.expect("commit")
            await wait_state(page, "locked")
            return [m["t"] for m in host.up() if m["t"] in ("commit", "uncommit")], errors

    kinds, errors = asyncio.run(run())
    assert errors == []
    assert kinds == ["commit", "uncommit", "commit"]


def test_a_used_code_sends_a_paired_phone_back_to_its_seat(tmp_path: Path) -> None:
    """A phone already paired that follows a join code the table refuses (used, expired)
    goes back to its own seat and says why; a reload never uses a code again."""
    host = ScriptedHost(seat=0)

    async def run() -> tuple[str, str, list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            await page.goto(f"{base}/phone?code={CODE}")
            link = await host.next_link()
            await link.expect("snapshot")
            assert page.url == f"{base}/phone"
            await page.goto(f"{base}/phone?code=USED22")
            link = await host.next_link()
            await link.expect("snapshot")
            await page.wait_for_selector("#link.ok")
            notice = await page.text_content("#notice")
            await page.reload()
            link = await host.next_link()
            await link.expect("snapshot")
            return notice, page.url, errors

    notice, url, errors = asyncio.run(run())
    assert errors == []
    assert host.pairs == [CODE, "USED22"]
    assert notice == "that join code was not used: no such code: check the table screen"
    assert "code=" not in url
    assert len(host.hellos) == 3 and {h["uid"] for h in host.hellos} == {"ph-0a1b2c3d"}


def test_uid_in_use_after_a_drop_waits_and_joins_again(tmp_path: Path) -> None:
    """The host still holding the phone's old link refuses the new hello (uid_in_use) and
    identifies again later: the page says so in one line, shows no error state, and joins."""
    host = ScriptedHost(seat=0, refuse_first=True)

    async def run() -> tuple[str, list[str], list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            states: list[str] = []
            await page.goto(f"{base}/phone?code={CODE}")
            await page.wait_for_function(
                "() => document.querySelector('#notice').textContent.includes('old link')")
            notice = await page.text_content("#notice")
            states.append(await page.get_attribute("body", "data-state") or "")
            link = await host.next_link()
            await link.expect("snapshot")
            await page.wait_for_selector("#link.ok")
            states.append(await page.get_attribute("body", "data-state") or "")
            assert await page.text_content("#notice") == ""
            return notice, states, errors

    notice, states, errors = asyncio.run(run())
    assert errors == []
    assert "old link" in notice
    assert states == ["connecting", "idle"]
    assert len(host.hellos) == 2
