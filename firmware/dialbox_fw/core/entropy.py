"""Nonce entropy: os.urandom mixed with the timing of the player's actions, through SHA-256.

os.urandom alone is not always good enough for a commitment nonce: on the ESP32 it is
pseudo-random unless WiFi or Bluetooth runs (a USB-only controller never starts WiFi), and
on the RP2 before MicroPython 1.28 it returns raw ring-oscillator bits. So every nonce is
drawn from a pool that also holds:

- a personalisation (the controller's uid: two controllers never share a stream);
- the moment of every detent and button press, read from the finest clocks there are
  (time.ticks_cpu and time.ticks_us; CPython: perf_counter_ns), with the event's own
  values. Stirred from the main loop (Controller.turn and .button), XORed into a
  preallocated 64-byte ring (XOR: an old event is folded in, never overwritten): stir()
  never allocates;
- fresh os.urandom output at every draw;
- the number of draws and the previous pool, so two draws never repeat even if every
  source is constant.

draw(n) hashes the pool, 32 bytes of os.urandom and the ring into a digest d, keeps
SHA-256(0x00 | d) as the next pool (a nonce does not tell the next one) and returns the
first n bytes of SHA-256(0x01 | block | d) for block = 0, 1, ... (n < 8 KB). This only
adds entropy: with a good os.urandom the nonce is as good as os.urandom alone.
"""

import hashlib
import time

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


_RING = const(64)  # bytes: 4 events of 4 values x 4 bytes, then XORed over


class Entropy:
    """A small entropy pool: stir() events in, draw() nonces out."""

    def __init__(self, urandom=None, personal=b"", clocks=None):
        if urandom is None:
            import os

            urandom = os.urandom
        if clocks is None:
            us = getattr(time, "ticks_us", None) or time.perf_counter_ns
            clocks = (getattr(time, "ticks_cpu", None) or us, us)
        self.urandom = urandom
        self.fine, self.coarse = clocks
        self.ring = bytearray(_RING)
        self.at = 0
        self.draws = 0
        if isinstance(personal, str):
            personal = personal.encode()
        self.pool = b"dialbox entropy 1:" + (personal or b"")
        self.stir()  # the moment of boot: hardly random, never harmful

    def _xor(self, v):
        ring = self.ring
        i = self.at
        ring[i] ^= v & 255
        ring[i + 1] ^= (v >> 8) & 255
        ring[i + 2] ^= (v >> 16) & 255
        ring[i + 3] ^= (v >> 24) & 255
        self.at = (i + 4) % _RING

    def stir(self, a=0, b=0):
        """Record this moment and an event's values (e.g. wheel, detents). No allocation."""
        self._xor(self.fine())
        self._xor(self.coarse())
        self._xor(a)
        self._xor(b)

    def draw(self, n):
        """n bytes, never the same twice: for a nonce (main loop; allocates)."""
        self.draws += 1
        self.stir(self.draws, n)
        h = hashlib.sha256(self.pool)
        h.update(self.urandom(32))
        h.update(self.ring)
        d = h.digest()
        self.pool = hashlib.sha256(b"\x00" + d).digest()
        out = b""
        while len(out) < n:
            out += hashlib.sha256(bytes((1, len(out) >> 5)) + d).digest()
        return out[:n]
