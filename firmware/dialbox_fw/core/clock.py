"""Millisecond ticks with MicroPython's wrap-safe helpers, and a CPython fallback."""

import time

try:
    ticks_ms = time.ticks_ms
    ticks_diff = time.ticks_diff
    ticks_add = time.ticks_add
except AttributeError:  # CPython: monotonic milliseconds never wrap in practice

    def ticks_ms():
        return int(time.monotonic() * 1000)

    def ticks_diff(a, b):
        return a - b

    def ticks_add(a, b):
        return a + b
