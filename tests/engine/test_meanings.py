"""What an answer means (`Game.meaning`), for every registered game, and seats named by colour.

Generic, like test_secrets.py: random bots play whole seeded games of every game. At each
decision, the first asks of every question are answered in thought with each of their legal
selections (up to a cap): the meaning must be words of the game's own (non-empty, not the bare
face labels, short enough for the reveal card), computed from the game as it stands when the
question is asked. When the decision is applied, the engine must have recorded exactly those
meanings (`Game.meanings`), before the rules moved on. Every event text and result text of
the played games names seats by colour, never as "seat 3".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import islice

import pytest

from dialbox.engine import Game, game_info, game_names
from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.engine.naming import NAMED, colour_name, marked, said

SEEDS = range(4)
MORE: dict[str, list[dict[str, object]]] = {
    "outspeed": [{"x_dial": "resolution", "physical_dice": True}],
    "pixoid": [{"arrows": "seat"}],
    "stadium": [{"track": ["fencing", "basketball", "archery", "golf", "taekwondo",
                           "team_gymnastics", "anti_doping", "weightlifting", "rugby",
                           "pole_vault"], "physical_dice": True, "round_limit": 6}],
    "trial-of-the-gods": [{"physical_dice": True}],
}
"""Options that reach the questions the standard game asks rarely or never: X dialled after
the routes, physical dice ("dice.*"), arrows turned to each seat, the Trials with re-rolls."""
ASKS_PER_TOPIC = 12
"""Asks of one question examined per played game (their legal selections, up to LEGAL_CAP)."""
LEGAL_CAP = 80
MEANING_MAX = 80
SEAT_NUMBER = re.compile(r"\b[Ss]eat \d")


def player_counts(name: str) -> list[int]:
    counts = sorted(game_info(name).players)
    return sorted({counts[0], counts[-1]})


def games(name: str, more: bool = False) -> Iterator[tuple[int, int, dict[str, object]]]:
    for players in player_counts(name):
        for seed in SEEDS:
            yield players, seed, {}
            if more:
                for options in MORE.get(name, []):
                    yield players, seed, options


@pytest.mark.parametrize("name", game_names())
def test_every_legal_answer_means_something_in_the_games_words(name: str) -> None:
    cls = game_info(name).game
    topics: dict[str, int] = {}
    for players, seed, options in games(name, more=True):
        game = cls({"players": players, "seed": seed, **options})
        bots = {p: RandomBot(seed * 31 + p) for p in range(players)}
        steps = 0
        while game.pending is not None and steps < 3000:
            d = game.pending
            for ask in d.asks:
                if topics.get(ask.topic, 0) >= ASKS_PER_TOPIC * len(SEEDS) * 4:
                    continue
                topics[ask.topic] = topics.get(ask.topic, 0) + 1
                for sel in islice(game.legal(ask), LEGAL_CAP):
                    words = game.meaning(ask, sel)
                    where = f"{name} {players}p seed {seed} step {steps} {ask.topic} {sel}"
                    assert isinstance(words, str) and words.strip(), where
                    text, spans = said(words)
                    assert len(text) <= MEANING_MAX, f"{where}: {text!r} is too long"
                    for start, end, seat in spans:
                        assert text[start:end] == colour_name(seat), where
                    if not ask.topic.startswith("dice."):
                        assert text != game.labels(ask, sel), \
                            f"{where}: {text!r} is only the faces' labels"
            answers = answer_with_bots(game, bots)
            expected = {a.seat: game.meaning(a, answers[a.seat]) for a in d.asks}
            game.apply(answers)
            assert game.meanings == expected, f"{name} step {steps}: recorded meanings"
            assert game.meanings_of(d) == expected and game.meant == d.id
            steps += 1
    assert topics, name
    for topic in WANTED.get(name, ()):
        assert topic in topics, f"{name}: no game asked {topic}"


WANTED = {
    "outspeed": ("outspeed.route", "outspeed.x", "outspeed.bonus", "outspeed.keep", "dice.yellow"),
    "pipcycle": ("pipcycle.place", "pipcycle.play", "pipcycle.assign", "pipcycle.match",
                 "pipcycle.move"),
    "pixoid": ("pixoid.start", "pixoid.move"),
    "stadium": ("stadium.wager", "stadium.sprint", "stadium.taekwondo.action",
                "stadium.gymnastics.bid", "stadium.anti_doping", "stadium.fencing.reroll",
                "stadium.archery.reroll", "stadium.golf.adjust", "stadium.basketball.ball",
                "stadium.basketball.defence", "stadium.weightlifting.lift", "dice.green"),
    "trial-of-the-gods": ("trial.track", "trial.turn", "trial.competition", "trial.enemy",
                          "trial.olympics_card", "dice.die"),
}
"""Questions the games above must reach, so every game's meanings are looked at."""


@pytest.mark.parametrize("name", game_names())
def test_a_quiet_game_records_no_meaning(name: str) -> None:
    cls = game_info(name).game
    players = player_counts(name)[0]
    game = cls({"players": players, "seed": 1}, quiet=True)
    d = game.pending
    assert d is not None
    game.apply(answer_with_bots(game, {p: RandomBot(p) for p in range(players)}))
    assert game.meanings == {} and game.meanings_of(d) == {}


def played(name: str, players: int, seed: int, default_bot: bool = False) -> Game:
    info = game_info(name)
    game = info.game({"players": players, "seed": seed})
    make = info.bots[info.default_bot] if default_bot and info.default_bot else RandomBot
    bots = {p: make(seed * 13 + p) for p in range(players)}
    steps = 0
    while game.pending is not None and steps < 5000:
        d = game.pending
        for ask in d.asks:  # texts the table and the controllers show as they are
            for text in (ask.text, *(r for w in ask.wheels if w is not None
                                      for r in w.reasons.values())):
                assert not marked(text), f"{name}: a seat mark in {text!r}"
        headline = game.headline()
        assert headline is None or not marked(headline)
        game.apply(answer_with_bots(game, bots))
        steps += 1
    return game


@pytest.mark.parametrize("name", game_names())
def test_texts_name_seats_by_colour_and_say_where(name: str) -> None:
    named = 0
    for players, seed, _ in games(name):
        for default_bot in (False, True):
            if default_bot and seed:
                continue  # one game with the game's own bots per player count
            game = played(name, players, seed, default_bot)
            texts = [(e.kind, e.text, e.data) for e in game.events]
            if game.result is not None:
                texts.append(("result", game.result.text, game.result.details))
            for kind, text, data in texts:
                where = f"{name} {players}p seed {seed}: {kind}: {text!r}"
                assert not SEAT_NUMBER.search(text), where
                assert not marked(text), where
                for start, end, seat in data.get(NAMED, []):
                    assert text[start:end] == colour_name(seat), where
                    assert 0 <= seat < players + 1, where
                    named += 1
    assert named, f"{name}: no event names a seat"


def test_stadium_names_teams_apart_from_the_seats_colours() -> None:
    for seed in SEEDS:
        game = played("stadium", 4, seed)
        assert game.result is not None
        text = game.result.text
        assert text.startswith(("The Starz", "The Sunz", "A draw")), text
        assert not re.search(r"\b(blue|red|Blue|Red) Team\b", text)
        for e in game.events:
            assert not re.search(r"\b(blue|red) Team\b|\bTeam (blue|red)\b", e.text), e.text
            if e.kind == "stadium.medal" and e.data.get("seat") is None:
                assert e.text.startswith(("The Starz", "The Sunz")), e.text
