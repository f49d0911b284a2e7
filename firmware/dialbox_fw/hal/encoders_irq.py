"""Fallback encoder driver: pin-change interrupts that only feed the Quadrature decoder."""

from dialbox_fw.core.quadrature import Quadrature


class IrqEncoder:
    """One encoder on two GPIO pins. The handler reads both pins and updates integers:
    it never allocates (tests/firmware/mp_irq_heap.py proves it under heap_lock)."""

    def __init__(self, pin_a, pin_b, counts_per_detent=4, trigger=None, guard=None):
        self.a = pin_a
        self.b = pin_b
        self.guard = guard  # (disable_irq, enable_irq) for take(), or None
        self.dec = Quadrature(counts_per_detent, (pin_a.value() << 1) | pin_b.value())
        self.handler = self._edge  # bound once: calling it later allocates nothing
        if trigger is not None:
            pin_a.irq(handler=self.handler, trigger=trigger)
            pin_b.irq(handler=self.handler, trigger=trigger)

    def _edge(self, _pin):
        self.dec.update_state((self.a.value() << 1) | self.b.value())

    def take(self, disable_irq=None, enable_irq=None):
        """Whole detents since the last take, read and cleared with interrupts off (so a
        detent completed by an edge in between is not lost)."""
        if disable_irq is None and self.guard is not None:
            disable_irq, enable_irq = self.guard
        if disable_irq is None:
            return self.dec.take()
        s = disable_irq()
        d = self.dec.take()
        enable_irq(s)
        return d


def make(profile, machine):
    """Three IrqEncoders from a board profile (machine = the `machine` module)."""
    Pin = machine.Pin
    cpd = profile.get("counts_per_detent", 4)
    trig = Pin.IRQ_RISING | Pin.IRQ_FALLING
    guard = (machine.disable_irq, machine.enable_irq)
    out = []
    for e in profile["encoders"]:
        a = Pin(e["a"], Pin.IN, Pin.PULL_UP)
        b = Pin(e["b"], Pin.IN, Pin.PULL_UP)
        out.append(IrqEncoder(a, b, cpd, trig, guard))
    return out
