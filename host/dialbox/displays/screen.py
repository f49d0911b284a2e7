"""The web table screen: an ASGI app pushing the public table state to browsers over a WebSocket.

The page (static/index.html, plain HTML/CSS/JS, no CDN) works offline on the Pi. Browsers get
one `{"type": "table", "state": ...}` frame per published TableView, in order, and, when the
LED strip is simulated, `{"type": "strip", "pixels": [...]}` frames to draw it.

Each game draws its own board: the screen serves a registered game's `GameInfo.board_js` at
`/games/<name>/board.js`, and the `.json` files beside it at `/games/<name>/<file>.json`
(data the board fetches), and the page gets one `<script>` per registered game's board.

With a journal (`journal=`, the daemon's own file, opened read-only per request) the screen
also shows the table's past games: `/history` lists them (`/api/history` as JSON) and
`/replay/<table>/<n>` steps through one, drawn by the same page and board renderers from the
public state after each step (`/api/history/<table>/<n>`; `dialbox.history.replay`).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import importlib
import os
import re
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, Protocol, cast

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
from dialbox.displays.tablefeed import replay_view
from dialbox.engine.errors import EngineError, UnknownGame
from dialbox.engine.registry import game_info, game_names
from dialbox.journal import Journal, JournalError
from dialbox.table import TableState

STATIC = Path(__file__).parent / "static"
STRIP_FPS = 15
BOARDS_MARK = "<!--dialbox:boards-->"
"""Where index.html gets the games' board <script> tags."""
HISTORY_MARK = "<!--dialbox:history-->"
"""Where index.html gets its link to the past games (a screen with a journal)."""
HISTORY_LINK = ('<nav aria-label="Pages"><a id="history-link" class="badge" href="/history">'
                "past games</a></nav>")

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


def index_page(history: bool = False) -> str:
    """The page, with the board scripts of the games registered now (and, with `history`,
    a link to the past games)."""
    page = (STATIC / "index.html").read_text(encoding="utf-8")
    return page.replace(BOARDS_MARK, board_tags()).replace(
        HISTORY_MARK, HISTORY_LINK if history else "")


REPLAY_MARK = "<body>"
"""Where the replay page (index.html in replay mode) says which game it replays."""


def replay_page(table: str, number: int, title: str) -> str:
    """The table screen in replay mode: the same page and boards, driven by replay.js from
    `/api/history/<table>/<number>` instead of the live feed."""
    page = index_page(history=True)
    body = (f'<body data-mode="replay" data-table="{html.escape(table)}" '
            f'data-number="{number}">')
    page = page.replace(REPLAY_MARK, body, 1).replace(
        "<title>dialbox table</title>",
        f"<title>dialbox replay: {html.escape(title)}, game {number} of {html.escape(table)}"
        "</title>", 1)
    return page.replace("</body>", '  <script src="/static/replay.js"></script>\n</body>', 1)


# ---------------------------------------------------------------- the table's past games

class _Record(Protocol):
    @property
    def table(self) -> str: ...
    @property
    def number(self) -> int: ...
    @property
    def title(self) -> str: ...
    @property
    def finished(self) -> bool: ...
    def to_json(self) -> dict[str, Any]: ...


class _Step(Protocol):
    @property
    def step(self) -> int: ...
    @property
    def pid(self) -> int: ...
    @property
    def hash(self) -> str: ...
    @property
    def checked(self) -> bool: ...
    @property
    def state(self) -> TableState: ...


class _Replay(Protocol):
    @property
    def record(self) -> _Record: ...
    @property
    def start(self) -> TableState: ...
    @property
    def steps(self) -> Sequence[_Step]: ...
    @property
    def hash_ok(self) -> bool: ...
    @property
    def final_hash(self) -> str: ...


class _HistoryModule(Protocol):
    """What the screen uses of `dialbox.history`."""

    HistoryError: type[Exception]

    def games(self, journal: Journal, table: str | None = None) -> Sequence[_Record]: ...

    def replay(self, journal: Journal, table: str, number: int) -> _Replay: ...


def _history_module() -> _HistoryModule:
    """`dialbox.history`, imported at run time (as the registry loads games): the history
    re-runs a game through the runner's prompt cycle, whose modules import
    `dialbox.sessions` for their types, and the displays' import graph stays free of
    sessions (the `displays-no-sessions` contract). What the screen gets out of it is
    public by construction: game records and `TableState`s."""
    return cast(_HistoryModule, importlib.import_module("dialbox.history"))


class HistoryNotFound(LookupError):
    """No such table or game (404), or no journal at all."""


class HistoryFailed(RuntimeError):
    """The journal cannot be read, or a game in it does not replay (500)."""


class History:
    """The journal's games for the screen: read-only, one connection per request (each runs
    in a worker thread: a replay must not hold up the live screen). Replays of finished
    games are kept (the last `keep`), keyed by the journal file's identity."""

    def __init__(self, path: str | Path, keep: int = 8) -> None:
        self.path = Path(path)
        self.keep = keep
        self._cache: OrderedDict[tuple[int, int, str, int], dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def _said(self, e: Exception) -> str:
        """An error's one line, naming the journal by its file name only (the screen is
        open to the network: no server paths)."""
        return str(e).replace(str(self.path), self.path.name).removeprefix(
            f"{self.path.name}: ")

    def _open(self) -> Journal:
        try:
            return Journal(self.path, readonly=True)
        except JournalError as e:
            raise HistoryFailed(f"journal {self.path.name}: {self._said(e)}") from None

    def games(self, table: str | None = None) -> list[dict[str, Any]]:
        """Every game of the journal (of one table), as `GameRecord.to_json()`."""
        history = _history_module()
        journal = self._open()
        try:
            return [r.to_json() for r in history.games(journal, table)]
        except history.HistoryError as e:
            raise HistoryNotFound(self._said(e)) from None
        except (JournalError, EngineError) as e:
            raise HistoryFailed(self._said(e)) from None
        finally:
            journal.close()

    def record(self, table: str, number: int) -> dict[str, Any]:
        """Game `number` of `table` (HistoryNotFound if the journal has none)."""
        for r in self.games(table):
            if r.get("number") == number:
                return r
        raise HistoryNotFound(f"table {table} has no game {number}")

    def replay(self, table: str, number: int) -> dict[str, Any]:
        """Game `number` of `table` replayed: its record, and the table screen's view at its
        start and after every step (each a TableView as JSON, as the live screen gets it)."""
        try:
            st = os.stat(self.path)
        except OSError as e:
            raise HistoryFailed(f"{Path(self.path).name}: {e.strerror or e}") from None
        key = (st.st_dev, st.st_ino, table, number)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        history = _history_module()
        journal = self._open()
        try:
            rp = history.replay(journal, table, number)
        except history.HistoryError as e:
            raise HistoryNotFound(self._said(e)) from None
        except (JournalError, EngineError) as e:  # a step that does not replay: BrokenStep
            raise HistoryFailed(f"table {table}, game {number}: {self._said(e)}") from None
        finally:
            journal.close()
        out = {
            "table": table, "number": number, "title": rp.record.title,
            "game": rp.record.to_json(), "hash_ok": rp.hash_ok, "final_hash": rp.final_hash,
            "start": replay_view(rp.start, 0).model_dump(mode="json"),
            "steps": [{"step": s.step, "pid": s.pid, "hash": s.hash, "checked": s.checked,
                       "view": replay_view(s.state, i + 1).model_dump(mode="json")}
                      for i, s in enumerate(rp.steps)],
        }
        if rp.record.finished:
            with self._lock:
                self._cache[key] = out
                while len(self._cache) > self.keep:
                    self._cache.popitem(last=False)
        return out


def _number(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 10 else None


def strip_frame(frame: Frame) -> dict[str, Any]:
    return {"type": "strip", "pixels": [f"{r:02x}{g:02x}{b:02x}" for r, g, b in frame]}


def screen_app(feed: PublicFeed, strip: RecordingBackend | None = None,
               journal: str | Path | None = None) -> Starlette:
    """The table screen's ASGI app for one table's feed (and its simulated strip, if any);
    with `journal` (the daemon's journal file), its past games too (`/history`)."""
    history = History(journal) if journal is not None else None

    def error(status: int, text: str) -> Response:
        return JSONResponse({"error": text}, status_code=status, headers=NO_CACHE)

    async def history_list(request: Request) -> Response:
        if history is None:
            return error(404, "this table screen has no journal")
        table = request.query_params.get("table")
        try:
            found = await asyncio.to_thread(history.games, table)
        except HistoryNotFound as e:
            return error(404, str(e))
        except HistoryFailed as e:
            return error(500, str(e))
        return JSONResponse(found, headers=NO_CACHE)

    async def history_game(request: Request) -> Response:
        table, number = request.path_params["table"], _number(request.path_params["number"])
        if history is None:
            return error(404, "this table screen has no journal")
        if number is None:
            return error(404, f"no game {request.path_params['number']!r}: a game number")
        try:
            return JSONResponse(await asyncio.to_thread(history.replay, table, number),
                                headers=NO_CACHE)
        except HistoryNotFound as e:
            return error(404, str(e))
        except HistoryFailed as e:
            return error(500, str(e))

    async def history_page(request: Request) -> Response:
        return FileResponse(STATIC / "history.html", media_type="text/html",
                            headers=NO_CACHE)

    async def replay(request: Request) -> Response:
        table, number = request.path_params["table"], _number(request.path_params["number"])
        back = '<p><a href="/history">All games</a></p>'
        if history is None or number is None:
            why = "This table screen has no journal." if history is None else "No such game."
            return HTMLResponse(f"<!doctype html><title>not found</title><p>{why}</p>{back}",
                                status_code=404)
        try:
            record = await asyncio.to_thread(history.record, table, number)
        except (HistoryNotFound, HistoryFailed) as e:
            status = 404 if isinstance(e, HistoryNotFound) else 500
            return HTMLResponse(f"<!doctype html><title>not found</title>"
                                f"<p>{html.escape(str(e))}</p>{back}", status_code=status)
        return HTMLResponse(replay_page(table, number, str(record.get("title", ""))),
                            headers=NO_CACHE)

    async def index(request: Request) -> Response:
        return HTMLResponse(index_page(history is not None), headers=NO_CACHE)

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
        Route("/history", history_page),
        Route("/api/history", history_list),
        Route("/api/history/{table}/{number}", history_game),
        Route("/replay/{table}/{number}", replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])


class TableScreen:
    """Serves the table screen with uvicorn on `host`:`port` (port 0: any free port)."""

    def __init__(self, feed: PublicFeed, strip: RecordingBackend | None = None,
                 host: str = "127.0.0.1", port: int = 0,
                 journal: str | Path | None = None) -> None:
        self.app = screen_app(feed, strip, journal)
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
