"""A stand-in for MicroPython's `machine` module (Pin, Encoder, disable_irq), on CPython and
the MicroPython unix port."""

irq_log = []  # "off" / "on", in order: what disable_irq / enable_irq were asked


def disable_irq():
    irq_log.append("off")
    return 1


def enable_irq(state):
    irq_log.append("on")


class Pin:
    IN = 0
    OUT = 1
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8

    def __init__(self, pin_id, mode=-1, pull=-1):
        self.id = pin_id
        self.mode = mode
        self.pull = pull
        self.v = 1 if pull == Pin.PULL_UP else 0

    def value(self, v=None):
        if v is not None:
            self.v = v
        return self.v

    def irq(self, handler=None, trigger=0):
        self.handler = handler
        self.trigger = trigger


class Encoder:
    """machine.Encoder (ESP32 PCNT): the test sets `count`, value() reads it."""

    made = []
    start = 0  # the count a new Encoder finds (a PCNT unit counts on across a soft reset)

    def __init__(self, unit, pin_a, pin_b, phases=1, filter_ns=0):
        self.unit = unit
        self.pins = (pin_a, pin_b)
        self.phases = phases
        self.filter_ns = filter_ns
        self.count = Encoder.start
        Encoder.made.append(self)

    def value(self):
        return self.count
