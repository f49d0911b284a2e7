"""The rehearsal table goes through every public moment of a real table, in order."""

from __future__ import annotations

import pytest

from tests.displays.helpers import GAMES, Recorded, assert_sealed_until_revealed


@pytest.mark.parametrize("game", GAMES)
def test_a_whole_game_in_public_moments(game: str) -> None:
    rec = Recorded(game).play()
    states = rec.states
    assert states[0].stage == "lobby" and states[-1].stage == "over"
    assert states[-1].result is not None and states[-1].result.text
    assert [s.seq for s in states] == list(range(1, len(states) + 1))
    assert_sealed_until_revealed([s.model_dump(mode="json") for s in states])
    # Every sealed prompt: open -> (seats lock) -> all locked -> revealed, never backwards.
    phases: dict[int, list[str]] = {}
    for s in states:
        if s.prompt is not None and s.prompt.sealed:
            seen = phases.setdefault(s.prompt.pid, [])
            if not seen or seen[-1] != s.prompt.phase:
                seen.append(s.prompt.phase)
    assert phases, "the game asked no sealed prompt"
    assert all(p == ["open", "alllocked", "revealed"] for p in phases.values())
    # At all-locked every asked seat shows locked; at the reveal every choice is there.
    for s in states:
        p = s.prompt
        if p is not None and p.phase == "alllocked":
            assert {a.status for a in p.asks} == {"locked"}
        if p is not None and p.phase == "revealed":
            assert sorted(c.seat for c in p.choices) == sorted(rec.answers[p.pid])


def test_an_offline_controller_is_told_in_plain_words() -> None:
    rec = Recorded(GAMES[0]).play()
    offline = [s for s in rec.states if any(n.code == "offline" for n in s.notices)]
    assert offline
    notice = next(n for n in offline[0].notices if n.code == "offline")
    assert notice.seat == 1 and "offline" in notice.text and "Blue" in notice.text
    assert offline[0].seats[1].status == "offline" and not offline[0].seats[1].online
    assert any(n.code == "back" for s in rec.states for n in s.notices)
    assert not rec.states[-1].notices


def test_lobby_seats_controllers_with_link_details() -> None:
    rec = Recorded(GAMES[0]).play()
    lobby = [s for s in rec.states if s.stage == "lobby"]
    assert any(s.pairing for s in lobby)
    assert any(s.progress is not None for s in lobby)
    seated = lobby[-1].seats
    assert seated[0].occupant == "controller" and seated[0].transport == "local"
    assert seated[0].firmware and seated[0].heartbeat_age is not None
    assert seated[3].occupant == "bot"
    assert {g.name for g in lobby[-1].games} >= set(GAMES)
