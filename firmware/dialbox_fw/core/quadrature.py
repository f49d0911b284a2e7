"""Quadrature decoding: A/B pin states -> signed counts -> whole detents, allocation-free.

Two kinds of decoder, one rule (a wheel never drifts off its detents):

- Quadrature: fed every A/B pin state (pin-change interrupts). update() is safe to call
  from a pin interrupt: it touches only small ints held in preallocated attributes and a
  bytes lookup table, so it never allocates.
- DetentCounter: for hardware that counts the edges itself (the RP2 PIO counter, the ESP32
  PCNT). It turns the running count (and, when the hardware reports it, the pin state at
  that count) into whole detents whenever the main loop asks; no interrupt at all.

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
# state -> edges clockwise from the full-step rest state 11 (11 -> 01 -> 00 -> 10)
_PHASE = bytes((2, 1, 3, 0))


def rest_states(counts_per_detent):
    """The detent (rest) positions as a mask: bit s set = state s is one. A full-step part
    (4 counts per detent) rests at 11 only, a half-step part (2) at 00 and 11, 1: anywhere."""
    if counts_per_detent == 4:
        return 1 << 3
    if counts_per_detent == 2:
        return (1 << 3) | 1
    return 15


class Quadrature:
    """One encoder's decoder. counts_per_detent is 4 (full-step) or 2 (half-step) or 1."""

    def __init__(self, counts_per_detent=4, state=3):
        self.cpd = counts_per_detent
        self.rest = rest_states(counts_per_detent)
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


class DetentCounter:
    """A hardware counter's running count -> whole detents, with no drift and no allocation.

    The hardware (RP2 PIO, ESP32 PCNT) counts every edge, +1 clockwise, by itself; the main
    loop hands detents() the count it reads now, and gets the whole detents turned since
    the last call. `reported` is the count of the last detent reported (set to the count
    itself whenever the wheel is seen at rest); what is left over stays for the next call,
    so nothing is lost however long the loop was busy.
    `bits` is the width the hardware count wraps at (0: it never wraps); the count may
    wrap any number of times, as long as fewer than 2 ** (bits - 1) edges pass between
    two calls. `count` (and `state`, if known) is the first reading: a wheel found between
    two detents counts from the nearer one.

    With the pin state at that count (the PIO counter reports it):
      - on a rest state (a detent position, see rest_states) the count is snapped to the
        nearest whole detent (a tie, e.g. 2 of 4 counts after a missed edge: away from
        zero, as Quadrature does) and nothing is kept over: the wheel is on a detent, so
        any remainder is a counting error (bounce, an edge missed), never a part turn;
      - between detents only the detents the wheel has passed completely are reported
        (toward zero); the part turn waits for the wheel to come to rest.
    Without it (state -1, the PCNT): the nearest whole detent, a tie toward zero (a wheel
    half way between two detents has not reached the next one; 3 of 4 counts has, and a
    bounce left 1 count short), and the remainder (at most half a detent) is kept.
    """

    def __init__(self, counts_per_detent=4, bits=0, count=0, state=-1):
        self.cpd = counts_per_detent
        self.rest = rest_states(counts_per_detent)
        self.mask = (1 << bits) - 1 if bits else 0
        if state >= 0:
            # a wheel found between detents: count from the nearest one (a tie: the one
            # anticlockwise), so settling onto it is no turn
            off = _PHASE[state] % counts_per_detent
            count -= off if 2 * off <= counts_per_detent else off - counts_per_detent
        self.reported = count & self.mask if bits else count

    def detents(self, count, state=-1):
        """Whole detents since the last call, for the hardware count `count` (and the pin
        state A << 1 | B at that count, or -1 if unknown). Allocation-free."""
        d = count - self.reported
        mask = self.mask
        if mask:
            d &= mask
            if d > mask >> 1:
                d -= mask + 1
        cpd = self.cpd
        if state >= 0 and (self.rest >> state) & 1:
            half = cpd >> 1  # at rest: nearest, a tie away from zero, nothing kept
            n = (d + half) // cpd if d >= 0 else -((half - d) // cpd)
            self.reported = count & mask if mask else count
            return n
        if state >= 0:
            n = d // cpd if d >= 0 else -(-d // cpd)  # between detents: only whole ones
        else:
            half = (cpd - 1) >> 1  # no state: nearest, a tie toward zero
            n = (d + half) // cpd if d >= 0 else -((half - d) // cpd)
        r = self.reported + n * cpd
        self.reported = r & mask if mask else r
        return n


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
