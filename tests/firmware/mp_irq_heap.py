"""Run under the MicroPython unix port: interrupt-path code must not allocate (heap_lock)."""

import micropython
from dialbox_fw.core.quadrature import Quadrature, waveform
from dialbox_fw.hal.encoders_irq import IrqEncoder


class FakePin:
    def __init__(self):
        self.v = 1

    def value(self):
        return self.v

    def irq(self, handler=None, trigger=None):
        self.handler = handler


def disable_irq():
    micropython.heap_lock()  # as in mqtt_as' tests: "interrupts off" also forbids allocation
    return 0


def enable_irq(_s):
    micropython.heap_unlock()


a = FakePin()
b = FakePin()
enc = IrqEncoder(a, b, 4, trigger=3)
handler = a.handler
states = waveform(5, True) + waveform(-3, False) + [0, 3, 1, 2, 3]
d = Quadrature(2)
edges = 0
micropython.heap_lock()
try:
    for s in states:
        a.v = s >> 1
        b.v = s & 1
        handler(a)
        edges += 1
    for s in (3, 1, 0, 2, 3, 0, 3):
        d.update_state(s)
finally:
    micropython.heap_unlock()
taken = enc.take(disable_irq, enable_irq)
print("edges", edges, "detents", taken, "missed", enc.dec.missed)
print("OK")
