"""Hardware counts -> whole detents (DetentCounter): the ESP32 PCNT rule, the rule with the
pin state (RP2 PIO), wrapping counts, the PCNT driver on a fake machine.Encoder, and both
drivers' take() under heap_lock on the MicroPython unix port."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest
from dialbox_fw.core.quadrature import DetentCounter
from hypothesis import given
from hypothesis import strategies as st

from tests.firmware import fakehw
from tests.firmware.conftest import run_micropython

FORWARD = {3: 1, 1: 0, 0: 2, 2: 3}  # clockwise, states A << 1 | B
BACKWARD = {v: k for k, v in FORWARD.items()}
ESP32 = "dialbox_fw.hal.encoders_esp32"


# --- no pin state (PCNT): the nearest whole detent, a tie toward zero ---------------


@pytest.mark.parametrize(
    ("counts", "detents"),
    [
        ([3], [1]),  # a bounce left the detent one count short: still the detent
        ([3, 4], [1, 0]),  # ... and the missing count arriving later is not a second one
        ([5], [1]),  # one count over
        ([2], [0]),  # half way: not at the next detent yet
        ([2, 3], [0, 1]),
        ([6], [1]),  # a detent and a half
        ([-3], [-1]),
        ([-2], [0]),
        ([-5, -4], [-1, 0]),
        ([7, 9, 12, 5, 2, -1, -3, -4], [2, 0, 1, -2, 0, -1, -1, 0]),
    ],
)
def test_pcnt_rule_snaps_to_the_nearest_detent_keeping_the_remainder(
    counts: list[int], detents: list[int]
) -> None:
    dc = DetentCounter(4)
    assert [dc.detents(c) for c in counts] == detents


def test_pcnt_rule_half_step_parts() -> None:
    dc = DetentCounter(2)
    assert [dc.detents(c) for c in (1, 2, 3, 5, 4, 1)] == [0, 1, 0, 1, 0, -1]


@given(st.lists(st.integers(-3, 3), max_size=300), st.integers(-(10**6), 10**6))
def test_pcnt_rule_never_drifts(moves: list[int], start: int) -> None:
    """Any counts read at any time: the detents reported add up to within half a detent
    of the count, exactly to it whenever the count is on a detent (or one count off it,
    a bounce), so nothing is lost or gained however the reads fall."""
    dc = DetentCounter(4, count=start)
    count, total = start, 0
    for m in moves:
        count += m
        total += dc.detents(count)
        off = count - start - 4 * total
        assert -2 <= off <= 2
        if (count - start) % 4 in (0, 1, 3):
            assert (count - start + 1) // 4 == total


# --- with the pin state (PIO): snap at rest, whole detents between -------------------


def test_state_rule_at_rest_snaps_and_forgets_the_error() -> None:
    dc = DetentCounter(4, count=100, state=3)
    assert dc.detents(102, 3) == 1  # at rest after a missed edge: 2 counts is the detent
    assert dc.detents(106, 3) == 1  # and the count is aligned again: 4 more, one more
    assert dc.detents(105, 1) == 0  # between detents, a part turn: nothing yet
    assert dc.detents(101, 2) == -1  # one detent passed entirely, anticlockwise
    assert dc.detents(102, 3) == 0  # onto it


def test_state_rule_counts_from_the_nearest_detent_at_start() -> None:
    assert DetentCounter(4, count=0, state=0).detents(-2, 3) == 0  # half way: the ccw one
    assert DetentCounter(4, count=0, state=0).detents(2, 3) == 1
    assert DetentCounter(4, count=0, state=2).detents(1, 3) == 0  # 3/4 on: the next one
    assert DetentCounter(4, count=0, state=1).detents(-1, 3) == 0


@given(
    st.lists(st.tuples(st.sampled_from([1, -1]), st.booleans()), max_size=400),
    st.sampled_from([0, (1 << 28) - 3, (1 << 27) - 1]),
)
def test_state_rule_any_walk_reads_exactly_its_detents_at_rest(
    steps: list[tuple[int, bool]], start: int
) -> None:
    """A 28-bit count (it wraps) read with the state after any edge: at every rest the
    total is the net detents exactly; between detents it lags by less than one."""
    mask = (1 << 28) - 1
    dc = DetentCounter(4, 28, start, 3)
    state, net, total = 3, 0, 0
    for step, read in steps:
        state = FORWARD[state] if step > 0 else BACKWARD[state]
        net += step
        if read or state == 3:
            total += dc.detents((start + net) & mask, state)
            if state == 3:
                assert 4 * total == net
            else:
                assert abs(net - 4 * total) < 4


# --- the ESP32 driver on a fake machine.Encoder --------------------------------------


@pytest.fixture
def esp32() -> Iterator[tuple[ModuleType, ModuleType]]:
    fake_machine = fakehw.load("fake_machine")
    with fakehw.imported(ESP32, {"machine": fake_machine}) as mod:
        yield mod, fake_machine


def test_pcnt_driver_snaps_to_the_nearest_detent(esp32: tuple[ModuleType, ModuleType]) -> None:
    mod, machine = esp32
    profile = {
        "counts_per_detent": 4,
        "encoder_filter_ns": 1500,
        "encoders": [{"a": 4, "b": 5}, {"a": 6, "b": 7}, {"a": 15, "b": 16}],
    }
    encs = mod.make(profile)
    made = machine.Encoder.made
    assert [e.unit for e in made] == [0, 1, 2]
    assert [(p[0].id, p[1].id) for p in (e.pins for e in made)] == [(4, 5), (6, 7), (15, 16)]
    assert all(e.phases == 4 and e.filter_ns == 1500 for e in made)
    enc = encs[1]
    reads = []
    for count in (3, 4, 6, 7, -1, -2):  # short by a bounce, the rest, half way, ...
        enc.enc.count = count
        reads.append(enc.take())
    assert reads == [1, 0, 0, 1, -2, 0]
    assert sum(reads) == 0 and encs[0].take() == 0


def test_pcnt_driver_starts_from_the_count_it_finds(
    esp32: tuple[ModuleType, ModuleType],
) -> None:
    mod, machine = esp32
    machine.Encoder.start = 41  # a PCNT unit that already counted (a soft reset)
    enc = mod.PcntEncoder(0, 4, 5)
    assert enc.take() == 0
    enc.enc.count = 45
    assert enc.take() == 1


# --- the fallback pin-interrupt driver ------------------------------------------------


def test_irq_driver_takes_its_detents_with_interrupts_off() -> None:
    machine = fakehw.load("fake_machine")
    from dialbox_fw.hal import encoders_irq

    profile = {"counts_per_detent": 4, "encoders": [{"a": 2, "b": 3}, {"a": 6, "b": 7}]}
    encs = encoders_irq.make(profile, machine)
    enc = encs[0]
    assert enc.a.trigger == machine.Pin.IRQ_RISING | machine.Pin.IRQ_FALLING
    for s in (1, 0, 2, 3):  # one detent clockwise, through the pin-change handler
        enc.a.v, enc.b.v = s >> 1, s & 1
        enc.a.handler(enc.a)
    assert enc.take() == 1
    assert machine.irq_log == ["off", "on"]


# --- MicroPython: nothing allocates ----------------------------------------------------


@pytest.mark.micropython
def test_drivers_take_allocates_nothing_under_micropython_heap_lock() -> None:
    proc = run_micropython("mp_encoder_heap.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.split("\n")
    assert "rp2 detents 2" in lines  # 5 - 3, a part turn and back, across the 28-bit wrap
    assert "pcnt detents -1" in lines
    assert "counter detents 1" in lines
    assert proc.stdout.strip().endswith("OK")
