"""The host's fast paths for `ack` frames agree with the full codec + model path exactly."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from dialbox_protocol import codec
from dialbox_protocol.frames import from_codec, parse_frame, to_frame
from dialbox_protocol.models import Ack, Prompt, Revealed

seqs = st.integers(min_value=0, max_value=codec.MAX_SEQ)
refs = st.integers(min_value=1, max_value=codec.MAX_SEQ)


def slow(line: bytes) -> object:
    return from_codec(codec.decode_frame(line))


@given(seqs, refs)
def test_an_ack_is_encoded_as_the_codec_would(seq: int, ref: int) -> None:
    frame = to_frame(Ack(ref=ref), seq)
    assert frame == codec.encode("ack", seq, [ref])
    assert parse_frame(frame) == slow(frame) == Ack(seq=seq, ref=ref)


@settings(max_examples=400)
@given(seqs, refs, st.integers(min_value=0, max_value=40), st.binary(min_size=1, max_size=3),
       st.sampled_from(["replace", "insert", "delete"]))
def test_a_damaged_ack_gets_the_same_answer_both_ways(seq: int, ref: int, at: int, junk: bytes,
                                                     how: str) -> None:
    frame = bytearray(to_frame(Ack(ref=ref), seq))
    at %= len(frame)
    if how == "replace":
        frame[at:at + len(junk)] = junk
    elif how == "insert":
        frame[at:at] = junk
    else:
        del frame[at:at + len(junk)]
    line = bytes(frame)
    assert parse_frame(line) == slow(line)


def test_acks_the_fast_path_does_not_take_still_decode_as_before() -> None:
    body = b'["ack",1,070000]'  # out of range and a leading zero: refused by both
    for line in (b'["ack",1,0]', b'["ack", 1, 2]', b'["ack",01,2]', body,
                 b'["ack",1,65536]', b'["ack",65536,1]', b'["ack",1,2,3]'):
        framed = line + b"%08x\n" % codec.crc32(line)
        assert parse_frame(framed) == slow(framed)
    spaced = b'["ack", 1, 2]'
    assert parse_frame(spaced + b"%08x\n" % codec.crc32(spaced)) == Ack(seq=1, ref=2)


def test_host_messages_encode_tuples_as_arrays() -> None:
    """args() hands nested tuples to the JSON encoders as they are: the bytes are the
    codec's own (which writes every list and tuple as an array)."""
    r = Revealed(pid=4, choices=[(0, "Up")], summary="all in",
                 reveals=[(0, (1, 2, -1), "A" * 16, "c1")], seq=3)
    p = Prompt(pid=4, sealed=True, unlock=False, text="Keep which?",
               wheels=[None, None, [[["Nitro", 0, "ff0000"], ["Shield", 1, "0000ff"]], 1, 1]],
               seq=5)
    for m in (r, p):
        assert to_frame(m) == codec.encode(m.type_name(), m.seq, m.args(), codec.dumps)
        assert slow(to_frame(m)) == m
