"""Helpers for the phone page's tests: Chromium as a phone, a static file server, and a
scripted host (the Python codec on the host's side of a WebSocket) to play the page against."""

from __future__ import annotations

import asyncio
import contextlib
import mimetypes
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from dialbox.paths import repo_root
from dialbox_protocol import codec
from tests.browser import chromium_context

PHONE_STATIC = repo_root() / "host" / "dialbox" / "displays" / "static" / "phone"
STATIC = PHONE_STATIC.parent
PHONE_SIZE = {"width": 390, "height": 844}
AXE = repo_root() / "node_modules" / "axe-core" / "axe.min.js"


def artifacts() -> Path:
    """Where the phone tests leave their screenshots (gitignored)."""
    path = repo_root() / "artifacts" / "phone"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _type(path: Path) -> str:
    if path.suffix in (".js", ".mjs"):
        return "text/javascript"
    return mimetypes.guess_type(path.name)[0] or "application/octet-stream"


@contextlib.contextmanager
def static_server(mounts: dict[str, Path]) -> Iterator[str]:
    """Serve folders under URL prefixes ({"/phone/": folder}) on an ephemeral port; yields
    the base URL (http://127.0.0.1:PORT)."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0]
            for prefix, folder in mounts.items():
                if path.startswith(prefix):
                    file = (folder / path[len(prefix):]).resolve()
                    if file.is_file() and folder.resolve() in file.parents:
                        data = file.read_bytes()
                        self.send_response(200)
                        self.send_header("Content-Type", _type(file))
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data)
                        return
            self.send_error(404)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@contextlib.asynccontextmanager
async def chromium(profile: Path, phone: bool = True,
                   ) -> AsyncIterator[tuple[Any, list[str]]]:
    """Debian's Chromium, headless, as a phone (390x844, touch, mobile) with a fresh profile
    (kept across reloads: IndexedDB survives them as on a phone): (page, page errors)."""
    errors: list[str] = []
    extra: dict[str, Any] = {}
    if phone:
        extra = {"has_touch": True, "is_mobile": True, "device_scale_factor": 1}
    async with chromium_context(profile, viewport=PHONE_SIZE, **extra) as ctx:
        page = ctx.pages[0] if ctx.pages else await ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        yield page, errors


# ---------------------------------------------------------------- a scripted host

KEY = bytes(range(1, 33))
UID = "ph-0a1b2c3d"
CODE = "K7M2QX"


class HostLink:
    """The host's side of one phone link, written with the Python codec: frames in (every
    one kept, in order, as decoded), frames out with the host's own sequence numbers, acks
    for the page's reliable frames."""

    def __init__(self, ws: Any, log: list[tuple[str, dict[str, Any]]]) -> None:
        self.ws = ws
        self.seq = 0
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.log = log
        self.acked: set[int] = set()

    async def send(self, name: str, args: list[Any]) -> int:
        seq = 0
        if codec.is_reliable(name):
            self.seq += 1
            seq = self.seq
        frame = codec.encode(name, seq, args)
        await self.ws.send_text(frame.decode().rstrip("\n"))
        self.log.append(("down", codec.decode_frame(frame)))  # type: ignore[arg-type]
        return seq

    async def pump(self) -> None:
        """Read frames until the socket closes: ack reliable ones, answer pings."""
        from starlette.websockets import WebSocketDisconnect

        try:
            while True:
                text = await self.ws.receive_text()
                msg = codec.decode_frame(text.encode())
                assert isinstance(msg, dict), f"the page sent a bad frame: {text!r} ({msg})"
                self.log.append(("up", msg))
                if msg["t"] == "ack":
                    self.acked.add(msg["ref"])
                    continue
                if msg["t"] == "ping":
                    await self.send("pong", [msg["ms"]])
                    continue
                if codec.is_reliable(msg["t"]):
                    await self.ws.send_text(codec.encode("ack", 0, [msg["seq"]]).decode()[:-1])
                await self.inbox.put(msg)
        except WebSocketDisconnect:
            await self.inbox.put({"t": "closed", "seq": 0})

    async def pinger(self) -> None:
        """A ping a second, as the host does on every phone link."""
        with contextlib.suppress(Exception):
            while True:
                await asyncio.sleep(1)
                await self.send("ping", [int(time.monotonic() * 1000) % (1 << 30)])

    async def expect(self, *names: str, timeout: float = 10) -> dict[str, Any]:
        """The next frame of one of these types (others, e.g. pong or status, skipped)."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            assert left > 0, f"no {names} from the page within {timeout} s"
            msg = await asyncio.wait_for(self.inbox.get(), left)
            if msg["t"] in names:
                return msg
            assert msg["t"] != "closed", f"the page closed the link while {names} was due"


class ScriptedHost:
    """A starlette app like the displays server's phone routes: GET /phone (index.html),
    /static (the static folder), POST /phone/pair, WS /phone/link. Each link's handling is
    the coroutine `script(link)`, set by the test; every link gets a fresh challenge and is
    handshaken here (identify, hello with its MAC checked, welcome)."""

    def __init__(self, seat: int = 1, colour: str = "1e88e5", name: str = "Blue",
                 refuse_first: bool = False) -> None:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import FileResponse, JSONResponse, Response
        from starlette.routing import Mount, Route, WebSocketRoute
        from starlette.staticfiles import StaticFiles
        from starlette.websockets import WebSocket

        self.seat = seat
        self.colour = colour
        self.name = name
        self.log: list[tuple[str, dict[str, Any]]] = []
        self.links: asyncio.Queue[HostLink] = asyncio.Queue()
        self.hellos: list[dict[str, Any]] = []
        self.pairs: list[str] = []
        self.refuse_first = refuse_first
        """Answer the first hello as a host that still holds the old link: uid_in_use, then
        identify again 1 s later (docs: the host's side of a WiFi drop)."""

        async def phone(request: Request) -> Response:
            return FileResponse(PHONE_STATIC / "index.html")

        async def pair(request: Request) -> Response:
            body = await request.json()
            self.pairs.append(body.get("code"))
            if body.get("code") != CODE:
                return JSONResponse({"error": "no such code: check the table screen"}, 404)
            return JSONResponse({"uid": UID, "key": codec.b64(KEY), "table": "t1",
                                 "seat": self.seat})

        async def link(ws: WebSocket) -> None:
            await ws.accept()
            hl = HostLink(ws, self.log)
            challenge = codec.b64(os.urandom(16))
            await hl.send("identify", [1, codec.TABLE_HASH, "dialbox", challenge])
            text = await ws.receive_text()
            hello = codec.decode_frame(text.encode())
            assert isinstance(hello, dict) and hello["t"] == "hello", text
            self.log.append(("up", hello))
            self.hellos.append(hello)
            assert hello["mac"] == codec.hello_mac(KEY, challenge, UID), "bad hello MAC"
            if self.refuse_first:
                self.refuse_first = False
                await hl.send("error", [codec.E_SPOOF, f"{UID} is already connected", 0])
                await asyncio.sleep(1.0)
                await hl.send("identify", [1, codec.TABLE_HASH, "dialbox", challenge])
                text = await ws.receive_text()
                hello = codec.decode_frame(text.encode())
                assert isinstance(hello, dict) and hello["t"] == "hello", text
                self.log.append(("up", hello))
                self.hellos.append(hello)
            await hl.send("welcome", [self.seat, self.colour, "t1", self.name])
            pump = asyncio.create_task(hl.pump())
            pinger = asyncio.create_task(hl.pinger())
            await self.links.put(hl)
            await pump
            pinger.cancel()

        self.app = Starlette(routes=[
            Route("/phone", phone),
            Route("/phone/pair", pair, methods=["POST"]),
            WebSocketRoute("/phone/link", link),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ])

    def up(self) -> list[dict[str, Any]]:
        return [m for d, m in self.log if d == "up"]

    async def next_link(self, timeout: float = 15) -> HostLink:
        return await asyncio.wait_for(self.links.get(), timeout)


@contextlib.asynccontextmanager
async def serve(app: Any) -> AsyncIterator[str]:
    """Serve an ASGI app with uvicorn on an ephemeral port; yields the base URL."""
    import uvicorn

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off",
                                           ws_ping_interval=None, timeout_graceful_shutdown=1))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(task, 5)
        sock.close()


# ---------------------------------------------------------------- screenshots for the docs

SCREEN_VIEW = {"game": "pixoid", "seat": 1, "phase": "game",
               "private": {"you": 1, "role": "bug", "controllers": [1]},
               "own": {"cubes": 12, "bonus": 4, "scores": 9, "turns": 3},
               "headline": "Round 3: the Bugs close in"}
SCREEN_PID = 41


async def phone_screens(folder: Path, profile: Path) -> list[Path]:
    """The phone page at 390x844 as docs/screens shows it: pairing, a sealed prompt with its
    wheels, locked, revealed with the seat's own view. Returns the PNG files written."""
    host = ScriptedHost(seat=1, colour="43a047", name="Green")
    other = codec.commitment([6, 2, -1], bytes(12), SCREEN_PID, "bot-0")
    shots: list[Path] = []
    wheels = [[None, 0b01010101, 0], [None, 0b1111111110, 1], None]
    async with serve(host.app) as base, chromium(profile) as (page, _errors):

        async def shot(name: str) -> None:
            path = folder / f"phone-{name}.png"
            await page.wait_for_timeout(250)  # the wheels' short slide ends
            await page.screenshot(path=str(path))
            shots.append(path)

        await page.goto(f"{base}/phone")
        await page.wait_for_selector("#pair-view:not([hidden])")
        await page.fill("#code", CODE)
        await shot("pairing")
        await page.tap("#pair-button")
        link = await host.next_link()
        await link.expect("snapshot")
        await link.send("headline", [SCREEN_VIEW["headline"]])
        await link.send("seatview", [json_text(SCREEN_VIEW)])
        await link.send("prompt", [SCREEN_PID, True, True, "Move Pixoid", wheels, False])
        await page.wait_for_selector("body[data-state='programming']")
        await page.tap(".wheel[data-wheel='0'] .turn.next")
        await page.tap(".wheel[data-wheel='1'] .turn.next")
        await page.tap(".wheel[data-wheel='1'] .turn.next")
        await shot("prompt")
        await page.tap("#lock")
        commit = await link.expect("commit")
        await link.send("status", [SCREEN_PID, "locked"])
        await page.wait_for_selector("body[data-state='locked']")
        await shot("locked")
        await link.send("alllocked", [SCREEN_PID, [[0, other], [1, commit["commitment"]]]])
        reveal = await link.expect("reveal")
        await link.send("revealed", [
            SCREEN_PID, [[0, "W 2"], [1, "E 3"]], "Pixoid went west; Green's Bug took 2 cubes",
            [[0, [6, 2, -1], codec.b64(bytes(12)), "bot-0"],
             [1, reveal["sel"], reveal["nonce"], UID]]])
        await page.wait_for_selector("body[data-state='revealed']")
        await shot("revealed")
    return shots


def json_text(value: Any) -> str:
    import json

    return json.dumps(value, separators=(",", ":"))


if __name__ == "__main__":
    # python -m tests.phone.page_helpers [FOLDER]: the phone page's screenshots (docs/screens)
    import sys
    import tempfile

    out = Path(sys.argv[1]) if len(sys.argv) > 1 else repo_root() / "docs" / "screens"
    with tempfile.TemporaryDirectory() as tmp:
        for p in asyncio.run(phone_screens(out, Path(tmp) / "profile")):
            print(f"{p} {p.stat().st_size // 1024} KB")
