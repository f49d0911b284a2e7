"""Encoder decoding vectors: bounce, reversals, missed and duplicated edges, fast spins."""

from __future__ import annotations

import random

import pytest
from dialbox_fw.core.quadrature import Quadrature, waveform
from hypothesis import given
from hypothesis import strategies as st

from tests.firmware.conftest import run_micropython


def feed(q: Quadrature, states: list[int]) -> int:
    for s in states:
        q.update_state(s)
    return q.take()


@pytest.mark.parametrize("detents", [1, 2, 5, 20, -1, -7, -20])
def test_clean_turns_give_exact_detents(detents: int) -> None:
    assert feed(Quadrature(4), waveform(detents)) == detents


@pytest.mark.parametrize("detents", [1, 3, -4])
def test_contact_bounce_on_every_edge_changes_nothing(detents: int) -> None:
    assert feed(Quadrature(4), waveform(detents, bounce=True)) == detents


def test_half_turn_and_back_is_no_detent() -> None:
    q = Quadrature(4)
    assert feed(q, [1, 0, 1, 3]) == 0
    assert q.count == 0


def test_reversal_mid_detent_then_full_turn() -> None:
    q = Quadrature(4)
    # start clockwise, reverse before the detent, go one detent anticlockwise
    assert feed(q, [1, 0, 1, 3, 2, 0, 1, 3]) == -1


def test_reversals_back_and_forth_do_not_drift() -> None:
    q = Quadrature(4)
    states: list[int] = []
    for _ in range(50):
        states += waveform(3) + waveform(-3)
    assert feed(q, states) == 0
    assert q.missed == 0


def test_missed_edge_snaps_to_the_nearest_detent() -> None:
    q = Quadrature(4)
    # one detent clockwise, but the 01 -> 00 -> 10 part arrives as one jump 01 -> 10
    assert feed(q, [1, 2, 3]) == 1
    assert q.missed == 1
    # the next clean detent still counts exactly one: no drift from the missed edge
    assert feed(q, waveform(1)) == 1


def test_duplicated_edges_are_harmless() -> None:
    doubled = [s for s in waveform(4) for _ in range(2)]
    assert feed(Quadrature(4), doubled) == 4


def test_fast_spin_with_random_missed_edges_stays_on_detents() -> None:
    rng = random.Random(7)
    q = Quadrature(4)
    states = waveform(200)
    # drop one edge in each of 20 random detents (never two in the same detent)
    for k in sorted(rng.sample(range(200), 20), reverse=True):
        del states[k * 4 + 1]
    assert feed(q, states) == 200
    assert q.missed == 20


def test_half_step_encoders_count_two_edges_per_detent() -> None:
    q = Quadrature(2)
    assert feed(q, waveform(3)) == 6  # a full-step waveform passes two half-step detents


def test_turns_split_across_takes_add_up() -> None:
    q = Quadrature(4)
    states = waveform(6)
    total = 0
    for i in range(0, len(states), 3):
        total += feed(q, states[i : i + 3])
    assert total == 6


def test_interrupt_path_never_allocates_under_micropython_heap_lock() -> None:
    proc = run_micropython("mp_irq_heap.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("OK")
    assert "detents 3" in proc.stdout


FORWARD = {3: 1, 1: 0, 0: 2, 2: 3}
BACKWARD = {v: k for k, v in FORWARD.items()}


@given(st.lists(st.sampled_from([1, -1]), max_size=400))
def test_any_walk_of_valid_edges_counts_exactly_its_net_detents(steps: list[int]) -> None:
    """Jitter, reversals, partial turns: only whole detents crossed ever count."""
    q = Quadrature(4)
    state, net, total = 3, 0, 0
    for s in steps:
        state = FORWARD[state] if s > 0 else BACKWARD[state]
        net += s
        q.update_state(state)
        if state == 3:
            total += q.take()
            assert total * 4 == net
    while state != 3:  # come to rest the short way round
        back = net % 4 <= 2
        state = BACKWARD[state] if back else FORWARD[state]
        net += -1 if back else 1
        q.update_state(state)
    assert (total + q.take()) * 4 == net
