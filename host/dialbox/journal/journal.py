"""SQLite event log of everything that changes a table's state, appended before it is acted on.

append() collects entries; sync() writes everything collected in one transaction, and is
called before any frame leaves the host (Session asks its host to be durable first), at the
latest at the end of the loop turn. Each entry is durable once sync() returns (WAL mode: the
write has reached the operating system, so a SIGKILLed daemon loses nothing it acknowledged).
A restart replays the entries.

Checkpoints (copying the write-ahead log into the database file, with an fsync) run in a
thread of their own once a second, never inside a commit: SQLite's automatic checkpoint
would otherwise stall the event loop for milliseconds every thousand pages.

Writers take turns on a lock file beside the journal (`<journal>-lock`, flock) before they
write: the worker processes of `dialbox run` share one journal, and SQLite's own answer to a
busy write lock is to sleep 1, 2, 5, 10, 15 ms... before it looks again, so two workers
committing a thousand times a second each stalled each other's event loops for whole
milliseconds (34 ms at worst, behind a checkpoint). A process waiting on the flock wakes the
moment the other lets go.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import json
import logging
import os
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

BUSY_TIMEOUT = 5.0
"""Seconds a commit waits for another process's commit to the same file (the worker
processes of `dialbox run` share one journal: docs/host.md, "Worker processes")."""
WAL_LIMIT = 32 * 1024 * 1024
"""Bytes of write-ahead log past which the checkpoint thread empties it (see _checkpoints).
Emptying holds the writers back while it syncs (6-12 ms at 200 tables): at 8 MB it came
every few seconds and was the longest stall left in a worker (docs/host.md)."""
WAL_WAIT = 0.05
"""Seconds the emptying checkpoint waits for the writers before it gives up until the next."""
CHECKPOINT_EVERY = 1.0
"""Seconds between two checkpoints of the write-ahead log (in the checkpoint thread)."""


PAGE_SIZE = 1024
"""Bytes per page of a journal this dialbox creates (an existing one keeps its own). A
transaction writes every page it touches to the write-ahead log whole (the entry, its index
and the sequence): 1 KB pages make that 4 KB per transaction instead of 13 KB, and the
commit about a third cheaper (docs/host.md, "The journal")."""


class JournalError(Exception):
    """The journal file cannot be opened or is not a dialbox journal."""


class WriteLock:
    """The journal's writers take turns on `<journal>-lock` (an exclusive flock): each
    thread that writes holds one of these, on a descriptor of its own (flock excludes open
    files, not processes, so two threads of one process exclude each other too). A journal
    in memory has none: it has one writer."""

    def __init__(self, journal: str) -> None:
        self.path = f"{journal}-lock"
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        except OSError as e:
            raise JournalError(f"{self.path}: cannot open the journal's lock file "
                               f"({e.strerror or e})") from None

    def __enter__(self) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def __exit__(self, *_exc: object) -> None:
        fcntl.flock(self._fd, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


FILE_MODE = 0o600
"""The journal and the -wal, -shm and -lock files beside it: its owner's only (they hold
commitments, and after all-locked every revealed choice)."""
DIR_MODE = 0o700
"""A directory the journal creates for itself (an existing one is left as it is)."""


def _create_private(path: Path) -> None:
    """A new journal: its directory, and the file with its schema, for its owner only (SQLite
    creates the -wal and -shm files with the database file's own mode). The file is made
    whole under a temporary name and then linked to `path`, so a reader beside the daemon
    (`dialbox audit`, `dialbox history`, a test) never finds it there without its table."""
    if path.exists():
        return
    try:
        for d in reversed([d for d in (path.parent, *path.parent.parents) if not d.exists()]):
            d.mkdir(mode=DIR_MODE, exist_ok=True)
            d.chmod(DIR_MODE)  # (mkdir's mode goes through the umask)
        tmp = path.with_name(f".{path.name}.new-{os.getpid()}")
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE))
    except OSError as e:
        raise JournalError(f"{path}: cannot create the journal ({e.strerror or e})") from None
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            db.executescript(_SCHEMA)
        finally:
            db.close()
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process made it meanwhile: that one is the journal
        except OSError:  # a file system without hard links
            if not path.exists():
                os.replace(tmp, path)
    except (OSError, sqlite3.Error) as e:
        raise JournalError(f"{path}: cannot create the journal ({e})") from None
    finally:
        tmp.unlink(missing_ok=True)


def _make_private(path: Path) -> None:
    """A journal written by an older dialbox (0644): its owner's only from now on."""
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-lock")):
        try:
            if p.stat().st_mode & 0o077:
                p.chmod(FILE_MODE)
                log.warning("%s: was readable by others; now mode %o", p, FILE_MODE)
        except OSError:  # not there (no -wal yet), or not ours to change
            pass


def _data(n: int, table: str, kind: str, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except (ValueError, TypeError) as e:
        raise JournalError(f"journal entry {n} of table {table} ({kind}): not JSON ({e})") from None
    if not isinstance(data, dict):
        raise JournalError(f"journal entry {n} of table {table} ({kind}): not a JSON object")
    return data


def _open_readonly(path: str) -> sqlite3.Connection:
    """An existing journal, to read only (JournalError with one clear line otherwise)."""
    p = Path(path)
    if not p.exists():
        raise JournalError(f"{path}: no such file")
    if not p.is_file():
        raise JournalError(f"{path}: not a file")
    try:
        db = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True,
                             isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise JournalError(f"{path}: cannot open ({e})") from None
    try:
        found = db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'entry'").fetchone()
    except sqlite3.Error as e:  # "file is not a database", "unable to open" (permissions)
        db.close()
        raise JournalError(f"{path}: not a dialbox journal ({e})") from None
    if found is None:
        db.close()
        raise JournalError(f"{path}: not a dialbox journal (an SQLite file without entries)")
    return db


@dataclass(frozen=True, slots=True)
class Entry:
    n: int
    table: str
    kind: str
    data: dict[str, Any]
    at: float


class Journal:
    """An append-only event log in one SQLite file (one file can hold many tables)."""

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        """Open (creating it if need be) the journal at `path`; `readonly`: open an existing
        journal to read only (`dialbox audit`, beside a running daemon), never create one."""
        self.path = str(path)
        self.readonly = readonly
        self._pending: list[tuple[str, str, str, float]] = []
        self._stop = threading.Event()
        self._checkpointer: threading.Thread | None = None
        self._writer: WriteLock | None = None
        self.truncations = 0
        """Times the checkpoint thread emptied the write-ahead log (see _checkpoints)."""
        if readonly:
            self._db = _open_readonly(self.path)
            return
        try:
            if self.path != ":memory:":
                _create_private(Path(self.path))
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT, isolation_level=None,
                                       check_same_thread=False)
            self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # (a new file only)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread does it
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise JournalError(f"{self.path}: not a usable journal ({e})") from None
        if self.path != ":memory:":
            _make_private(Path(self.path))
            self._writer = WriteLock(self.path)
            self._checkpointer = threading.Thread(
                target=self._checkpoints, name="journal-checkpoint", daemon=True)
            self._checkpointer.start()

    def _checkpoints(self) -> None:
        # A PASSIVE checkpoint never blocks the writers, but under a steady stream of
        # commits it never finds the log fully copied at the moment a writer starts, and the
        # WAL (with its index, mapped into every process's memory) grows without end: 150 MB
        # in 15 s at 800 commits a second. So, once the WAL is past WAL_LIMIT, a TRUNCATE
        # checkpoint copies the little the passive ones left, and empties it; it holds the
        # writers back meanwhile (a few milliseconds: most pages are copied already), and
        # gives up at once, to try again next time, if it cannot start within WAL_WAIT.
        try:
            writer = WriteLock(self.path)  # its own descriptor: it excludes the loop's sync()
        except JournalError as e:
            log.error("%s: no checkpoints (%s)", self.path, e)
            return
        db = sqlite3.connect(self.path, timeout=WAL_WAIT, isolation_level=None,
                             check_same_thread=False)
        wal = Path(f"{self.path}-wal")
        try:
            while not self._stop.wait(CHECKPOINT_EVERY):
                try:
                    db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    if wal.exists() and wal.stat().st_size > WAL_LIMIT:
                        with writer:  # the writers wait on the flock, not in SQLite's sleeps
                            db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                        self.truncations += 1
                except sqlite3.Error as e:  # busy or the like: the next one catches up
                    log.debug("checkpoint skipped: %s", e)
        finally:
            writer.close()
            db.close()

    def append(self, table: str, kind: str, **data: Any) -> None:
        """Collect one entry (written by the next sync(): before any frame goes out, at the
        latest at the end of this turn of the event loop; at once outside an event loop)."""
        self._collect(table, kind, _JSON.encode(data))

    def record(self, table: str, step: Step) -> None:
        """Collect one typed entry (dialbox.journal.entries), as append() does."""
        self._collect(table, step.kind, step.model_dump_json())

    def _collect(self, table: str, kind: str, data: str) -> None:
        if self.readonly:
            raise JournalError(f"{self.path}: opened to read only")
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
        with self._writer or contextlib.nullcontext():
            db.execute("BEGIN")
            try:
                db.executemany("INSERT INTO entry (tbl, kind, data, at) VALUES (?, ?, ?, ?)",
                               rows)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def entries(self, table: str) -> list[Entry]:
        self.sync()
        rows = self._db.execute(
            "SELECT n, tbl, kind, data, at FROM entry WHERE tbl = ? ORDER BY n", (table,)
        ).fetchall()
        return [Entry(n, t, k, _data(n, t, k, d), a) for n, t, k, d, a in rows]

    def tables(self) -> list[str]:
        self.sync()
        return [r[0] for r in self._db.execute("SELECT DISTINCT tbl FROM entry ORDER BY tbl")]

    def close(self) -> None:
        self.sync()
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
        if self._writer is not None:
            self._writer.close()
        self._db.close()
