"""RP2 encoder driver: each encoder is counted by a PIO state machine; take() reads the count.

The state machine does the whole quadrature decoding itself: it samples A and B (B must be
the pin after A) every 10 to 14 PIO cycles, decodes each change through a 16-entry jump
table and keeps the running count in its X register, +1 per clockwise edge. No edge is
lost however long the CPU is busy (a 23 ms OLED redraw, a GC pause, a flash write): the
count lives in the PIO, not in a FIFO or an interrupt handler. Every pass it also pushes
(count << 2 | the pins' state) into the RX FIFO without blocking, so the FIFO always holds
recent words; take() throws away what is waiting, takes the next word (pushed after it
started, a few PIO cycles later) and turns it into whole detents with a DetentCounter
(snapping at rest positions). No interrupt, no allocation.

The three encoders share one program on PIO block 0 (state machines 0-2). The program is
exactly 32 instructions, the whole instruction memory of a PIO block, so it can only be
loaded at address 0: the jump table (`mov pc, isr`) uses absolute addresses 16-31. So PIO
block 0 must be free: the CYW43 WiFi driver of the Pico W prefers block 1, and BoardHal
creates the encoders before it touches WiFi. The state machines are never stopped, so the
blocking get() in read() waits a few PIO cycles at most.
"""

# ruff: noqa: F821  (word, wrap_target, wrap exist only inside @rp2.asm_pio)

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


import rp2
from machine import Pin

from dialbox_fw.core.quadrature import DetentCounter

BITS = const(28)  # the width of the count in each pushed word (it wraps: DetentCounter copes)
WRAP_TARGET = const(2)  # `report`
WRAP = const(15)  # `dec`: after it (X was 0) execution wraps to `report`

# The program as the words the state machines run. The comment on each line is its
# assembly: tests/firmware/test_pio_counter.py re-assembles these comments with
# adafruit_pioasm, checks they give exactly these words and these wrap points, and runs
# the words _program (below) hands to rp2.StateMachine in a PIO emulator.
#
# v = B << 1 | A (`in pins, 2` with A = in_base). Clockwise: v 3 -> 2 -> 0 -> 1 -> 3.
# X: the count. Y: 1 (bit 4 of every table index). OSR: the last index, whose bits 1..0
# are the newest state. ISR: the pushed word, then the next table index 16 | prev << 2 | v.
# The jump table fills addresses 16-31, one entry per (prev, v), written as B A bits.
# A pass costs 10 cycles, 11 with a step back, 14 with a step forward (A and B are sampled
# at least every 14 cycles: 0.11 us at 125 MHz).
PROGRAM = (
    # .program dialbox_quadrature
    0xE041,  #     set y, 1           ; Y = 1 for good
    0x4002,  #     in pins, 2         ; ISR = v: the state the first pass starts from
    # .wrap_target
    # report:
    0xA0E6,  #     mov osr, isr       ; keep the index: OSR bits 1..0 = the newest state
    0xA0C3,  #     mov isr, null
    0x403C,  #     in x, 28           ; ISR = X mod 2**28
    0x40E2,  #     in osr, 2          ; ISR = count << 2 | v (30 bits: a small int)
    0x8000,  #     push noblock       ; into the RX FIFO, or dropped if full; ISR = 0
    0x4041,  #     in y, 1            ; ISR = 1
    0x40E2,  #     in osr, 2          ; ISR = 1 << 2 | prev
    0x4002,  #     in pins, 2         ; ISR = 16 | prev << 2 | v
    0xA0A6,  #     mov pc, isr        ; to the table entry for prev -> v
    # inc:
    0xA029,  #     mov x, ~x          ; X + 1 = ~(~X - 1)
    0x004D,  #     jmp x--, inc2      ; decrements X; the next instruction either way
    # inc2:
    0xA029,  #     mov x, ~x
    0x0002,  #     jmp report
    # dec:
    0x0042,  #     jmp x--, report    ; X - 1
    # .wrap
    0x0002,  #     jmp report         ; 00 -> 00 no change
    0x000B,  #     jmp inc            ; 00 -> 01 clockwise
    0x000F,  #     jmp dec            ; 00 -> 10 anticlockwise
    0x0002,  #     jmp report         ; 00 -> 11 both changed: an edge missed, count nothing
    0x000F,  #     jmp dec            ; 01 -> 00 anticlockwise
    0x0002,  #     jmp report         ; 01 -> 01 no change
    0x0002,  #     jmp report         ; 01 -> 10 both changed
    0x000B,  #     jmp inc            ; 01 -> 11 clockwise
    0x000B,  #     jmp inc            ; 10 -> 00 clockwise
    0x0002,  #     jmp report         ; 10 -> 01 both changed
    0x0002,  #     jmp report         ; 10 -> 10 no change
    0x000F,  #     jmp dec            ; 10 -> 11 anticlockwise
    0x0002,  #     jmp report         ; 11 -> 00 both changed
    0x000F,  #     jmp dec            ; 11 -> 01 anticlockwise
    0x000B,  #     jmp inc            ; 11 -> 10 clockwise
    0x0002,  #     jmp report         ; 11 -> 11 no change
)


# asm_pio runs this with the module's globals replaced by its own names (word, wrap, ...):
# the words and wrap points come in as default arguments.
@rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT)
def _program(words=PROGRAM, first=WRAP_TARGET, last=WRAP):
    for i, w in enumerate(words):
        if i == first:
            wrap_target()
        word(w)
        if i == last:
            wrap()


def _state(w):
    """The pins' state in a pushed word (B << 1 | A) as the decoders have it: A << 1 | B."""
    return ((w & 1) << 1) | ((w >> 1) & 1)


class PioEncoder:
    """One encoder counted by PIO state machine `sm_id` (0-3: PIO block 0)."""

    def __init__(self, sm_id, pin_a, pin_b, counts_per_detent=4):
        if pin_b != pin_a + 1:
            raise ValueError("PIO encoder needs B on the pin after A (GP%d)" % (pin_a + 1))
        a = Pin(pin_a, Pin.IN, Pin.PULL_UP)
        Pin(pin_b, Pin.IN, Pin.PULL_UP)
        self.sm = rp2.StateMachine(sm_id, _program, in_base=a)  # at the system clock
        self.sm.active(1)
        w = self.read()
        self.counter = DetentCounter(counts_per_detent, BITS, w >> 2, _state(w))

    def read(self):
        """The newest word: count << 2 | v. Whatever waits in the FIFO may be old (pushed
        before it filled up): drop it and take the next word, pushed after this started."""
        sm = self.sm
        n = sm.rx_fifo()
        while n:
            sm.get()
            n -= 1
        return sm.get()

    def take(self):
        """Whole detents since the last take. Main loop only; allocates nothing."""
        w = self.read()
        return self.counter.detents(w >> 2, _state(w))


def make(profile):
    cpd = profile.get("counts_per_detent", 4)
    return [PioEncoder(i, e["a"], e["b"], cpd) for i, e in enumerate(profile["encoders"])]
