"""Host-side phone tests: a daemon with its table screen in this process, HTTP pairing, and
a protocol-v1 phone double speaking over the screen's WebSocket (`/phone/link`).

The double is the controller's side of the protocol on the shared codec, as the page's JS
codec is: identify -> hello (with the device key's MAC) -> welcome -> snapshot, then acks,
pongs, commits and reveals. It records every frame both ways, so tests can assert on what
went over the wire (never timing)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from dialbox.daemon import Daemon
from dialbox.daemon.config import parse_config
from dialbox.displays.show import TableDisplays
from dialbox_protocol import codec
from tests.host.harness import wait_for as wait_for  # (re-exported for the phone tests)

TABLE = "t1"
Frame = dict[str, Any]


def phone_config(work: Path, *, game: str = "pipcycle", players: int = 2,
                 bots: list[int] | None = None, menu: bool = False,
                 **table: Any) -> dict[str, Any]:
    """A one-table daemon: its serial watcher on `work/links/*` (simulated controllers),
    no MQTT; the table's seats free for phones, but `bots` (1-based)."""
    t: dict[str, Any] = {"name": TABLE, "pairing": "press", "menu": menu, **table}
    if game:
        t.update(game=game, players=players, seed=3, bots=bots or [])
    return {
        "host": {"name": "phone-test", "journal": str(work / "journal.sqlite")},
        "serial": {"ports": [str(work / "links" / "*")], "usb": []},
        "tables": [t],
    }


@dataclass
class Served:
    daemon: Daemon
    url: str
    """The table screen's base URL (http://127.0.0.1:PORT)."""

    @property
    def console(self) -> Any:
        return self.daemon.runners[TABLE]

    @property
    def ws_url(self) -> str:
        return "ws" + self.url[4:] + "/phone/link"


@contextlib.asynccontextmanager
async def served(cfg: dict[str, Any]) -> AsyncIterator[Served]:
    """The daemon of `cfg` running, its first table followed by a table screen."""
    daemon = Daemon(parse_config(cfg, "test"))
    task = asyncio.create_task(daemon.run())
    try:
        async with TableDisplays(port=0) as shown:
            shown.attach(daemon.runners[TABLE])
            assert shown.url is not None
            yield Served(daemon, "http://127.0.0.1:" + shown.url.rsplit(":", 1)[1].rstrip("/"))
    finally:
        daemon.stop()
        await asyncio.wait_for(task, 10)
        daemon.journal.close()


def _http(method: str, url: str, body: bytes | None = None) -> tuple[int, Any, str]:
    req = urllib.request.Request(url, data=body, method=method,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            raw = r.read()
            kind = r.headers.get("Content-Type", "")
            status = r.status
    except urllib.error.HTTPError as e:
        raw, kind, status = e.read(), e.headers.get("Content-Type", ""), e.code
    if "json" in kind:
        return status, json.loads(raw), kind
    return status, raw, kind


async def http(method: str, url: str, body: bytes | None = None) -> tuple[int, Any, str]:
    return await asyncio.to_thread(_http, method, url, body)


async def pair(base: str, code: str | Any) -> tuple[int, dict[str, Any]]:
    body = json.dumps({"code": code}).encode() if isinstance(code, str) else code
    status, answer, _ = await http("POST", base + "/phone/pair", body)
    return status, answer


async def screen_state(base: str) -> dict[str, Any]:
    _s, frame, _k = await http("GET", base + "/state.json")
    state: dict[str, Any] = frame["state"]
    return state




async def join_code(s: Served, seat: int | None = None) -> str:
    """A join code the table screen shows now (of `seat`, else the first)."""
    codes: list[dict[str, Any]] = []

    async def poll() -> bool:
        nonlocal codes
        codes = [j for j in (await screen_state(s.url))["join"]
                 if seat is None or j["seat"] == seat]
        return bool(codes)

    for _ in range(500):
        if await poll():
            return str(codes[0]["code"])
        await asyncio.sleep(0.02)
    raise AssertionError(f"the screen shows no join code for seat {seat}")


@dataclass
class Phone:
    """A phone double on `/phone/link`: protocol v1, the controller's side."""

    url: str
    uid: str
    key: bytes
    caps: list[str] = field(default_factory=lambda: ["seatview"])
    auto: bool = True
    """Answer pings, acknowledge reliable frames."""
    play: bool = False
    """Lock the first allowed face of each wheel of every prompt, reveal after alllocked."""
    hold: bool = False
    """While playing: commit, but do not reveal (a phone that is about to drop)."""
    locks: dict[int, tuple[list[int], bytes, str]] = field(default_factory=dict)
    """pid -> (selection, nonce, commitment) of each lock (the page's IndexedDB)."""
    revealed: list[int] = field(default_factory=list)
    got: list[Frame] = field(default_factory=list)
    sent: list[bytes] = field(default_factory=list)
    raw_in: list[str | bytes] = field(default_factory=list)
    seq: int = 0
    welcome: Frame | None = None
    challenge: str | None = None
    closed: tuple[int, str] | None = None
    ws: Any = None
    _reader: asyncio.Task[None] | None = None
    _news: asyncio.Event = field(default_factory=asyncio.Event)

    async def connect(self) -> None:
        self.ws = await websockets.connect(self.url, max_size=1 << 20)
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.raw_in.append(text)
                if not isinstance(text, str):
                    continue
                frame = codec.decode_frame(text.encode())
                if isinstance(frame, codec.DecodeError):
                    continue
                self.got.append(frame)
                self._news.set()
                if not self.auto:
                    continue
                if frame["t"] == "ping":
                    await self.send("pong", 0, frame["ms"])
                elif frame["seq"] and frame["t"] != "ack":
                    await self.send("ack", 0, frame["seq"])
                if self.play:
                    await self._play(frame)
        except websockets.ConnectionClosed:
            pass
        finally:
            if self.ws.close_code is not None:
                self.closed = (self.ws.close_code, self.ws.close_reason or "")
            self._news.set()

    async def _play(self, f: Frame) -> None:
        if f["t"] == "prompt" and f["pid"] not in self.locks:
            sel = [first_allowed(w) for w in f["wheels"]]
            n = nonce()
            if f["sealed"]:
                c = await self.commit(f["pid"], sel, n)
                self.locks[f["pid"]] = (sel, n, c)
            else:
                self.locks[f["pid"]] = (sel, n, "")
                await self.reveal(f["pid"], sel, n)
        elif f["t"] == "alllocked" and f["pid"] in self.locks and not self.hold:
            sel, n, c = self.locks[f["pid"]]
            if [self.welcome_seat(), c] in f["commits"] and f["pid"] not in self.revealed:
                self.revealed.append(f["pid"])
                await self.reveal(f["pid"], sel, n)

    def welcome_seat(self) -> int:
        return -1 if self.welcome is None else int(self.welcome["seat"])

    async def send_text(self, text: str | bytes) -> None:
        data = text if isinstance(text, bytes) else text.encode()
        self.sent.append(data)
        await self.ws.send(text)

    async def send(self, name: str, seq: int, *args: Any) -> None:
        frame = codec.encode(name, seq, list(args))
        await self.send_text(frame[:-1].decode())

    async def reliable(self, name: str, *args: Any) -> int:
        self.seq += 1
        await self.send(name, self.seq, *args)
        return self.seq

    async def expect(self, kind: str, pred: Callable[[Frame], bool] = lambda f: True,
                     after: int = 0, timeout: float = 30.0) -> Frame:
        """The first frame of `kind` (received at index >= `after`) that `pred` accepts."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            for f in self.got[after:]:
                if f["t"] == kind and pred(f):
                    return f
            if self.closed is not None:
                raise AssertionError(f"{self.uid}: link closed {self.closed} before {kind}")
            self._news.clear()
            left = end - loop.time()
            if left <= 0:
                raise AssertionError(f"{self.uid}: no {kind} frame; got "
                                     f"{[f['t'] for f in self.got[-20:]]}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._news.wait(), min(left, 0.5))

    async def hello(self, mac: str | None = None, uid: str | None = None) -> None:
        ident = await self.expect("identify", after=len(self.got) - 1 if self.got else 0)
        self.challenge = ident["challenge"]
        uid = uid or self.uid
        mac = mac if mac is not None else codec.hello_mac(self.key, self.challenge, uid)
        await self.send("hello", 0, codec.PROTOCOL_VERSION, codec.TABLE_HASH, "page-test",
                        "phone", uid, self.caps, mac)

    async def join(self, snapshot: tuple[int | None, str, str | None] = (None, "idle", None)
                   ) -> Frame:
        """identify -> hello -> welcome -> snapshot; returns the welcome."""
        mark = len(self.got)
        await self.hello()
        self.welcome = await self.expect("welcome", after=mark)
        self.seq = 0
        await self.reliable("snapshot", *snapshot)
        return self.welcome

    async def commit(self, pid: int, sel: list[int], nonce: bytes) -> str:
        c = codec.commitment(sel, nonce, pid, self.uid)
        await self.reliable("commit", pid, c)
        return c

    async def reveal(self, pid: int, sel: list[int], nonce: bytes) -> None:
        await self.reliable("reveal", pid, sel, codec.b64(nonce))

    def seatviews(self) -> list[dict[str, Any]]:
        return [json.loads(f["view"]) for f in self.got if f["t"] == "seatview"]

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(self._reader, 5)


@contextlib.asynccontextmanager
async def phone(s: Served, uid: str, key: bytes, **kw: Any) -> AsyncIterator[Phone]:
    p = Phone(s.ws_url, uid, key, **kw)
    await p.connect()
    try:
        yield p
    finally:
        await p.close()


async def paired_phone(s: Served, seat: int | None = None) -> tuple[str, bytes, int]:
    """Pair a phone over HTTP: (uid, key, seat)."""
    code = await join_code(s, seat)
    status, answer = await pair(s.url, code)
    assert status == 200, answer
    key = codec.device_key(answer["key"])
    assert key is not None and len(key) == 32
    return answer["uid"], key, int(answer["seat"])


def first_allowed(wheel: Any) -> int:
    """A wheel's start face if allowed, else its first allowed face (-1: no wheel)."""
    if wheel is None:
        return -1
    _faces, mask, start = wheel
    if mask >> start & 1:
        return int(start)
    return next(i for i in range(codec.MAX_FACES) if mask >> i & 1)


def nonce() -> bytes:
    return os.urandom(codec.NONCE_BYTES)
