"""Non-interference, for every registered game: a seat's hidden answer never shows elsewhere.

Generic, not per game. Random bots play many seeded games; at sealed and private decisions
the game is forked (replayed from its log) and one seat is given two different answers:

- sealed: the seat locks in (stages) answer A in one fork and B in the other while the
  others are still choosing; the public view and every other player's view must be equal.
- private: both forks apply the decision (A or B for the seat, the same answers for everyone
  else; A and B with the same `public_part`, what the table learns at once) and then play on
  with the same answers; until a rule discloses the decision (`Game.disclose`), the public
  view, every other player's view, the events they may see (texts included) and the texts
  of every prompt must stay equal; what the table is told of the decision (the runner's
  telling: what the rules announce, never a face or what the answer means) and the other
  seats' controllers must be equal at once.
- dealt: where a game deals hidden components (a hand, tokens held face down), one player's
  hidden component is swapped for another the table cannot tell apart (`Game.swap_hidden`);
  until that player answers again, nobody else's view, events or prompts may change, and the
  texts of the next prompt it is asked (public: the table shows every seat's question) neither.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from dialbox.engine import Ask, Decision, Game, Selection, game_info, game_names
from dialbox.engine.bots import RandomBot, answer_with_bots
from dialbox.runner.seatview import seatview_text
from dialbox.runner.telling import tell

SEEDS = range(8)
CHECKS_PER_GAME = 10
"""Sealed/private decisions examined per played game (spread over the whole game)."""
HORIZON = 40
"""Decisions a private fork is followed for, at most, before it is disclosed."""


def fork(game: Game) -> Game:
    return type(game).from_json(game.to_json())


def player_counts(name: str) -> list[int]:
    counts = sorted(game_info(name).players)
    return sorted({counts[0], counts[-1]})


def observers(game: Game, ask: Ask) -> list[int]:
    """The players who must learn nothing of `ask`'s answer."""
    return [p for p in range(game.options.players) if p != ask.answerer]


def visible(events: list[Any], player: int | None) -> list[tuple[str, str, Any]]:
    return [(e.kind, e.text, e.data) for e in events if e.visible_to(player)]


def assert_same_views(a: Game, b: Game, who: list[int], where: str) -> None:
    assert a.view(None) == b.view(None), f"{where}: the public view differs"
    assert a.headline() == b.headline(), f"{where}: the controllers' headline differs"
    for p in who:
        assert a.view(p) == b.view(p), f"{where}: player {p + 1}'s view differs"
        # what a phone at that seat is sent (`seatview`, dialbox.runner.seatview): before
        # all-locked and while a private answer or a dealt component stays hidden, it
        # carries nothing of another seat's locked selection or hidden information
        assert seatview_text(a, p) == seatview_text(b, p), \
            f"{where}: the seatview sent to player {p + 1} differs"


def two_answers(game: Game, ask: Ask, rng: random.Random,
                same_public: bool) -> tuple[Selection, Selection] | None:
    """Two different legal answers to `ask` (with the same public part, if asked)."""
    legal = list(game.legal(ask))
    rng.shuffle(legal)
    groups: dict[str | None, list[Selection]] = {}
    for sel in legal:
        key = game.public_part(ask, sel) if same_public else None
        groups.setdefault(key, []).append(sel)
    pairs = [g for g in groups.values() if len(g) >= 2]
    if not pairs:
        return None
    g = pairs[rng.randrange(len(pairs))]
    return g[0], g[1]


def check_sealed(game: Game, d: Decision, rng: random.Random, where: str) -> int:
    checked = 0
    for ask in d.asks:
        pair = two_answers(game, ask, rng, same_public=False)
        if pair is None or len(d.asks) < 2:
            continue  # the last seat to lock applies the decision: nothing stays sealed
        a, b = fork(game), fork(game)
        a.stage(ask.seat, pair[0])
        b.stage(ask.seat, pair[1])
        assert a.locked == b.locked == (ask.seat,)
        assert_same_views(a, b, observers(game, ask), f"{where} seat {ask.seat + 1} locked")
        checked += 1
    return checked


def asks_match(da: Decision | None, db: Decision | None, hidden: int, where: str) -> bool:
    """Both forks ask the same seats the same questions (wheels too, but for `hidden`'s)."""
    if da is None or db is None:
        assert da is None and db is None, f"{where}: one fork ended, the other did not"
        return False
    assert (da.kind, da.seats) == (db.kind, db.seats), f"{where}: different prompts"
    for x, y in zip(da.asks, db.asks, strict=True):
        assert (x.topic, x.text) == (y.topic, y.text), f"{where}: prompt texts differ"
        if x.answerer != hidden:
            assert x.wheels == y.wheels, f"{where}: seat {x.seat + 1}'s wheels differ"
    return True


def check_private(game: Game, d: Decision, rng: random.Random, where: str) -> int:
    checked = 0
    for ask in d.asks:
        pair = two_answers(game, ask, rng, same_public=True)
        if pair is None:
            continue
        others = answer_with_bots(game, {p: RandomBot(rng.randrange(1 << 30))
                                         for p in range(game.options.players)})
        a, b = fork(game), fork(game)
        answers_a, answers_b = {**others, ask.seat: pair[0]}, {**others, ask.seat: pair[1]}
        told_a = tell(1, d, answers_a, a.apply(answers_a), a.public_part,
                      meanings=a.meanings_of(d))
        told_b = tell(1, d, answers_b, b.apply(answers_b), b.public_part,
                      meanings=b.meanings_of(d))
        # what the table is told at once: what the rules announce, no face, no meaning (and,
        # unless the rules disclosed the answer as they resolved it, nothing else differs)
        here = f"{where} seat {ask.seat + 1} private, told"
        assert not (told_a.public.choices or told_a.public.faces or told_a.public.meanings), here
        if d.id in a.undisclosed and d.id in b.undisclosed:
            assert told_a.public == told_b.public, here
            for q in d.asks:
                if q.answerer != ask.answerer:
                    assert told_a.frames[q.seat] == told_b.frames[q.seat], here
        follow(a, b, ask.answerer, rng, f"{where} seat {ask.seat + 1} private",
               lambda x, y, d=d: d.id in x.undisclosed and d.id in y.undisclosed)
        checked += 1
    return checked


def follow(a: Game, b: Game, hidden: int, rng: random.Random, where: str,
           until: Any, texts_at_end: bool = False) -> None:
    """Play both forks on with the same answers while `until(a, b)` holds, comparing what
    everyone but `hidden` sees."""
    who = [p for p in range(a.options.players) if p != hidden]
    start_a, start_b = len(a.events), len(b.events)
    step = 0
    while until(a, b) and step < HORIZON:
        here = f"{where}, {step} decisions later"
        assert_same_views(a, b, who, here)
        for p in [None, *who]:
            assert visible(a.events[start_a:], p) == visible(b.events[start_b:], p), \
                f"{here}: events seen by {'the table' if p is None else p + 1} differ"
        if not asks_match(a.pending, b.pending, hidden, here):
            break
        assert a.pending is not None and b.pending is not None
        bots = {p: RandomBot(rng.randrange(1 << 30)) for p in range(a.options.players)}
        answers = answer_with_bots(a, bots)
        try:
            for q in b.pending.asks:
                b.check(q, answers[q.seat])
        except Exception:
            # Only the hidden player's own options may differ (it holds other things).
            assert any(q.answerer == hidden for q in b.pending.asks), here
            break
        a.apply(answers)
        b.apply(answers)
        step += 1
    if texts_at_end and step and a.pending is not None and b.pending is not None:
        # Prompt texts are public (the table's retained state shows each seat's question):
        # even the hidden player's own question, asked after the change, must read the same.
        assert [(q.topic, q.text) for q in a.pending.asks] == \
            [(q.topic, q.text) for q in b.pending.asks], \
            f"{where}: the prompt texts shown to the table differ"


def check_dealt(game: Game, rng: random.Random, where: str) -> int:
    checked = 0
    if type(game).swap_hidden is Game.swap_hidden:
        return 0  # the game deals nothing hidden
    for player in range(game.options.players):
        b = fork(game)
        if not b.swap_hidden(player, rng):
            continue
        a = fork(game)

        def before_own_answer(x: Game, _y: Game, p: int = player) -> bool:
            return x.pending is not None and all(q.answerer != p for q in x.pending.asks)

        assert_same_views(a, b, [p for p in range(game.options.players) if p != player],
                          f"{where} player {player + 1}'s hidden components swapped")
        follow(a, b, player, rng, f"{where} player {player + 1} dealt otherwise",
               before_own_answer, texts_at_end=True)
        checked += 1
    return checked


def played_games(name: str) -> Iterator[tuple[Game, Decision, str]]:
    """Each game of `name` played by random bots, stopped at some sealed/private decisions."""
    cls = game_info(name).game
    for players in player_counts(name):
        for seed in SEEDS:
            game = cls({"players": players, "seed": seed})
            bots = {p: RandomBot(seed * 7 + p) for p in range(players)}
            marks = []
            probe = cls({"players": players, "seed": seed}, quiet=True)
            probe_bots = {p: RandomBot(seed * 7 + p) for p in range(players)}
            n = 0
            while probe.pending is not None and n < 2000:
                if probe.pending.kind != "open":
                    marks.append(n)
                probe.apply(answer_with_bots(probe, probe_bots))
                n += 1
            rng = random.Random(seed)
            chosen = set(rng.sample(marks, min(CHECKS_PER_GAME, len(marks))))
            n = 0
            while game.pending is not None and n < 2000:
                if n in chosen:
                    yield game, game.pending, f"{name} {players}p seed {seed} decision {n + 1}"
                game.apply(answer_with_bots(game, bots))
                n += 1


@pytest.mark.parametrize("name", game_names())
def test_no_seat_sees_another_seats_hidden_answer(name: str) -> None:
    rng = random.Random(name)
    sealed = private = dealt = 0
    for game, d, where in played_games(name):
        if d.sealed:
            sealed += check_sealed(game, d, rng, where)
        elif d.private:
            private += check_private(game, d, rng, where)
        dealt += check_dealt(game, rng, where)
    assert sealed + private > 0, f"{name}: no sealed or private decision was examined"
    if game_info(name).game.swap_hidden is not Game.swap_hidden:
        assert dealt > 0, f"{name}: no hidden deal was examined"


def test_the_check_catches_a_leak() -> None:
    """The same check fails on a game whose public view shows a private answer."""
    from tests.engine.leaky import Leaky

    game = Leaky({"players": 2})
    d = game.pending
    assert d is not None and d.private
    with pytest.raises(AssertionError, match="view differs"):
        check_private(game, d, random.Random(1), "leaky")
    game = Leaky({"players": 2, "variant": "sealed"})
    d = game.pending
    assert d is not None and d.sealed
    with pytest.raises(AssertionError, match="view differs"):
        check_sealed(game, d, random.Random(1), "leaky")


def test_the_check_catches_a_dealt_card_shown() -> None:
    """... and on a game that shows a dealt hand on the table."""
    from tests.plugins.blindbid.game import BlindBid

    class ShownHands(BlindBid):
        def view(self, seat: int | None) -> dict[str, Any]:
            v = super().view(seat)
            v["hands"] = [list(h) for h in self.hands]
            return v

    game = ShownHands({"players": 2, "seed": 1})
    with pytest.raises(AssertionError, match="view differs"):
        check_dealt(game, random.Random(1), "shown hands")


def test_the_check_catches_a_seatview_that_shows_another_hand() -> None:
    """... and on a seat view that carries another seat's hidden hand: a game whose every
    player's view shows every hand (the views are then equal, the leak is the seatview's
    only if it were built from anything but the seat's own view, so build one that is)."""
    import dialbox.runner.seatview as sv
    from tests.plugins.blindbid.game import BlindBid

    game = BlindBid({"players": 2, "seed": 1})
    real = sv.private_part

    def leaky(g: Game, seat: int, public: dict[str, Any] | None = None) -> dict[str, Any]:
        out = real(g, seat, public)
        out["all_hands"] = [list(h) for h in g.hands]  # type: ignore[attr-defined]
        return out

    sv.private_part = leaky  # type: ignore[assignment]
    try:
        with pytest.raises(AssertionError, match="seatview sent to player"):
            check_dealt(game, random.Random(1), "seatview shows hands")
    finally:
        sv.private_part = real  # type: ignore[assignment]


def test_the_check_catches_a_hand_in_a_prompt_text() -> None:
    """... and on a game that names the cards of a hand in the (public) prompt text."""
    from dataclasses import replace

    from dialbox.games.pipcycle import PipCycle

    class HandInText(PipCycle):
        def sealed(self, asks: Any, unlock: bool = True) -> Decision:
            asks = [replace(a, text=f"{a.text} ({' '.join(self.hands[a.seat])})")
                    if a.topic == "pipcycle.play" else a for a in asks]
            return super().sealed(asks, unlock)

    rng = random.Random(3)
    with pytest.raises(AssertionError, match="prompt texts shown to the table differ"):
        for seed in range(20):
            game = HandInText({"players": 2, "seed": seed})
            bots = {p: RandomBot(p) for p in range(2)}
            while game.pending is not None:
                check_dealt(game, rng, f"hand in text, seed {seed}")
                game.apply(answer_with_bots(game, bots))
