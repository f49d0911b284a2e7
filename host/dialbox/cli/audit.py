"""`dialbox audit JOURNAL`: re-verify every commitment and replay every game of a journal.

For each table in the file: every sealed reveal must hash to the commitment journaled for its
seat and prompt (bots included), no reveal may come before its prompt's all-locked, every
applied answer set must be the verified one, and the whole game must replay to every state
hash journaled with it (the daemon's own replay, `dialbox.runner.replay`, writing nothing).
One line per table: `OK <table>: N prompts, M reveals verified` or `<table> step K: entry
E: what is wrong` (the first broken step). A table that played several games (format 4: its
journal is a sequence of game and menu segments) says `OK <table>: G games, N prompts, M
reveals verified`, each game audited on its own, each menu segment read; its first broken
step is named with its game, `<table> game 2 step K: entry E: ...` (or `<table> menu after
game 1: entry E: unreadable ...`). Exit status 0 when every table is OK, 1 when one
is not, 2 when the file cannot be read as a journal. It only reads, so it can run beside the
daemon (as the daemon's user: the journal is its owner's only).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
from typing import Any


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "audit", help="re-verify every commitment and replay every game of a journal",
        description="Re-verifies every sealed reveal against its journaled commitment and "
        "replays each table's game to every journaled state hash. Prints OK or the first "
        "broken step per table; exit status 0 (all OK), 1 (a table is broken), 2 (not a "
        "journal).",
    )
    p.add_argument("journal", metavar="JOURNAL", help="the daemon's journal file (SQLite)")
    p.add_argument("--table", action="append", default=[],
                   help="audit only this table (repeatable; default: every table)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from dialbox.engine.errors import EngineError
    from dialbox.journal import Journal, JournalError
    from dialbox.runner.replay import BrokenGame, BrokenStep, audit

    try:
        journal = Journal(args.journal, readonly=True)
    except JournalError as e:
        print(f"dialbox audit: {e}", file=sys.stderr)
        return 2
    broken = 0
    try:
        tables = journal.tables()
        for name in args.table:
            if name not in tables:
                print(f"dialbox audit: {args.journal}: no table {name!r} (tables: "
                      f"{', '.join(tables) or 'none'})", file=sys.stderr)
                return 2
        if not tables:
            print(f"{args.journal}: a journal with no table yet: nothing to verify")
        for table in args.table or tables:
            try:
                done = audit(table, journal.entries(table))
            except BrokenGame as e:
                print(f"{table} {e.where}: entry {e.n}: {e.detail}")
                broken += 1
                continue
            except BrokenStep as e:
                print(f"{table} step {e.step}: entry {e.n}: {e.detail}")
                broken += 1
                continue
            except (EngineError, JournalError) as e:
                print(f"{table}: {e}")
                broken += 1
                continue
            unchecked = done.steps - done.hashed
            note = (f" ({unchecked} steps of format 1 carry no state hash)"
                    if unchecked else "")
            games = (f"{done.games} game{'s' if done.games != 1 else ''}, "
                     if done.games != 1 or done.menus else "")
            print(f"OK {table}: {games}{done.prompts} prompts, {done.verified} reveals "
                  f"verified{note}")
    except (JournalError, sqlite3.Error) as e:
        print(f"dialbox audit: {args.journal}: cannot read the journal ({e})", file=sys.stderr)
        return 2
    finally:
        journal.close()
    return 1 if broken else 0
