"""The menu on the table screen follows a controller's wheels, end to end: the daemon, two
controllers (protocol doubles) on its serial links, the displays the daemon's `run` starts,
and Chromium. The chooser opens the menu and turns the game wheel (`dial` frames); the page
highlights each face the wheel shows, then the setup page once the game is pressed. A dial
from the other controller moves nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from dialbox.displays.show import TableDisplays
from dialbox.engine.registry import game_info
from tests.displays.helpers import chromium_page
from tests.host.harness import TABLE, doubles, running_daemon, table_config, wait_for

pytestmark = [pytest.mark.timeout(180)]

AT = """() => { const w = document.querySelector('#menu .mwheel[data-wheel=left]');
    const f = w && w.querySelector('.mface.at');
    return w ? [w.dataset.at, f ? f.textContent : null] : null; }"""


async def _follow(tmp_path: Path) -> dict[str, Any]:
    uids = ["scr-a", "scr-b"]
    cfg = table_config(tmp_path, uids=uids, pairing="auto")
    table = cfg["tables"][0]
    for k in ("game", "players", "seed", "bots", "options"):
        table.pop(k)
    table["menu"] = True
    seen: dict[str, Any] = {"at": []}
    async with running_daemon(cfg) as daemon, doubles(tmp_path, uids, auto=False) as (a, b), \
            TableDisplays(host="127.0.0.1", port=0) as shown:
        console = daemon.runners[TABLE]
        shown.attach(console)
        await wait_for(lambda: a.seat is not None and b.seat is not None
                       and a.seat in console.open and b.seat in console.open, what="the menu")
        async with chromium_page(tmp_path / "profile") as (page, _frames, errors):
            assert shown.url is not None
            await page.goto(shown.url)
            await page.wait_for_selector("#menu:not([hidden])")
            seen["idle"] = await page.inner_text("#menu")
            # A opens the menu: Play on the idle wheel
            pid, _ask = console.open[a.seat]  # type: ignore[index]
            a.sel = [0, -1, -1]
            a.lock()
            await wait_for(lambda: console.menu is not None and console.menu.stage == "game"
                           and a.seat in console.open and a.prompt is not None
                           and a.prompt["pid"] == console.open[a.seat][0],  # type: ignore
                           what="the game page")
            pid, ask = console.open[a.seat]  # type: ignore[index]
            wheel = ask.wheels[0]
            assert wheel is not None and a.prompt is not None and a.prompt[
                "wheels"][0] is not None
            assert a.prompt["live"] is True  # the chooser's prompt is live
            labels = [f.label for f in wheel.faces]
            # the chooser turns the wheel face by face over the allowed games
            for i in wheel.choices[:3]:
                a.send("dial", pid, [i, -1, -1])
                await page.wait_for_function(
                    f"""() => {{ const f = document.querySelector(
                        '#menu .mwheel[data-wheel=left] .mface.at');
                        return f && f.dataset.face === '{i}'; }}""")
                seen["at"].append(await page.evaluate(AT))
            # the other controller's dial is not the chooser's: the screen stays where it is
            other = console.open.get(b.seat)  # type: ignore[arg-type]
            b.send("dial", other[0] if other else pid, [wheel.choices[0], -1, -1])
            await asyncio.sleep(0.3)
            seen["after-other"] = await page.evaluate(AT)
            # A presses on Stadium: the setup page
            stadium = labels.index("Stadium")
            a.send("dial", pid, [stadium, -1, -1])
            a.sel = [stadium, -1, -1]
            a.lock()
            await page.wait_for_selector("#menu[data-stage=setup]")
            seen["setup"] = await page.inner_text("#menu")
            seen["labels"] = labels
            seen["errors"] = list(errors)
    return seen


def test_the_screen_follows_the_choosers_wheels_from_the_daemon(tmp_path: Path) -> None:
    seen = asyncio.run(_follow(tmp_path))
    assert seen["errors"] == []
    assert "open the menu" in seen["idle"]
    labels = seen["labels"]
    assert [at for at, _face in seen["at"]] == ["0", "1", "2"]
    for at, face in seen["at"]:
        assert face is not None and labels[int(at)] in face
    assert seen["after-other"] == seen["at"][-1]
    assert game_info("stadium").title in seen["setup"]
