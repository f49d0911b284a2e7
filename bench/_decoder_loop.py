"""The encoder-decoder benchmark loop (MicroPython or CPython): µs per A/B transition."""

import sys

from dialbox_fw.core.quadrature import Quadrature, waveform
from dialbox_fw.hal.encoders_irq import IrqEncoder

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b


class Pin:
    def __init__(self):
        self.v = 1

    def value(self):
        return self.v


def main(n):
    states = waveform(50) + waveform(-50)
    q = Quadrature(4)
    t0 = ticks_us()
    for _ in range(n):
        for s in states:
            q.update_state(s)
    t1 = ticks_us()
    a = Pin()
    b = Pin()
    enc = IrqEncoder(a, b, 4)
    h = enc.handler
    pairs = [(s >> 1, s & 1) for s in states]
    t2 = ticks_us()
    for _ in range(n):
        for va, vb in pairs:
            a.v = va
            b.v = vb
            h(a)
    t3 = ticks_us()
    count = n * len(states)
    print("%.3f %.3f" % (ticks_diff(t1, t0) / count, ticks_diff(t3, t2) / count))


main(int(sys.argv[1]))
