"""The journal on its own: entries collected per loop turn, checkpoints in their own thread."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from dialbox.journal import Journal, JournalError


def test_entries_written_in_one_turn_are_durable_before_the_turn_ends(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"

    async def turn() -> int:
        j = Journal(path)
        for i in range(5):
            j.append("t1", "commit", seat=i)
        other = Journal(path)  # another reader (as a restarted daemon would be)
        before = len(other.entries("t1"))
        await asyncio.sleep(0)  # the end of this turn of the loop: the journal syncs
        after = len(other.entries("t1"))
        other.close()
        j.close()
        assert before == 0  # collected, not yet written...
        return after

    assert asyncio.run(turn()) == 5  # ...and written, in order, when the turn ended
    j = Journal(path)
    assert [e.data["seat"] for e in j.entries("t1")] == [0, 1, 2, 3, 4]
    j.close()


def test_sync_makes_entries_durable_at_once(tmp_path: Path) -> None:
    async def run() -> None:
        j = Journal(tmp_path / "j.sqlite")
        j.append("t1", "seat", seat=0)
        j.sync()  # what a session does before its frames go out
        other = Journal(tmp_path / "j.sqlite")
        assert [e.kind for e in other.entries("t1")] == ["seat"]
        other.close()
        j.close()

    asyncio.run(run())


def test_the_write_ahead_log_is_checkpointed_by_the_journals_own_thread(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    j = Journal(path)
    size0 = path.stat().st_size
    for i in range(2000):
        j.append("t1", "reveal", seat=i % 6, sel=[1, 2, -1], nonce="x" * 16)
    j.sync()
    # the main connection never checkpoints (wal_autocheckpoint=0): only the thread copies
    # the log into the database file
    end = time.monotonic() + 30
    while path.stat().st_size <= size0 and time.monotonic() < end:
        time.sleep(0.05)
    assert path.stat().st_size > size0
    assert len(j.entries("t1")) == 2000
    j.close()


def test_a_steady_stream_of_commits_does_not_grow_the_write_ahead_log_without_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Passive checkpoints alone never catch up with a writer that never pauses: the WAL
    (and its index, mapped into memory) grew by 10 MB a second. Past WAL_LIMIT the
    checkpoint thread empties it."""
    import dialbox.journal.journal as journal_module

    monkeypatch.setattr(journal_module, "WAL_LIMIT", 64 * 1024)
    monkeypatch.setattr(journal_module, "CHECKPOINT_EVERY", 0.02)
    path = tmp_path / "j.sqlite"
    wal = Path(f"{path}-wal")
    journal = Journal(path)
    sizes: list[int] = []
    written = [0]

    async def stream() -> None:
        while journal.truncations < 3 and written[0] < 200_000:  # (a bound against hangs)
            journal.append("t1", "commit", pid=written[0], seat=0, uid="c1",
                           commitment="x" * 22)
            await asyncio.sleep(0)
            written[0] += 1
            if written[0] % 100 == 0:
                sizes.append(wal.stat().st_size)

    asyncio.run(stream())
    journal.close()
    assert journal.truncations >= 3
    assert min(sizes[len(sizes) // 2:]) < max(sizes)  # it shrank, not only grew
    assert len(Journal(path, readonly=True).entries("t1")) == written[0]  # nothing lost


def test_writers_take_turns_on_the_lock_file(tmp_path: Path) -> None:
    """Two journals on one file (two worker processes): a writer waits on `<journal>-lock`
    while another holds it, and writes the moment it is let go."""
    import threading

    from dialbox.journal.journal import WriteLock

    path = tmp_path / "j.sqlite"
    first, second = Journal(path), Journal(path)
    held = WriteLock(str(path))  # as the other worker's commit, or a truncating checkpoint
    started = threading.Event()

    def write() -> None:
        started.set()
        second.append("t2", "seat", seat=1, uid=None, bot=True)  # (no loop: syncs at once)

    with held:
        writer = threading.Thread(target=write)
        writer.start()
        started.wait(5)
        time.sleep(0.3)
        assert writer.is_alive()  # waiting on the lock
        assert first.entries("t2") == []
    writer.join(5)
    assert not writer.is_alive()
    assert [e.data["seat"] for e in first.entries("t2")] == [1]
    held.close()
    first.close()
    second.close()


def test_a_new_journal_has_small_pages_and_an_old_one_keeps_its_own(tmp_path: Path) -> None:
    import sqlite3

    from dialbox.journal.journal import PAGE_SIZE

    new = tmp_path / "new.sqlite"
    Journal(new).close()
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.execute("PRAGMA page_size=4096")
    db.execute("CREATE TABLE entry (n INTEGER PRIMARY KEY AUTOINCREMENT, tbl TEXT NOT NULL, "
               "kind TEXT NOT NULL, data TEXT NOT NULL, at REAL NOT NULL)")
    db.commit()
    db.close()
    journal = Journal(old)
    journal.append("t1", "seat", seat=0, uid=None, bot=True)
    journal.close()

    def page_size(p: Path) -> int:
        c = sqlite3.connect(p)
        try:
            return int(c.execute("PRAGMA page_size").fetchone()[0])
        finally:
            c.close()

    assert page_size(new) == PAGE_SIZE == 1024
    assert page_size(old) == 4096
    assert len(Journal(old, readonly=True).entries("t1")) == 1


def test_a_reader_never_finds_a_new_journal_without_its_table(tmp_path: Path) -> None:
    """`dialbox audit` or `history` beside a daemon that is making its journal: the file
    appears whole (made under another name, then linked), never as an empty SQLite file."""
    paths = [tmp_path / f"j{i}" / "journal.sqlite" for i in range(40)]
    seen: list[str] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            for p in paths:
                if p.exists():
                    try:
                        Journal(p, readonly=True).close()
                        seen.append("ok")
                    except JournalError as e:
                        seen.append(str(e))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for p in paths:
            Journal(p).close()
    finally:
        done.set()
        reader.join()
    assert seen.count("ok") >= len(paths)  # the reader did find them
    assert [e for e in seen if e != "ok"] == []
    # and no temporary file is left beside any of them
    for p in paths:
        assert [f.name for f in p.parent.iterdir() if not f.name.startswith("journal.sqlite")
                ] == []
