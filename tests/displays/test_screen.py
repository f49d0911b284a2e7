"""The web screen's WebSocket pushes each published state, in order, and the simulated strip."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from typing import Any

import websockets

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import RecordingBackend
from dialbox.displays.public import TableView
from dialbox.displays.screen import TableScreen


async def _exchange() -> tuple[list[dict[str, Any]], str, dict[str, Any]]:
    feed = PublicFeed()
    strip = RecordingBackend()
    strip.show(((1, 2, 3), (0, 0, 0)))
    screen = TableScreen(feed, strip)
    server = asyncio.create_task(screen.serve())
    try:
        while not screen.server.started:
            await asyncio.sleep(0.01)
        got: list[dict[str, Any]] = []
        async with websockets.connect(f"ws://127.0.0.1:{screen.port}/live") as ws:
            for stage in ("playing", "over"):
                feed.publish(TableView(stage=stage))  # type: ignore[arg-type]
            while len([m for m in got if m["type"] == "table"]) < 3 or not any(
                m["type"] == "strip" for m in got
            ):
                got.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
        page = await asyncio.to_thread(
            lambda: urllib.request.urlopen(screen.url, timeout=10).read().decode())
        state = await asyncio.to_thread(
            lambda: json.load(urllib.request.urlopen(screen.url + "state.json", timeout=10)))
        return got, page, state
    finally:
        screen.stop()
        await asyncio.wait_for(server, 10)


def test_states_in_order_and_strip_frames() -> None:
    got, page, state = asyncio.run(_exchange())
    tables = [m["state"] for m in got if m["type"] == "table"]
    assert [t["seq"] for t in tables[-2:]] == [tables[-2]["seq"], tables[-2]["seq"] + 1]
    assert [t["stage"] for t in tables[-2:]] == ["playing", "over"]
    strip = next(m for m in got if m["type"] == "strip")
    assert strip["pixels"] == ["010203", "000000"]
    assert "/static/screen.js" in page and "<script src=\"http" not in page
    assert state["state"]["stage"] == "over"


def test_static_files_need_no_network() -> None:
    from dialbox.displays.screen import STATIC

    for name in ("index.html", "screen.js", "screen.css"):
        text = (STATIC / name).read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text
