"""`dialbox.history`: the games of a console's journal, read back and replayed.

The journals are real: games played by the runner with a controller stand-in and bots (as
in test_runner and test_audit). A console journal (format 4) is built the way the console
lays it out: the first game, a menu segment (a seat, a pairing prompt id, a player name),
then further games, each written by a runner of its own into a scratch journal and copied
after a `menu` entry (a runner reads all of its table's entries, so the second game of a
table cannot be played in place here).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine.errors import EngineError
from dialbox.engine.registry import register, unregister
from dialbox.history import (
    GameRecord,
    HistoryError,
    ReplayStep,
    export,
    games,
    replay,
    rerun,
    split,
    stats,
)
from dialbox.journal import Journal, JournalError
from dialbox.journal.entries import (
    MenuEntry,
    NameEntry,
    PidEntry,
    SeatEntry,
    TableEntry,
    parse,
)
from dialbox.runner import GameRunner, TableSettings
from dialbox.runner.replay import BrokenGame, BrokenStep, audit
from dialbox.table import TableState
from tests.host.games import DUEL
from tests.host.test_runner import Seated, sit


def duel(seed: int, **kw: Any) -> TableSettings:
    """Duel for two: a controller in seat 1 (Red), a bot in seat 2 (Blue)."""
    return TableSettings(**{"name": "t1", "game": DUEL, "players": 2, "seed": seed,
                            "pairing": "auto", "bots": [1], **kw})


def play_out(runner: GameRunner, red: Seated) -> None:
    """Red plays every prompt (east 5 on sealed ones, "A" on open ones) to the end."""
    from tests.host.test_audit import play_out as red_plays

    red_plays(runner, red)


def played(seed: int, finish: bool = True) -> Journal:
    """A scratch journal holding one Duel of table t1 (finished, or stopped with the bot
    locked and Red still to lock)."""
    scratch = Journal(":memory:")
    runner = GameRunner(duel(seed), scratch)
    red = Seated("ctl-red")
    sit(runner, red)
    if finish:
        play_out(runner, red)
    return scratch


def copy_game(journal: Journal, scratch: Journal, name: str | None, how: str) -> None:
    """The scratch journal's game appended to t1 as its next segment, Red named `name`."""
    for e in scratch.entries("t1"):
        step = parse(e)
        if isinstance(step, TableEntry):
            step = step.model_copy(update={"how": how})
        if isinstance(step, SeatEntry) and step.uid == "ctl-red":
            step = step.model_copy(update={"name": name})
        journal.record("t1", step)


def console_journal(path: Path) -> Path:
    """Table t1 of a console: game 1 (Red unnamed), a menu in which Red takes the name Ana,
    game 2 (a rematch, Ana playing), another menu, game 3 in progress (the bot has locked,
    Ana not). Table t2: one game of two bots (a table that never went to its menu)."""
    journal = Journal(path)
    first = GameRunner(duel(3), journal)
    red = Seated("ctl-red")
    sit(first, red)
    play_out(first, red)
    menu_pid = first.cycle.ids.next
    journal.record("t1", MenuEntry(first_pid=menu_pid))
    journal.record("t1", PidEntry(pid=menu_pid))
    journal.record("t1", SeatEntry(seat=0, uid="ctl-red", bot=False))
    journal.record("t1", NameEntry(uid="ctl-red", name="Ana"))
    copy_game(journal, played(5), "Ana", "rematch")
    journal.record("t1", MenuEntry(first_pid=menu_pid + 100))
    copy_game(journal, played(7, finish=False), "Ana", "menu")
    GameRunner(TableSettings("t2", DUEL, 2, seed=4, bots=[0, 1]), journal)
    journal.close()
    return path


def rows(path: Path, table: str = "t1") -> list[tuple[int, str, dict[str, Any]]]:
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        got = db.execute("SELECT n, kind, data FROM entry WHERE tbl = ? ORDER BY n",
                         (table,)).fetchall()
    finally:
        db.close()
    return [(n, k, json.loads(d)) for n, k, d in got]


def by_game(path: Path, table: str = "t1") -> list[list[tuple[int, str, dict[str, Any]]]]:
    """The table's rows, one list per game segment (menus left out)."""
    out: list[list[tuple[int, str, dict[str, Any]]]] = []
    inside = False
    for row in rows(path, table):
        if row[1] in ("table", "menu"):
            inside = row[1] == "table"
            if inside:
                out.append([])
        if inside:
            out[-1].append(row)
    return out


def edit(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


@pytest.fixture
def console(tmp_path: Path) -> Path:
    return console_journal(tmp_path / "journal.sqlite")


@pytest.fixture
def reader(console: Path) -> Iterator[Journal]:
    journal = Journal(console, readonly=True)
    yield journal
    journal.close()


# ---------------------------------------------------------------------- segments, records


def test_a_console_journal_splits_into_its_games_and_menus(reader: Journal) -> None:
    parts = split(reader.entries("t1"))
    assert [(p.kind, p.number) for p in parts] == [
        ("game", 1), ("menu", 1), ("game", 2), ("menu", 2), ("game", 3)]
    assert all(isinstance(p.head, TableEntry if p.kind == "game" else MenuEntry)
               for p in parts)
    assert [e for p in parts for e in p.entries] == reader.entries("t1")
    assert [type(s).__name__ for s in parts[1].steps] == [
        "MenuEntry", "PidEntry", "SeatEntry", "NameEntry"]
    # a table that never went to its menu (every journal of formats 1 to 3) is one game
    (one,) = split(reader.entries("t2"))
    assert (one.kind, one.number) == ("game", 1)


def test_entries_that_open_no_segment_are_refused(reader: Journal) -> None:
    entries = reader.entries("t1")
    with pytest.raises(JournalError, match=f"journal entry {entries[1].n} of table t1: the "
                                           "table's entries start with a seat entry"):
        split(entries[1:])


def over_results(path: Path) -> list[dict[str, Any] | None]:
    """Each game's journaled result (None for a game without an `over` entry)."""
    out: list[dict[str, Any] | None] = []
    for segment in by_game(path):
        over = [d["result"] for _n, k, d in segment if k == "over"]
        out.append({k: over[0][k] for k in ("scores", "winners", "text")} if over else None)
    return out


def test_games_lists_every_game_with_its_players_and_result(console: Path,
                                                            reader: Journal) -> None:
    records = games(reader)
    assert [(r.table, r.number) for r in records] == [("t1", 1), ("t1", 2), ("t1", 3),
                                                      ("t2", 1)]
    assert games(reader, "t1") == records[:3]
    g1, g2, g3, other = records
    assert {r.title for r in records} == {"Duel"}
    assert {r.game for r in records} == {DUEL}
    assert [r.how for r in records] == ["config", "rematch", "menu", "config"]
    assert [r.seed for r in records] == [3, 5, 7, 4]
    assert all(r.options["seed"] == r.seed and r.options["players"] == 2 for r in records)
    assert [r.result for r in records[:3]] == over_results(console)
    assert [r.finished for r in records] == [True, True, False, True]
    assert g3.result is None
    assert [r.steps for r in records] == [
        sum(k == "applied" for _n, k, _d in s) for s in by_game(console)] + [6]
    assert g1.steps == g2.steps == 6 and g3.steps == 0

    # players: Red was unnamed in game 1, took "Ana" in the menu; the bot is marked
    assert [(p.seat, p.colour, p.kind, p.uid, p.name) for p in g1.players] == [
        (0, "Red", "controller", "ctl-red", None), (1, "Blue", "bot", None, None)]
    assert [(p.seat, p.colour, p.kind, p.uid, p.name) for p in g2.players] == [
        (0, "Red", "controller", "ctl-red", "Ana"), (1, "Blue", "bot", None, None)]
    assert [p.label for p in g2.players] == ["Ana", "Blue (bot)"]
    assert [p.label for p in g1.players] == ["Red", "Blue (bot)"]
    assert [p.kind for p in other.players] == ["bot", "bot"]

    # times: each game's first and last entry, in the order they were played
    stamps = [[e.at for e in p.entries] for p in split(reader.entries("t1")) if
              p.kind == "game"]
    assert [(r.started, r.ended) for r in records[:3]] == [(s[0], s[-1]) for s in stamps]
    assert g1.started <= g1.ended <= g2.started <= g2.ended <= g3.started

    doc = json.loads(json.dumps(g2.to_json()))
    assert doc["players"][0] == {"seat": 0, "colour": "Red", "kind": "controller",
                                 "uid": "ctl-red", "name": "Ana"}
    assert doc["result"] == g2.result and doc["number"] == 2 and doc["finished"] is True


def test_unknown_tables_and_games_are_history_errors(reader: Journal) -> None:
    with pytest.raises(HistoryError, match="no table 'nope' \\(tables: t1, t2\\)"):
        games(reader, "nope")
    with pytest.raises(HistoryError, match="table t1 has no game 4 \\(games 1 to 3\\)"):
        replay(reader, "t1", 4)
    with pytest.raises(HistoryError, match="table t2 has no game 2 \\(game 1 only\\)"):
        replay(reader, "t2", 2)


def test_the_reader_never_writes(console: Path) -> None:
    before = rows(console, "t1") + rows(console, "t2")
    db_bytes = console.read_bytes()
    journal = Journal(console, readonly=True)
    try:
        games(journal)
        replay(journal, "t1", 2)
        export(journal)
        with pytest.raises(JournalError, match="opened to read only"):
            journal.record("t1", MenuEntry(first_pid=1))
    finally:
        journal.close()
    assert rows(console, "t1") + rows(console, "t2") == before
    assert console.read_bytes() == db_bytes


# ---------------------------------------------------------------------- replay


def applied_hashes(path: Path, number: int, table: str = "t1") -> list[str]:
    return [d["hash"] for _n, k, d in by_game(path, table)[number - 1] if k == "applied"]


def test_replay_reproduces_every_state_hash(console: Path, reader: Journal) -> None:
    for number in (1, 2):
        told: list[ReplayStep] = []
        done = replay(reader, "t1", number, on_step=told.append)
        hashes = applied_hashes(console, number)
        assert [s.hash for s in done.steps] == hashes
        assert told == done.steps and [s.step for s in told] == list(range(1, 7))
        assert all(s.checked for s in done.steps) and done.hash_ok
        assert done.final_hash == hashes[-1]
        assert done.record == games(reader, "t1")[number - 1]
        assert done.prompts == 6 and done.verified == 6
        assert [s.n for s in done.steps] == [n for n, k, _d in by_game(console)[number - 1]
                                             if k == "applied"]
    # the two games were different games (seeds 3 and 5)
    assert replay(reader, "t1", 1).final_hash != replay(reader, "t1", 2).final_hash


def test_replayed_states_are_what_the_table_was_shown() -> None:
    """Each replayed state's reveals, events, view and result are the ones the live table
    published when that step was answered."""
    journal = Journal(":memory:")
    runner = GameRunner(duel(3), journal)
    live: list[TableState] = []
    runner.watchers.append(lambda: live.append(runner.state()))
    red = Seated("ctl-red")
    sit(runner, red)
    play_out(runner, red)
    done = replay(journal, "t1", 1)

    def seen(s: TableState) -> str:
        return s.model_dump_json(include={"reveals", "events", "view", "result", "over"})

    shown = {seen(s) for s in live}
    for step in done.steps:
        assert seen(step.state) in shown, step.step
    assert done.steps[-1].state.over and done.steps[-1].state.result is not None
    assert done.end.result == runner.state().result


def test_replayed_states_hold_no_choice_before_its_reveal(console: Path,
                                                         reader: Journal) -> None:
    done = replay(reader, "t1", 2)
    pids = [s.pid for s in done.steps]
    assert done.start.reveals == () and done.start.prompt is None
    assert done.start.events == () and not done.start.over
    assert [s.player for s in done.start.seats] == ["Ana", None]
    for i, step in enumerate(done.steps):
        state = step.state
        assert state.number == 2
        assert state.prompt is None  # replayed to the step: the next prompt is not open
        assert state.revealed is not None and state.revealed.pid == step.pid
        assert {r.pid for r in state.reveals} <= set(pids[:i + 1])
        if state.revealed.kind == "sealed":
            assert state.revealed.verified  # every reveal hashed to its commitment
    # game 3 stopped with the bot locked: its prompt shows who locked, never what
    stopped = replay(reader, "t1", 3)
    assert stopped.steps == [] and stopped.end.prompt is not None
    prompt = stopped.end.prompt
    assert (prompt.kind, prompt.phase, prompt.locked) == ("sealed", "open", (1,))
    assert stopped.end.reveals == () and stopped.end.revealed is None
    commits = [d for _n, k, d in by_game(console)[2] if k == "commit"]
    assert [d["seat"] for d in commits] == [1]
    text = stopped.end.model_dump_json()
    assert commits[0]["commitment"] not in text  # not even the commitment is shown


@pytest.fixture
def tokens() -> Iterator[str]:
    register("tokens", "tests.host.test_runner")
    yield "tokens"
    unregister("tokens")


def test_a_private_answer_stays_private_in_the_replay(tokens: str) -> None:
    journal = Journal(":memory:")
    runner = GameRunner(TableSettings("t1", tokens, 3, bots=[0, 1, 2]), journal)
    assert runner.game.over
    done = replay(journal, "t1", 1)
    assert [s.state.revealed.kind for s in done.steps if s.state.revealed] == ["private",
                                                                               "open"]
    private = done.steps[0].state.revealed
    assert private is not None and private.choices == ()
    assert dict(private.announced) == {0: "keeps a token face down", 1: "keeps a token face "
                                                                        "down"}
    for state in (done.start, *(s.state for s in done.steps), done.end):
        text = state.model_dump_json()
        for token in ("Nitro", "Shield", "Magnet", "You keep"):
            assert token not in text


def test_a_tampered_step_makes_the_replay_fail(console: Path) -> None:
    applied = [n for n, k, _d in by_game(console)[1] if k == "applied"]
    edit(console, f"UPDATE entry SET data = json_set(data, '$.hash', 'ffffffffffffffff') "
                  f"WHERE n = {applied[2]}")
    journal = Journal(console, readonly=True)
    try:
        seen: list[int] = []
        with pytest.raises(BrokenStep) as e:
            replay(journal, "t1", 2, on_step=lambda s: seen.append(s.step))
        assert (e.value.step, e.value.n) == (3, applied[2])
        assert e.value.detail.startswith("state hash ffffffffffffffff journaled, ")
        assert seen == [1, 2]  # the steps before it replayed
        assert replay(journal, "t1", 1).hash_ok  # the other games are untouched
        with pytest.raises(BrokenGame) as broken:
            audit("t1", journal.entries("t1"))
        assert (broken.value.game, broken.value.where) == (2, "game 2 step 3")
    finally:
        journal.close()

    # answers that are not the verified reveals fail too, whatever hash they carry
    other = console_journal(console.with_name("b.sqlite"))
    applied = [n for n, k, _d in by_game(other)[1] if k == "applied"]
    edit(other, f"UPDATE entry SET data = json_set(data, '$.answers[0][1][1]', 9) "
                f"WHERE n = {applied[0]}")
    journal = Journal(other, readonly=True)
    try:
        with pytest.raises(BrokenStep, match="are not the verified ones") as e:
            replay(journal, "t1", 2)
        assert (e.value.step, e.value.n) == (1, applied[0])
    finally:
        journal.close()


# ---------------------------------------------------------------------- stats, export


def test_stats_count_games_and_wins_per_name(reader: Journal) -> None:
    records = games(reader)
    g1, g2 = records[:2]
    red_won = [0 in (r.result or {})["winners"] for r in (g1, g2)]
    counted = stats(records)
    assert set(counted) == {"ctl-red", "Ana"}  # bots are not counted, game 3 is not over
    assert (counted["ctl-red"].games, counted["ctl-red"].wins) == (1, int(red_won[0]))
    assert (counted["Ana"].games, counted["Ana"].wins) == (1, int(red_won[1]))
    assert counted["Ana"].by_game == {DUEL: (1, int(red_won[1]))}
    assert json.loads(json.dumps(counted["Ana"].to_json())) == {
        "games": 1, "wins": int(red_won[1]), "by_game": {DUEL: {"games": 1,
                                                                "wins": int(red_won[1])}}}


def test_stats_count_a_player_once_per_game_and_every_winner() -> None:
    def record(number: int, winners: list[int], names: list[str | None]) -> GameRecord:
        from dialbox.history import PlayerRecord

        players = tuple(PlayerRecord(s, "c", "controller", f"u{s}", n)
                        for s, n in enumerate(names))
        return GameRecord("t", number, "g", "G", 0.0, 0.0, None, {}, None, players,
                          {"scores": {}, "winners": winners, "text": ""}, True, 1)

    counted = stats([record(1, [0, 1], ["Bo", "Bo", None]), record(2, [2], ["Bo", "Cy", None]),
                     record(3, [], ["Cy", None, None])])
    # Bo sat in two seats of game 1 and won it: one game, one win
    assert {k: (v.games, v.wins) for k, v in counted.items()} == {
        "Bo": (2, 1), "Cy": (2, 0), "u1": (1, 0), "u2": (3, 1)}
    assert counted["u2"].by_game == {"g": (3, 1)}


def test_the_export_round_trips_and_replays_elsewhere(console: Path,
                                                      reader: Journal) -> None:
    doc = export(reader)
    assert json.loads(json.dumps(doc)) == doc
    assert doc["export"] == 1
    assert [(g["table"], g["number"]) for g in doc["games"]] == [
        ("t1", 1), ("t1", 2), ("t1", 3), ("t2", 1)]
    assert [{k: v for k, v in g.items() if k != "answers"} for g in doc["games"]] == [
        r.to_json() for r in games(reader)]
    assert export(reader, "t2")["games"] == doc["games"][3:]
    for g in doc["games"]:
        assert len(g["answers"]) == g["steps"]
    g2 = doc["games"][1]
    hashes = applied_hashes(console, 2)
    assert [a[3] for a in g2["answers"]] == hashes
    pid, decision, answers, _hash = g2["answers"][0]
    assert isinstance(pid, int) and isinstance(decision, int)
    assert sorted(seat for seat, _sel in answers) == [0, 1]

    # the options and the answer log are enough to play the game again, without the journal
    for g in json.loads(json.dumps(doc))["games"]:
        final = rerun(g)
        if g["answers"]:
            assert final == g["answers"][-1][3]
    g2["answers"][2][2][0][1][1] = 9 if g2["answers"][2][2][0][1][1] != 9 else 8
    with pytest.raises(EngineError, match="step [23]"):
        rerun(g2)


def test_an_old_single_game_journal_reads_as_one_game() -> None:
    from tests.host.test_audit import format_2

    journal = Journal(":memory:")
    GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    old = format_2(journal)
    (record,) = games(old)
    assert (record.number, record.format, record.finished) == (1, 2, True)
    done = replay(old, "t1", 1)
    assert done.hash_ok and len(done.steps) == 6
    assert done.final_hash == replay(journal, "t1", 1).final_hash
