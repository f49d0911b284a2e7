"""ESP32 encoder driver: the PCNT peripheral through machine.Encoder, with its glitch filter."""

from machine import Encoder, Pin


class PcntEncoder:
    """Hardware-counted quadrature (x4): counts -> detents, snapped to whole detents."""

    def __init__(self, unit, pin_a, pin_b, counts_per_detent=4, filter_ns=1000):
        self.cpd = counts_per_detent
        self.enc = Encoder(
            unit,
            Pin(pin_a, Pin.IN, Pin.PULL_UP),
            Pin(pin_b, Pin.IN, Pin.PULL_UP),
            phases=4,
            filter_ns=filter_ns,
        )
        self.reported = 0  # counts already turned into detents

    def take(self):
        diff = self.enc.value() - self.reported
        d = diff // self.cpd if diff >= 0 else -(-diff // self.cpd)
        self.reported += d * self.cpd
        return d


def make(profile):
    cpd = profile.get("counts_per_detent", 4)
    filt = profile.get("encoder_filter_ns", 1000)
    return [PcntEncoder(i, e["a"], e["b"], cpd, filt) for i, e in enumerate(profile["encoders"])]
