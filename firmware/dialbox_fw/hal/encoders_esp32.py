"""ESP32 encoder driver: the PCNT peripheral through machine.Encoder, with its glitch filter."""

from machine import Encoder, Pin

from dialbox_fw.core.quadrature import DetentCounter


class PcntEncoder:
    """Hardware-counted quadrature (x4): counts -> whole detents, snapped to the nearest.

    The PCNT does not tell the pin state, so take() snaps to the nearest whole detent with
    a tie toward zero (DetentCounter without a state): with 4 counts per detent, 3 counts
    (a bounce left one short) report the detent, 2 (half way) do not yet, 5 report one; what
    is left over (at most half a detent) is kept for the next take, so nothing drifts.
    """

    def __init__(self, unit, pin_a, pin_b, counts_per_detent=4, filter_ns=1000):
        self.enc = Encoder(
            unit,
            Pin(pin_a, Pin.IN, Pin.PULL_UP),
            Pin(pin_b, Pin.IN, Pin.PULL_UP),
            phases=4,
            filter_ns=filter_ns,
        )
        self.counter = DetentCounter(counts_per_detent, 0, self.enc.value())

    def take(self):
        """Whole detents since the last take. Main loop only; allocates nothing."""
        return self.counter.detents(self.enc.value())


def make(profile):
    cpd = profile.get("counts_per_detent", 4)
    filt = profile.get("encoder_filter_ns", 1000)
    return [PcntEncoder(i, e["a"], e["b"], cpd, filt) for i, e in enumerate(profile["encoders"])]
