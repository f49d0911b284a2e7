"""The web table screen: an ASGI app pushing the public table state to browsers over a WebSocket.

The page (static/index.html, plain HTML/CSS/JS, no CDN) works offline on the Pi. Browsers get
one `{"type": "table", "state": ...}` frame per published TableView, in order, and, when the
LED strip is simulated, `{"type": "strip", "pixels": [...]}` frames to draw it.

Each game draws its own board: the screen serves a registered game's `GameInfo.board_js` at
`/games/<name>/board.js`, and the `.json` files beside it at `/games/<name>/<file>.json`
(data the board fetches), and the page gets one `<script>` per registered game's board.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import re
import socket
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    Response,
)
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import Frame, RecordingBackend
from dialbox.engine.errors import UnknownGame
from dialbox.engine.registry import game_info, game_names

STATIC = Path(__file__).parent / "static"
STRIP_FPS = 15
BOARDS_MARK = "<!--dialbox:boards-->"
"""Where index.html gets the games' board <script> tags."""
DATA_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\.json")
"""A data file a board may fetch from beside its board.js: a plain name ending in .json."""
NO_CACHE = {"Cache-Control": "no-cache"}
"""Revalidate: a kiosk browser left open across an update must not keep an old board."""


def board_script(game: str) -> Path | None:
    """The board renderer of a registered game, if it has one (None for an unknown name)."""
    if game not in game_names():
        return None
    try:
        path = game_info(game).board_js
    except UnknownGame:
        return None
    return path if path is not None and path.is_file() else None


def board_data(game: str, name: str) -> Path | None:
    """A `.json` file beside a registered game's board.js, or None: only a plain file name
    (no folder, no `..`, no hidden file) of a file that really lies in that folder."""
    script = board_script(game)
    if script is None or not DATA_FILE.fullmatch(name):
        return None
    folder = script.parent.resolve()
    path = (folder / name).resolve()
    return path if path.parent == folder and path.is_file() else None


def board_tags() -> str:
    """One <script> per registered game with a board renderer, in name order."""
    return "\n  ".join(
        f'<script src="/games/{html.escape(g)}/board.js" data-board-game="{html.escape(g)}">'
        "</script>"
        for g in game_names() if board_script(g) is not None
    )


def index_page() -> str:
    """The page, with the board scripts of the games registered now."""
    return (STATIC / "index.html").read_text(encoding="utf-8").replace(BOARDS_MARK, board_tags())


def strip_frame(frame: Frame) -> dict[str, Any]:
    return {"type": "strip", "pixels": [f"{r:02x}{g:02x}{b:02x}" for r, g, b in frame]}


def screen_app(feed: PublicFeed, strip: RecordingBackend | None = None) -> Starlette:
    """The table screen's ASGI app for one table's feed (and its simulated strip, if any)."""

    async def index(request: Request) -> Response:
        return HTMLResponse(index_page(), headers=NO_CACHE)

    async def game_file(request: Request) -> Response:
        game, name = request.path_params["game"], request.path_params["file"]
        if name == "board.js":
            path = board_script(game)
            kind = "text/javascript"
        else:
            path = board_data(game, name)
            kind = "application/json"
        if path is None:
            return PlainTextResponse("not found", status_code=404)
        return FileResponse(path, media_type=kind, headers=NO_CACHE)

    async def state(request: Request) -> Response:
        return JSONResponse(feed.latest.frame())

    async def send_table(ws: WebSocket) -> None:
        async for view in feed.subscribe():
            await ws.send_json(view.frame())

    async def send_strip(ws: WebSocket) -> None:
        assert strip is not None
        last: Frame | None = None
        while True:
            frame = strip.last
            if frame and frame != last:
                await ws.send_json(strip_frame(frame))
                last = frame
            await asyncio.sleep(1 / STRIP_FPS)

    async def drain(ws: WebSocket) -> None:
        """The page sends nothing we act on; reading notices the browser leaving."""
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                await ws.receive_text()

    async def live(ws: WebSocket) -> None:
        await ws.accept()
        jobs: list[Callable[[WebSocket], Coroutine[Any, Any, None]]] = [send_table, drain]
        if strip is not None:
            jobs.append(send_strip)
        tasks: list[asyncio.Task[None]] = [asyncio.create_task(job(ws)) for job in jobs]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            for t in tasks:
                with contextlib.suppress(asyncio.CancelledError, WebSocketDisconnect,
                                         RuntimeError, OSError):
                    await t

    return Starlette(routes=[
        Route("/", index),
        Route("/state.json", state),
        WebSocketRoute("/live", live),
        Route("/games/{game}/{file}", game_file),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])


class TableScreen:
    """Serves the table screen with uvicorn on `host`:`port` (port 0: any free port)."""

    def __init__(self, feed: PublicFeed, strip: RecordingBackend | None = None,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        self.app = screen_app(feed, strip)
        self.host = host
        self.sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, port))
        self.port: int = self.sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off",
                                ws_ping_interval=None, timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)

    @property
    def url(self) -> str:
        shown = self.host if self.host not in ("0.0.0.0", "::") else socket.gethostname()
        return f"http://{shown}:{self.port}/"

    async def serve(self) -> None:
        """Serve until stop() (or cancellation)."""
        await self.server.serve(sockets=[self.sock])

    def stop(self) -> None:
        self.server.should_exit = True
