"""Bots keep secrets like controllers, the journal is its owner's only, `dialbox audit`.

A bot's choice is on disk only as a commitment until all-locked (its selection and nonce live
in the daemon's memory); a restart that lost them withdraws the bot's commitment (open
prompt: the bot chooses again) or voids the prompt (past all-locked). The journal, its WAL
and SHM files are created 0600 in a directory created 0700. `dialbox audit JOURNAL`
re-verifies every commitment and replays every game to its state hashes, and names the
first broken step of an edited journal.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

import pytest

from dialbox.cli import main
from dialbox.engine import Ask
from dialbox.engine.decisions import Decision
from dialbox.engine.registry import GameInfo, register, unregister
from dialbox.journal import Journal
from dialbox.journal.entries import FORMAT
from dialbox.lockbox import Phase
from dialbox.processes import stop_process
from dialbox.runner import GameRunner, TableSettings
from dialbox.runner.replay import BrokenStep, audit
from dialbox.sessions import Session
from dialbox_protocol import codec
from dialbox_protocol.models import Commit, Reveal, Revealed
from tests.host.games import DUEL, Duel
from tests.host.harness import TABLE, doubles, running_daemon, table_config, wait_for
from tests.host.test_runner import Seated, sit

NONCE = bytes(range(12))


def settings(**kw: Any) -> TableSettings:
    """Duel for two: a controller in seat 1, a bot in seat 2 (unless told otherwise)."""
    return TableSettings(**{"name": "t1", "game": DUEL, "players": 2, "seed": 3,
                            "pairing": "auto", "bots": [1], **kw})


def rows(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """What another process reads in the journal file now (n, kind, data)."""
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        got = db.execute("SELECT n, kind, data FROM entry ORDER BY n").fetchall()
    finally:
        db.close()
    return [(n, k, json.loads(d)) for n, k, d in got]


def on_disk(path: Path) -> bytes:
    """Every byte of the journal's files (database, write-ahead log, shared memory)."""
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"))
                    if p.exists())


def commit(runner: GameRunner, seated: Seated, sel: tuple[int, int, int]) -> int:
    box = runner.box
    assert box is not None and box.sealed
    c = codec.commitment(sel, NONCE, box.pid, seated.uid)
    runner.on_message(cast(Session, seated), Commit(seq=seated.seq(), pid=box.pid, commitment=c))
    return box.pid


def reveal(runner: GameRunner, seated: Seated, pid: int, sel: tuple[int, int, int]) -> None:
    runner.on_message(cast(Session, seated), Reveal(seq=seated.seq(), pid=pid, sel=sel,
                                                     nonce=codec.b64(NONCE)))


def play_out(runner: GameRunner, red: Seated) -> None:
    """Red plays every prompt still to come (east, 5 on sealed ones; "A" on open ones)."""
    while not runner.game.over:
        box = runner.box
        assert box is not None
        if 0 not in box.seats:
            raise AssertionError("a prompt for the bot alone should have answered itself")
        if box.sealed:
            pid = box.pid
            if not box.locked(0):
                commit(runner, red, (2, 5, -1))
            if runner.box is not None and runner.box.pid == pid:
                reveal(runner, red, pid, (2, 5, -1))
        else:
            reveal(runner, red, box.pid, (-1, -1, 0))


@pytest.fixture
def journal_path(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path / "state" / "journal.sqlite"


# ---------------------------------------------------------------------- bots keep secrets


def test_a_bots_choice_is_on_disk_only_as_a_commitment_until_all_locked(
        journal_path: Path) -> None:
    journal = Journal(journal_path)
    runner = GameRunner(settings(), journal)
    red = Seated("ctl-red")
    sit(runner, red)
    box = runner.box
    assert box is not None and box.sealed and box.locked(1) and not box.locked(0)
    secret = runner.cycle.bot_secrets[1]

    # the prompt is open, the bot has locked: another local reader of the file sees its
    # commitment and nothing else of its choice
    kinds = [k for _n, k, _d in rows(journal_path)]
    assert kinds == ["table", "seat", "seat", "prompt", "commit"]
    (_n, _k, held), = [r for r in rows(journal_path) if r[1] == "commit"]
    assert held["seat"] == 1 and held["uid"] == "bot-1"
    nonce = codec.unb64(secret.nonce)
    assert nonce is not None
    assert held["commitment"] == codec.commitment(secret.sel, nonce, box.pid, "bot-1")
    assert not any("sel" in d or "nonce" in d for _n, _k, d in rows(journal_path))
    assert secret.nonce.encode() not in on_disk(journal_path)
    assert rows(journal_path)[0][2]["format"] == FORMAT >= 3

    # all-locked: the bot reveals, and its reveal is journaled after the all-locked
    pid = commit(runner, red, (2, 5, -1))
    after = rows(journal_path)
    assert [k for _n, k, _d in after][-3:] == ["commit", "alllocked", "reveal"]
    assert after[-1][2] == {"pid": pid, "seat": 1, "uid": "bot-1", "sel": list(secret.sel),
                            "nonce": secret.nonce}
    reveal(runner, red, pid, (2, 5, -1))
    assert any(isinstance(m, Revealed) and m.pid == pid for m in red.sent)
    journal.close()


def test_a_bot_secret_lost_before_all_locked_is_withdrawn_and_the_bot_chooses_again(
        journal_path: Path) -> None:
    journal = Journal(journal_path)
    first = GameRunner(settings(), journal)
    sit(first, Seated("ctl-red"))
    box = first.box
    assert box is not None and box.locked(1)
    lost = box.commitments[1]
    journal.close()  # the daemon is killed: the bot's secret dies with its memory

    journal = Journal(journal_path)
    again = GameRunner(settings(), journal)
    box = again.box
    assert box is not None and box.pid == first.box.pid and box.phase == Phase.OPEN  # type: ignore[union-attr]
    kept = box.commitments[1]
    assert kept[0] == "bot-1" and kept != lost  # a new nonce at least: a new commitment
    assert 1 in again.cycle.bot_secrets
    kinds = [(k, d.get("seat")) for _n, k, d in rows(journal_path)]
    assert kinds[-2:] == [("withdraw", 1), ("commit", 1)]

    # the game goes on and is the same game after another restart; the audit agrees
    red = Seated("ctl-red")
    sit(again, red)
    play_out(again, red)
    journal.close()
    journal = Journal(journal_path)
    third = GameRunner(settings(), journal)
    assert third.game.state_hash() == again.game.state_hash() and third.game.over
    done = audit("t1", journal.entries("t1"))
    assert done.prompts == len([k for _n, k, _d in rows(journal_path) if k == "prompt"])
    journal.close()


class FirmDuel(Duel):
    """Duel whose dials cannot be unlocked once locked."""

    name = "firmduel"

    def sealed(self, asks: list[Ask] | tuple[Ask, ...], unlock: bool = True) -> Decision:
        return super().sealed(asks, unlock=False)


INFO = GameInfo(game=FirmDuel, title="Firm duel", players=(2,))


@pytest.fixture
def firm() -> Iterator[str]:
    register("firmduel", __name__)
    yield "firmduel"
    unregister("firmduel")


def test_a_prompt_allowing_no_unlock_takes_the_withdrawal_too(journal_path: Path,
                                                              firm: str) -> None:
    journal = Journal(journal_path)
    first = GameRunner(settings(game=firm), journal)
    sit(first, Seated("ctl-red"))
    assert first.box is not None and not first.box.unlock and first.box.locked(1)
    lost = first.box.commitments[1]
    journal.close()
    journal = Journal(journal_path)
    again = GameRunner(settings(game=firm), journal)
    assert again.box is not None and again.box.locked(1) and 1 in again.cycle.bot_secrets
    assert again.box.commitments[1] != lost
    assert [k for _n, k, _d in rows(journal_path)][-2:] == ["withdraw", "commit"]
    red = Seated("ctl-red")
    sit(again, red)
    play_out(again, red)
    assert audit("t1", journal.entries("t1")).steps == 6
    journal.close()


def test_a_bot_secret_lost_after_all_locked_voids_the_prompt(journal_path: Path) -> None:
    journal = Journal(journal_path)
    first = GameRunner(settings(), journal)
    red = Seated("ctl-red")
    sit(first, red)
    pid = commit(first, red, (2, 5, -1))
    journal.close()
    # the bot's reveal never reached the disk (the daemon writes it in the all-locked's own
    # transaction; a journal cut between the two is what this rule covers)
    db = sqlite3.connect(journal_path)
    db.execute("DELETE FROM entry WHERE kind = 'reveal' AND json_extract(data, '$.seat') = 1")
    db.commit()
    db.close()

    journal = Journal(journal_path)
    again = GameRunner(settings(), journal)
    void = [d for _n, k, d in rows(journal_path) if k == "void"]
    assert void == [{"pid": pid, "reason": "bot seat 2 lost its sealed choice when the daemon "
                                           "stopped"}]
    assert again.box is not None and again.box.pid != pid and again.box.sealed
    assert again.box.locked(1)  # asked again: the bot chose anew
    red = Seated("ctl-red")
    sit(again, red)
    play_out(again, red)
    assert audit("t1", journal.entries("t1")).steps == 6
    journal.close()


def format_2(journal: Journal, secrets: dict[tuple[int, int], dict[str, Any]] | None = None,
             table: str = "t1") -> Journal:
    """The same journal as a format-2 dialbox would have written it: each bot's choice and
    nonce journaled (`bot`) before its commitment (from its reveal, or from `secrets`)."""
    entries = journal.entries(table)
    reveals = {(e.data["pid"], e.data["seat"]): e.data for e in entries if e.kind == "reveal"}
    reveals.update(secrets or {})
    old = Journal(":memory:")
    for e in entries:
        data = dict(e.data)
        if e.kind == "table":
            data["format"] = 2
        if e.kind == "commit" and data["uid"].startswith("bot-"):
            r = reveals[(data["pid"], data["seat"])]
            old.append(table, "bot", pid=r["pid"], seat=r["seat"], sel=r["sel"],
                       nonce=r["nonce"])
        old.append(table, e.kind, **data)
    return old


def test_old_bot_entries_replay_as_before() -> None:
    journal = Journal(":memory:")
    done = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), journal)
    old = format_2(journal)
    assert [e.kind for e in old.entries("t1")].count("bot") == 6
    again = GameRunner(TableSettings("t1", DUEL, 2, seed=3, bots=[0, 1]), old)
    assert again.game.over and again.game.state_hash() == done.game.state_hash()
    assert audit("t1", old.entries("t1")).verified == 6

    # a format-2 journal cut while the bot had locked: its secret is read back from the
    # journal, the bot reveals it at all-locked as before (nothing withdrawn)
    journal = Journal(":memory:")
    first = GameRunner(settings(), journal)
    sit(first, Seated("ctl-red"))
    assert first.box is not None
    kept = first.cycle.bot_secrets[1]
    old = format_2(journal, {(first.box.pid, 1): {
        "pid": first.box.pid, "seat": 1, "sel": list(kept.sel), "nonce": kept.nonce}})
    (bot,) = [e.data for e in old.entries("t1") if e.kind == "bot"]
    again = GameRunner(settings(), old)
    assert "withdraw" not in [e.kind for e in old.entries("t1")]
    red = Seated("ctl-red")
    sit(again, red)
    pid = commit(again, red, (2, 5, -1))
    (r,) = [e.data for e in old.entries("t1") if e.kind == "reveal" and e.data["seat"] == 1]
    assert r["pid"] == pid and (r["sel"], r["nonce"]) == (bot["sel"], bot["nonce"])


def test_a_bot_entry_in_a_format_3_journal_is_refused() -> None:
    journal = Journal(":memory:")
    sit(GameRunner(settings(), journal), Seated("ctl-red"))
    entries = journal.entries("t1")
    box_pid = next(e.data["pid"] for e in entries if e.kind == "prompt")
    journal.append("t1", "bot", pid=box_pid, seat=1, sel=[0, 1, -1], nonce="x")
    with pytest.raises(BrokenStep, match="a bot's secret \\(seat 2\\) on disk before all-locked"):
        audit("t1", journal.entries("t1"))


# ---------------------------------------------------------------------- file modes


def mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_the_journal_and_its_directory_are_their_owners_only(journal_path: Path) -> None:
    old = os.umask(0)  # not the umask's doing
    try:
        journal = Journal(journal_path)
        journal.append("t1", "seat", seat=0, uid=None, bot=True)
        journal.sync()
    finally:
        os.umask(old)
    wal, shm = Path(f"{journal_path}-wal"), Path(f"{journal_path}-shm")
    lock = Path(f"{journal_path}-lock")
    assert wal.exists() and shm.exists() and lock.exists()
    assert {p.name: mode(p) for p in (journal_path, wal, shm, lock)} == {
        "journal.sqlite": 0o600, "journal.sqlite-wal": 0o600, "journal.sqlite-shm": 0o600,
        "journal.sqlite-lock": 0o600}
    assert mode(journal_path.parent) == 0o700
    journal.close()


def test_a_journal_readable_by_others_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    Journal(path).close()
    path.chmod(0o644)  # as dialbox before 0.x created it
    Journal(path).close()
    assert mode(path) == 0o600


def test_the_systemd_unit_keeps_the_state_directory_private() -> None:
    unit = (Path(__file__).parents[2] / "docs" / "pi" / "dialbox.service").read_text()
    assert "\nStateDirectoryMode=0700\n" in unit and "\nUMask=0077\n" in unit


# ---------------------------------------------------------------------- dialbox audit


def audited(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["audit", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def game_journal(path: Path) -> None:
    """A finished Duel (a controller and a bot) and a finished one of two bots."""
    journal = Journal(path)
    runner = GameRunner(settings(), journal)
    red = Seated("ctl-red")
    sit(runner, red)
    play_out(runner, red)
    GameRunner(TableSettings("t2", DUEL, 2, seed=4, bots=[0, 1]), journal)
    journal.close()


def test_a_real_game_journal_audits_ok(journal_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    game_journal(journal_path)
    status, out, err = audited(capsys, journal_path)
    assert (status, err) == (0, "")
    assert out.splitlines() == ["OK t1: 6 prompts, 6 reveals verified",
                                "OK t2: 6 prompts, 6 reveals verified"]
    status, out, _ = audited(capsys, journal_path, "--table", "t2")
    assert (status, out) == (0, "OK t2: 6 prompts, 6 reveals verified\n")


def edit(path: Path, sql: str) -> None:
    db = sqlite3.connect(path)
    db.execute(sql)
    db.commit()
    db.close()


def first(path: Path, kind: str, table: str = "t1", seat: int | None = None) -> int:
    return next(n for n, k, d in rows_of(path, table)
                if k == kind and (seat is None or d.get("seat") == seat))


def rows_of(path: Path, table: str) -> list[tuple[int, str, dict[str, Any]]]:
    db = sqlite3.connect(path)
    got = db.execute("SELECT n, kind, data FROM entry WHERE tbl = ? ORDER BY n",
                     (table,)).fetchall()
    db.close()
    return [(n, k, json.loads(d)) for n, k, d in got]


def test_an_edited_reveal_is_the_first_broken_step(journal_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    game_journal(journal_path)
    entries = rows_of(journal_path, "t1")
    sealed = {d["pid"] for _n, k, d in entries if k == "commit"}
    rounds = [n for n, k, d in entries if k == "reveal" and d["seat"] == 1 and d["pid"] in sealed]
    n = rounds[1]  # the bot's reveal in round 2 (step 3: round 1 and its letter before it)
    commit_n = max(m for m, k, d in rows_of(journal_path, "t1")
                   if k == "commit" and d["seat"] == 1 and m < n)
    edit(journal_path, f"UPDATE entry SET data = json_set(data, '$.sel[1]', "
                       f"json_extract(data, '$.sel[1]') % 9 + 1) WHERE n = {n}")
    status, out, err = audited(capsys, journal_path)
    pid = next(d["pid"] for m, k, d in rows_of(journal_path, "t1") if m == n)
    assert status == 1 and err == ""
    assert out.splitlines() == [
        f"t1 step 3: entry {n}: reveal of seat 2 for prompt {pid} does not match the "
        f"commitment journaled in entry {commit_n}",
        "OK t2: 6 prompts, 6 reveals verified"]
    # the daemon refuses to resume from it too (with the same place)
    journal = Journal(journal_path)
    with pytest.raises(BrokenStep, match=f"journal step 3 of table t1 does not replay: "
                                         f"entry {n}: reveal of seat 2"):
        GameRunner(settings(), journal)
    journal.close()


def test_an_edited_commitment_or_state_hash_or_answer_is_found(
        journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game_journal(journal_path)
    n = first(journal_path, "commit", seat=0)
    edit(journal_path, "UPDATE entry SET data = json_set(data, '$.commitment', "
                       f"'AAAAAAAAAAAAAAAAAAAAAA') WHERE n = {n}")
    reveal_n = first(journal_path, "reveal", seat=0)
    status, out, _ = audited(capsys, journal_path, "--table", "t1")
    assert status == 1
    assert re.fullmatch(f"t1 step 1: entry {reveal_n}: reveal of seat 1 for prompt \\d+ does "
                        f"not match the commitment journaled in entry {n}\n", out)

    game_journal(journal_path.with_name("b.sqlite"))
    b = journal_path.with_name("b.sqlite")
    applied = [m for m, k, _d in rows_of(b, "t2") if k == "applied"]
    edit(b, f"UPDATE entry SET data = json_set(data, '$.hash', 'ffffffffffffffff') "
            f"WHERE n = {applied[3]}")
    status, out, _ = audited(capsys, b, "--table", "t2")
    assert status == 1
    assert re.fullmatch(f"t2 step 4: entry {applied[3]}: state hash ffffffffffffffff "
                        f"journaled, [0-9a-f]+ replayed\n", out)

    # the answers applied are not the verified reveals (even with a matching hash)
    c = journal_path.with_name("c.sqlite")
    game_journal(c)
    applied = [m for m, k, _d in rows_of(c, "t1") if k == "applied"]
    edit(c, f"UPDATE entry SET data = json_set(data, '$.answers[0][1][1]', 9) "
            f"WHERE n = {applied[0]}")
    status, out, _ = audited(capsys, c, "--table", "t1")
    assert status == 1
    assert out.startswith(f"t1 step 1: entry {applied[0]}: applied answers ")
    assert "are not the verified ones" in out


def test_a_reveal_before_all_locked_is_found(journal_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    game_journal(journal_path)
    n = first(journal_path, "alllocked")
    edit(journal_path, f"DELETE FROM entry WHERE n = {n}")
    status, out, _ = audited(capsys, journal_path, "--table", "t1")
    assert status == 1
    assert re.fullmatch(f"t1 step 1: entry {n + 1}: reveal of seat \\d for prompt \\d+ "
                        f"journaled before its all-locked\n", out)


def test_a_missing_or_foreign_file_is_one_clear_line(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("not a journal at all\n" * 100)
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.close()
    for path, why in ((tmp_path / "missing.sqlite", "no such file"),
                      (text, "not a dialbox journal (file is not a database)"),
                      (other, "not a dialbox journal (an SQLite file without entries)"),
                      (tmp_path, "not a file")):
        status, out, err = audited(capsys, path)
        assert (status, out) == (2, "")
        assert err == f"dialbox audit: {path}: {why}\n"
    assert not (tmp_path / "missing.sqlite").exists()  # the audit created nothing


def test_an_unreadable_entry_is_a_broken_step(journal_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    game_journal(journal_path)
    n = first(journal_path, "seat")
    edit(journal_path, f"UPDATE entry SET data = '{{\"seat\": \"left\"}}' WHERE n = {n}")
    status, out, _ = audited(capsys, journal_path, "--table", "t1")
    assert status == 1
    assert out.startswith(f"t1 step 1: entry {n}: unreadable (seat): ")


# ---------------------------------------------------------------------- the daemon


async def _daemon_game(tmp_path: Path) -> Path:
    cfg = table_config(tmp_path, players=2, uids=["ctl-a"], bots=[1], options={"rounds": 2})
    path = Path(cfg["host"]["journal"])
    async with running_daemon(cfg) as daemon, doubles(tmp_path, ["ctl-a"], auto=False) as (a,):
        runner = daemon.runners[TABLE]
        await wait_for(lambda: a.prompt is not None, what="pairing prompt")
        a.lock()
        await wait_for(lambda: runner.box is not None and runner.box.sealed
                       and a.prompt is not None and a.prompt["pid"] == runner.box.pid,
                       what="the first sealed prompt")
        box = runner.box
        bot = next(s.index for s in runner.table.seats if s.bot)
        assert box is not None and box.locked(bot) and box.waiting_for == [1 - bot]
        secret = runner.cycle.bot_secrets[bot]
        await asyncio.sleep(0.2)  # every turn of the loop is over: the journal is written
        assert [k for _n, k, _d in rows(path)][-2:] == ["prompt", "commit"]
        assert secret.nonce.encode() not in on_disk(path)
        assert {mode(p) for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"))} == {0o600}
        a.auto = True
        a.turn(1, 3)
        a.lock()
        await asyncio.wait_for(runner.finished.wait(), 60)
    return path


def test_a_daemon_game_audits_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = asyncio.run(_daemon_game(tmp_path))
    status, out, err = audited(capsys, path)
    assert (status, err) == (0, "")
    assert re.fullmatch(r"OK t1: \d+ prompts, \d+ reveals verified\n", out)


def kinds(path: Path) -> list[str]:
    """The kinds of the journal's entries now ([] while the daemon has not made it yet)."""
    try:
        return [k for _n, k, _d in rows(path)]
    except sqlite3.Error:
        return []


async def _killed_while_a_bot_holds_its_secret(tmp_path: Path) -> Path:
    from tests.host.test_restart import _start, _toml

    cfg = table_config(tmp_path, players=2, uids=["ctl-a"], bots=[2], pairing="auto",
                       options={"rounds": 2})
    conf = tmp_path / "dialbox.toml"
    conf.write_text(_toml(cfg))
    log = tmp_path / "daemon.log"
    path = Path(cfg["host"]["journal"])
    async with doubles(tmp_path, ["ctl-a"], auto=False) as (a,):
        proc = _start(conf, log)
        try:
            await wait_for(lambda: a.prompt is not None and a.prompt["sealed"]
                           and kinds(path)[-2:] == ["prompt", "commit"],
                           what="a sealed prompt the bot has locked")
            pid = a.prompt["pid"]  # type: ignore[index]
            (bot,) = [d for _n, k, d in rows(path) if k == "commit"]
            os.kill(proc.pid, signal.SIGKILL)  # the bot's secret dies with the daemon
            proc.wait()
            proc = _start(conf, log)
            await wait_for(lambda: "withdraw" in kinds(path), what="the bot's lock withdrawn")
            after = [(k, d) for _n, k, d in rows(path)][-2:]
            assert after[0] == ("withdraw", {"pid": pid, "seat": 1, "uid": "bot-1"})
            assert after[1][0] == "commit" and after[1][1]["pid"] == pid
            assert after[1][1]["commitment"] != bot["commitment"]
            await wait_for(lambda: a.welcomed.is_set() and a.prompt is not None
                           and a.prompt["pid"] == pid, what="the prompt again")
            a.auto = True
            a.turn(1, 3)
            a.lock()
            await wait_for(lambda: "over" in kinds(path), 60, what="the game over")
        finally:
            stop_process(proc, 10)
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
    return path


def test_a_daemon_killed_while_a_bot_holds_its_secret(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = asyncio.run(_killed_while_a_bot_holds_its_secret(tmp_path))
    status, out, _ = audited(capsys, path)
    assert status == 0 and out.startswith("OK t1: "), out


# ---------------------------------------------------------------------- a console's games


def test_a_console_journal_audits_game_by_game(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Format 4: a table's journal is a sequence of games and menus; each game is audited
    on its own (its own table entry, prompt ids, state hashes), each menu read."""
    from tests.host.test_history import by_game, console_journal

    path = console_journal(tmp_path / "journal.sqlite")
    parts = by_game(path)
    prompts = sum(k == "prompt" for part in parts for _n, k, _d in part)
    sealed = {d["pid"] for part in parts for _n, k, d in part if k == "commit"}
    verified = sum(k == "reveal" and d["pid"] in sealed for part in parts for _n, k, d in part)
    assert (len(parts), prompts, verified) == (3, 13, 12)  # game 3 is in progress
    status, out, err = audited(capsys, path)
    assert (status, err) == (0, "")
    assert out.splitlines() == [f"OK t1: 3 games, {prompts} prompts, {verified} reveals "
                                "verified", "OK t2: 6 prompts, 6 reveals verified"]
    journal = Journal(path, readonly=True)
    done = audit("t1", journal.entries("t1"))
    journal.close()
    assert (done.games, done.menus, done.prompts, done.verified, done.steps) == (
        3, 2, prompts, verified, 12)


def test_a_broken_console_game_is_named_by_its_number(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    from dialbox.runner.replay import BrokenGame
    from tests.host.test_history import by_game, console_journal

    path = console_journal(tmp_path / "journal.sqlite")
    game2 = by_game(path)[1]
    sealed = {d["pid"] for _n, k, d in game2 if k == "commit"}
    n = [m for m, k, d in game2 if k == "reveal" and d["seat"] == 1 and d["pid"] in sealed][1]
    commit_n = max(m for m, k, d in game2 if k == "commit" and d["seat"] == 1 and m < n)
    edit(path, f"UPDATE entry SET data = json_set(data, '$.sel[1]', "
               f"json_extract(data, '$.sel[1]') % 9 + 1) WHERE n = {n}")
    pid = next(d["pid"] for m, _k, d in game2 if m == n)
    status, out, _ = audited(capsys, path)
    assert status == 1
    assert out.splitlines() == [
        f"t1 game 2 step 3: entry {n}: reveal of seat 2 for prompt {pid} does not match the "
        f"commitment journaled in entry {commit_n}", "OK t2: 6 prompts, 6 reveals verified"]
    journal = Journal(path, readonly=True)
    with pytest.raises(BrokenGame, match=f"journal step 3 of table t1 \\(game 2\\) does not "
                                         f"replay: entry {n}: reveal of seat 2"):
        audit("t1", journal.entries("t1"))
    journal.close()

    # a menu's entries are read: an unreadable one is named with the game before it
    other = console_journal(tmp_path / "other.sqlite")
    name_n = next(m for m, k, _d in rows_of(other, "t1") if k == "name")
    edit(other, f"UPDATE entry SET data = '{{\"uid\": 5, \"name\": \"Ana\"}}' WHERE n = {name_n}")
    status, out, _ = audited(capsys, other, "--table", "t1")
    assert status == 1
    assert out.startswith(f"t1 menu after game 1: entry {name_n}: unreadable (name): uid: ")
