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
import io
import ipaddress
import os
import re
import socket
import threading
from collections import OrderedDict
from collections.abc import Callable, Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

import segno
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
PHONE_PAGE = STATIC / "phone" / "index.html"
"""The phone controller page (its other files under /static/phone/)."""
JOIN_CODE = re.compile(r"[A-HJ-NP-Z2-9]{6}")
"""A join code (dialbox.phone.codes: no 0/O, no 1/I)."""
PAIR_BODY_MAX = 4096
WS_MAX_SIZE = 64 * 1024
"""Bytes of one WebSocket message the server reads at all (a phone's frame is at most 1 KB:
a longer message is refused by the phone link, one over this closes the connection)."""


class PhoneGateway(Protocol):
    """Where the screen hands phones (dialbox.phone.gateway; the displays import neither
    sessions nor transports, so they see only this)."""

    async def pair(self, body: bytes) -> tuple[int, dict[str, Any]]: ...

    async def link(self, ws: Any) -> None: ...


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def lan_address() -> str:
    """This machine's address on its network (the interface of its default route; no packet
    is sent), or its host name."""
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # TEST-NET-1: a route lookup only
        address: str = s.getsockname()[0]
        if not _loopback(address):
            return address
    return socket.gethostname()


def phone_base(request: Request) -> str:
    """The phone page's address as a phone in the room reaches it: the address the screen
    was opened with, or, when that is this machine's loopback (a kiosk on the Pi), its
    network address."""
    url = request.url
    host = url.hostname or "localhost"
    if _loopback(host):
        host = lan_address()
    if ":" in host:
        host = f"[{host}]"
    port = f":{url.port}" if url.port else ""
    return f"{url.scheme}://{host}{port}/phone"


def same_origin(headers: Mapping[str, str]) -> bool:
    """Whether a request comes from this screen's own pages (or from no page at all: a
    request without an Origin header). The phone page is served here, same origin; another
    site's page in a player's browser may not pair or link on its behalf."""
    origin = headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc.lower() == headers.get("host", "").lower()


def qr_svg(text: str) -> bytes:
    """A QR code of `text` as SVG (segno), black on white, with a quiet zone."""
    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="svg", scale=6, border=3, dark="#000000",
                                     light="#ffffff", xmldecl=False)
    return buf.getvalue()


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

    def gateway() -> PhoneGateway | None:
        return cast(PhoneGateway | None, feed.phone)

    async def phone_page(request: Request) -> Response:
        if not PHONE_PAGE.is_file():
            return PlainTextResponse("the phone page is not installed", status_code=404)
        return FileResponse(PHONE_PAGE, media_type="text/html", headers=NO_CACHE)

    async def phone_pair(request: Request) -> Response:
        if not same_origin(request.headers):
            return error(403, "pairing is for the phone page of this table screen only")
        phones = gateway()
        if phones is None:
            return error(503, "this table takes no phones yet: try again in a moment")
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > PAIR_BODY_MAX:
            return error(400, f"request body over {PAIR_BODY_MAX} bytes: send "
                              '{"code": "..."}')
        body = b""
        async for chunk in request.stream():
            body += chunk
            if len(body) > PAIR_BODY_MAX:
                return error(400, f"request body over {PAIR_BODY_MAX} bytes: send "
                                  '{"code": "..."}')
        status, answer = await phones.pair(body)
        return JSONResponse(answer, status_code=status, headers=NO_CACHE)

    async def phone_link(ws: WebSocket) -> None:
        await ws.accept()
        if not same_origin(ws.headers):
            await ws.close(1008, "a phone link from another site's page is refused")
            return
        phones = gateway()
        if phones is None:
            await ws.close(1013, "this table takes no phones yet: reconnect in a moment")
            return
        with contextlib.suppress(WebSocketDisconnect):
            await phones.link(ws)

    async def phone_qr(request: Request) -> Response:
        code = request.path_params["code"]
        if not JOIN_CODE.fullmatch(code):
            return PlainTextResponse("not a join code", status_code=404)
        svg = qr_svg(f"{phone_base(request)}?code={code}")
        return Response(svg, media_type="image/svg+xml", headers=NO_CACHE)

    async def phone_address(request: Request) -> Response:
        return JSONResponse({"url": phone_base(request)}, headers=NO_CACHE)

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
        Route("/phone", phone_page),
        Route("/phone/pair", phone_pair, methods=["POST"]),
        WebSocketRoute("/phone/link", phone_link),
        Route("/phone/qr/{code}.svg", phone_qr),
        Route("/phone/address", phone_address),
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
                                ws_ping_interval=None, timeout_graceful_shutdown=2,
                                ws_max_size=WS_MAX_SIZE)
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
