"""Trial of the Gods card packs: the sample pack, the Die file, one-line errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbox.engine.chance import Chance
from dialbox.games.trial_of_the_gods.packs import (
    ACTION_SYMBOLS,
    ACTIVATION,
    DATA,
    ENEMY_TYPES,
    CalmSeaCard,
    PackFormatError,
    is_activation,
    load_die,
    load_pack,
    olympics_cards_needed,
)

EXPLORATION = "place 1 Exploration Token on an Island where there is a Captain or a Companion"

GOOD = """
[pack]
name = "test pack"

[[olympics]]
name = "Stadion"
disciplines = ["sail"]
tiebreakers = ["heal", "attack"]
first = { champions = 2, text = "x" }
second = { champions = 1 }
third = { actions = { heal = 1 } }

[[enemy]]
name = "Hydra"
type = "land_monster"
level = 3
attack = 7
dice = 2
laurels = 3
skill = "Each Activation: +2 Attack."
activation_attack = 2

[[enemy]]
name = "Calm Sea"
type = "calm_sea"
effect = "Nothing appears."
copies = 2

[[hero]]
name = "Jason"
olympics_skills = ["sail"]
"""


def write(tmp_path: Path, text: str, name: str = "bad.toml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --- the sample pack -------------------------------------------------------------------------

def test_sample_pack_loads_and_is_labelled_sample() -> None:
    pack = load_pack()
    assert pack.sample is True
    assert "sample" in pack.name.lower()
    text = (DATA / "sample_pack.toml").read_text(encoding="utf-8")
    assert text.startswith("# SAMPLE") and "NOT the" in text
    assert pack.source == "sample_pack.toml"


def test_sample_pack_has_enough_olympics_cards_for_five_rounds() -> None:
    pack = load_pack("sample")
    assert olympics_cards_needed(5) == 7
    assert len(pack.olympics) >= olympics_cards_needed(5)
    for card in pack.olympics:
        assert card.disciplines and set(card.disciplines) <= set(ACTION_SYMBOLS)
        assert len(card.prizes) == 3


def test_stadion_prizes_are_the_rulebooks() -> None:
    first, second, third = load_pack().olympics_card("Stadion").prizes
    assert (first.champions, second.champions, third.champions) == (2, 1, 0)
    for prize in (first, second, third):
        assert prize.text == EXPLORATION
        assert not prize.actions
    assert first.describe() == f"gain 2 Champion Tokens, {EXPLORATION}"
    assert third.describe() == EXPLORATION


def test_sample_enemies_cover_every_type_and_level() -> None:
    pack = load_pack()
    assert 8 <= len(pack.enemies) <= 12
    assert {(e.type, e.level) for e in pack.enemies} == {
        (t, lv) for t in ENEMY_TYPES for lv in (1, 2, 3)
    }
    assert any(e.activation_attack is None for e in pack.enemies)  # text-only skills
    assert any(e.activation_attack is not None for e in pack.enemies)
    deck = pack.sea_deck()
    assert any(isinstance(c, CalmSeaCard) for c in deck)
    sea = [e for e in pack.enemies if e.type == "sea_monster"]
    assert len(deck) == sum(e.copies for e in sea) + sum(c.copies for c in pack.calm_seas)


def test_sample_heroes_have_olympics_skills() -> None:
    pack = load_pack()
    assert pack.hero("Jason").olympics_skills == ("sail", "order")
    for argonaut in (e for e in pack.enemies if e.type == "argonaut"):
        pack.hero(argonaut.name)  # a defeated Enemy Argonaut's Hero card is in the pack


def test_prize_with_an_action() -> None:
    prize = load_pack().olympics_card("Diaulos").prizes[0]
    assert prize.champions == 2 and dict(prize.actions) == {"heal": 1}
    assert prize.describe() == "gain 2 Champion Tokens, you may perform 1 Heal Action"


def test_good_file_loads(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, GOOD, "mine.toml"))
    assert pack.sample is False and pack.source == "mine.toml"
    hydra = pack.enemy("Hydra")
    assert (hydra.level, hydra.attack, hydra.dice, hydra.laurels) == (3, 7, 2, 3)
    assert pack.calm_seas[0].copies == 2
    assert pack.olympics[0].tiebreakers == ("heal", "attack")


def test_level_may_be_roman(tmp_path: Path) -> None:
    pack = load_pack(write(tmp_path, GOOD.replace("level = 3", 'level = "II"')))
    assert pack.enemy("Hydra").level == 2


# --- the Die -----------------------------------------------------------------------------------

def test_die_faces_are_numbers_and_an_activation() -> None:
    die = load_die()
    assert len(die.faces) == 6
    assert sum(is_activation(f) for f in die.faces) == 1
    assert all(f.value >= 0 for f in die.faces)
    assert any(f.value == 1 and not f.mark for f in die.faces)
    assert "ASSUMPTION" in (DATA / "die.toml").read_text(encoding="utf-8")
    chance = Chance(7)
    assert all(chance.roll(die) in die.faces for _ in range(20))


def test_enemy_rolled_attack() -> None:
    pack, die = load_pack(), load_die()
    act = next(f for f in die.faces if f.mark == ACTIVATION)
    two = next(f for f in die.faces if f.value == 2)
    assert pack.enemy("Hydra").rolled_attack([two, act]) == (7 + 2 + 2, 0)
    assert pack.enemy("Scylla").rolled_attack([two, act, act]) == (4 + 2, 2)


def test_bad_die_file(tmp_path: Path) -> None:
    path = write(tmp_path, '[die]\nfaces = [1, 2, "x"]\n', "die.toml")
    with pytest.raises(PackFormatError) as e:
        load_die(path)
    assert str(e.value).startswith("die.toml: [die]: faces[2]: ")


# --- bad pack files: one line naming file, card and field -------------------------------------

BAD = [
    # (replace, with, expected start of the message)
    ('disciplines = ["sail"]', 'disciplines = ["run"]',
     'bad.toml: olympics "Stadion": disciplines: unknown symbol \'run\''),
    ('disciplines = ["sail"]', 'disciplines = ["attack"]',
     'bad.toml: olympics "Stadion": disciplines: unknown symbol'),
    ('disciplines = ["sail"]', "disciplines = []",
     'bad.toml: olympics "Stadion": disciplines: a non-empty list'),
    ('tiebreakers = ["heal", "attack"]', 'tiebreakers = ["heal", "heal"]',
     'bad.toml: olympics "Stadion": tiebreakers: a symbol is listed twice'),
    ("second = { champions = 1 }", 'second = { champions = "one" }',
     'bad.toml: olympics "Stadion": second.champions: a whole number >= 0'),
    ("third = { actions = { heal = 1 } }", "",
     'bad.toml: olympics "Stadion": third: missing'),
    ("third = { actions = { heal = 1 } }", "third = { actions = { jump = 1 } }",
     'bad.toml: olympics "Stadion": third.actions: unknown Action \'jump\''),
    ("third = { actions = { heal = 1 } }", "third = { actions = { heal = 0 } }",
     'bad.toml: olympics "Stadion": third.actions.heal: a whole number >= 1'),
    ('first = { champions = 2, text = "x" }', 'first = { champions = 2, txt = "x" }',
     'bad.toml: olympics "Stadion": first: unknown key(s) txt'),
    ('name = "Stadion"', "", "bad.toml: olympics #1: name: text expected"),
    ("level = 3", "level = 4", 'bad.toml: enemy "Hydra": level: 1, 2, 3 or'),
    ('type = "land_monster"', 'type = "dragon"', 'bad.toml: enemy "Hydra": type: one of'),
    ("attack = 7", "", 'bad.toml: enemy "Hydra": attack: missing'),
    ("dice = 2", "dice = -1", 'bad.toml: enemy "Hydra": dice: a whole number >= 0'),
    ("laurels = 3", "laurels = 3\nhp = 4", 'bad.toml: enemy "Hydra": unknown key(s) hp'),
    ("activation_attack = 2", 'activation_attack = "+2"',
     'bad.toml: enemy "Hydra": activation_attack: a whole number >= 1'),
    ('effect = "Nothing appears."', 'effect = "Nothing appears."\nlevel = 1',
     'bad.toml: enemy "Calm Sea": unknown key(s) level'),
    ('name = "Calm Sea"', 'name = "Hydra"', 'bad.toml: enemy "Hydra": name: the name is used'),
    ('olympics_skills = ["sail"]', 'olympics_skills = "sail"',
     'bad.toml: hero "Jason": olympics_skills: a list of symbols'),
    ('[pack]\nname = "test pack"', "", "bad.toml: [pack]: missing"),
    ('name = "test pack"', 'name = "test pack"\nsample = "yes"',
     "bad.toml: [pack]: sample: true or false"),
    ('name = "test pack"', 'name = "test pack"\nsampel = true',
     "bad.toml: [pack]: unknown key(s) sampel"),
    ("[[hero]]", "[[heroes]]", "bad.toml: unknown table(s) heroes"),
    ("laurels = 3", "laurels = [3", "bad.toml: not valid TOML"),
]


@pytest.mark.parametrize(("old", "new", "expected"), BAD)
def test_bad_pack_is_one_clear_line(tmp_path: Path, old: str, new: str, expected: str) -> None:
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    with pytest.raises(PackFormatError) as e:
        load_pack(path)
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith(expected), message


def test_empty_pack_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(PackFormatError, match=r"^bad\.toml: the pack holds no cards"):
        load_pack(write(tmp_path, '[pack]\nname = "x"\n'))
    with pytest.raises(PackFormatError, match=r"^nowhere_pack\.toml: cannot read"):
        load_pack("nowhere")
