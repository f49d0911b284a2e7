"""The decoder's side of the differential fuzz (test_differential.py); MicroPython and CPython.

Usage: mp_diff.py INPUTS [raw]. INPUTS holds one input per line, in hex. For each input this
prints one line: what codec.decode_frame made of it, written the same way on both runtimes
(result_text). With "raw", what plain json.loads makes of the part before the CRC instead:
that shows the differences the strict check exists to remove.
"""

import binascii
import json
import sys

from dialbox_protocol import codec


def _str(s):
    """A string as ASCII, character by character (code points, not bytes), on both runtimes."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if 32 <= o < 127 and ch != '"' and ch != "\\":
            out.append(ch)
        else:
            out.append("\\u%04x" % o if o <= 0xFFFF else "\\U%08x" % o)
    out.append('"')
    return "".join(out)


def _scalar_text(v):
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    t = type(v)
    if t is int:
        return str(v)
    if t is str:
        return _str(v)
    if t is float:
        return "float(%r)" % v
    return "?" + str(t)


def value_text(v):
    """Exact text of a decoded value (distinct values, distinct texts). Not recursive: a
    value may nest hundreds deep, more than MicroPython's recursion allows."""
    out = []
    stack = [v]  # values still to write, and (text,) tuples to write as they are
    while stack:
        x = stack.pop()
        t = type(x)
        if t is tuple:
            out.append(x[0])
        elif t is list or t is dict:
            if t is list:
                out.append("[")
                stack.append(("]",))
                items = x
            else:
                out.append("{")
                stack.append(("}",))
                keys = sorted(x.keys())
                items = [(_str(k) + ":", x[k]) for k in keys]
            k = len(items) - 1
            while k >= 0:
                if t is list:
                    stack.append(items[k])
                else:
                    stack.append(items[k][1])
                    stack.append((items[k][0],))
                if k:
                    stack.append((",",))
                k -= 1
        else:
            out.append(_scalar_text(x))
    return "".join(out)


def result_text(r):
    """What decode_frame returned: the message, or the error's code, type, seq, field, detail."""
    if isinstance(r, codec.DecodeError):
        return "err %d %s %s %s %s" % (
            r.code,
            value_text(r.name),
            value_text(r.seq),
            value_text(r.field),
            value_text(r.detail),
        )
    return "ok " + value_text(r)


def raw_text(frame):
    """What json.loads makes of the frame's body (all but the last 8 bytes), no checks."""
    try:
        return "ok " + value_text(json.loads(frame[:-8]))
    except Exception as e:
        return "err " + ("MemoryError" if isinstance(e, MemoryError) else "ValueError")


def _lines(path):
    """The file's lines, read in large blocks (MicroPython reads a text line byte by byte)."""
    rest = b""
    with open(path, "rb") as f:
        while True:
            block = f.read(4096)
            if not block:
                break
            lines = (rest + block).split(b"\n")
            rest = lines.pop()
            for line in lines:
                yield line
    if rest:
        yield rest


def main(path, raw):
    out = []
    for line in _lines(path):
        frame = binascii.unhexlify(line)
        if raw:
            out.append(raw_text(frame))
        else:
            out.append(result_text(codec.decode_frame(frame)))
        if len(out) == 100:
            sys.stdout.write("\n".join(out) + "\n")
            out = []
    if out:
        sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], len(sys.argv) > 2 and sys.argv[2] == "raw")
