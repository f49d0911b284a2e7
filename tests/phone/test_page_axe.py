"""The phone controller page checked by axe-core in Chromium as a phone (390x844, touch): no
serious or critical accessibility violation in the pairing state, a sealed prompt being
dialled, locked, and revealed with the seat's private view.

axe-core comes from npm as for the table screen (tests/displays/test_accessibility.py runs
`npm ci` when node_modules/ lacks it; without npm it fails and says so, never skips).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from dialbox_protocol import codec
from tests.displays.test_accessibility import RUN_AXE, axe_script
from tests.phone.page_helpers import CODE, UID, ScriptedHost, chromium, serve
from tests.phone.test_page import OTHER_COMMIT, OTHER_NONCE, OTHER_SEL, PID, VIEW, WHEELS

pytestmark = [pytest.mark.timeout(240)]


def serious(where: str, violations: list[dict[str, Any]]) -> list[str]:
    return [f"{where}: {v['impact']} {v['id']} ({v['help']}): {v['nodes']}"
            for v in violations if v["impact"] in ("serious", "critical")]


def test_phone_page_has_no_serious_accessibility_violations(tmp_path: Path) -> None:
    axe = axe_script()
    host = ScriptedHost(seat=1)

    async def run() -> tuple[list[str], list[str], list[str]]:
        found: list[str] = []
        looked: list[str] = []
        async with serve(host.app) as base, chromium(tmp_path / "profile") as (page, errors):

            async def check(where: str) -> None:
                await page.add_script_tag(path=str(axe))
                found.extend(serious(where, await page.evaluate(RUN_AXE)))
                looked.append(where)

            await page.goto(f"{base}/phone")
            await page.wait_for_selector("#pair-view:not([hidden])")
            await check("pairing")
            await page.fill("#code", "ZZZZZZ")
            await page.tap("#pair-button")
            await page.wait_for_function("() => document.querySelector('#pair-error').textContent")
            await check("pairing with an error")

            await page.fill("#code", CODE)
            await page.tap("#pair-button")
            link = await host.next_link()
            await link.expect("snapshot")
            await link.send("seatview", [json.dumps(VIEW)])
            await link.send("prompt", [PID, True, True, "Move Pixoid", WHEELS, False])
            await page.wait_for_selector("body[data-state='programming']")
            await check("a sealed prompt")
            await page.tap("#lock")
            commit = await link.expect("commit")
            await page.wait_for_selector("body[data-state='locked']")
            await check("locked")
            await link.send("alllocked", [PID, [[0, OTHER_COMMIT], [1, commit["commitment"]]]])
            reveal = await link.expect("reveal")
            await link.send("revealed", [
                PID, [[0, "S Rest"], [1, "N Run"]], "Pixoid moved",
                [[0, OTHER_SEL, codec.b64(OTHER_NONCE), "bot-0"],
                 [1, reveal["sel"], reveal["nonce"], UID]]])
            await page.wait_for_selector("body[data-state='revealed']")
            await check("revealed, with the private view")
            return found, looked, errors

    found, looked, errors = asyncio.run(run())
    assert errors == []
    assert len(looked) == 5
    assert found == [], "\n".join(found)
