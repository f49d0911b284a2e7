"""SQLite event log of everything that changes a table's state, appended before it is acted on.

append() collects entries; sync() writes everything collected in one transaction, and is
called before any frame leaves the host (Session asks its host to be durable first), at the
latest at the end of the loop turn. Each entry is durable once sync() returns (WAL mode: the
write has reached the operating system, so a SIGKILLed daemon loses nothing it acknowledged).
A restart replays the entries.

Checkpoints (copying the write-ahead log into the database file, with an fsync) run in a
thread of their own once a second, never inside a commit: SQLite's automatic checkpoint
would otherwise stall the event loop for milliseconds every thousand pages.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialbox.journal.entries import Step

_SCHEMA = """
CREATE TABLE IF NOT EXISTS entry (
    n      INTEGER PRIMARY KEY AUTOINCREMENT,
    tbl    TEXT NOT NULL,
    kind   TEXT NOT NULL,
    data   TEXT NOT NULL,
    at     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS entry_tbl ON entry (tbl, n);
"""


log = logging.getLogger("dialbox.journal")

_JSON = json.JSONEncoder(separators=(",", ":"))

CHECKPOINT_EVERY = 1.0
"""Seconds between two checkpoints of the write-ahead log (in the checkpoint thread)."""


class JournalError(Exception):
    """The journal file cannot be opened or is not a dialbox journal."""


@dataclass(frozen=True, slots=True)
class Entry:
    n: int
    table: str
    kind: str
    data: dict[str, Any]
    at: float


class Journal:
    """An append-only event log in one SQLite file (one file can hold many tables)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._pending: list[tuple[str, str, str, float]] = []
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread does it
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise JournalError(f"{self.path}: not a usable journal ({e})") from None
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        if self.path != ":memory:":
            self._checkpointer = threading.Thread(
                target=self._checkpoints, name="journal-checkpoint", daemon=True)
            self._checkpointer.start()

    def _checkpoints(self) -> None:
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            while not self._stop.wait(CHECKPOINT_EVERY):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                except sqlite3.Error as e:  # busy or the like: the next one catches up
                    log.debug("checkpoint skipped: %s", e)
        finally:
            db.close()

    def append(self, table: str, kind: str, **data: Any) -> None:
        """Collect one entry (written by the next sync(): before any frame goes out, at the
        latest at the end of this turn of the event loop; at once outside an event loop)."""
        self._collect(table, kind, _JSON.encode(data))

    def record(self, table: str, step: Step) -> None:
        """Collect one typed entry (dialbox.journal.entries), as append() does."""
        self._collect(table, step.kind, step.model_dump_json())

    def _collect(self, table: str, kind: str, data: str) -> None:
        first = not self._pending
        self._pending.append((table, kind, data, time.time()))
        if first:
            try:
                asyncio.get_running_loop().call_soon(self.sync)
            except RuntimeError:
                self.sync()

    def sync(self) -> None:
        """Write every collected entry in one transaction."""
        if not self._pending:
            return
        rows, self._pending = self._pending, []
        db = self._db
        db.execute("BEGIN")
        try:
            db.executemany("INSERT INTO entry (tbl, kind, data, at) VALUES (?, ?, ?, ?)", rows)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def entries(self, table: str) -> list[Entry]:
        self.sync()
        rows = self._db.execute(
            "SELECT n, tbl, kind, data, at FROM entry WHERE tbl = ? ORDER BY n", (table,)
        ).fetchall()
        return [Entry(n, t, k, json.loads(d), a) for n, t, k, d, a in rows]

    def tables(self) -> list[str]:
        self.sync()
        return [r[0] for r in self._db.execute("SELECT DISTINCT tbl FROM entry ORDER BY tbl")]

    def close(self) -> None:
        self.sync()
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
        self._db.close()
