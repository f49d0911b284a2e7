"""`dialbox history`: a console journal's games listed, counted, exported and replayed, and
every bad input refused in one line.

The journal is the one tests/host/test_history.py builds from real games (table t1: three
Duels with a menu between each, the third in progress; table t2: one game of two bots). The
good runs go through `dialbox.cli.main` in this process; the bad inputs run as real
processes, as a new user would run them (the pattern of tests/cli/test_bad_input.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.history import export, games, stats
from dialbox.journal import Journal
from tests.host.test_history import by_game, console_journal, edit


@pytest.fixture(scope="module")
def journal_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return console_journal(tmp_path_factory.mktemp("history") / "journal.sqlite")


def history(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["history", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def records(path: Path) -> list[dict[str, object]]:
    journal = Journal(path, readonly=True)
    try:
        return [r.to_json() for r in games(journal)]
    finally:
        journal.close()


# ---------------------------------------------------------------------- good runs


def test_one_line_per_game(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = history(capsys, "--journal", journal_path)
    assert (status, err) == (0, "")
    day = r"\d{4}-\d\d-\d\d \d\d:\d\d"
    lines = out.splitlines()
    assert len(lines) == 4
    for line, want in zip(lines, [
            r"t1  1  {day}  Duel  Red, Blue \(bot\)  done  replay: t1:1",
            r"t1  2  {day}  Duel  Ana, Blue \(bot\)  done  replay: t1:2",
            r"t1  3  {day}  Duel  Ana, Blue \(bot\)  in progress  replay: t1:3",
            r"t2  1  {day}  Duel  Red \(bot\), Blue \(bot\)  done  replay: t2:1"], strict=True):
        assert re.fullmatch(want.format(day=day), line), line
    started = records(journal_path)[0]["started"]
    assert isinstance(started, float)
    assert time.strftime("%Y-%m-%d %H:%M", time.localtime(started)) in lines[0]

    status, out, _ = history(capsys, "-j", journal_path, "--table", "t2")
    assert (status, out.splitlines()) == (0, lines[3:])


def test_the_config_names_the_journal(journal_path: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "dialbox.toml"
    config.write_text(f'[host]\njournal = "{journal_path}"\n[display]\nweb = false\n'
                      '[[tables]]\nname = "t1"\ngame = "pipcycle"\nplayers = 2\n')
    by_config = history(capsys, "--config", config)
    assert by_config == history(capsys, "--journal", journal_path)
    assert by_config[0] == 0 and len(by_config[1].splitlines()) == 4


def test_stats(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    journal = Journal(journal_path, readonly=True)
    try:
        counted = stats(games(journal))
    finally:
        journal.close()
    status, out, err = history(capsys, "-j", journal_path, "--stats")
    assert (status, err) == (0, "")
    lines = out.splitlines()

    def n(count: int, what: str) -> str:
        return f"{count} {what}{'' if count == 1 else 's'}"

    for name in ("Ana", "ctl-red"):
        s = counted[name]
        at = lines.index(f"{name}: {n(s.games, 'game')}, {n(s.wins, 'win')}")
        assert lines[at + 1] == f"  Duel: {n(s.games, 'game')}, {n(s.wins, 'win')}"
    assert len(lines) == 4  # two names, one game each; bots are not counted
    status, out, _ = history(capsys, "-j", journal_path, "--stats", "--json")
    assert status == 0 and json.loads(out) == {k: v.to_json() for k, v in counted.items()}


def test_json_is_the_export(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = history(capsys, "-j", journal_path, "--json")
    assert (status, err) == (0, "")
    assert len(out.splitlines()) == 1  # one document, one line
    journal = Journal(journal_path, readonly=True)
    try:
        assert json.loads(out) == export(journal)
        _, t2, _ = history(capsys, "-j", journal_path, "--json", "--table", "t2")
        assert json.loads(t2) == export(journal, "t2")
    finally:
        journal.close()


def test_replay_prints_every_step_verified(journal_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = history(capsys, "-j", journal_path, "--replay", "t1:2")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    hashes = [d["hash"] for _n, k, d in by_game(journal_path)[1] if k == "applied"]
    assert re.fullmatch(r"t1:2  \S+ \S+  Duel  Ana, Blue \(bot\)  done", lines[0])
    assert len(lines) == 1 + 6 + 1
    for i, (line, h) in enumerate(zip(lines[1:7], hashes, strict=True), 1):
        assert line.startswith(f"step {i}  prompt ")
        assert line.endswith(f"  hash {h} OK")
    # the sealed rounds show both choices, verified against their commitments
    assert re.search(r"Ana E 5, Blue \S+ \d \(sealed, verified\): Round 1: ", lines[1])
    assert lines[-1] == (f"OK t1:2: 6 steps, 6 reveals verified, every state hash matches "
                         f"(final {hashes[-1]})")

    status, out, _ = history(capsys, "-j", journal_path, "--replay", "t1:3")
    assert status == 0 and out.splitlines()[-1].startswith("OK t1:3: 0 steps, ")


def test_replay_one_step(journal_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = history(capsys, "-j", journal_path, "--replay", "t1:2", "--step", "3")
    assert status == 0
    lines = out.splitlines()
    assert re.fullmatch(r"t1:2 step 3  prompt \d+  hash [0-9a-f]{16} OK", lines[0])
    assert lines[1] == "seats: Red Ana (controller), Blue (bot)"
    assert lines[2].startswith("revealed: Ana E 5, Blue ")
    assert lines[-1].startswith('view: {"round": 2, ')
    status, out, _ = history(capsys, "-j", journal_path, "--replay", "t1:2", "--step", "0")
    assert status == 0 and out.splitlines()[:2] == [
        "t1:2 before its first step", "seats: Red Ana (controller), Blue (bot)"]

    status, out, _ = history(capsys, "-j", journal_path, "--replay", "t1:2", "--step", "3",
                             "--json")
    step = json.loads(out)
    assert status == 0 and (step["step"], step["checked"], step["game"]["number"]) == (
        3, True, 2)
    assert step["state"]["revealed"]["pid"] == step["pid"]
    status, out, _ = history(capsys, "-j", journal_path, "--replay", "t1:1", "--json")
    whole = json.loads(out)
    assert status == 0 and whole["hash_ok"] is True and len(whole["steps"]) == 6


def test_a_replay_that_does_not_match_exits_1(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = console_journal(tmp_path / "journal.sqlite")
    applied = [n for n, k, _d in by_game(path)[1] if k == "applied"]
    edit(path, f"UPDATE entry SET data = json_set(data, '$.hash', 'ffffffffffffffff') "
               f"WHERE n = {applied[3]}")
    status, out, err = history(capsys, "-j", path, "--replay", "t1:2")
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert [line.split("  ")[0] for line in lines[1:4]] == ["step 1", "step 2", "step 3"]
    assert re.fullmatch(f"t1:2 step 4: entry {applied[3]}: state hash ffffffffffffffff "
                        f"journaled, [0-9a-f]+ replayed", lines[-1])
    assert len(lines) == 5
    status, out, _ = history(capsys, "-j", path, "--replay", "t1:2", "--json")
    assert status == 1 and json.loads(out)["broken"]["step"] == 4
    # the other games are fine, and the listing still lists them all
    assert history(capsys, "-j", path, "--replay", "t1:1")[0] == 0
    assert history(capsys, "-j", path)[0] == 0


# ---------------------------------------------------------------------- bad input


@dataclass(frozen=True)
class Case:
    id: str
    argv: tuple[str, ...]
    said: str


CASES = [
    Case("no-journal", (), "one of the arguments --journal/-j --config/-c is required"),
    Case("both", ("-j", "{j}", "-c", "{in}/dialbox.toml"), "not allowed with argument"),
    Case("missing-journal", ("-j", "{in}/missing.sqlite"),
         "dialbox history: {in}/missing.sqlite: no such file"),
    Case("not-a-journal", ("-j", "{in}/notes.txt"),
         "{in}/notes.txt: not a dialbox journal (file is not a database)"),
    Case("missing-config", ("-c", "{in}/missing.toml"),
         "{in}/missing.toml: cannot read the config file"),
    Case("config-journal-missing", ("-c", "{in}/elsewhere.toml"),
         "{in}/nowhere/journal.sqlite: no such file"),
    *[Case(f"replay-spec-{i}", ("-j", "{j}", "--replay", spec),
           f"--replay '{spec}': expected TABLE:N")
      for i, spec in enumerate(("t1", "t1:0", "t1:x", ":2", "t1:-1", "t1:"))],
    Case("unknown-table", ("-j", "{j}", "--table", "nope"),
         "{j}: no table 'nope' (tables: t1, t2)"),
    Case("unknown-replay-table", ("-j", "{j}", "--replay", "nope:1"),
         "{j}: no table 'nope' (tables: t1, t2)"),
    Case("unknown-game", ("-j", "{j}", "--replay", "t1:9"),
         "dialbox history: table t1 has no game 9 (games 1 to 3)"),
    Case("step-too-far", ("-j", "{j}", "--replay", "t1:1", "--step", "7"),
         "--step 7: game t1:1 has steps 0 to 6"),
    Case("step-negative", ("-j", "{j}", "--replay", "t1:1", "--step", "-1"),
         "--step -1: game t1:1 has steps 0 to 6"),
    Case("step-not-a-number", ("-j", "{j}", "--replay", "t1:1", "--step", "x"),
         "argument --step: invalid int value: 'x'"),
    Case("step-without-replay", ("-j", "{j}", "--step", "1"),
         "--step K goes with --replay TABLE:N"),
    Case("stats-and-replay", ("-j", "{j}", "--stats", "--replay", "t1:1"),
         "--stats and --replay: one at a time"),
    Case("two-tables", ("-j", "{j}", "--table", "t2", "--replay", "t1:1"),
         "--table t2 and --replay t1:1 name two tables"),
]


@dataclass
class Ran:
    status: int
    out: str
    err: str
    created: list[str]


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Ran]]]:
    """Every case run once as a process of its own, in parallel."""
    root = tmp_path_factory.mktemp("history-bad-input")
    inputs = root / "inputs"
    inputs.mkdir()
    journal = console_journal(inputs / "journal.sqlite")
    (inputs / "notes.txt").write_text("not a journal at all\n" * 100)
    for name, where in (("dialbox.toml", journal), ("elsewhere.toml",
                                                    inputs / "nowhere" / "journal.sqlite")):
        (inputs / name).write_text(f'[host]\njournal = "{where}"\n[display]\nweb = false\n'
                                   '[[tables]]\nname = "t"\ngame = "pipcycle"\nplayers = 2\n')
    # SQLite makes a WAL journal's -wal and -shm files the first time anyone reads it (a
    # read-only reader too): a first read here, so that what follows is the bad inputs' own
    Journal(journal, readonly=True).close()
    before = listing(inputs)

    def run(c: Case) -> Ran:
        home = root / "homes" / c.id
        cwd, tmp = home / "cwd", home / "tmp"
        for d in (cwd, tmp):
            d.mkdir(parents=True)
        env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
        env.update(HOME=str(home), TMPDIR=str(tmp), COLUMNS="100", PYTHONDONTWRITEBYTECODE="1")
        argv = [a.replace("{j}", str(journal)).replace("{in}", str(inputs)) for a in c.argv]
        proc = subprocess.run([sys.executable, "-m", "dialbox", "history", *argv], cwd=cwd,
                              env=env, stdin=subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=120)
        created = [f for f in listing(home) if f not in ("cwd", "tmp")]
        return Ran(proc.returncode, proc.stdout, proc.stderr, created)

    with ThreadPoolExecutor(max_workers=min(8, 2 * (os.cpu_count() or 1))) as pool:
        futures = {c.id: pool.submit(run, c) for c in CASES}
        done = {id: f.result() for id, f in futures.items()}
    assert listing(inputs) == before, "a bad input wrote next to the inputs"
    yield inputs, done


@pytest.mark.parametrize("c", CASES, ids=[c.id for c in CASES])
def test_a_bad_input_is_one_line_on_stderr(ran: tuple[Path, dict[str, Ran]], c: Case) -> None:
    inputs, done = ran
    r = done[c.id]
    lines = [line for line in r.err.splitlines() if line.strip()]
    assert "Traceback" not in r.err + r.out, r.err
    assert len(lines) == 1, r.err
    assert lines[0].startswith("dialbox history: "), lines[0]
    said = c.said.replace("{j}", str(inputs / "journal.sqlite")).replace("{in}", str(inputs))
    assert said in lines[0], lines[0]
    assert (r.status, r.out, r.created) == (2, "", [])
