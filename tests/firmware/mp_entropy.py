"""Run under the MicroPython unix port: the nonce entropy pool (core/entropy.py) and the
controller's nonces drawn from it. Prints one result per line; ends with OK."""

import micropython
from dialbox_fw.core import controller as c
from dialbox_fw.core.entropy import Entropy
from dialbox_fw.core.store import MemoryStore


def zeros(n):
    return bytes(n)


def still():
    return 7


# every source constant: draws still never repeat
e = Entropy(zeros, "dev-1", (still, still))
seen = [e.draw(12) for _ in range(64)]
print("distinct", len(set(seen)), "of", len(seen), "lengths", sorted(set(len(s) for s in seen)))
print("sizes", len(e.draw(1)), len(e.draw(32)), len(e.draw(33)), len(e.draw(100)))

# the same inputs give the same draw; a different stir moment does not
a = Entropy(zeros, "dev-1", (still, still))
b = Entropy(zeros, "dev-1", (still, still))
print("same", a.draw(12) == b.draw(12))
a.stir(0, 1000)
b.stir(0, 1001)
print("stirred", a.draw(12) != b.draw(12))
print("personal", Entropy(zeros, "dev-1", (still, still)).draw(12)
      != Entropy(zeros, "dev-2", (still, still)).draw(12))

# the real clocks and os.urandom of this port
r = Entropy()
print("default", len(r.draw(12)), r.draw(12) != r.draw(12))

# stir() is called for every detent and press: it allocates nothing
micropython.heap_lock()
try:
    for i in range(100):
        r.stir(i, -i)
finally:
    micropython.heap_unlock()
print("stir heap ok")

# the controller's nonces, with a constant urandom
ctl = c.Controller("dev-1", "pico_w", MemoryStore(), urandom=zeros)
nonces = []
for i in range(3):
    ctl.prompt = (5 + i, False, True, "t")
    ctl.state = c.PROGRAMMING
    ctl.turn(1, 1, 1000 + i)
    ctl.lock(2000 + i)
    nonces.append(ctl.record["nonce"])
print("controller", len(set(nonces)), "of", len(nonces))
print("OK")
