"""Options `tiles` and `dice`: owners' files are played, broken ones refused; events documented."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from dialbox.engine import InvalidOptions
from dialbox.engine.bots import Bot, RandomBot, play_out
from dialbox.engine.naming import NAMED
from dialbox.games.stadium import Stadium
from dialbox.games.stadium.bots import StadiumBot
from dialbox.games.stadium.components import HERE, NUMBERS, load_dice, load_tiles
from dialbox.games.stadium.trials import TRIALS

SAMPLE_TILES: dict[str, Any] = json.loads((HERE / "sample_tiles.json").read_text())
SAMPLE_DICE: dict[str, Any] = json.loads((HERE / "sample_dice.json").read_text())
DOCS = Path(__file__).parents[3] / "docs" / "games" / "stadium.md"
HALVES = (list(SAMPLE_TILES["tiles"])[:10], list(SAMPLE_TILES["tiles"])[6:])
"""Two tracks that play all 16 Trials between them."""


def write(tmp_path: Path, name: str, data: Any) -> str:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return str(path)


def owners_tiles() -> dict[str, Any]:
    data = copy.deepcopy(SAMPLE_TILES)
    tiles = data["tiles"]
    tiles["pole_vault"]["rungs"] = [8, 4, 1]
    tiles["golf"]["holes"] = [2, 3, 4]
    tiles["weightlifting"]["weights"] = [[100, 1, 6], [120, 3, 6], [140, 5, 6]]
    tiles["archery"]["dice"] = ["yellow", "green"]
    tiles["rugby"]["spaces_to_goal"] = 1
    return data


def owners_dice() -> dict[str, Any]:
    """Other colours, other labels, other values: nothing may come from the sample dice."""
    data = copy.deepcopy(SAMPLE_DICE)
    for i, die in enumerate(data["dice"].values()):
        die["colour"] = f"{i + 1}0{i + 1}0{i + 1}0"
        die["sample"] = False
    data["dice"]["green"]["faces"] = [["g2", 2], ["g3", 3], ["g3", 3], ["g4", 4], ["g5", 5],
                                      ["g6", 6], ["g6", 6], ["g7", 7]]
    data["dice"]["yellow"]["faces"] = [["y0", 0], ["y-2", -2], ["y-4", -4]]
    data["dice"]["white"]["faces"] = [["w1", 1], ["I", 0, "intercept"], ["I", 0, "intercept"]]
    data["dice"]["blue"]["faces"] = [["b1", 1], ["b+5", 5]]
    data["dice"]["red"]["faces"] = [["r0", 0], ["r2", 2], ["r4", 4], ["r6", 6]]
    return data


def test_the_bundled_samples_are_the_default() -> None:
    game = Stadium({"players": 4})
    assert game.opts.tiles == "sample" and game.opts.dice == "sample"
    assert game.tileset is load_tiles("sample") and game.dice is load_dice("sample")
    assert game.view(0)["components"] == {"tiles": "sample", "dice": "sample"}


def test_every_trial_has_its_numbers_checked() -> None:
    assert set(NUMBERS) == set(TRIALS)
    assert set(SAMPLE_TILES["tiles"]) == set(TRIALS)


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("bot", [StadiumBot, RandomBot])
def test_owners_files_are_played(tmp_path: Path, half: int, bot: Callable[[int], Bot]) -> None:
    tiles = write(tmp_path, "my_tiles.json", owners_tiles())
    dice = write(tmp_path, "my_dice.json", owners_dice())
    for seed in range(4):
        game = Stadium({"players": 4 + 2 * (seed % 2), "seed": seed, "tiles": tiles,
                        "dice": dice, "track": HALVES[half]})
        assert game.view(None)["components"] == {"tiles": tiles, "dice": dice}
        bots = {s: bot(seed * 10 + s) for s in range(game.n)}
        asked: list[str] = []
        while game.pending is not None:
            asked += [a.text for a in game.pending.asks]
            for a in game.pending.asks:
                colours = {f.colour for w in a.wheels if w for f in w.faces[1:]}
                if a.topic in ("stadium.archery.reroll", "stadium.fencing.reroll"):
                    assert colours <= {d.colour for d in game.dice.values()}
            play_out(game, bots, max_decisions=1)
        assert game.result is not None and len(game.history) == 10
        labels = {e.data["label"] for e in game.events if e.kind == "dice.rolled"}
        assert labels and all(label[0] in "gywIbr" for label in labels), labels
        if "pole_vault" in game.track:
            assert "Bar at 8: A Jump  C Wait" in asked and "Bar at 9: A Jump  C Wait" not in asked


def test_the_deal_follows_the_tiles_file(tmp_path: Path) -> None:
    data = copy.deepcopy(SAMPLE_TILES)
    data["layout"] = ["final", "rest", "standard"]
    tiles = write(tmp_path, "short.json", data)
    for seed in range(10):
        game = Stadium({"players": 4, "seed": seed, "tiles": tiles})
        assert [game.tileset.tiles[k].kind for k in game.track] == ["final", "rest", "standard"]


def test_a_track_is_checked_against_the_tiles_in_play(tmp_path: Path) -> None:
    data = copy.deepcopy(SAMPLE_TILES)
    del data["tiles"]["golf"]
    tiles = write(tmp_path, "no_golf.json", data)
    assert Stadium({"players": 4, "tiles": tiles, "track": ["archery"]}).track == ["archery"]
    with pytest.raises(InvalidOptions, match=r"unknown Trial tiles \['golf'\]"):
        Stadium({"players": 4, "tiles": tiles, "track": ["golf"]})


def _tile(key: str, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        if value is None:
            del data["tiles"][key][field]
        else:
            data["tiles"][key][field] = value
    return change


def _die(name: str, field: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["dice"][name][field] = value
    return change


def _face(name: str, index: int, face: Any) -> Callable[[dict[str, Any]], None]:
    def change(data: dict[str, Any]) -> None:
        data["dice"][name]["faces"][index] = face
    return change


BROKEN_TILES: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (_tile("golf", "holes", "1-6"), "tiles.golf.holes: expected a list of 1 to 31 different"),
    (_tile("golf", "holes", [1, 1, 2]), "tiles.golf.holes: expected"),
    (_tile("rugby", "spaces_to_goal", None), "tiles.rugby.spaces_to_goal: missing"),
    (_tile("rugby", "spaces_to_goal", 0), "tiles.rugby.spaces_to_goal: expected a whole number"),
    (_tile("golf", "hole", [1]), "tiles.golf.hole: not a field of this tile"),
    (_tile("golf", "kind", "bonus"), "tiles.golf.kind: expected one of standard, rest, final"),
    (_tile("golf", "talk", "whisper"), "tiles.golf.talk: expected one of"),
    (_tile("golf", "passes_first_player", "yes"), "tiles.golf.passes_first_player"),
    (_tile("golf", "name", None), "tiles.golf.name: missing"),
    (_tile("golf", "samples", ["par"]), "tiles.golf.samples: 'par' is not a printed number"),
    (_tile("archery", "dice", ["purple"]), "tiles.archery.dice: expected a non-empty list of dice"),
    (_tile("fencing", "dice_by_wager", [["green"], []]), "tiles.fencing.dice_by_wager"),
    (_tile("weightlifting", "weights", [[150, 2, 6], [140, 3, 6]]),
     "tiles.weightlifting.weights: expected 1 to 9 rows"),
    (_tile("weightlifting", "weights", [[150, 6, 2]]), "tiles.weightlifting.weights"),
    (lambda d: d["tiles"].update(curling={}), "tiles.curling: not a Stadium Trial"),
    (lambda d: d.update(layout=["final"] * 5), "layout: needs 5 final tiles; the file has 4"),
    (lambda d: d.update(layout=["bonus"]), "layout: expected 1 to 10 tile backs"),
    (lambda d: d.update(layout=["rest"] * 11), "layout: expected 1 to 10 tile backs"),
    (lambda d: d.update(tiles=[]), "tiles: expected an object of Trial tiles by key"),
    (lambda d: d.update(layuot=[]), "layuot: not a field of a tiles file"),
]

BROKEN_DICE: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (lambda d: d["dice"].pop("red"), "dice.red: missing"),
    (lambda d: d["dice"].update(purple={}), "dice.purple: not a Stadium die"),
    (_die("blue", "colour", "blue"), "dice.blue.colour: expected six hex digits"),
    (_die("green", "faces", []), "dice.green.faces: expected a list of 1 to 32 faces"),
    (_die("green", "sides", 6), "dice.green.sides: not a field of a die"),
    (_die("green", "sample", "yes"), "dice.green.sample: expected true or false"),
    (_face("green", 2, ["3 pips", 3]), "dice.green.faces[2]: expected [label, value]"),
    (_face("green", 2, ["three3", 3]), "dice.green.faces[2]: expected [label, value]"),
    (_face("green", 2, ["3", 3.5]), "dice.green.faces[2]: expected [label, value]"),
    (_face("white", 5, ["Int", 0, "steal"]), "dice.white.faces[5]: unknown mark 'steal'"),
    (_face("green", 2, ["1", 3]), "dice.green.faces[2]: label '1' already stands for another"),
]


@pytest.mark.parametrize(("option", "sample", "change", "expected"), [
    *[("tiles", SAMPLE_TILES, c, e) for c, e in BROKEN_TILES],
    *[("dice", SAMPLE_DICE, c, e) for c, e in BROKEN_DICE],
])
def test_a_broken_file_is_refused_naming_file_and_field(
    tmp_path: Path, option: str, sample: dict[str, Any],
    change: Callable[[dict[str, Any]], None], expected: str,
) -> None:
    data = copy.deepcopy(sample)
    change(data)
    path = write(tmp_path, f"broken_{option}.json", data)
    with pytest.raises(InvalidOptions) as caught:
        Stadium({"players": 4, option: path})
    message = str(caught.value)
    assert message.startswith(f"stadium: {option}: {path}: {expected}"), message
    assert "\n" not in message


@pytest.mark.parametrize("option", ["tiles", "dice"])
def test_unreadable_files_and_unknown_sets(tmp_path: Path, option: str) -> None:
    cases = {
        write(tmp_path, "bad.json", '{"layout": ['): "bad.json: not valid JSON",
        write(tmp_path, "list.json", "[]"): "list.json: expected a JSON object",
        str(tmp_path / "missing.json"): f"missing.json: cannot read the {option} file",
        "deluxe": f"no bundled {option} set 'deluxe' (bundled: sample)",
    }
    for value, expected in cases.items():
        with pytest.raises(InvalidOptions, match=re.escape(expected)) as caught:
            Stadium({"players": 4, option: value})
        assert str(caught.value).startswith(f"stadium: {option}: ")
        assert "\n" not in str(caught.value)


def documented_events() -> dict[str, list[set[str]]]:
    """The "Events" table of docs/games/stadium.md: kind -> its documented data key sets."""
    text = DOCS.read_text()
    table = text[text.index("## Events"):].split("\n## ", 1)[0]
    kinds: dict[str, list[set[str]]] = {}
    for row in re.findall(r"^\| `([a-z_.]+)` \| ([^|]*) \|", table, re.M):
        kinds.setdefault(row[0], []).append(set(re.findall(r"`(\w+)`", row[1])))
    return kinds


def test_every_event_is_documented() -> None:
    documented = documented_events()
    seen: dict[str, set[frozenset[str]]] = {}
    for seed in range(24):
        players = 4 + 2 * (seed % 2)
        game = Stadium({"players": players, "seed": seed, "track": HALVES[seed % 2],
                        "round_limit": 2 if seed % 3 == 0 else 40})
        play_out(game, {s: (StadiumBot if s % 2 else RandomBot)(seed + s)
                        for s in range(players)})
        for e in game.events:
            assert e.to is None, e
            # `named` (where the text names seats) is the engine's, for every game's events
            seen.setdefault(e.kind, set()).add(frozenset(k for k in e.data if k != NAMED))
    for kind, shapes in seen.items():
        assert kind in documented, f"event {kind} is not in docs/games/stadium.md"
        for keys in shapes:
            assert set(keys) in documented[kind], (kind, sorted(keys), documented[kind])
    assert len(seen) >= 20  # the games above reach nearly every kind
