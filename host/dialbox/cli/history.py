"""`dialbox history`: the games a journal holds: list them, count wins, export, replay one.

`dialbox history (--journal FILE | --config FILE) [--table T] [--json] [--stats]
[--replay TABLE:N [--step K]]`. The journal is opened read-only (it can run beside the
daemon, as the daemon's user); with --config the journal is the one the daemon's config
names. Text output is one line per game (table, number, start time, game, players, result,
and how to replay it); --stats gives games and wins per player name; --json prints the
export (every game with its answer log) as one JSON document; --replay TABLE:N re-runs game
N of TABLE as the daemon would, checking every commitment and state hash, and prints each
step (--step K: the public table state after step K; 0 is the table before its first step).
Exit status 0, 1 when a replayed step does not replay, 2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from dialbox.history import GameRecord, NameStats, Replay, ReplayStep
    from dialbox.journal import Journal
    from dialbox.table import RevealState, TableState


def add_parser(sub: Any) -> None:
    p: argparse.ArgumentParser = sub.add_parser(
        "history", help="the games a journal holds: list, statistics, export, replay",
        description="Lists the games of a journal (read-only: it can run beside the daemon), "
        "with their players and results; --stats counts games and wins per player name; "
        "--json exports every game with its answer log; --replay TABLE:N re-runs one game, "
        "checking every commitment and state hash. Exit status 0, 1 (a replayed step does "
        "not replay), 2 (bad input).",
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--journal", "-j", metavar="FILE", help="the journal file (SQLite)")
    where.add_argument("--config", "-c", metavar="FILE",
                       help="the daemon's TOML config (its [host] journal)")
    p.add_argument("--table", metavar="T", help="only this table's games")
    p.add_argument("--json", action="store_true", help="print JSON (the export, the "
                   "statistics or the replay)")
    p.add_argument("--stats", action="store_true", help="games and wins per player name")
    p.add_argument("--replay", metavar="TABLE:N", help="replay game N of TABLE, step by step")
    p.add_argument("--step", metavar="K", type=int,
                   help="with --replay: the public table state after step K (0: before it)")
    p.set_defaults(func=run)


def replay_spec(spec: str) -> tuple[str, int]:
    """`TABLE:N` -> (table, N) (Failure: one line)."""
    from dialbox.cli import Failure

    table, _, number = spec.rpartition(":")
    if not table or not number.isdigit() or int(number) < 1:
        raise Failure(f"--replay {spec!r}: expected TABLE:N, a table and the number of one "
                      "of its games (e.g. t1:2)")
    return table, int(number)


def run(args: argparse.Namespace) -> int:
    from dialbox.cli import Failure
    from dialbox.cli import config as load_config
    from dialbox.history import HistoryError
    from dialbox.journal import Journal, JournalError

    if args.step is not None and not args.replay:
        raise Failure("--step K goes with --replay TABLE:N")
    if args.stats and args.replay:
        raise Failure("--stats and --replay: one at a time")
    wanted = replay_spec(args.replay) if args.replay else None
    if wanted is not None and args.table is not None and args.table != wanted[0]:
        raise Failure(f"--table {args.table} and --replay {args.replay} name two tables")
    path = args.journal if args.journal else load_config(args.config).host.journal
    try:
        journal = Journal(path, readonly=True)
    except JournalError as e:
        raise Failure(str(e)) from None
    try:
        if wanted is not None:
            return _replay(journal, *wanted, args.step, args.json)
        return _list(journal, args.table, args.json, args.stats)
    except HistoryError as e:
        raise Failure(str(e)) from None
    except (JournalError, sqlite3.Error) as e:
        raise Failure(f"{path}: cannot read the journal ({e})") from None
    finally:
        journal.close()


# ---------------------------------------------------------------------- listing, stats


def when(at: float) -> str:
    """A time as the listing shows it: local time, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(at))


def players_text(record: GameRecord) -> str:
    return ", ".join(p.label for p in record.players)


def outcome(record: GameRecord) -> str:
    if not record.finished:
        return "in progress"
    if record.result is None:
        return "over"
    return " ".join(str(record.result.get("text") or "over").split())


def line(record: GameRecord) -> str:
    """One game in one line."""
    return (f"{record.table}  {record.number}  {when(record.started)}  {record.title}  "
            f"{players_text(record)}  {outcome(record)}  "
            f"replay: {record.table}:{record.number}")


def _list(journal: Journal, table: str | None, as_json: bool, with_stats: bool) -> int:
    from dialbox.history import check_table, export, games, stats

    if table is not None:
        check_table(journal, table)
    if as_json and not with_stats:
        print(json.dumps(export(journal, table)))
        return 0
    records = games(journal, table)
    if with_stats:
        counted = stats(records)
        if as_json:
            print(json.dumps({name: s.to_json() for name, s in counted.items()}))
        else:
            titles = {r.game: r.title for r in records}
            for name_line in stats_lines(counted, titles):
                print(name_line)
            if not counted:
                print(f"{journal.path}: no finished game with a controller yet")
        return 0
    for record in records:
        print(line(record))
    if not records:
        print(f"{journal.path}: no game yet")
    return 0


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def stats_lines(counted: dict[str, NameStats], titles: dict[str, str]) -> list[str]:
    """Each player's games and wins, most wins first, then per game."""
    out = []
    for name, s in sorted(counted.items(), key=lambda kv: (-kv[1].wins, -kv[1].games, kv[0])):
        out.append(f"{name}: {_n(s.games, 'game')}, {_n(s.wins, 'win')}")
        for game, (n, w) in s.by_game.items():
            out.append(f"  {titles.get(game, game)}: {_n(n, 'game')}, {_n(w, 'win')}")
    return out


# ---------------------------------------------------------------------- replay


def revealed_text(state: TableState, reveal: RevealState | None) -> str:
    """An answered prompt in words: each seat's choice (or, for a private prompt, what the
    rules announce of it), then the public events."""
    if reveal is None:
        return ""
    colours = {s.seat: s.player or s.name for s in state.seats}
    said = reveal.choices if reveal.kind != "private" else reveal.announced
    parts = [f"{colours.get(seat, f'seat {seat + 1}')} {what}" for seat, what in said]
    mark = " (sealed, verified)" if reveal.verified else ""
    head = ", ".join(parts) if parts else f"{reveal.kind} answers kept private"
    return f"{head}{mark}: {reveal.summary}"


def step_line(at: ReplayStep) -> str:
    check = "OK" if at.checked else "(none journaled: format 1)"
    return (f"step {at.step}  prompt {at.pid}  {revealed_text(at.state, at.state.revealed)}"
            f"  hash {at.hash} {check}")


def state_lines(state: TableState) -> list[str]:
    """The whole public table state, for one step (--step)."""
    seats = ", ".join(f"{s.name} {s.player or s.uid} (controller)" if s.kind == "controller"
                      else f"{s.name} ({s.kind})" for s in state.seats)
    out = [f"seats: {seats}"]
    if state.revealed is not None:
        out.append(f"revealed: {revealed_text(state, state.revealed)}")
    if state.prompt is not None:
        locked = ", ".join(str(s + 1) for s in state.prompt.locked) or "none"
        out.append(f"open prompt {state.prompt.pid} ({state.prompt.kind}): seats locked: "
                   f"{locked}")
    out.extend(f"event: {e.text}" for e in state.events)
    out.append(f"view: {json.dumps(state.view, sort_keys=True)}")
    if state.result is not None:
        out.append(f"result: {state.result.text}")
    return out


def _replay(journal: Journal, table: str, number: int, step: int | None,
            as_json: bool) -> int:
    from dialbox.cli import Failure
    from dialbox.engine.errors import EngineError
    from dialbox.history import game_segment, replay
    from dialbox.runner.replay import BrokenStep

    record, _segment = game_segment(journal, table, number)
    if step is not None and not 0 <= step <= record.steps:
        raise Failure(f"--step {step}: game {table}:{number} has steps 0 to {record.steps} "
                      "(0: the table before its first step)")
    streaming = step is None and not as_json
    if streaming:
        print(f"{table}:{number}  {when(record.started)}  {record.title}  "
              f"{players_text(record)}  {outcome(record)}")
    try:
        done = replay(journal, table, number, _print_step if streaming else None)
    except BrokenStep as e:
        where = f"{table}:{number} step {e.step}: entry {e.n}: {e.detail}"
        if as_json:
            print(json.dumps({"table": table, "number": number, "broken": {
                "step": e.step, "entry": e.n, "detail": e.detail}}))
        else:
            print(where)
        return 1
    except EngineError as e:
        print(f"{table}:{number}: {e}")
        return 1
    if step is not None:
        return _one_step(done, step, as_json)
    if as_json:
        print(json.dumps(done.to_json()))
        return 0
    unchecked = sum(not s.checked for s in done.steps)
    note = (f"; {unchecked} steps of format 1 carry no state hash" if unchecked
            else ", every state hash matches")
    print(f"OK {table}:{number}: {_n(len(done.steps), 'step')}, {done.verified} reveals "
          f"verified{note} (final {done.final_hash})")
    return 0


def _print_step(at: ReplayStep) -> None:
    print(step_line(at), flush=True)


def _one_step(done: Replay, step: int, as_json: bool) -> int:
    r = done.record
    if step == 0:
        if as_json:
            print(json.dumps({"game": r.to_json(), "step": 0,
                              "state": done.start.model_dump(mode="json")}))
        else:
            print(f"{r.table}:{r.number} before its first step")
            for text in state_lines(done.start):
                print(text)
        return 0
    at = done.steps[step - 1]
    if as_json:
        print(json.dumps({"game": r.to_json(), **at.to_json()}))
        return 0
    check = "OK" if at.checked else "(none journaled: format 1)"
    print(f"{r.table}:{r.number} step {at.step}  prompt {at.pid}  hash {at.hash} {check}")
    for text in state_lines(at.state):
        print(text)
    return 0
