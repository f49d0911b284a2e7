"""`dialbox play`: bots alone finish a game; a human at the keyboard is asked and refused."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.engine import Ask, get_game


def test_bots_play_a_whole_game_and_save_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    save = tmp_path / "game.json"
    code = main(["play", "pixoid", "--humans", "0", "--bots", "4", "--seed", "3",
                 "--save", str(save)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Round 1: Red plays Pixoid." in out
    assert "Round 4: Yellow plays Pixoid." in out
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
    out, err = capsys.readouterr()
    assert code == 0  # quitting on purpose
    assert out.splitlines()[-1] == ("goodbye: you left the game after 3 decision(s) "
                                    "(--save FILE keeps a game)") and err == ""
    assert "'Z' is not a face of the right wheel" in out
    assert "Pixoid (Red) starts on Starting Pix A" in out
    assert "distance 0 is not allowed: Pixoid and Bugs always move" in out
    assert "Pixoid and the Bugs move only up, down, left or right" in out
    # Starting Pix A of the sample board (b2) has walls above it and to its right.
    assert "left wheel: S W" in out
    assert "a wall is directly up from this Pix" in out


def test_bad_options_and_bots_are_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "pixoid", "--humans", "0", "--bots", "5"]) == 2
    assert "players" in capsys.readouterr().err
    assert main(["play", "pixoid", "--bot", "genius"]) == 2
    assert "no bot 'genius'" in capsys.readouterr().err


def test_the_end_of_input_stops_the_game_and_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "game.json"
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "pixoid", "--humans", "1", "--bots", "3",
                 "--save", str(save)]) == 1
    out, err = capsys.readouterr()
    assert err == "dialbox play: end of input: the game stops after 0 decision(s) (saved)\n"
    assert f"saved to {save}" in out and save.exists()


@pytest.mark.parametrize("spelling", ["trial-of-the-gods", "trialofthegods",
                                      "trial_of_the_gods"])
def test_trial_of_the_gods_plays_under_either_spelling_and_saves_its_own_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spelling: str
) -> None:
    save = tmp_path / "game.json"
    code = main(["play", spelling, "--humans", "0", "--bots", "2", "--seed", "1",
                 "--save", str(save)])
    out = capsys.readouterr().out
    assert code == 0
    saved = json.loads(save.read_text())
    assert saved["game"] == "trial-of-the-gods"
    game = get_game(spelling).from_json(saved)
    assert game.over and game.result is not None
    assert " ".join(game.result.text.split()) in " ".join(out.split())  # (wrapped)


def test_an_unknown_game_is_one_line_listing_the_known_games(
        capsys: pytest.CaptureFixture[str]) -> None:
    from dialbox.engine import game_names

    assert main(["play", "trial-of-gods", "--humans", "0"]) == 2
    err = capsys.readouterr().err
    assert err == ("dialbox play: unknown game 'trial-of-gods'; known games: "
                   + ", ".join(game_names()) + "\n")


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
                 "--save", str(save)]) == 0
    legal = capsys.readouterr().out.split("your choice (? lists, q quits):")[1].split(",")[0]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{legal.strip()}\nq\n"))
    assert main(["play", "pixoid", "--humans", "1", "--bots", "3", "--seed", "5",
                 "--save", str(save)]) == 0
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
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1  # one line, however long
        return err

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


# ---- PIP Cycle: 2 or 3 players, face labels with spaces ----------------------------------


@pytest.mark.parametrize("players", [2, 3])
def test_bots_play_a_whole_pip_cycle_game(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, players: int
) -> None:
    save = tmp_path / "pip.json"
    assert main(["play", "pipcycle", "--humans", "0", "--bots", str(players), "--seed", "4",
                 "--save", str(save)]) == 0
    out = " ".join(capsys.readouterr().out.split())  # (the console wraps long lines)
    game = get_game("pipcycle").from_json(json.loads(save.read_text()))
    assert game.options.players == players
    assert game.over and game.result is not None and game.result.text in out


class Typist:
    """A player at the keyboard who asks for the legal answers ('?') and types one of them
    as listed, e.g. "FLF turn L" or "play 5H": what `dialbox play` shows must read back."""

    PROMPT = "your choice (? lists, q quits):"

    def __init__(self, capsys: pytest.CaptureFixture[str], seed: int) -> None:
        self.capsys, self.rng = capsys, random.Random(seed)
        self.out: list[str] = []
        self.listed = False
        self.typed: list[str] = []

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        said = self.capsys.readouterr().out
        self.out.append(said)
        if not self.listed:
            self.listed = True
            return "?\n"
        self.listed = False
        listing = " ".join(said.split()).removesuffix(self.PROMPT).strip()
        choice = self.rng.choice(listing.split(", "))
        self.typed.append(choice)
        return choice + "\n"


def test_a_human_plays_pip_cycle_to_the_end_typing_labels_with_spaces(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    typist = Typist(capsys, seed=1)
    monkeypatch.setattr("sys.stdin", typist)
    # no --bots: PIP Cycle seats 2-3 players, so the human gets 2 bots (not 3)
    assert main(["play", "pipcycle", "--seed", "2", "-o", "grid=6"]) == 0
    out = " ".join("".join([*typist.out, capsys.readouterr().out]).split())
    assert "is not a face" not in out and "type one face" not in out
    assert "Seat 1: Place your rider" in out and " PIP Cycle with " in out  # the result
    assert "Green" in out and "Yellow" not in out  # the third seat, no fourth
    assert len(typist.typed) > 10
    assert any(" " in t for t in typist.typed)  # a label with a space was typed and read


def test_labels_with_spaces_are_read_back_and_bad_words_named() -> None:
    from dialbox.cli.play import Table
    from dialbox.engine.wheels import Face, Wheel, wheels

    left = Wheel.of((Face("F", 0), Face("F crash", 1), Face("FLF", 2)))
    right = Wheel.of((Face("ahead", 0), Face("turn L", 1), Face("about", 2)))
    ask = Ask(0, "pipcycle.move", "Move", wheels(left, None, right))
    assert Table.parse(ask, "F crash ahead") == (1, -1, 0)
    assert Table.parse(ask, "f turn l") == (0, -1, 1)
    assert Table.parse(ask, "FLF about") == (2, -1, 2)
    with pytest.raises(ValueError, match="'turn' is not a face of the left wheel"):
        Table.parse(ask, "turn L")
    with pytest.raises(ValueError, match="'sideways' is not a face of the right wheel"):
        Table.parse(ask, "F crash sideways")
    with pytest.raises(ValueError, match="type one face for each active wheel: left and right"):
        Table.parse(ask, "F crash")
    with pytest.raises(ValueError, match="type one face for each active wheel"):
        Table.parse(ask, "F ahead ahead")


@pytest.mark.parametrize(("args", "said"), [
    (["-o", "grid=3"], "pipcycle: grid: Input should be greater than or equal to 5"),
    (["-o", "grid=x"], "pipcycle: grid: Input should be a valid integer"),
    (["-o", "grid"], "--option wants KEY=VALUE, not 'grid'"),
    (["-o", "colour=red"], "pipcycle: colour: Extra inputs are not permitted"),
    (["--bots", "4"], "pipcycle is for 2-3 players, not 4"),
])
def test_a_bad_pip_cycle_option_is_one_clear_line(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(["play", "pipcycle", "--humans", "0", *args]) == 2
    out, err = capsys.readouterr()
    assert err.splitlines() == [err.strip()] and said in err and out == ""
    assert "Traceback" not in out + err
