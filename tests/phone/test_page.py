"""The phone controller page in Chromium as a phone (390x844, touch), against a scripted host.

The host's side is written here with the Python codec (tests/phone/page_helpers.py,
ScriptedHost): identify, the hello's MAC checked, welcome, a sealed prompt; the page is
driven by touch (swipes, taps, a long press) and by keyboard. What is checked is the sealed
guarantee: before `alllocked` every frame the page sends (read both on the host's side and
from Chromium's own WebSocket frames) carries no selection and no nonce, only the
commitment; the reveal after `alllocked` matches the commitment; a reload after locking
keeps the lock (the snapshot carries the same commitment, the reveal the locked selection).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dialbox_protocol import codec
from tests.phone.page_helpers import (
    CODE,
    UID,
    HostLink,
    ScriptedHost,
    artifacts,
    chromium,
    serve,
)

pytestmark = [pytest.mark.timeout(240)]

PID = 17
# left: the four orthogonal directions (N E S W) of the default faces; centre: five faces of
# the prompt's own, two not allowed now; right: not used
WHEELS: list[Any] = [
    [None, 0b01010101, 0],
    [[["Run", 0, "e53935"], ["Jump", 1, "fdd835"], ["Wait", 2, "43a047"], ["Dash", 3, "1e88e5"],
      ["Rest", 4, "8e24aa"]], 0b11101, 0],
    None,
]
OTHER_UID = "bot-0"
OTHER_NONCE = bytes(range(12))
OTHER_SEL = [4, 2, -1]
OTHER_COMMIT = codec.commitment(OTHER_SEL, OTHER_NONCE, PID, OTHER_UID)
VIEW = {"game": "pipcycle", "seat": 1, "phase": "game",
        "private": {"hands": [3, ["2D", "6C", "1D"], 3]},
        "own": {"edges": "S", "reserve": 2, "lost": 0}, "headline": "Round 2: Blue's turn"}
SECRET_KINDS = {"reveal", "dial"}


async def touch_drag(page: Any, selector: str, dy: float = 0, dx: float = 0,
                     steps: int = 8) -> None:
    """A finger on `selector`'s middle, moved by (dx, dy) in `steps`, lifted (real touch
    events, through the DevTools protocol: pointerType "touch" in the page)."""
    box = await page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Input.dispatchTouchEvent",
                   {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, steps + 1):
        await cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x + dx * k / steps, "y": y + dy * k / steps}]})
        await asyncio.sleep(0.02)
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    await cdp.detach()


async def long_press(page: Any, selector: str, seconds: float = 0.8) -> None:
    box = await page.locator(selector).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = await page.context.new_cdp_session(page)
    await cdp.send("Input.dispatchTouchEvent",
                   {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    await asyncio.sleep(seconds)
    await cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    await cdp.detach()


async def shown_selection(page: Any) -> list[int]:
    got: list[int] = await page.eval_on_selector_all(
        ".wheel", "els => els.map(e => { const w = e.querySelector('.window');"
        " return w.hidden ? -1 : Number(w.dataset.index); })")
    return got


async def wait_state(page: Any, state: str, timeout: float | None = None) -> None:
    await page.wait_for_selector(f"body[data-state='{state}']", timeout=timeout)


def secret_free(msg: dict[str, Any], nonces: set[str]) -> str | None:
    """Why this up frame would leak something of a sealed choice, or None."""
    if msg["t"] in SECRET_KINDS:
        return f"{msg['t']} before all locked"
    text = json.dumps(msg)
    for n in nonces:
        if n in text:
            return "a nonce left the phone"
    if "sel" in msg:
        return "a selection left the phone"
    return None


async def prompt(link: HostLink) -> None:
    await link.send("prompt", [PID, True, True, "Move Pixoid", WHEELS, False])


def test_sealed_prompt_by_touch_and_keyboard_survives_a_reload(tmp_path: Path) -> None:
    host = ScriptedHost(seat=1)
    sent_by_chromium: list[str] = []

    async def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            page.on("websocket", lambda ws: ws.on(
                "framesent", lambda payload: sent_by_chromium.append(str(payload))))
            await page.goto(f"{base}/phone?code={CODE}")
            link = await host.next_link()
            snap = await link.expect("snapshot")
            assert [snap["pid"], snap["state"], snap["commitment"]] == [None, "idle", None]
            assert host.pairs == [CODE]
            hello = host.hellos[0]
            assert hello["board"] == "phone" and "seatview" in hello["caps"]
            assert hello["uid"] == UID
            await link.send("headline", ["Round 2: Blue's turn"])
            await link.send("seatview", [json.dumps(VIEW, separators=(",", ":"))])
            await wait_state(page, "idle")
            await page.wait_for_selector("#mine:not([hidden])")
            await page.screenshot(path=str(artifacts() / "idle.png"))

            await prompt(link)
            await wait_state(page, "programming")
            assert await shown_selection(page) == [0, 0, -1]
            # the left wheel by a swipe up: one face on, NE skipped (not allowed now)
            await touch_drag(page, ".wheel[data-wheel='0'] .window", dy=-50)
            await page.wait_for_function(
                "() => document.querySelector(\".wheel[data-wheel='0'] .window\")"
                ".dataset.index === '2'")
            note = await page.text_content("#skip-note")
            assert "NE" in note and "not allowed now" in note
            editing = await link.expect("status")
            assert editing["state"] == "editing" and editing["pid"] == PID
            # the centre wheel by keyboard: Run -> (Jump skipped) Wait -> Dash
            await page.focus(".wheel[data-wheel='1'] .window")
            await page.keyboard.press("ArrowDown")
            await page.keyboard.press("ArrowDown")
            await page.wait_for_function(
                "() => document.querySelector(\".wheel[data-wheel='1'] .window\")"
                ".dataset.index === '3'")
            # and back one with the wheel's own button (a tap)
            await page.tap(".wheel[data-wheel='1'] .turn.prev")
            await page.wait_for_function(
                "() => document.querySelector(\".wheel[data-wheel='1'] .window\")"
                ".dataset.index === '2'")
            first = await shown_selection(page)
            assert first == [2, 2, -1]
            # the inactive wheel says so
            assert await page.is_visible(".wheel[data-wheel='2'] .off")

            await page.tap("#lock")
            commit1 = await link.expect("commit")
            await wait_state(page, "locked")
            await link.send("status", [PID, "locked"])
            # long press: unlock (the prompt allows it), then a new choice and a new lock
            await long_press(page, "#lock")
            unc = await link.expect("uncommit")
            assert unc["pid"] == PID
            await wait_state(page, "programming")
            await touch_drag(page, ".wheel[data-wheel='0'] .window", dx=-45)  # left: on one
            await page.wait_for_function(
                "() => document.querySelector(\".wheel[data-wheel='0'] .window\")"
                ".dataset.index === '4'")
            locked_sel = await shown_selection(page)
            assert locked_sel == [4, 2, -1]
            await page.tap("#lock")
            commit2 = await link.expect("commit")
            assert commit2["commitment"] != commit1["commitment"]
            await wait_state(page, "locked")
            await link.send("status", [PID, "locked"])
            await page.screenshot(path=str(artifacts() / "locked.png"))

            # reload mid-prompt, locked: the lock survives (IndexedDB)
            await page.reload()
            link = await host.next_link()
            snap = await link.expect("snapshot")
            assert [snap["pid"], snap["state"], snap["commitment"]] == [
                PID, "locked", commit2["commitment"]]
            assert len(host.pairs) == 1, "a reload must not pair again"
            # the host re-sends its seatview after each welcome, and the open prompt on resume
            await link.send("seatview", [json.dumps(VIEW, separators=(",", ":"))])
            await prompt(link)
            await link.send("status", [PID, "locked"])
            await wait_state(page, "locked")
            assert await shown_selection(page) == locked_sel
            assert "hold to unlock" in (await page.text_content("#lock")).lower()

            # a forged all-locked without this seat's commitment draws nothing out
            await link.send("alllocked", [PID, [[0, OTHER_COMMIT]]])
            err = await link.expect("error")
            assert err["code"] == codec.E_MISMATCH
            before_all_locked = list(host.up())

            await link.send("alllocked", [PID, [[0, OTHER_COMMIT], [1, commit2["commitment"]]]])
            reveal = await link.expect("reveal")
            await wait_state(page, "alllocked")
            # a long press now is refused: all locked
            await long_press(page, "#lock")
            await page.wait_for_function(
                "() => document.querySelector('#notice').textContent.includes('too late')")
            await link.send("revealed", [
                PID, [[0, "S Rest"], [1, "S Wait"]], "Pixoid moved south",
                [[0, OTHER_SEL, codec.b64(OTHER_NONCE), OTHER_UID],
                 [1, reveal["sel"], reveal["nonce"], UID]]])
            await wait_state(page, "revealed")
            await page.wait_for_selector("#result:not([hidden])")
            out["result_title"] = await page.text_content("#result-title")
            out["choices"] = await page.eval_on_selector_all(
                "#result-choices li", "els => els.map(e => e.textContent)")
            out["mine"] = await page.eval_on_selector_all(
                "#mine-list dd", "els => els.map(e => e.textContent)")
            out["mine_keys"] = await page.eval_on_selector_all(
                "#mine-list dt", "els => els.map(e => e.textContent)")
            out["seat_keys"] = await page.eval_on_selector_all(
                "#seat-list dt", "els => els.map(e => e.textContent)")
            await page.screenshot(path=str(artifacts() / "revealed.png"))
            stored = await page.evaluate(
                "() => new Promise(r => { const q = indexedDB.open('dialbox-phone');"
                " q.onsuccess = () => { const g = q.result.transaction('kv').objectStore('kv')"
                ".get('lock'); g.onsuccess = () => r(g.result === undefined ? null : g.result); };"
                " })")
            out.update(reveal=reveal, commit2=commit2, locked_sel=locked_sel,
                       before=before_all_locked, errors=errors, stored=stored)
            return out

    out = asyncio.run(run())
    assert out["errors"] == []
    reveal, commit2 = out["reveal"], out["commit2"]
    # the reveal is the locked selection, and hashes to the commitment sent before the reload
    assert reveal["sel"] == out["locked_sel"]
    assert codec.verify_reveal(commit2["commitment"], reveal["sel"], reveal["nonce"], PID, UID)
    # nothing of the choice left the phone before all-locked: on the host's side ...
    nonces = {reveal["nonce"]}
    leaks = [f"{m}: {why}" for m in out["before"] if (why := secret_free(m, nonces))]
    assert not leaks, leaks
    kinds = {m["t"] for m in out["before"]}
    assert {"hello", "snapshot", "commit", "uncommit", "status", "ack"} <= kinds
    # ... and in what Chromium itself sent
    up_frames = [codec.decode_frame(f.encode()) for f in sent_by_chromium]
    assert all(isinstance(m, dict) for m in up_frames)
    first_reveal = next(i for i, m in enumerate(up_frames) if m["t"] == "reveal")
    leaks = [f"{m}: {why}" for m in up_frames[:first_reveal] if (why := secret_free(m, nonces))]
    assert not leaks, leaks
    assert all(not f.endswith("\n") for f in sent_by_chromium), "one frame per message, no newline"
    # the reveal shown verified, with the private view of this seat only
    assert "verified" in out["result_title"]
    assert any("You" in c and "S Wait" in c for c in out["choices"])
    assert "2♦, 6♣, 1♦" in out["mine"]
    assert "Your hand" in out["mine_keys"]
    # the seat's public figures are shown apart from its secrets
    assert "Reserve" in out["seat_keys"] and "Reserve" not in out["mine_keys"]
    assert out["stored"] is None, "the lock record is given up once the reveal confirmed it"


def test_a_wrong_code_says_why_in_one_line(tmp_path: Path) -> None:
    host = ScriptedHost()

    async def run() -> tuple[str, list[str]]:
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):
            await page.goto(f"{base}/phone")
            await page.wait_for_selector("#pair-view:not([hidden])")
            await page.fill("#code", "ab cd 12")
            await page.tap("#pair-button")
            await page.wait_for_function(
                "() => document.querySelector('#pair-error').textContent.length > 0")
            return await page.text_content("#pair-error"), errors

    text, errors = asyncio.run(run())
    assert errors == []
    assert host.pairs == ["ABCD12"]
    assert text == "no such code: check the table screen"
