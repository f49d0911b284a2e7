"""A bounded fuzz run of the codec's stream decoder; runs under MicroPython and CPython.

Usage: mp_fuzz.py VECTORS_JSON ITERATIONS SEED. Mutates the golden valid frames at random and
feeds them, with random junk, through one FrameReader. Fails (exit 1) if anything raises or a
mutated frame decodes to a message other than the original; prints "N passed, M failed".
"""

import json
import random
import sys

from dialbox_protocol import codec


def main(path, iterations, seed):
    random.seed(seed)
    with open(path) as f:
        frames = [c["frame"].encode() for c in json.load(f)["valid"]]  # streamed: no copy
    originals = [codec.decode_frame(fr) for fr in frames]
    reader = codec.FrameReader()
    failed = 0
    for _ in range(iterations):
        k = random.getrandbits(8) % len(frames)
        b = bytearray(frames[k])
        for _m in range(1 + random.getrandbits(2)):
            i = random.getrandbits(16) % len(b)
            op = random.getrandbits(2)
            if op == 0:
                b[i] ^= 1 << random.getrandbits(3)
            elif op == 1:
                b[i] = random.getrandbits(8)
            elif op == 2:
                b = b[:i] + bytearray([random.getrandbits(8)]) + b[i:]
            elif len(b) > 1:
                b = b[:i] + b[i + 1 :]
        if random.getrandbits(3) == 0:
            b = bytearray(random.getrandbits(8) for _j in range(random.getrandbits(7))) + b
        try:
            results = reader.feed(bytes(b) + b"\n")
        except Exception as e:
            print("FAIL raised %r on %r" % (e, bytes(b)))
            failed += 1
            reader = codec.FrameReader()
            continue
        for r in results:
            if not isinstance(r, codec.DecodeError) and r != originals[k]:
                print("FAIL accepted corrupted frame %r" % (bytes(b),))
                failed += 1
    print("%d passed, %d failed" % (iterations - failed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])) else 0)
