"""Round trips through the shared codec and the host's typed layer."""

from dialbox_protocol import codec
from dialbox_protocol.frames import ProtocolError, parse_frame, to_frame
from dialbox_protocol.models import Commit, Reveal


def test_commit_and_reveal_fit_in_64_bytes_and_verify() -> None:
    nonce = bytes(range(codec.NONCE_BYTES))
    sel = (7, 9, 3)
    c = codec.commitment(sel, nonce, codec.MAX_PID, "dev-1")
    commit = to_frame(Commit(seq=codec.MAX_SEQ, pid=codec.MAX_PID, commitment=c))
    reveal = to_frame(Reveal(seq=codec.MAX_SEQ, pid=codec.MAX_PID, sel=sel, nonce=codec.b64(nonce)))
    assert len(commit) <= 64 and len(reveal) <= 64
    r = parse_frame(reveal)
    assert isinstance(r, Reveal)
    assert codec.verify_reveal(c, r.sel, r.nonce, codec.MAX_PID, "dev-1")
    assert not codec.verify_reveal(c, (7, 9, 2), r.nonce, codec.MAX_PID, "dev-1")


def test_corrupt_frame_is_a_typed_error() -> None:
    frame = bytearray(to_frame(Commit(seq=1, pid=1, commitment="A" * 22)))
    frame[5] ^= 0x01
    result = parse_frame(bytes(frame))
    assert isinstance(result, ProtocolError)
    assert result.code == codec.E_CRC
