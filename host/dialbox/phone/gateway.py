"""Where a phone's requests reach the process that owns its table (docs/host.md, "Phones").

The table screen (dialbox.displays.screen) serves `POST /phone/pair` and `WS /phone/link`
and hands both to its table's gateway (`phone` of what it follows: a Console in this
process, or the supervisor's RemoteTable of a worker's table):

- `LocalPhones`: the table is this process's. Pairing runs here; a WebSocket becomes a
  `WebSocketLink` served by a session of the daemon, exactly as a serial port is.
- `RelayPhones`: a worker process owns the table. Each request opens one connection to
  that worker's Unix socket (`PhoneServer`, in a 0700 folder of the supervisor's): a first
  line says what it is (`{"t": "pair", "table": T, "body": "..."}` answered by one line
  `{"status": S, "body": {...}}`, or `{"t": "link", "table": T}`), then, for a link, frames
  go both ways one per line (the worker's `StreamLink`), checked at the WebSocket by
  `check_message` as in this process. A worker that restarts drops its connections: the
  relay closes the WebSocket (1013, try again) and the phone reconnects and resumes.

A pairing reaches the owner of the seats, whichever process serves the screen, so a seat is
reserved and journaled by the one process that owns the table; the key store is one file
that every process reads again when it changes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

from dialbox.phone.pairing import Answer, Pairing, Seats
from dialbox.sessions.keys import KeyStore
from dialbox.transports.base import Link
from dialbox.transports.websocket import (
    CLOSE_AGAIN,
    WS_MAX_SIZE,
    StreamLink,
    WebSocketLink,
    WsPeer,
    check_message,
)
from dialbox_protocol.frames import ProtocolError

log = logging.getLogger("dialbox.phone")

HEADER_LIMIT = 8 * 1024
"""Bytes of the first line of a relayed request."""
STREAM_LIMIT = WS_MAX_SIZE
Serve = Callable[[Link, Any], Awaitable[None]]
"""Runs a session over a link for a table (dialbox.daemon.Daemon.serve)."""


class LocalPhones:
    """The phone gateway of a table this process owns."""

    def __init__(self, seats: Seats, keys: KeyStore, serve: Serve) -> None:
        self.seats = seats
        self.pairing = Pairing(seats, keys)
        self.serve = serve
        self.links = 0
        """Phone links served so far."""

    async def pair(self, body: bytes) -> Answer:
        return self.pairing.pair(body)

    async def link(self, ws: WsPeer) -> None:
        """Serve a phone's (accepted) WebSocket until it closes."""
        self.links += 1
        link = WebSocketLink(ws, f"phone#{self.links}@{self.seats.name}")
        await asyncio.gather(link.pump(), self.serve(link, self.seats))

    async def stream(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve a phone relayed by the supervisor (its frames one per line)."""
        self.links += 1
        link = StreamLink(reader, writer, f"phone#{self.links}@{self.seats.name}")
        await asyncio.gather(link.pump(), self.serve(link, self.seats))


class PhoneServer:
    """A worker's Unix socket for the supervisor's relays (one connection per request)."""

    def __init__(self, path: str | Path, phones: Mapping[str, LocalPhones]) -> None:
        self.path = Path(path)
        self.phones = phones
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()  # a socket of this worker's previous run
        self._server = await asyncio.start_unix_server(self._client, str(self.path),
                                                       limit=STREAM_LIMIT)
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        """Stop listening; the links end as the daemon closes its sessions' links (those
        still running after a moment are cancelled)."""
        if self._server is not None:
            self._server.close()
        if self._tasks:
            _done, pending = await asyncio.wait(list(self._tasks), timeout=2.0)
            for t in pending:
                t.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _client(self, reader: asyncio.StreamReader,
                      writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._serve(reader, writer)
        except (ConnectionError, OSError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            # (the server's callback task: asyncio would log a cancelled one as an error)
            return
        finally:
            if task is not None:
                self._tasks.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        line = await reader.readline()
        try:
            head = json.loads(line)
            kind, table = head["t"], head["table"]
        except (ValueError, KeyError, TypeError):
            log.error("phone relay: an unreadable request: closed")
            return
        phones = self.phones.get(table) if isinstance(table, str) else None
        if kind == "pair":
            body = head.get("body")
            if phones is None:
                answer: Answer = (404, {"error": f"no table {table} in this worker"})
            elif not isinstance(body, str):
                answer = (400, {"error": "the body needs a \"code\""})
            else:
                answer = await phones.pair(body.encode("utf-8", "replace"))
            writer.write(json.dumps({"status": answer[0], "body": answer[1]}).encode() + b"\n")
            await writer.drain()
        elif kind == "link":
            if phones is None:
                writer.write(f"!close {CLOSE_AGAIN} no table {table} here\n".encode())
                return
            await phones.stream(reader, writer)


class RelayPhones:
    """The phone gateway of a table a worker process owns (the supervisor's side)."""

    def __init__(self, path: str | Path, table: str) -> None:
        self.path = Path(path)
        self.table = table

    async def _open(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        try:
            return await asyncio.open_unix_connection(str(self.path), limit=STREAM_LIMIT)
        except OSError:
            return None

    async def pair(self, body: bytes) -> Answer:
        conn = await self._open()
        if conn is None:
            return 503, {"error": f"table {self.table} is starting or restarting: try again "
                                  "in a moment"}
        reader, writer = conn
        try:
            head = {"t": "pair", "table": self.table,
                    "body": body[:HEADER_LIMIT // 2].decode("utf-8", "replace")}
            writer.write(json.dumps(head).encode() + b"\n")
            await writer.drain()
            reply = json.loads(await reader.readline())
            status, answer = int(reply["status"]), reply["body"]
            if not isinstance(answer, dict):
                raise TypeError("body")
            return status, answer
        except (OSError, ValueError, KeyError, TypeError):
            return 503, {"error": f"table {self.table}'s worker did not answer: try again"}
        finally:
            writer.close()

    async def link(self, ws: WsPeer) -> None:
        """Relay a phone's (accepted) WebSocket to the worker until either side closes."""
        conn = await self._open()
        if conn is None:
            with contextlib.suppress(Exception):
                await ws.close(CLOSE_AGAIN, f"table {self.table} is starting: reconnect")
            return
        reader, writer = conn
        writer.write(json.dumps({"t": "link", "table": self.table}).encode() + b"\n")

        async def up() -> None:
            while True:
                try:
                    message = await ws.receive()
                except Exception:
                    return
                got = check_message(message)
                if got is None:
                    return
                if isinstance(got, ProtocolError):
                    writer.write(f"!refuse {got.code} {got.detail}\n".encode("ascii", "replace"))
                else:
                    writer.write(got + b"\n")
                await writer.drain()

        async def down() -> None:
            while True:
                try:
                    line = await reader.readline()
                except (OSError, ValueError):
                    line = b""
                if not line.endswith(b"\n"):
                    with contextlib.suppress(Exception):
                        await ws.close(CLOSE_AGAIN, "the table's worker stopped: reconnect")
                    return
                if line.startswith(b"!close "):
                    code, _, reason = line[7:-1].decode("ascii", "replace").partition(" ")
                    with contextlib.suppress(Exception):
                        await ws.close(int(code) if code.isdigit() else 1008, reason[:120])
                    return
                await ws.send_text(line[:-1].decode("ascii", "replace"))

        tasks = [asyncio.create_task(up()), asyncio.create_task(down())]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            writer.close()
