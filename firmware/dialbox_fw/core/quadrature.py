"""Quadrature decoding: A/B pin states -> signed counts -> whole detents, allocation-free.

update() is safe to call from a pin interrupt: it touches only small ints held in
preallocated attributes and a bytes lookup table, so it never allocates.

State is (A << 1) | B. Turning clockwise walks 00 -> 10 -> 11 -> 01 -> 00 (+1 per edge).
A change of both bits at once is a missed edge: the direction is unknown, so it counts
nothing; whenever the wheel comes back to a rest state the count is snapped to the nearest
whole detent, so missed or duplicated edges never make the wheel drift off its detents.
"""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_INVALID = const(2)
_BACK = const(255)

# index (prev << 2) | new -> 0 no move, 1 forward, 255 backward, 2 missed edge
_STEP = bytes((0, 255, 1, 2, 1, 0, 2, 255, 255, 2, 0, 1, 2, 1, 255, 0))


class Quadrature:
    """One encoder's decoder. counts_per_detent is 4 (full-step) or 2 (half-step) or 1."""

    def __init__(self, counts_per_detent=4, state=3):
        self.cpd = counts_per_detent
        # rest states: bit s set = state s is a detent position
        if counts_per_detent == 4:
            self.rest = 1 << 3
        elif counts_per_detent == 2:
            self.rest = (1 << 3) | 1
        else:
            self.rest = 15
        self.state = state
        self.count = 0  # edges since the last detent
        self.detents = 0  # whole detents not yet taken by the main loop
        self.missed = 0  # missed edges seen (diagnostics)

    def update(self, a, b):
        """Feed the new pin levels (0/1). Interrupt-safe: no allocation."""
        self.update_state((a << 1) | b)

    def update_state(self, new):
        step = _STEP[(self.state << 2) | new]
        if step == 1:
            self.count += 1
        elif step == _BACK:
            self.count -= 1
        elif step == _INVALID:
            self.missed += 1
        self.state = new
        if (self.rest >> new) & 1:
            c = self.count
            cpd = self.cpd
            half = cpd >> 1
            if c >= 0:
                self.detents += (c + half) // cpd
            else:
                self.detents -= (half - c) // cpd
            self.count = 0

    def take(self):
        """Whole detents since the last take (call with interrupts disabled on hardware)."""
        d = self.detents
        self.detents = 0
        return d


def cycle(detents, start=3):
    """The four states one detent passes through, in order, from the rest state `start`."""
    fwd = (2, 3, 1, 0) if start == 0 else (1, 0, 2, 3)
    if detents >= 0:
        return fwd
    return (fwd[2], fwd[1], fwd[0], start)


def drive(detents, bounce, start, emit):
    """Call emit(state) for every pin state a detented encoder passes through on a turn
    from the rest state `start`; bounce adds contact chatter on every edge. No allocation."""
    seq = cycle(detents, start)
    prev = start
    for i in range(abs(detents) * 4):
        s = seq[i % 4]
        if bounce:
            emit(s)
            emit(prev)
        emit(s)
        prev = s


def waveform(detents, bounce=False, start=3):
    """The pin states (A << 1 | B) of a turn, as a list (tests)."""
    out = []
    drive(detents, bounce, start, out.append)
    return out
