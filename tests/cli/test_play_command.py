"""`dialbox play`: bots alone finish a game; a human at the keyboard is asked and refused."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.engine import get_game


def test_bots_play_a_whole_game_and_save_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "game.json"
    code = main(["play", "pixoid", "--humans", "0", "--bots", "4", "--seed", "3",
                 "--save", str(save)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Round 1: seat 1 plays Pixoid." in out
    assert "Round 4: seat 4 plays Pixoid." in out
    saved = json.loads(save.read_text())
    game = get_game("pixoid").from_json(saved)
    assert game.over and game.result is not None
    assert game.result.text in out


def test_three_players_short_game_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["play", "pixoid", "--humans", "0", "--bots", "3", "--bot", "random",
                 "--variant", "short", "-o", "layout=random", "-o", "arrows=seat", "--watch"])
    out = capsys.readouterr().out
    assert code == 0
    assert "spare Bug" in out
    assert ("wins the short game" in out) != ("win together" in out)


def test_a_human_is_told_why_a_choice_is_illegal_and_may_quit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("Z\nA\nS 0\nNE 2\nN 1\nq\n"))
    code = main(["play", "pixoid", "--humans", "1", "--bots", "3"])
    out = capsys.readouterr().out
    assert code == 1
    assert "'Z' is not a face of the right wheel" in out
    assert "Pixoid (seat 1) starts on Starting Pix A" in out
    assert "distance 0 is not allowed: Pixoid and Bugs always move" in out
    assert "Pixoid and the Bugs move only up, down, left or right" in out
    # Starting Pix A of the sample board (b2) has walls above it and to its right.
    assert "left wheel: S W" in out
    assert "a wall is directly up from this Pix" in out


def test_bad_options_and_bots_are_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "pixoid", "--humans", "0", "--bots", "5"]) == 2
    assert "players" in capsys.readouterr().out
    assert main(["play", "pixoid", "--bot", "genius"]) == 2
    assert "no bot 'genius'" in capsys.readouterr().out


def test_any_registered_game_plays_even_without_a_drawing_or_bots(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dialbox.engine import registry
    from tests.engine import test_driver

    monkeypatch.setitem(registry.GAMES, "highcard", "tests.engine.test_driver")
    info = registry.GameInfo(game=test_driver.HighCard, title="High Card", players=(2,))
    monkeypatch.setattr(test_driver, "INFO", info, raising=False)
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n9\n9\n9\n"))
    code = main(["play", "highcard", "--humans", "1", "--bots", "1", "--seed", "2"])
    out = capsys.readouterr().out
    assert code == 0
    assert "0 is not a card" in out
    assert "centre wheel: 1 2 3 4 5 6 7 8 9" in out
    assert "'scores'" in out  # no draw(): the view is shown as data
    assert "done" in out


def test_a_game_saved_when_a_player_quits_is_resumed_with_load(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "half.json"
    # seat 1 at the keyboard answers one decision, then quits: the game is saved half-played
    monkeypatch.setattr("sys.stdin", io.StringIO("?\nq\n"))
    assert main(["play", "pixoid", "--humans", "1", "--bots", "3", "--seed", "5",
                 "--save", str(save)]) == 1
    legal = capsys.readouterr().out.split("your choice (? lists, q quits):")[1].split(",")[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{legal.strip()}\nq\n"))
    assert main(["play", "pixoid", "--humans", "1", "--bots", "3", "--seed", "5",
                 "--save", str(save)]) == 1
    half = get_game("pixoid").from_json(json.loads(save.read_text()))
    assert len(half.log) >= 1 and not half.over
    capsys.readouterr()
    # resumed with bots in every seat, it plays on from there to the end
    done = tmp_path / "done.json"
    assert main(["play", "pixoid", "--load", str(save), "--humans", "0",
                 "--save", str(done)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # (the console wraps long lines)
    assert f"{len(half.log)} decision(s) replayed" in out
    final = get_game("pixoid").from_json(json.loads(done.read_text()))
    assert final.over and final.log[:len(half.log)] == half.log


def test_a_broken_save_is_refused_with_the_reason(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def said() -> str:
        return " ".join(capsys.readouterr().out.split())  # (the console wraps long lines)

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["play", "pixoid", "--load", str(bad)]) == 2
    assert "is not a saved game (not JSON" in said()
    assert main(["play", "pixoid", "--load", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in said()
    other = tmp_path / "other.json"
    main(["play", "stadium", "--humans", "0", "--bots", "4", "--save", str(other)])
    capsys.readouterr()
    assert main(["play", "pixoid", "--load", str(other)]) == 2
    assert "save is for 'stadium', not 'pixoid'" in said()
    tampered = json.loads(other.read_text())
    tampered["log"][0][0][1][0] = 99  # an answer no wheel has
    other.write_text(json.dumps(tampered))
    assert main(["play", "stadium", "--load", str(other)]) == 2
    assert "does not replay" in said()
