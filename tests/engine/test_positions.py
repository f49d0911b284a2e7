"""Positions: every game that declares one starts from it, saves it, and names a bad field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.engine import InvalidPosition, get_game
from dialbox.engine.bots import RandomBot, play_out

PIXOID = {"round": 2, "turn": 4, "cubes": ["g5", "b2", "c8", "c8"], "reserve": 8,
          "bonus": ["d3", "b6"], "bonus_taken": 1, "scores": [7, 5, 5, 5]}
STADIUM = {"track": ["golf", "equestrian", "beach_volleyball", "archery", "track_cycling",
                     "team_gymnastics", "weightlifting", "anti_doping", "fencing", "basketball"],
           "next": 9, "energy": [3, 4, 5, 6], "first": 2,
           "medals": {"blue": [1, 0, 2], "red": [2, 1, 0]}}
PIPCYCLE = {"riders": [{"seat": 0, "at": "c1", "facing": "N", "pips": 4},
                       {"seat": 1, "at": "g9", "facing": "S"}],
            "hands": [["5H", "2C", "6S"], ["1D", "4D"]], "pile": ["3H", "3C"],
            "lines": [["c1", "c2", 0]], "starter": 1}
OUTSPEED = {"tiles": [1, 2, 13], "zones": [1, 2, 3], "fuel": [5, 5, 5],
            "tokens": [["nitro"], [], ["fuel_tank", "flamethrower"]]}


def test_a_pixoid_position_is_the_round_in_progress() -> None:
    game = get_game("pixoid").from_position({"players": 4}, PIXOID)
    # four turns played: the fifth is being dialled
    assert (game.round, game.turn, game.pixoid, game.reserve) == (2, 5, 1, 8)
    d = game.pending
    assert d is not None and d.sealed and d.seats == (0, 1, 2, 3)
    board = game.board
    assert [board.pix_name(p) for p in game.cubes] == PIXOID["cubes"]
    assert sorted(board.pix_name(p) for p in game.bonus) == ["b6", "d3"]
    play_out(game, {p: RandomBot(p) for p in range(4)})
    assert game.result is not None and game.round == 4  # rounds 2, 3 and 4 were played
    assert len(game.history) == 3


@pytest.mark.parametrize(("name", "options", "position"), [
    ("pixoid", {"players": 4, "seed": 3}, PIXOID),
    ("outspeed", {"players": 3, "seed": 3}, OUTSPEED),
    ("stadium", {"players": 4, "seed": 3}, STADIUM),
    ("pipcycle", {"players": 2, "seed": 3}, PIPCYCLE),
])
def test_a_game_from_a_position_saves_and_replays_from_it(
        name: str, options: dict[str, int], position: dict[str, object]) -> None:
    cls = get_game(name)
    game = cls.from_position(options, position)
    play_out(game, {p: RandomBot(p) for p in range(options["players"])}, max_decisions=25)
    saved = json.loads(json.dumps(game.to_json()))
    assert saved["position"] == cls.from_position(options, position).to_json()["position"]
    again = cls.from_json(saved)
    assert again.state_hash() == game.state_hash() and again.log == game.log


@pytest.mark.parametrize(("name", "players", "position", "message"), [
    ("pixoid", 4, {**PIXOID, "cubes": ["g5", "b2", "c8", "z9"]},
     "pixoid position: cubes.3: there is no Pix z9 on a 10x10 board"),
    ("pixoid", 4, {**PIXOID, "cubes": ["g5", "g5", "c8", "j8"]},
     "pixoid position: cubes: a Bug on Pixoid's Pix"),
    ("pixoid", 4, {**PIXOID, "reserve": 9}, "pixoid position: reserve: after 4 turns"),
    ("pixoid", 4, {**PIXOID, "bonus": ["a1"]}, "pixoid position: bonus: a Bonus cube lies"),
    ("pixoid", 4, {**PIXOID, "round": 5}, "pixoid position: round: 5 is past the last round"),
    ("pixoid", 4, {**PIXOID, "spare": 1}, "pixoid position: spare: only with 3 players"),
    ("pixoid", 4, {**PIXOID, "colour": "red"}, "pixoid position: colour: Extra inputs"),
    ("pixoid", 4, {"turn": 2}, "pixoid position: cubes: Field required"),
    ("outspeed", 3, {**OUTSPEED, "zones": [1, 2]}, "outspeed position: zones: one entry"),
    ("outspeed", 3, {**OUTSPEED, "zones": [1, 2, 40]}, "outspeed position: zones.2: zone 40"),
    ("outspeed", 3, {**OUTSPEED, "tokens": [["zap"], [], []]},
     "outspeed position: tokens.0: unknown Bonus token 'zap'"),
    ("outspeed", 3, {**OUTSPEED, "fuel": "lots"}, "outspeed position: fuel: Input should be"),
    ("stadium", 4, {**STADIUM, "track": ["golf", "curling"]},
     "stadium position: track: no such Trial tile 'curling'"),
    ("stadium", 4, {**STADIUM, "next": 11}, "stadium position: next: Trial 11 is past the end"),
    ("stadium", 4, {**STADIUM, "energy": [3, 4, 5]}, "stadium position: energy: one per Athlete"),
    ("stadium", 4, {**STADIUM, "energy": [3, 4, 5, 31]}, "stadium position: energy.3: 31"),
    ("stadium", 4, {**STADIUM, "medals": {"blue": [1, 0]}}, "stadium position: medals: one"),
    ("stadium", 4, {**STADIUM, "first": 4}, "stadium position: first: seat 4"),
    ("pipcycle", 2, {**PIPCYCLE, "hands": [["5H", "2C"], ["5H"]]},
     "pipcycle position: hands.1.0: 5H is named twice"),
    ("pipcycle", 2, {**PIPCYCLE, "hands": [["7H"], []]},
     "pipcycle position: hands.0.0: '7H' is not a card of this deck"),
    ("pipcycle", 2, {**PIPCYCLE, "riders": [{"seat": 0, "at": "z1", "facing": "N"}]},
     "pipcycle position: riders.0.at: there is no point z1"),
    ("pipcycle", 2, {**PIPCYCLE, "riders": [{"seat": 0, "at": "c1", "facing": "N"}]},
     "pipcycle position: riders: seat 1 has no rider"),
    ("pipcycle", 2, {**PIPCYCLE, "lines": [["c1", "d2", 0]]},
     "pipcycle position: lines.0: c1 and d2 are not joined"),
    ("pipcycle", 2, {**PIPCYCLE, "starter": 2}, "pipcycle position: starter: there is no seat 2"),
    ("pipcycle", 2, {**PIPCYCLE, "riders": [{"seat": 0, "at": "c1", "facing": "Q"}]},
     "pipcycle position: riders.0.facing: Input should be"),
])
def test_a_bad_position_names_its_field(name: str, players: int, position: dict[str, object],
                                        message: str) -> None:
    with pytest.raises(InvalidPosition, match="^" + message.replace("(", r"\(")):
        get_game(name).from_position({"players": players}, position)


def test_a_stadium_position_plays_the_trials_left() -> None:
    game = get_game("stadium").from_position({"players": 4, "seed": 3}, STADIUM)
    assert game.revealed == 9 and game.trial["key"] == "fencing"
    assert game.energy == [3, 4, 5, 6] and game.first == 2
    play_out(game, {p: RandomBot(p) for p in range(4)})
    assert game.result is not None and [h["trial"] for h in game.history] == STADIUM["track"][8:]


def test_dialbox_play_starts_from_a_position_file(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "round2.json"
    path.write_text(json.dumps(PIXOID))
    save = tmp_path / "game.json"
    assert main(["play", "pixoid", "--humans", "0", "--bots", "4", "--position", str(path),
                 "--save", str(save)]) == 0
    saved = json.loads(save.read_text())
    assert saved["position"]["cubes"] == PIXOID["cubes"] and saved["log"]
    assert "Round 2: Blue plays Pixoid." in capsys.readouterr().out
    path.write_text(json.dumps({**PIXOID, "reserve": 0}))
    assert main(["play", "pixoid", "--humans", "0", "--bots", "4", "--position",
                 str(path)]) == 2
    assert "pixoid position: reserve:" in capsys.readouterr().err

