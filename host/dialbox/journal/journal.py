"""SQLite event log of everything that changes a table's state, appended before it is acted on.

Each entry is durable once append() returns (WAL mode: the write has reached the operating
system, so a SIGKILLed daemon loses nothing it acknowledged). A restart replays the entries.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise JournalError(f"{self.path}: not a usable journal ({e})") from None

    def append(self, table: str, kind: str, **data: Any) -> None:
        self._db.execute(
            "INSERT INTO entry (tbl, kind, data, at) VALUES (?, ?, ?, ?)",
            (table, kind, json.dumps(data, separators=(",", ":")), time.time()),
        )

    def entries(self, table: str) -> list[Entry]:
        rows = self._db.execute(
            "SELECT n, tbl, kind, data, at FROM entry WHERE tbl = ? ORDER BY n", (table,)
        ).fetchall()
        return [Entry(n, t, k, json.loads(d), a) for n, t, k, d, a in rows]

    def tables(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT DISTINCT tbl FROM entry ORDER BY tbl")]

    def close(self) -> None:
        self._db.close()
