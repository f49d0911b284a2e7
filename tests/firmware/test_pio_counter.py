"""The RP2 PIO quadrature counter, in a PIO emulator: bounce, reversals, long CPU stalls.

The program under test is the deployed one: the firmware module `hal/encoders_rp2.py` is
imported with stand-ins for `rp2` and `machine` (tests/firmware/fakehw), its
`@rp2.asm_pio` program is assembled by a stand-in that works like MicroPython's (the
function runs with its globals replaced), and the words, wrap points and shift direction
that PioEncoder hands to rp2.StateMachine are what `pioemu` runs. The listing in the
comments beside those words is re-assembled with adafruit_pioasm and must give the same
words. PioEncoder.take() itself reads the emulated RX FIFO.

No `from __future__ import annotations` here: pioemu reads the input source's annotation.
"""

import bisect
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import adafruit_pioasm
import pytest
from dialbox_fw.core.quadrature import waveform
from pioemu import State, emulate

from tests.firmware import fakehw

MOD = "dialbox_fw.hal.encoders_rp2"
FORWARD = {3: 1, 1: 0, 0: 2, 2: 3}  # clockwise, states A << 1 | B
BACKWARD = {v: k for k, v in FORWARD.items()}
LOOP_MAX = 14  # the longest pass of the program: a state held this long is sampled


def v_of(s: int) -> int:
    """A << 1 | B (the decoder's state) -> B << 1 | A (what `in pins, 2` reads)."""
    return ((s & 1) << 1) | (s >> 1)


@pytest.fixture
def rp2() -> Iterator[tuple[ModuleType, ModuleType]]:
    """(the firmware's encoders_rp2, imported on the stand-ins; the stand-in rp2)."""
    fake_rp2 = fakehw.load("fake_rp2")
    fakes = {"rp2": fake_rp2, "machine": fakehw.load("fake_machine")}
    with fakehw.imported(MOD, fakes) as mod:
        yield mod, fake_rp2


class Wheel:
    """What the encoder's pins do, in PIO cycles: segments (start, state, net edges).

    The last segment lasts until the next one is added; `now` is where the next one starts.
    """

    def __init__(self, state: int = 3) -> None:
        self.starts = [0]
        self.states = [state]
        self.edges = [0]
        self.now = 0

    def go(self, state: int, cycles: int) -> None:
        prev = self.states[-1]
        if state != prev:
            step = 1 if FORWARD[prev] == state else -1 if BACKWARD[prev] == state else 0
            self.starts.append(self.now)
            self.states.append(state)
            self.edges.append(self.edges[-1] + step)
        self.now += cycles

    def hold(self, cycles: int) -> None:
        self.now += cycles

    def _seg(self, cycle: int) -> int:
        return bisect.bisect_right(self.starts, cycle) - 1

    def state_at(self, cycle: int) -> int:
        return self.states[self._seg(cycle)]

    def edges_between(self, a: int, b: int) -> tuple[int, int]:
        """The lowest and highest net edge count the wheel had from cycle a to cycle b."""
        seen = self.edges[self._seg(a) : self._seg(b) + 1]
        return min(seen), max(seen)

    @property
    def position(self) -> int:
        return self.edges[-1]

    def steps(
        self, rng: random.Random, n: int, bounce: int = 0, settle: tuple[int, int] = (16, 48)
    ) -> None:
        """n edges (negative: anticlockwise), each with up to `bounce` contact chatters
        (the changing pin falls back and forth, 1-24 cycles each: often shorter than a pass
        of the program, so some are seen and some are not), then held `settle` cycles."""
        for _ in range(abs(n)):
            prev = self.states[-1]
            nxt = FORWARD[prev] if n > 0 else BACKWARD[prev]
            for _ in range(rng.randint(0, bounce)):
                self.go(nxt, rng.randint(1, 24))
                self.go(prev, rng.randint(1, 24))
            self.go(nxt, rng.randint(*settle))

    def turn(self, rng: random.Random, detents: int, bounce: int = 0) -> None:
        self.steps(rng, 4 * detents, bounce)


class EmulatedSm:
    """The state machine's FIFO side (rx_fifo, get) over pioemu running the program the
    firmware gave rp2.StateMachine, its pins following a Wheel. Every CPU access costs
    CPU_CYCLES of PIO time, so the wheel moves on while take() runs."""

    CPU_CYCLES = 40

    def __init__(self, sm: Any, wheel: Wheel, x: int = 0) -> None:
        prog = sm.prog
        self.words = list(prog[0])
        execctrl, shiftctrl = prog[3], prog[4]
        self.wrap = ((execctrl >> 7) & 31, (execctrl >> 12) & 31)
        self.wheel = wheel
        self.state = State(x_register=x)
        self.gen = emulate(
            self.words,
            stop_when=lambda _op, _s: False,
            initial_state=self.state,
            input_source=self.pins,
            shift_isr_right=bool((shiftctrl >> 18) & 1),
            wrap_target=self.wrap[0],
            wrap_top=self.wrap[1],
        )

    def pins(self, clock: int) -> int:
        # `in pins` reads from in_base up: A is the first bit, B the next
        return v_of(self.wheel.state_at(clock))

    @property
    def clock(self) -> int:
        return self.state.clock

    def run_to(self, cycle: int) -> None:
        while self.state.clock < cycle:
            _, self.state = next(self.gen)

    def rx_fifo(self) -> int:
        self.run_to(self.clock + self.CPU_CYCLES)
        return len(self.state.receive_fifo)

    def get(self) -> int:
        self.run_to(self.clock + self.CPU_CYCLES)
        while not self.state.receive_fifo:  # a blocking get waits for the next push
            self.run_to(self.clock + 1)
        # the generator goes on from this very state object: popping here is the CPU's read
        word: int = self.state.receive_fifo.popleft()
        # below 2**30: a small int on a 32-bit MicroPython, so reading it allocates nothing
        assert 0 <= word < 1 << 30, hex(word)
        return word


class Rig:
    """A PioEncoder on the emulator, with its wheel."""

    def __init__(self, mod: ModuleType, fake_rp2: ModuleType, start: int = 3, x: int = 0,
                 cpd: int = 4) -> None:
        self.wheel = Wheel(start)
        fake_rp2.StateMachine.io = lambda sm: EmulatedSm(sm, self.wheel, x)
        self.enc = mod.PioEncoder(0, 2, 3, cpd)
        self.sm: EmulatedSm = self.enc.sm.backend
        self.base = x & ((1 << 28) - 1)  # X when the program started (it never sets X)
        self.reported = 0

    def move(self, how: Callable[[Wheel], None]) -> None:
        """Add motion from now on (never before what the emulator already ran)."""
        self.wheel.now = max(self.wheel.now, self.sm.clock)
        how(self.wheel)

    def settle(self) -> None:
        """Run until the wheel's last state has been sampled and pushed."""
        self.sm.run_to(max(self.wheel.now, self.sm.clock) + 2 * LOOP_MAX)

    def take(self) -> int:
        d: int = self.enc.take()
        self.reported += d
        return d

    def edges(self) -> tuple[int, int]:
        """What the PIO reports now: (edges counted since the start, the pins' state A B)."""
        w: int = self.enc.read()
        edges = ((w >> 2) - self.base) & ((1 << 28) - 1)
        if edges >= 1 << 27:
            edges -= 1 << 28
        return edges, v_of(w & 3)


# --- the program: listing, deployed words, emulator ---------------------------------


def listing(mod: ModuleType) -> tuple[list[int], str]:
    """The words and the assembly text of the PROGRAM tuple in the module's source."""
    src = Path(mod.__file__ or "").read_text()
    block = src.split("PROGRAM = (\n", 1)[1].split("\n)\n", 1)[0]
    words: list[int] = []
    text: list[str] = []
    for line in block.splitlines():
        m = re.fullmatch(r"\s*(?:0x([0-9A-F]{4}),)?\s*#(.*)", line)
        assert m, f"not a listing line: {line!r}"
        if m.group(1):
            words.append(int(m.group(1), 16))
        text.append(m.group(2))
    return words, "\n".join(text)


def test_the_listing_assembles_to_the_deployed_words(
    rp2: tuple[ModuleType, ModuleType],
) -> None:
    mod, _ = rp2
    words, text = listing(mod)
    asm = adafruit_pioasm.Program(text)
    deployed = mod._program  # what @rp2.asm_pio returned: rp2.StateMachine gets this
    execctrl, shiftctrl = deployed[3], deployed[4]
    assert list(asm.assembled) == words == list(mod.PROGRAM) == list(deployed[0])
    assert (asm.pio_kwargs["wrap_target"], asm.pio_kwargs["wrap"]) == (
        (execctrl >> 7) & 31,
        (execctrl >> 12) & 31,
    )
    assert (shiftctrl >> 18) & 1 == 0  # the ISR shifts left
    # 32 words: the whole instruction memory, so the program can only be loaded at
    # address 0, where its `mov pc, isr` jump table (absolute addresses 16-31) must be
    assert len(words) == 32
    assert deployed[1:3] == [-1, -1]  # not loaded anywhere yet: rp2 loads it once


def test_the_program_uses_only_what_the_emulator_models_faithfully(
    rp2: tuple[ModuleType, ModuleType],
) -> None:
    """pioemu ignores delays/side-set subtleties, `mov` bit-reverse and `status`, has no IRQ
    or WAIT worth trusting here: the program uses none of them, so the emulator's run is
    the hardware's."""
    mod, _ = rp2
    for w in mod.PROGRAM:
        major = w >> 13
        assert (w >> 8) & 0x1F == 0, hex(w)  # no delay, no side-set
        assert major in (0, 2, 4, 5, 7), hex(w)  # jmp, in, push, mov, set
        if major == 0:
            assert (w >> 5) & 7 in (0, 2), hex(w)  # always, x--
        if major == 2:
            assert (w >> 5) & 7 in (0, 1, 2, 3, 6, 7), hex(w)
        if major == 4:
            assert w & 0x80 == 0 and w & 0x40 == 0, hex(w)  # push, not pull; not iffull
        if major == 5:
            assert (w >> 3) & 3 in (0, 1) and w & 7 != 5, hex(w)  # plain or ~; no status


def test_the_state_machine_is_set_up_as_tested(rp2: tuple[ModuleType, ModuleType]) -> None:
    mod, fake_rp2 = rp2
    rig = Rig(mod, fake_rp2)
    sm = rig.enc.sm
    assert sm.prog is mod._program
    assert sm.kw["in_base"].id == 2 and sm.freq == -1  # A = in_base, the system clock
    assert sm.running
    with pytest.raises(ValueError):
        mod.PioEncoder(1, 6, 8)  # B must be the pin after A


# --- counting -----------------------------------------------------------------------


@pytest.mark.parametrize("detents", [1, 3, -1, -4])
def test_clean_turns_count_every_edge_and_detent(
    rp2: tuple[ModuleType, ModuleType], detents: int
) -> None:
    rig = Rig(*rp2)
    rig.move(lambda w: w.turn(random.Random(1), detents))
    rig.settle()
    assert rig.edges() == (4 * detents, 3)
    assert rig.take() == detents
    assert rig.take() == 0


@pytest.mark.parametrize("seed", range(4))
def test_bouncy_turns_give_exact_detents(rp2: tuple[ModuleType, ModuleType], seed: int) -> None:
    """Every edge chatters up to 3 times, some chatters too short for the program to see:
    each turn, read once the wheel rests, is exactly its detents."""
    rng = random.Random(seed)
    rig = Rig(*rp2)
    for detents in (2, -1, 3, -3, 1, -2):
        rig.move(lambda w, d=detents: w.turn(rng, d, bounce=3))
        rig.settle()
        assert rig.edges() == (rig.wheel.position, 3)
        assert rig.take() == detents
    assert rig.reported == 0 and rig.wheel.position == 0


def test_the_quadrature_helper_waveform_with_bounce(rp2: tuple[ModuleType, ModuleType]) -> None:
    """waveform(bounce=True) chatters on every edge (s, prev, s): glitches of 1-13 cycles,
    settled states of 16-40."""
    rng = random.Random(5)
    rig = Rig(*rp2)

    def play(w: Wheel) -> None:
        for i, s in enumerate(waveform(5, bounce=True) + waveform(-2, bounce=True)):
            w.go(s, rng.randint(16, 40) if i % 3 == 2 else rng.randint(1, 13))

    rig.move(play)
    rig.settle()
    assert rig.edges() == (12, 3)
    assert rig.take() == 3


def test_reversals_mid_detent(rp2: tuple[ModuleType, ModuleType]) -> None:
    """Part turns and reversals, with reads while the wheel stops between detents: the PIO
    count is exactly the wheel's position every time, and detents are reported only once
    the wheel has passed them."""
    rng = random.Random(11)
    rig = Rig(*rp2)
    # (edges, detents reported by the read after them, counted from the previous read)
    plan = [
        (3, 0),  # three quarters clockwise: not there yet
        (-3, 0),  # and back to the same detent
        (-2, 0),  # half way anticlockwise
        (2, 0),  # back
        (5, 1),  # past the next detent (one quarter beyond it)
        (-1, 0),  # onto that detent
        (-6, -1),  # back past the start detent, half way to the one before
        (2, 0),  # back onto the start detent: nothing new
        (3, 0),
        (-7, -1),  # reversed mid-detent, one detent anticlockwise beyond it, onto it
    ]
    for edges, detents in plan:
        rig.move(lambda w, e=edges: w.steps(rng, e, bounce=2))
        rig.settle()
        count, state = rig.edges()
        assert count == rig.wheel.position
        assert state == rig.wheel.states[-1]
        assert rig.take() == detents, (edges, rig.wheel.position)
    assert rig.wheel.position == -4 and rig.reported == -1


@pytest.mark.parametrize("seed", [3, 8])
def test_a_long_cpu_stall_loses_nothing(rp2: tuple[ModuleType, ModuleType], seed: int) -> None:
    """The CPU reads only every few thousand PIO cycles (an OLED redraw, a GC pause), at
    any moment, the wheel often moving: hundreds of transitions, far more than the RX
    FIFO's 4 words, pass between two reads. Every read reports the detent just below or
    just above where the wheel was while it ran, and once it rests the total is exact."""
    rng = random.Random(seed)
    rig = Rig(*rp2)
    for d in [4, -2, 7, -9, 3, 5, -1, -6, 8, 2]:
        rig.move(lambda w, d=d: w.turn(rng, d, bounce=3))
    end = rig.wheel.now
    transitions = len(rig.wheel.starts)
    assert transitions > 400
    reads = 0
    while rig.sm.clock < end:
        rig.sm.run_to(rig.sm.clock + rng.randint(1500, 4000))  # the CPU is busy elsewhere
        t0 = rig.sm.clock
        rig.take()
        lo, hi = rig.wheel.edges_between(t0 - 2 * LOOP_MAX, rig.sm.clock)
        assert lo // 4 <= rig.reported <= -(-hi // 4), (lo, hi, rig.reported)
        reads += 1
    assert reads >= 3
    rig.settle()
    rig.take()
    assert rig.wheel.position == 4 * 11 and rig.reported == 11


def test_a_missed_edge_snaps_to_the_nearest_detent_at_rest(
    rp2: tuple[ModuleType, ModuleType],
) -> None:
    """Both pins change between two samples (01 -> 10, the 00 between never seen): the
    PIO counts nothing for it (2 counts for a whole detent); at rest the driver snaps to
    the nearest detent and the next detent counts exactly one."""
    rig = Rig(*rp2)

    def skip(w: Wheel) -> None:
        for s in (1, 2, 3):  # 11 -> 01 -> (00 missed) -> 10 -> 11
            w.go(s, 40)

    rig.move(skip)
    rig.settle()
    assert rig.edges() == (2, 3)
    assert rig.take() == 1
    rig.move(lambda w: w.turn(random.Random(2), 1, bounce=2))
    rig.settle()
    assert rig.take() == 1


def test_a_wheel_between_detents_at_start_counts_nothing_spurious(
    rp2: tuple[ModuleType, ModuleType],
) -> None:
    """The program starts from the pins' state as it finds it (its first two
    instructions), so a wheel left between detents at boot counts no edge: back onto the
    detent is nothing, the next detent one."""
    rig = Rig(*rp2, start=FORWARD[FORWARD[3]])  # two edges clockwise of a detent
    rig.settle()
    assert rig.edges() == (0, FORWARD[FORWARD[3]])
    rig.move(lambda w: w.steps(random.Random(4), -2))
    rig.settle()
    assert rig.edges() == (-2, 3)
    assert rig.take() == 0
    rig.move(lambda w: w.turn(random.Random(4), 1))
    rig.settle()
    assert rig.take() == 1


@pytest.mark.parametrize("x", [0x0FFF_FFF0, 0xFFFF_FFF8, 0x7FFF_FFFA])
def test_the_count_wraps_without_a_jump(rp2: tuple[ModuleType, ModuleType], x: int) -> None:
    """X starts wherever the state machine left it; the 28-bit count in the pushed word
    and X itself wrap while turning: the detents do not notice."""
    rng = random.Random(x)
    rig = Rig(*rp2, x=x)
    for d in (6, -9, 5):
        rig.move(lambda w, d=d: w.turn(rng, d, bounce=1))
        rig.settle()
        assert rig.take() == d


def test_half_step_parts_count_two_edges_per_detent(rp2: tuple[ModuleType, ModuleType]) -> None:
    rig = Rig(*rp2, cpd=2)
    rig.move(lambda w: w.turn(random.Random(6), 3, bounce=2))
    rig.settle()
    assert rig.take() == 6
