"""Strict JSON check for frame bodies: part of the shared codec, runs under MicroPython too.

json.loads differs between the runtimes: MicroPython's takes [1,,2], [1,], [1 2], 01, "\\v",
"\\uzzzz", true1 and {"a" 1}, which CPython refuses. codec.decode_frame runs json_strict()
before json.loads, so both runtimes refuse the same frame bodies (docs/protocol.md,
"Strictness"). A module of its own, not codec.py, only to keep compiling codec.py from
source within a small heap (MicroPython parses a whole module before it compiles it).

Plain MicroPython subset: no imports; the annotations are ignored by MicroPython and checked
by mypy on the host.
"""

JSON_DEPTH = 8  # arrays nested deeper are refused (a prompt's faces are 5 deep)


def json_strict(b: bytes) -> bool:
    """True when b is JSON of the subset frames use, exactly as RFC 8259 writes it.

    The subset: arrays nested at most JSON_DEPTH deep; strings with JSON's escapes only (and
    no \\u escape of a surrogate: MicroPython's json cannot join a pair); integers
    -?(0|[1-9][0-9]*) (no leading zero, fraction or exponent); true, false, null; spaces
    between tokens. No objects, no floats, no NaN. json.loads takes all of it on both
    runtimes and gives the same value. b must hold printable ASCII only (decode_frame checks
    that first, so there are no raw control characters to refuse). One pass, nothing
    allocated; strings without a backslash are skipped with bytes.find.
    """
    n = len(b)
    i = 0
    depth = 0
    state = 0  # 0: a value must come; 1: a value or "]" (just after "["); 2: "," or "]"
    while i < n:
        c = b[i]
        i += 1
        if c == 32:
            continue
        if state == 2:
            if depth == 0:
                return False  # more than spaces after the top-level value
            if c == 44:
                state = 0
            elif c == 93:
                depth -= 1
            else:
                return False
        elif c == 91:
            depth += 1
            state = 1
            if depth > JSON_DEPTH:
                return False
        elif c == 93:
            if state != 1:
                return False  # "[1,]"
            depth -= 1
            state = 2
        else:
            state = 2
            if c == 34:
                j = b.find(b'"', i)
                if j < 0:
                    return False
                if b.find(b"\\", i, j) < 0:
                    i = j + 1
                    continue
                while True:  # escapes: the slow path, up to the closing quote
                    if i >= n:
                        return False
                    c = b[i]
                    i += 1
                    if c == 34:
                        break
                    if c != 92:
                        continue
                    if i >= n:
                        return False
                    c = b[i]
                    i += 1
                    if c == 117:  # \uXXXX; c | 32 reads A-F as a-f (and leaves digits)
                        if i + 4 > n:
                            return False
                        for k in range(i, i + 4):
                            if (b[k] | 32) not in b"0123456789abcdef":
                                return False
                        if b[i] | 32 == 100 and (b[i + 1] | 32) in b"89abcdef":
                            return False  # \uD800-\uDFFF
                        i += 4
                    elif c not in b'"\\/bfnrt':
                        return False
            elif c == 45 or 48 <= c <= 57:
                if c == 45:
                    if i >= n:
                        return False
                    c = b[i]
                    i += 1
                    if not 48 <= c <= 57:
                        return False
                if c != 48:  # a 0 stands alone: a digit after it is neither "," nor "]"
                    while i < n and 48 <= b[i] <= 57:
                        i += 1
            elif c == 116 and b.startswith(b"rue", i):
                i += 3
            elif c == 102 and b.startswith(b"alse", i):
                i += 4
            elif c == 110 and b.startswith(b"ull", i):
                i += 3
            else:
                return False
    return state == 2 and depth == 0
