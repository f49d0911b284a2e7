"""Differential fuzz: the codec decodes every input the same on CPython and on MicroPython.

60,000 seeded inputs (mutated golden frames and JSON-ish bodies: doubled commas, leading zeros,
control characters, odd escapes, deep nesting, huge numbers, unicode escapes, spaces), most of
them with a CRC that holds, so they reach the JSON stage. One `micropython` process decodes
them all (fed through a file); this CPython process decodes them too; every result (message,
or error code, type, seq, field and detail) must be the same. docs/protocol.md, "Strictness".
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

from dialbox.paths import micropython_binary, protocol_dir
from dialbox_protocol import codec

HERE = Path(__file__).parent
VECTORS = json.loads((protocol_dir() / "vectors.json").read_text())
INPUTS = 60_000
SEED = 20260213


def _load_mp_diff() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mp_diff", HERE / "mp_diff.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


MP_DIFF = _load_mp_diff()

# Pieces that JSON parsers disagree on, or that only a strict parser refuses.
TOKENS = [
    b",", b",,", b", ,", b" ", b"  ", b":", b"[", b"]", b"[]", b"[[]]", b"{", b"}", b"{}",
    b'{"a":1}', b'{"a" 1}', b'"', b"'", b"\\", b"0", b"00", b"01", b"-", b"-0", b"-01", b"--1",
    b"+1", b"1-2", b"1+", b"0x10", b"1_000", b"1.5", b"1.", b".5", b"1e3", b"1E+3", b"-1e-3",
    b"NaN", b"Infinity", b"-Infinity", b"true", b"false", b"null", b"tru", b"nul", b"fals",
    b"true1", b"nullnull", b"None", b"True", b"\\v", b"\\x41", b"\\0", b"\\a", b"\\'", b"\\u",
    b"\\u12", b"\\uzzzz", b"\\u0041", b"\\u00e9", b"\\u00E9", b"\\u20ac", b"\\uFFFF",
    b"\\u0000", b"\\ud83d\\ude00", b"\\uD83D\\uDE00", b"\\ud800", b"\\udc00", b"\\ud83d",
    b"\\/", b"\\b", b"\\f", b"\\n", b"\\r", b"\\t", b'\\"', b"\\\\",
]
# Bytes a frame may not hold at all (the printable-ASCII check refuses them before any JSON).
CONTROL = [b"\t", b"\n", b"\r", b"\r\n", b"\x0b", b"\x0c", b"\x00", b"\x7f", b"\xc3\xa9", b"\xff"]
# Values for whole fields, valid JSON or not.
VALUES = [
    b"0", b"1", b"-1", b"-0", b"17", b"65535", b"65536", b"9" * 40, b"-" + b"9" * 60,
    b"1" + b"0" * 300, b"007", b"1.0", b"1e2", b"true", b"false", b"null", b'""', b'"a"',
    b'"\\u00e9t\\u00e9"', b'"\\n"', b'"\\v"', b'"\\ud83d\\ude00"', b"[]", b"[1,2]",
    b"[[null,85,0],[null,1022,1],null]", b"[1,,2]", b"[1,]", b"[,1]", b"[01]", b'["x"]',
    b'{"a":1}',
]


def _bodies() -> list[bytes]:
    out = []
    for case in VECTORS["valid"]:
        out.append(case["frame"].encode("latin-1").rstrip(b"\r\n")[:-8])
    for case in VECTORS["invalid"]:
        f = case["frame"].encode("utf-8").rstrip(b"\r\n")
        if len(f) > 8:
            out.append(f[:-8])
    return out


def _mutate(rng: random.Random, b: bytes) -> bytes:
    op = rng.randrange(14)
    n = len(b)
    i = rng.randrange(n + 1)
    if op <= 2:  # insert a troublesome token (now and then a control character)
        return b[:i] + rng.choice(CONTROL if rng.random() < 0.05 else TOKENS) + b[i:]
    if op == 3:  # double a comma, or drop one
        j = b.find(b",", i)
        if j < 0:
            j = b.find(b",")
        if j < 0:
            return b
        if rng.random() < 0.7:
            return b[:j] + b"," + b[j:]
        return b[:j] + b[j + 1 :]
    if op == 4:  # a leading zero, a sign or a huge number in front of a digit run
        j = next((k for k in range(i, n) if 48 <= b[k] <= 57), -1)
        if j < 0:
            return b + b"0"
        return b[:j] + rng.choice([b"0", b"00", b"-0", b"-", b"9" * rng.randrange(1, 400)]) + b[j:]
    if op == 5:  # replace a field-like stretch with another value
        j = b.find(b",", i)
        k = b.find(b",", j + 1) if j >= 0 else -1
        if j < 0 or k < 0:
            return b[:i] + rng.choice(VALUES) + b[i:]
        return b[: j + 1] + rng.choice(VALUES) + b[k:]
    if op == 6:  # delete a byte or a stretch
        return b[:i] + b[i + rng.choice([1, 1, 2, 5]) :]
    if op == 7:  # overwrite a byte with printable ASCII
        return b[:i] + bytes([rng.randrange(32, 127)]) + b[i + 1 :]
    if op == 8:  # any byte at all, now and then
        c = rng.randrange(256) if rng.random() < 0.2 else rng.randrange(32, 127)
        return b[:i] + bytes([c]) + b[i + 1 :]
    if op == 9:  # nesting, shallow to very deep
        k = rng.choice([1, 2, 3, 5, 6, 7, 8, 9, 10, 20, 100, 400])
        if rng.random() < 0.5:
            return b[:i] + b"[" * k + b"]" * k + b[i:]
        return b"[" * k + b + b"]" * k
    if op == 10:  # spaces (now and then other whitespace) between or inside tokens
        return b[:i] + rng.choice([b" ", b" ", b" ", b"   ", b"\t", b"\r\n"]) + b[i:]
    if op == 11:  # separators swapped
        j = b.find(b",", i)
        if j < 0:
            return b
        return b[:j] + rng.choice([b":", b" ", b";", b"]", b"],["]) + b[j + 1 :]
    if op == 12:  # an escape inside a string
        j = b.find(b'"', i)
        if j < 0:
            return b
        esc = rng.choice([t for t in TOKENS if t.startswith(b"\\")])
        return b[: j + 1] + esc + b[j + 1 :]
    return b[:i]  # truncated


def _jsonish(rng: random.Random) -> bytes:
    """A message-shaped array of random tokens and values: ["type",seq,...]."""
    name = rng.choice([b'"ack"', b'"ping"', b'"error"', b'"status"', b'"revealed"', b'"x"', b"1"])
    parts = [name, rng.choice([b"0", b"1", b"00", b"-0", b"70000", b"2"])]
    for _ in range(rng.randrange(5)):
        parts.append(rng.choice(VALUES) if rng.random() < 0.7 else rng.choice(TOKENS))
    sep = rng.choice([b",", b",", b",", b", ", b" , ", b",,"])
    return b"[" + sep.join(parts) + b"]"


def _frame(rng: random.Random, body: bytes) -> bytes:
    r = rng.random()
    if r < 0.9:
        crc = b"%08x" % codec.crc32(body)  # the CRC holds: the JSON stage decides
    elif r < 0.95:
        crc = b"%08x" % codec.crc32(body + b"x")
    else:
        crc = bytes(rng.randrange(32, 127) for _ in range(8))
    return body + crc + (b"\r" if rng.random() < 0.05 else b"")


def inputs(count: int = INPUTS, seed: int = SEED) -> list[bytes]:
    rng = random.Random(seed)
    bodies = _bodies()
    out = []
    for _ in range(count):
        body = _jsonish(rng) if rng.random() < 0.25 else rng.choice(bodies)
        for _m in range(rng.choice([0, 1, 1, 1, 2, 2, 3])):
            body = _mutate(rng, body)
        out.append(_frame(rng, body[:1100]))
    return out


def start_micropython(frames: list[bytes], tmp: Path, raw: bool = False) -> subprocess.Popen[str]:
    """Every frame through mp_diff.py in one micropython process, fed through a file."""
    path = tmp / "inputs.hex"
    path.write_text("".join(f.hex() + "\n" for f in frames))
    env = dict(os.environ, MICROPYPATH=str(protocol_dir()))
    cmd = [micropython_binary(), str(HERE / "mp_diff.py"), str(path)] + (["raw"] if raw else [])
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def micropython_results(proc: subprocess.Popen[str], count: int) -> list[str]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, out[-2000:] + err[-2000:]  # (MicroPython: tracebacks on stdout)
    lines = out.splitlines()
    assert len(lines) == count, out[-2000:] + err[-2000:]
    return lines


def mismatches(frames: list[bytes], mpy: list[str], cpy: list[str]) -> list[str]:
    return [
        f"{f!r}\n  CPython:     {c}\n  MicroPython: {m}"
        for f, m, c in zip(frames, mpy, cpy, strict=True)
        if m != c
    ]


@pytest.mark.micropython
def test_cpython_and_micropython_decode_every_input_the_same(tmp_path: Path) -> None:
    frames = inputs()
    assert len(frames) >= 50_000
    proc = start_micropython(frames, tmp_path)
    cpy = [MP_DIFF.result_text(codec.decode_frame(f)) for f in frames]  # meanwhile
    mpy = micropython_results(proc, len(frames))
    bad = mismatches(frames, mpy, cpy)
    assert not bad, f"{len(bad)} of {len(frames)} inputs differ:\n" + "\n".join(bad[:10])
    # the fuzz must reach the JSON stage and beyond, not stop at the CRC
    kinds = Counter(line.split(" ", 2)[1] if line.startswith("err") else "ok" for line in cpy)
    assert kinds[str(codec.E_JSON)] >= 10_000, kinds
    assert kinds["ok"] >= 2_000, kinds
    assert kinds[str(codec.E_FIELDS)] >= 1_000, kinds
    assert kinds[str(codec.E_CRC)] + kinds[str(codec.E_FRAME)] <= len(frames) // 4, kinds


@pytest.mark.micropython
def test_the_inputs_do_split_plain_json_loads(tmp_path: Path) -> None:
    """The fuzz has teeth: plain json.loads, without the strict check, differs between the
    runtimes on many of these inputs (MicroPython takes [1,,2], 01, "\\v", ...)."""
    frames = inputs(5_000, SEED + 1)
    proc = start_micropython(frames, tmp_path, raw=True)
    cpy = [MP_DIFF.raw_text(f) for f in frames]
    mpy = micropython_results(proc, len(frames))
    bad = mismatches(frames, mpy, cpy)
    assert len(bad) >= 500, bad[:10]
