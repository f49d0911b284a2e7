"""The web screen's WebSocket pushes each published state, in order, and the simulated strip."""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import RecordingBackend
from dialbox.displays.public import TableView
from dialbox.displays.screen import STATIC, TableScreen
from dialbox.engine.registry import game_info, game_module, game_names, register, unregister
from tests.displays.helpers import GAMES


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
    for name in ("index.html", "screen.js", "screen.css"):
        text = (STATIC / name).read_text()
        assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in text


# ---------------------------------------------------------------- each game's board renderer

Got = tuple[int, str, bytes]
"""status, content type, body"""


async def _fetch(paths: list[str]) -> dict[str, Got]:
    """GET each path from a running screen, exactly as written (no client-side clean-up of
    `..` or percent escapes), by raw HTTP."""
    screen = TableScreen(PublicFeed())
    server = asyncio.create_task(screen.serve())

    def get(path: str) -> Got:
        conn = http.client.HTTPConnection("127.0.0.1", screen.port, timeout=10)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, resp.getheader("content-type") or "", resp.read()
        finally:
            conn.close()

    try:
        while not screen.server.started:
            await asyncio.sleep(0.01)
        return {p: await asyncio.to_thread(get, p) for p in paths}
    finally:
        screen.stop()
        await asyncio.wait_for(server, 10)


def fetch(*paths: str) -> dict[str, Got]:
    return asyncio.run(_fetch(list(paths)))


def board_tags(page: str) -> list[str]:
    return re.findall(r'<script src="/games/([^/"]+)/board\.js"', page)


@pytest.fixture
def tinyboard() -> Iterator[str]:
    """The test-only game of tests/displays/tinyboard, registered for one test."""
    register("tinyboard", "tests.displays.tinyboard")
    try:
        yield "tinyboard"
    finally:
        unregister("tinyboard")


def test_every_game_board_is_served_and_loaded_by_the_page() -> None:
    games = [g for g in game_names() if game_info(g).board_js is not None]
    assert set(GAMES) <= set(games)
    got = fetch("/", *(f"/games/{g}/board.js" for g in games))
    status, kind, page = got["/"]
    assert status == 200 and kind.startswith("text/html")
    text = page.decode()
    # after screen.js (which defines window.Dialbox), one per game, and nothing external
    assert board_tags(text) == games
    assert text.index("/static/screen.js") < text.index("<script src=\"/games/")
    assert "<!--dialbox:boards-->" not in text and "src=\"http" not in text
    for g in games:
        status, kind, body = got[f"/games/{g}/board.js"]
        path = game_info(g).board_js
        assert path is not None and path.parent == Path(game_module(g).__file__).parent
        assert status == 200 and "javascript" in kind
        assert body == path.read_bytes()
        js = body.decode()
        registers = "DialboxBoards = window.DialboxBoards || {})"
        # a dotted name (.pipcycle) or, for a name that is no identifier, brackets
        assert (f"{registers}.{g} =" in js and g.isidentifier()) or (
            f'{registers}["{g}"] =' in js), f"{g}'s board.js does not register as {g!r}"
        assert f'"data-board": "{g}"' in js  # what the browser tests look for
        assert "http://" not in js.replace("http://www.w3.org/2000/svg", "")
        assert "https://" not in js


def test_stadium_trial_summaries_come_from_its_package() -> None:
    got = fetch("/games/stadium/trial-summaries.json", "/static/stadium-trials.json")
    status, kind, body = got["/games/stadium/trial-summaries.json"]
    assert status == 200 and kind.startswith("application/json")
    summaries = json.loads(body)["trials"]
    assert summaries["track_cycling"]["name"] == "Track Cycling" and len(summaries) == 16
    assert got["/static/stadium-trials.json"][0] == 404  # moved out of displays/static
    assert not (STATIC / "stadium-trials.json").exists()


NOT_SERVED = [
    "/games/nosuch/board.js",                        # not a registered game
    "/games/dialbox.games.stadium/board.js",         # a package path is not a game's name
    "/games/stadium/nosuch.json",                    # no such file
    "/games/stadium/__init__.py",                    # only board.js and .json files
    "/games/stadium/game.py",
    "/games/stadium/board.css",
    "/games/stadium/.hidden.json",
    "/games/stadium/trials",                         # a folder
    "/games/stadium/trial-summaries.json/x",
    "/games/stadium/../pixoid/board.js",             # traversal, raw
    "/games/stadium/..%2Fpixoid%2Fboard.js",         # ... and percent-escaped
    "/games/stadium/..%2F..%2Fdisplays%2Fstatic%2Fscreen.js",
    "/games/stadium/%2e%2e",
    "/games/stadium/%2e%2e%2F%2e%2e%2Fpaths.json",
    "/games/..%2Fgames%2Fstadium/board.js",
    "/games/%2e%2e/board.js",
    "/games/stadium/%2Fetc%2Fpasswd",
    "/games/stadium/..%5C__init__.json",
    "/games/stadium/tiles.json%00.py",
]


def test_unknown_games_and_files_and_traversal_are_refused() -> None:
    got = fetch(*NOT_SERVED, "/games/stadium/trial-summaries.json")
    for path in NOT_SERVED:
        status, _kind, body = got[path]
        assert status == 404, f"{path}: {status} {body[:80]!r}"
    # (a .json file beside board.js is served: boards may read data)
    assert got["/games/stadium/trial-summaries.json"][0] == 200


def test_a_game_registered_in_a_test_gets_its_board_served(tinyboard: str) -> None:
    here = Path(__file__).with_name("tinyboard")
    got = fetch("/", "/games/tinyboard/board.js", "/games/tinyboard/tiny.json",
                "/games/tinyboard/notes.txt", "/games/tinyboard/__init__.py")
    assert "tinyboard" in board_tags(got["/"][2].decode())
    assert got["/games/tinyboard/board.js"][:2] == (200, "text/javascript; charset=utf-8")
    assert got["/games/tinyboard/board.js"][2] == (here / "board.js").read_bytes()
    assert json.loads(got["/games/tinyboard/tiny.json"][2]) == {"word": "tiny"}
    assert got["/games/tinyboard/notes.txt"][0] == 404
    assert got["/games/tinyboard/__init__.py"][0] == 404
    unregister("tinyboard")
    gone = fetch("/", "/games/tinyboard/board.js")
    assert "tinyboard" not in board_tags(gone["/"][2].decode())
    assert gone["/games/tinyboard/board.js"][0] == 404


def _package(root: Path, name: str, board: str | None) -> None:
    """A game package under `root` reusing the tiny game, its board renderer at `board`."""
    pkg = root / name
    pkg.mkdir()
    where = "None" if board is None else f"Path(__file__).with_name({board!r})"
    (pkg / "__init__.py").write_text(
        "from pathlib import Path\n"
        "from dialbox.engine.registry import GameInfo\n"
        "from tests.displays.tinyboard import TinyBoard\n"
        f"INFO = GameInfo(game=TinyBoard, title='T', players=(2,), board_js={where})\n")


def test_only_files_really_beside_the_board_are_served(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"secret": 1}')
    _package(tmp_path, "linkyboard_pkg", "renderer.js")
    pkg = tmp_path / "linkyboard_pkg"
    (pkg / "renderer.js").write_text("// a board under another file name\n")
    (pkg / "leak.json").symlink_to(secret)
    (pkg / "data.json").write_text("{}")
    _package(tmp_path, "plainboard_pkg", None)
    (tmp_path / "plainboard_pkg" / "data.json").write_text("{}")
    _package(tmp_path, "lostboard_pkg", "missing.js")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        for name in ("linkyboard", "plainboard", "lostboard"):
            register(name, f"{name}_pkg")
        got = fetch("/", "/games/linkyboard/board.js", "/games/linkyboard/renderer.js",
                    "/games/linkyboard/data.json", "/games/linkyboard/leak.json",
                    "/games/linkyboard/secret.json", "/games/plainboard/board.js",
                    "/games/plainboard/data.json", "/games/lostboard/board.js")
        with_boards = [g for g in game_names() if g not in ("plainboard", "lostboard")
                       and game_info(g).board_js is not None]
    finally:
        for name in ("linkyboard", "plainboard", "lostboard"):
            unregister(name)
    # served at /games/<name>/board.js whatever the file is called
    assert got["/games/linkyboard/board.js"][2].startswith(b"// a board under another")
    assert got["/games/linkyboard/renderer.js"][0] == 404
    assert got["/games/linkyboard/data.json"][0] == 200
    assert got["/games/linkyboard/leak.json"][0] == 404  # a link out of the folder
    assert got["/games/linkyboard/secret.json"][0] == 404
    # a game without a board renderer (or whose file is missing): nothing to load, the page
    # draws its public view generically
    assert got["/games/plainboard/board.js"][0] == 404
    assert got["/games/plainboard/data.json"][0] == 404
    assert got["/games/lostboard/board.js"][0] == 404
    assert "linkyboard" in with_boards
    assert board_tags(got["/"][2].decode()) == with_boards
