"""Property tests: the decoder never crashes or hangs, never accepts a corrupted frame."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dialbox.paths import protocol_dir
from dialbox_protocol import codec

VALID_FRAMES = [
    c["frame"].encode() for c in json.loads((protocol_dir() / "vectors.json").read_text())["valid"]
]

seqs = st.integers(min_value=1, max_value=codec.MAX_SEQ)
pids = st.integers(min_value=0, max_value=codec.MAX_PID)
sels = st.lists(st.integers(min_value=-1, max_value=31), min_size=3, max_size=3)
nonces = st.binary(min_size=12, max_size=12)
texts = st.text(max_size=60)


@st.composite
def messages(draw: st.DrawFn) -> tuple[str, int, list[Any]]:
    kind = draw(
        st.sampled_from(["commit", "reveal", "dial", "prompt", "error", "revealed", "status"])
    )
    seq = draw(seqs)
    pid = draw(pids)
    if kind == "commit":
        c = codec.commitment(draw(sels), draw(nonces), pid, draw(st.text(min_size=1, max_size=8)))
        return kind, seq, [pid, c]
    if kind == "reveal":
        return kind, seq, [pid, draw(sels), codec.b64(draw(nonces))]
    if kind == "dial":
        return kind, 0, [pid, draw(sels)]
    if kind == "prompt":
        wheels: list[Any] = []
        for w in range(3):
            n = len(codec.DEFAULT_FACES[w])
            if draw(st.booleans()):
                wheels.append(None)
            else:
                mask = draw(st.integers(min_value=1, max_value=(1 << n) - 1))
                wheels.append([None, mask, draw(st.integers(0, n - 1))])
        sealed = draw(st.booleans())
        live = not sealed and draw(st.booleans())  # (a live prompt is never sealed)
        return kind, seq, [pid, sealed, draw(st.booleans()), draw(texts), wheels, live]
    if kind == "error":
        return kind, 0, [draw(st.integers(1, 18)), draw(texts), seq]
    if kind == "status":
        return kind, 0, [pid, draw(st.sampled_from(list(codec.STATES)))]
    seats = range(draw(st.integers(0, 6)))
    choices = [[s, draw(st.text(max_size=8))] for s in seats]
    reveals = [[s, draw(sels), codec.b64(draw(nonces)), f"bot-{s}"] for s in seats]
    return kind, seq, [pid, choices, draw(texts), reveals]


def _normalise(v: Any) -> Any:
    """What a string looks like after the trip: characters outside the BMP become '?'."""
    if isinstance(v, str):
        return "".join(ch if ord(ch) <= 0xFFFF else "?" for ch in v)
    if isinstance(v, list):
        return [_normalise(x) for x in v]
    return v


@given(messages())
def test_any_message_round_trips(m: tuple[str, int, list[Any]]) -> None:
    kind, seq, args = m
    frame = codec.encode(kind, seq, args)
    assert frame.endswith(b"\n") and frame.count(b"\n") == 1
    assert all(32 <= b < 127 for b in frame[:-1])
    decoded = codec.decode_frame(frame)
    assert isinstance(decoded, dict), decoded
    spec = codec.message_spec(kind)
    assert spec is not None
    assert [decoded[f] for f, _t in spec[3]] == _normalise(args)


@given(st.binary(max_size=2048))
def test_random_bytes_never_crash_the_decoder(data: bytes) -> None:
    result = codec.decode_frame(data)
    assert isinstance(result, codec.DecodeError | dict)
    for r in codec.FrameReader().feed(data):
        assert isinstance(r, codec.DecodeError | dict)


mutations = st.lists(
    st.tuples(
        st.sampled_from(["flip", "set", "insert", "delete"]),
        st.integers(min_value=0, max_value=10_000),
        st.integers(min_value=0, max_value=255),
    ),
    min_size=1,
    max_size=6,
)


def mutate(frame: bytes, ops: list[tuple[str, int, int]]) -> bytes:
    b = bytearray(frame)
    for op, pos, val in ops:
        if not b:
            b.append(val)
            continue
        i = pos % len(b)
        if op == "flip":
            b[i] ^= 1 << (val % 8)
        elif op == "set":
            b[i] = val
        elif op == "insert":
            b.insert(i, val)
        else:
            del b[i]
    return bytes(b)


@settings(max_examples=500)
@given(st.sampled_from(VALID_FRAMES), mutations)
def test_a_corrupted_frame_is_never_accepted(frame: bytes, ops: list[tuple[str, int, int]]) -> None:
    original = codec.decode_frame(frame)
    corrupted = mutate(frame, ops)
    for r in codec.FrameReader().feed(corrupted + b"\n"):
        # Either refused, or (when the mutation only touched line endings) the same message.
        assert isinstance(r, codec.DecodeError) or r == original, (corrupted, r)


@given(st.binary(max_size=600), st.sampled_from(VALID_FRAMES))
def test_the_reader_recovers_at_the_next_frame(garbage: bytes, frame: bytes) -> None:
    results = codec.FrameReader().feed(garbage + b"\n" + frame)
    assert results[-1] == codec.decode_frame(frame)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40)
    | st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF,
                                     exclude_categories=("Cs",)), max_size=12)
    | st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=127), max_size=12),
    lambda inner: st.lists(inner, max_size=5) | st.tuples(inner, inner),
    max_leaves=20,
)


@given(_json_values)
@settings(max_examples=500, deadline=None)
def test_the_hosts_fast_json_text_is_the_codecs_byte_for_byte(v: Any) -> None:
    from dialbox_protocol.frames import json_text

    assert json_text(v) == codec.dumps(v)


def test_a_lone_surrogate_is_refused_by_both_json_paths() -> None:
    """A str with a lone surrogate has no UTF-8 bytes: no frame can carry it, and neither
    encoder makes one (a str decoded from a frame never holds one)."""
    from dialbox_protocol.frames import json_text

    for encode in (json_text, codec.dumps):
        with pytest.raises(UnicodeEncodeError):
            encode(["\ud800"])
