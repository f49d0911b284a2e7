"""RP2 encoder driver: a PIO program reports every A/B change; the decoder turns them into detents.

The state machine samples the two pins (A = in_base, B = in_base + 1, so B must be the pin
after A), and whenever the pair differs from the last value it pushes the new 2-bit state
and raises a PIO interrupt. The handler drains the RX FIFO into the Quadrature decoder:
no edge is missed however busy the CPU is (the FIFO holds 8 states), and the handler only
updates integers.
"""

# ruff: noqa: F821  (label, mov, in_, jmp, ... exist only inside @rp2.asm_pio)

import rp2
from machine import Pin

from dialbox_fw.core.quadrature import Quadrature


@rp2.asm_pio(in_shiftdir=rp2.PIO.SHIFT_LEFT, fifo_join=rp2.PIO.JOIN_RX)
def _edges():
    # x holds the last reported state; y the sampled one
    label("sample")
    mov(isr, null)
    in_(pins, 2)
    mov(y, isr)
    jmp(x_not_y, "changed")
    jmp("sample")
    label("changed")
    push(noblock)
    mov(x, y)
    irq(rel(0))


class PioEncoder:
    """One encoder on PIO state machine `sm_id`, feeding a Quadrature decoder."""

    def __init__(self, sm_id, pin_a, pin_b, counts_per_detent=4):
        if pin_b != pin_a + 1:
            raise ValueError("PIO encoder needs B on the pin after A (GP%d)" % (pin_a + 1))
        a = Pin(pin_a, Pin.IN, Pin.PULL_UP)
        b = Pin(pin_b, Pin.IN, Pin.PULL_UP)
        self.dec = Quadrature(counts_per_detent, (a.value() << 1) | b.value())
        self.sm = rp2.StateMachine(sm_id, _edges, freq=1_000_000, in_base=a)
        self.handler = self._drain  # bound once, so the interrupt allocates nothing
        self.sm.irq(self.handler)
        st = self.dec.state
        self.sm.exec("set(x, %d)" % (((st & 1) << 1) | (st >> 1)))
        self.sm.active(1)

    def _drain(self, _sm):
        sm = self.sm
        dec = self.dec
        while sm.rx_fifo():
            s = sm.get()  # bit 0 = A (in_base), bit 1 = B; the decoder wants A << 1 | B
            dec.update_state(((s & 1) << 1) | ((s >> 1) & 1))

    def take(self):
        import machine

        s = machine.disable_irq()
        d = self.dec.take()
        machine.enable_irq(s)
        return d


def make(profile):
    cpd = profile.get("counts_per_detent", 4)
    return [PioEncoder(i, e["a"], e["b"], cpd) for i, e in enumerate(profile["encoders"])]
