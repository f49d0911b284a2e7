"""Run under the MicroPython unix port: the RP2 and ESP32 encoder drivers' take() and the
DetentCounter allocate nothing (heap_lock), on stand-ins for rp2 and machine (fakehw/)."""

import sys

import micropython

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/fakehw")
import fake_machine  # noqa: E402
import fake_rp2  # noqa: E402

sys.modules["machine"] = fake_machine
sys.modules["rp2"] = fake_rp2

from dialbox_fw.core.quadrature import DetentCounter, waveform  # noqa: E402
from dialbox_fw.hal import encoders_esp32, encoders_rp2  # noqa: E402

FORWARD = {3: 1, 1: 0, 0: 2, 2: 3}
BACKWARD = {1: 3, 0: 1, 2: 0, 3: 2}
STALE = 12345 << 2 | 3  # what take() must drop: a word from before it started


class Canned:
    """The FIFO side of a state machine: two stale words waiting, then words[i]."""

    def __init__(self, words):
        self.words = words
        self.i = 0
        self.pending = 0

    def rx_fifo(self):
        self.pending = 2
        return 2

    def get(self):
        if self.pending:
            self.pending -= 1
            return STALE
        return self.words[self.i]


# a walk: 5 detents clockwise, 3 back, a part turn and back, crossing the 28-bit wrap
x = (1 << 28) - 6
state = 3
words = [((x & ((1 << 28) - 1)) << 2) | ((state & 1) << 1) | (state >> 1)]
for s in waveform(5) + waveform(-3) + [1, 0, 1, 3]:
    x += 1 if FORWARD[state] == s else -1
    state = s
    words.append(((x & ((1 << 28) - 1)) << 2) | ((s & 1) << 1) | (s >> 1))
canned = Canned(words)
fake_rp2.StateMachine.io = lambda sm: canned
enc = encoders_rp2.PioEncoder(0, 2, 3, 4)
last = len(words)
total = 0
micropython.heap_lock()
try:
    for i in range(1, last):
        canned.i = i
        total += enc.take()
finally:
    micropython.heap_unlock()
print("rp2 detents", total)

pcnt = encoders_esp32.PcntEncoder(0, 4, 5, 4, 1000)
counts = [3, 4, 6, 7, 9, 12, 5, 2, -1, -3, -4]
ptotal = 0
micropython.heap_lock()
try:
    for c in counts:
        pcnt.enc.count = c
        ptotal += pcnt.take()
finally:
    micropython.heap_unlock()
print("pcnt detents", ptotal)

dc = DetentCounter(4, 28, (1 << 28) - 2, 3)
steps = [((1 << 28) - 1, 1), (0, 0), (1, 2), (2, 3), (5, 1), (6, 3), (2, 3)]
dtotal = 0
micropython.heap_lock()
try:
    for c, s in steps:
        dtotal += dc.detents(c, s)
finally:
    micropython.heap_unlock()
print("counter detents", dtotal)
print("OK")
