"""The codec benchmark loop; runs under MicroPython and CPython (see bench/codec.py)."""

import sys

from dialbox_protocol import codec

try:
    from time import ticks_diff, ticks_us
except ImportError:  # CPython
    from time import perf_counter_ns

    def ticks_us():
        return perf_counter_ns() // 1000

    def ticks_diff(a, b):
        return a - b


def frames():
    c = codec.commitment([2, 3, -1], b"\x01" * 12, 17, "dev")
    return [
        ("commit", 2, [17, c]),
        ("reveal", 3, [17, [2, 3, -1], codec.b64(b"\x01" * 12)]),
        ("prompt", 4,
         [17, True, True, "Move Pixoid", [[None, 85, 0], [None, 1022, 1], None], False]),
        ("ack", 0, [9]),
    ]


def run(n):
    msgs = frames()
    reader = codec.FrameReader()
    t0 = ticks_us()
    count = 0
    for _ in range(n):
        for name, seq, args in msgs:
            frame = codec.encode(name, seq, args)
            out = reader.feed(frame)
            if not out or type(out[0]) is not dict:
                raise RuntimeError("decode failed")
            count += 1
    dt = ticks_diff(ticks_us(), t0)
    return dt / count


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print("%.2f" % run(n))
