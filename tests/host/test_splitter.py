"""The host's chunked line splitter agrees with the codec's byte-at-a-time FrameReader."""

from hypothesis import given
from hypothesis import strategies as st

from dialbox.transports.serial import LineSplitter, parse_line
from dialbox_protocol import codec
from dialbox_protocol.frames import FrameParser

FRAMES = [codec.encode("ping", 0, [i]) for i in range(5)]


@given(st.lists(st.one_of(st.sampled_from(FRAMES), st.binary(max_size=40),
                          st.just(b"z" * 1500)), max_size=12),
       st.lists(st.integers(1, 64), min_size=1, max_size=8))
def test_splitter_matches_the_codec_reader(parts: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(parts)
    slow = [(getattr(p, "code", None), getattr(p, "ms", None)) for p in FrameParser().feed(stream)]
    splitter = LineSplitter()
    fast = []
    i = k = 0
    while i < len(stream):
        n = cuts[k % len(cuts)]
        k += 1
        for line in splitter.feed(stream[i:i + n]):
            p = parse_line(line)
            fast.append((getattr(p, "code", None), getattr(p, "ms", None)))
        i += n
    assert fast == slow
