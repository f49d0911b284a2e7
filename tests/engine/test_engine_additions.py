"""Engine core additions: staging one seat at a time, quiet games, Ask.player, bot helpers."""

from __future__ import annotations

import random
from typing import Any

import pytest

from dialbox.engine import (
    Ask,
    Flow,
    Game,
    GameOptions,
    IllegalChoice,
    NotPending,
    Result,
    UnknownGame,
    Wheel,
    get_game,
    wheels,
)
from dialbox.engine.bots import LegalAnswers, RandomBot, SeatView, answer_with_bots
from dialbox.engine.registry import game_info
from dialbox.engine.wheels import DIGIT_FACES, LETTER_FACES


class Duel(Game):
    """Two rounds: seats 0 and 1 dial 1-9 sealed; seat 2's controller is dialled by seat 0."""

    name = "duel"

    def setup(self) -> None:
        self.total = [0, 0]
        self.seen: list[dict[int, tuple[int, int, int]]] = []

    def snapshot(self) -> dict[str, Any]:
        return {"total": list(self.total)}

    def view(self, seat: int | None) -> dict[str, Any]:
        return {"total": list(self.total), "pending": self.pending_view(seat)}

    def explain(self, ask: Ask, selection: tuple[int, int, int]) -> str | None:
        if ask.topic == "pair" and selection[1] + selection[2] > 9:
            return "the digit and the letter add up to more than 9"
        return None

    def flow(self) -> Flow:
        for _ in range(2):
            w = Wheel.of(DIGIT_FACES, range(1, 10), {0: "0 is not a move"})
            answers = yield self.sealed([
                Ask(0, "dial", "Dial", wheels(None, w)),
                Ask(1, "dial", "Dial", wheels(None, w)),
                Ask(2, "pair", "Dial two", wheels(None, w, Wheel.of(LETTER_FACES)), player=0),
            ], unlock=False)
            self.seen.append(dict(answers))
            self.total[0] += answers[0][1]
            self.total[1] += answers[1][1]
            self.emit("round", "a round is done")
        self.result = Result({0: self.total[0], 1: self.total[1]}, [0], "done")


def test_stage_applies_once_every_seat_is_in_and_hides_others_choices() -> None:
    g = Duel(GameOptions(players=2))
    assert g.stage(1, (-1, 5, -1)) is None
    assert g.locked == (1,)
    view0 = g.view(0)["pending"]
    assert view0["locked"] == [1] and view0["mine"] == {}
    assert g.view(1)["pending"]["mine"] == {"1": [-1, 5, -1]}
    with pytest.raises(IllegalChoice, match="more than 9"):
        g.stage(2, (-1, 9, 3))
    assert g.stage(2, (-1, 2, 1)) is None
    assert g.view(0)["pending"]["mine"] == {"2": [-1, 2, 1]}
    events = g.stage(0, (-1, 3, -1))
    assert events is not None and [e.kind for e in events] == ["round"]
    assert g.total == [3, 5] and g.locked == ()
    assert g.seen[0] == {0: (-1, 3, -1), 1: (-1, 5, -1), 2: (-1, 2, 1)}


def test_unstage_respects_the_decision_and_stage_rejects_strangers() -> None:
    g = Duel(GameOptions(players=2))
    g.stage(0, (-1, 1, -1))
    with pytest.raises(NotPending, match="does not allow unlocking"):
        g.unstage(0)
    with pytest.raises(NotPending, match="nothing to answer"):
        g.stage(5, (-1, 1, -1))
    with pytest.raises(NotPending, match="no answer locked"):
        g.unstage(1)


def test_quiet_games_emit_nothing_but_reach_the_same_state() -> None:
    loud, quiet = Duel(GameOptions(players=2)), Duel(GameOptions(players=2), quiet=True)
    for g in (loud, quiet):
        while not g.over:
            g.apply(answer_with_bots(g, {0: RandomBot(1), 1: RandomBot(2)}))
    assert len(loud.events) == 2 and quiet.events == []
    assert loud.state_hash() == quiet.state_hash()


def test_bots_answer_for_the_controllers_they_hold_with_their_own_view() -> None:
    seen: list[tuple[int, int]] = []

    class Spy:
        def __init__(self, me: int) -> None:
            self.me = me

        def choose(self, view: Any, ask: Ask, legal: Any) -> tuple[int, int, int]:
            seen.append((self.me, ask.seat))
            assert view["pending"]["decision"] >= 1
            return legal[0]  # type: ignore[no-any-return]

    g = Duel(GameOptions(players=2))
    answers = answer_with_bots(g, {0: Spy(0), 1: Spy(1)})
    assert sorted(seen) == [(0, 0), (0, 2), (1, 1)]
    assert answers[2] == (-1, 1, 0)


def test_legal_answers_respect_rules_spanning_wheels_and_pick_stays_legal() -> None:
    g = Duel(GameOptions(players=2))
    ask = g.pending.ask_for(2)  # type: ignore[union-attr]
    legal = LegalAnswers(g, ask)
    assert len(legal) == sum(1 for d in range(1, 10) for r in range(4) if d + r <= 9)
    rng = random.Random(4)
    for _ in range(200):
        sel = legal.pick(rng)
        g.check(ask, sel)


def test_random_pick_without_cross_wheel_rules_covers_every_allowed_face() -> None:
    pixoid = get_game("pixoid")({"players": 4})
    while pixoid.pending is not None and not pixoid.pending.sealed:
        pixoid.apply(answer_with_bots(pixoid, {p: RandomBot(p) for p in range(4)}))
    ask = pixoid.pending.asks[0]  # type: ignore[union-attr]
    rng = random.Random(1)
    picks = {LegalAnswers(pixoid, ask).pick(rng) for _ in range(2000)}
    assert picks == set(pixoid.legal(ask))


def test_seat_view_is_built_lazily_and_equals_the_view() -> None:
    calls = []

    class Counting(Duel):
        def view(self, seat: int | None) -> dict[str, Any]:
            calls.append(seat)
            return super().view(seat)

    g = Counting(GameOptions(players=2))
    v = SeatView(g, 1)
    assert calls == []
    assert dict(v) == g.view(1) and calls == [1, 1]


def test_wheel_choices_are_the_allowed_faces_in_order() -> None:
    assert Wheel.of(DIGIT_FACES, [7, 1, 3]).choices == (1, 3, 7)


def test_registry_names_pixoid_and_refuses_strangers() -> None:
    assert get_game("pixoid").name == "pixoid"
    assert set(game_info("pixoid").bot_kinds) >= {"random", "heuristic"}
    with pytest.raises(UnknownGame, match="pixoid"):
        get_game("chess")


def test_a_game_answers_to_its_other_spellings_and_is_listed_once() -> None:
    from dialbox.engine.registry import ALIASES, canonical_name, game_names

    assert "trial-of-the-gods" in game_names()
    assert not set(ALIASES) & set(game_names())  # aliases are not listed as games
    for spelling in ("trial-of-the-gods", "trialofthegods", "trial_of_the_gods"):
        assert canonical_name(spelling) == "trial-of-the-gods"
        assert game_info(spelling).name == "trial-of-the-gods"
        assert get_game(spelling).name == "trial-of-the-gods"
    assert {canonical_name(a) for a in ALIASES} <= set(game_names())
    assert canonical_name("chess") == "chess"  # unknown names pass through to the error
    with pytest.raises(UnknownGame) as e:
        game_info("trial-of-gods")
    assert str(e.value) == ("unknown game 'trial-of-gods'; known games: "
                            + ", ".join(game_names()))


def test_a_wheel_refuses_a_label_the_protocol_cannot_carry() -> None:
    """Face labels are at most 8 characters on the wire: a game that builds a longer one
    fails where it builds it (in `dialbox play` and its own tests), not in the daemon."""
    from dialbox.engine.wheels import LABEL_MAX, Face, Wheel

    Wheel.of((Face("x" * LABEL_MAX, 0),))
    with pytest.raises(ValueError, match="longer than 8 characters"):
        Wheel.of((Face("FLFF crash", 0),))
