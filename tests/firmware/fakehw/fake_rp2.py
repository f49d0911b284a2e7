"""A stand-in for MicroPython's `rp2` module, on CPython and the MicroPython unix port.

asm_pio works like MicroPython's own (ports/rp2/modules/rp2.py): it replaces the decorated
function's globals with the assembler's names, runs it twice (labels, then words) and
returns the same structure, [array('H', words), -1, -1, execctrl, shiftctrl, out_init,
set_init, sideset_init]. Only the directives the firmware uses are provided (word,
wrap_target, wrap, label): a program using anything else fails here with a NameError, so
the words a test runs are the ones the firmware would hand to rp2.StateMachine.

StateMachine records what it is given and forwards rx_fifo()/get() to `StateMachine.io`,
a factory the test sets (a PIO emulator on CPython, canned words on MicroPython).
"""

from array import array


class PIO:
    SHIFT_LEFT = 0
    SHIFT_RIGHT = 1
    JOIN_NONE = 0
    JOIN_TX = 1
    JOIN_RX = 2
    IN_LOW = 0
    IN_HIGH = 1
    OUT_LOW = 2
    OUT_HIGH = 3


class _Emit:
    def __init__(self, in_shiftdir=0, out_shiftdir=0, autopush=False, autopull=False,
                 push_thresh=32, pull_thresh=32, fifo_join=0, out_init=None, set_init=None,
                 sideset_init=None):
        shiftctrl = (
            fifo_join << 30
            | (pull_thresh & 0x1F) << 25
            | (push_thresh & 0x1F) << 20
            | out_shiftdir << 19
            | in_shiftdir << 18
            | autopull << 17
            | autopush << 16
        )
        self.prog = [array("H"), -1, -1, 0, shiftctrl, out_init, set_init, sideset_init]
        self.labels = {}
        self.wrap_used = False
        self.pass_ = 0
        self.num_instr = 0

    def start_pass(self, p):
        if p == 1 and not self.wrap_used and self.num_instr:
            self.wrap()
        self.pass_ = p
        self.num_instr = 0

    def wrap_target(self):
        self.prog[3] |= self.num_instr << 7

    def wrap(self):
        assert self.num_instr
        self.prog[3] |= (self.num_instr - 1) << 12
        self.wrap_used = True

    def label(self, name):
        if self.pass_ == 0:
            self.labels[name] = self.num_instr

    def word(self, instr, label=None):
        self.num_instr += 1
        if self.pass_ > 0:
            self.prog[0].append(instr | (0 if label is None else self.labels[label]))
        return self


def asm_pio(**kw):
    emit = _Emit(**kw)

    def dec(f):
        gl = f.__globals__
        old = gl.copy()
        gl.clear()
        for name in ("wrap_target", "wrap", "label", "word"):
            gl[name] = getattr(emit, name)
        try:
            emit.start_pass(0)
            f()
            emit.start_pass(1)
            f()
        finally:
            gl.clear()
            gl.update(old)
        if len(emit.prog[0]) > 32:
            raise ValueError("a PIO program has at most 32 instructions")
        return emit.prog

    return dec


class StateMachine:
    io = None  # factory: io(state_machine) -> object with rx_fifo() and get()
    made = []

    def __init__(self, sm_id, prog=None, freq=-1, **kw):
        self.id = sm_id
        self.prog = prog
        self.freq = freq
        self.kw = kw
        self.running = False
        self.backend = StateMachine.io(self)
        StateMachine.made.append(self)

    def active(self, value=None):
        if value is not None:
            self.running = bool(value)
        return self.running

    def rx_fifo(self):
        return self.backend.rx_fifo()

    def get(self):
        return self.backend.get()
