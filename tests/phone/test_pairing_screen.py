"""The table screen's join panel in Chromium: each free seat's code and QR code, the address
to type them at, gone once the seat is taken; a paired phone is "phone" in the devices drawer
only. No serious accessibility violation with the panel shown (axe-core)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.displays.helpers import chromium_page
from tests.displays.test_accessibility import RUN_AXE, axe_script, problems
from tests.phone.ws_helpers import paired_phone, phone, phone_config, screen_state, served

pytestmark = [pytest.mark.timeout(300)]

SHOWN = """() => [...document.querySelectorAll('#join li.join-code')].map(e => ({
  seat: Number(e.dataset.seat), code: e.querySelector('.jcode').textContent,
  qr: e.querySelector('img').naturalWidth, name: e.querySelector('.jname').textContent}))"""


def test_the_join_panel_shows_each_free_seats_code_and_qr(tmp_path: Path) -> None:
    axe = axe_script()

    async def main() -> None:
        cfg = phone_config(tmp_path, game="stadium", players=4, bots=[4])
        async with served(cfg) as s, \
                chromium_page(tmp_path / "profile") as (page, _frames, errors):
            await page.goto(s.url + "/")
            await page.wait_for_selector("#link.ok")
            await page.wait_for_selector("#join li.join-code img")
            await page.wait_for_function(
                "() => [...document.querySelectorAll('#join img')].every("
                "i => i.complete && i.naturalWidth > 0)")
            shown = await page.evaluate(SHOWN)
            state = await screen_state(s.url)
            assert sorted((j["seat"], j["code"]) for j in shown) == \
                sorted((j["seat"], j["code"]) for j in state["join"])
            assert [j["seat"] for j in shown] == [0, 1, 2]
            assert all(j["qr"] > 0 for j in shown)
            assert [j["name"] for j in shown] == ["Red", "Blue", "Green"]
            await page.wait_for_function(
                "() => document.getElementById('join-url').textContent.includes('/phone')")
            await page.add_script_tag(path=str(axe))
            for w, h in ((390, 844), (1280, 800), (1920, 1080)):
                await page.set_viewport_size({"width": w, "height": h})
                found = problems(f"join panel {w}x{h}", await page.evaluate(RUN_AXE))
                assert not found, "\n".join(found)
            await page.set_viewport_size({"width": 1600, "height": 900})
            await page.screenshot(path="/tmp/t/join.png")

            # a phone pairs seat 2 and connects: its code goes, the drawer says "phone"
            uid, key, seat = await paired_phone(s, 1)
            async with phone(s, uid, key) as p:
                await p.join()
                await page.wait_for_function(
                    "() => !document.querySelector('#join li[data-seat=\"1\"]')")
                await page.wait_for_function(
                    f"() => (document.querySelector('#devices [data-device-seat=\"{seat}\"]')"
                    "|| {textContent: ''}).textContent.includes('phone')")
                drawer = await page.text_content(f'#devices [data-device-seat="{seat}"]')
                assert drawer is not None and uid in drawer and "phone" in drawer
                seats_panel = await page.text_content("#seats")
                assert seats_panel is not None and "phone" not in seats_panel
            assert not errors, errors

    asyncio.run(main())
