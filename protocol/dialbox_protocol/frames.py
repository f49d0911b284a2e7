"""The host's side of the codec: bytes <-> validated pydantic messages or typed errors."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import ClassVar

from pydantic import TypeAdapter, ValidationError

from dialbox_protocol import codec
from dialbox_protocol.models import Ack, AnyMessage, Message

_ADAPTER: TypeAdapter[AnyMessage] = TypeAdapter(AnyMessage)
_JSON = json.JSONEncoder(separators=(",", ":"))


@dataclass(frozen=True, slots=True)
class ProtocolError:
    """A frame or message the host could not accept: what, where, and the wire error code."""

    ok: ClassVar[bool] = False

    code: int
    detail: str
    field: str | None = None
    message_type: str | None = None
    seq: int = 0

    @property
    def code_name(self) -> str:
        return codec.ERROR_NAMES.get(self.code, "error")

    def describe(self) -> str:
        where = f" in {self.message_type}" if self.message_type else ""
        field = f" field {self.field!r}" if self.field else ""
        return f"error {self.code_name}{where}{field}: {self.detail}"


Parsed = Message | ProtocolError


def from_codec(decoded: object) -> Parsed:
    """Validate what codec.decode_frame returned into a typed message (or a ProtocolError)."""
    if isinstance(decoded, codec.DecodeError):
        return ProtocolError(decoded.code, decoded.detail, decoded.field, decoded.name, decoded.seq)
    assert isinstance(decoded, dict)
    try:
        msg: Message = _ADAPTER.validate_python(decoded)
    except ValidationError as e:
        first = e.errors()[0]
        loc = [str(p) for p in first["loc"]]
        # drop the discriminator tag pydantic puts first
        if loc and loc[0] == decoded.get("t"):
            loc = loc[1:]
        field = loc[0] if loc else None
        detail = first["msg"]
        if len(loc) > 1:
            detail = f"{'.'.join(loc[1:])}: {detail}"
        return ProtocolError(
            codec.E_FIELDS, detail, field, str(decoded.get("t")), int(decoded.get("seq", 0))
        )
    return msg


_ACK_IN = re.compile(rb'\["ack",(0|[1-9][0-9]{0,4}),([1-9][0-9]{0,4})\]([0-9a-f]{8})\r?\n?\Z')
"""An `ack` frame in its one canonical spelling (no spaces, no leading zeros): more than half
of what a table's controllers send. The fast path below takes only these and checks the same
things the codec and the model would (checksum, both numbers' ranges); anything else, right
or wrong, goes the whole way (tests/protocol: the two agree on every input tried)."""


def parse_frame(line: bytes) -> Parsed:
    """Decode and validate one frame. Never raises."""
    if line.startswith(b'["ack",'):
        m = _ACK_IN.match(line)
        if m is not None:
            seq, ref = int(m[1]), int(m[2])
            if (seq <= codec.MAX_SEQ and ref <= codec.MAX_SEQ
                    and codec.crc32(line[:m.end(2) + 1]) == int(m[3], 16)):
                return Ack(seq=seq, ref=ref)  # (pydantic's C validator: faster than
                # model_construct, which is Python)
    return from_codec(codec.decode_frame(line))


def json_text(v: object) -> str:
    """codec.dumps, byte for byte, from CPython's C encoder: the two agree on everything but
    escapes (the codec writes \\uXXXX for DEL and control characters, and '?' outside the
    BMP), so any text with an escape or a DEL is made by the codec itself."""
    text = _JSON.encode(v)
    if "\\" in text or "\x7f" in text:
        return codec.dumps(v)
    return text


def to_frame(msg: Message, seq: int | None = None) -> bytes:
    """Encode a message as a frame; `seq` overrides the message's own sequence number."""
    if type(msg) is Ack:  # the commonest frame out: the bytes codec.encode would make
        body = b'["ack",%d,%d]' % (msg.seq if seq is None else seq, msg.ref)
        return body + b"%08x\n" % codec.crc32(body)
    # the model checked every field when it was built: the codec need not check them again
    return codec.encode(msg.type_name(), msg.seq if seq is None else seq, msg.args(), json_text,
                        False)


class FrameParser:
    """A byte stream in, validated messages and typed errors out (resynchronising)."""

    def __init__(self) -> None:
        self._reader = codec.FrameReader()

    def feed(self, data: bytes) -> list[Parsed]:
        return [from_codec(r) for r in self._reader.feed(data)]
