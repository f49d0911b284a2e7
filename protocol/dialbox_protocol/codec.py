"""dialbox protocol v1 codec: frames <-> messages, shared unchanged by firmware and host.

This file runs under MicroPython (the controller firmware) and CPython (the host daemon).
It uses only the subset both runtimes share: no dataclasses, no typing at runtime, no
f-strings with format specs, only json / hashlib / binascii. See docs/protocol.md.

A frame is one line of printable ASCII:

    <compact JSON array><8 lowercase hex digits: CRC-32 of the array>\\n

The array is [type, seq, field, field, ...] with the fields the message table gives.
decode_frame() and FrameReader never raise on bad input: they return a DecodeError value.
"""

import binascii
import hashlib
import json

from dialbox_protocol.strictjson import json_strict

try:
    from micropython import const
except ImportError:  # CPython

    def const(x):
        return x


PROTOCOL_VERSION = const(1)
MAX_FRAME = const(1024)  # bytes on the wire, including the trailing newline
MAX_SEQ = const(65535)  # sequence numbers run 1..65535 then wrap to 1; 0 = unsequenced
MAX_PID = const(16777215)  # prompt ids are 0..2**24-1
MAX_FACES = const(32)  # faces per wheel
WHEELS = const(3)
NONCE_BYTES = const(12)
COMMIT_BYTES = const(16)
MAX_SEATS = const(6)  # seats at a table (0..5)
CHALLENGE_BYTES = const(16)  # identify's random challenge
MAC_BYTES = const(16)  # hello's HMAC-SHA256, truncated
KEY_MIN = const(16)  # a device key is 16..32 random bytes
KEY_MAX = const(32)

# Error codes (shared by DecodeError values and "error" messages on the wire).
E_CRC = const(1)
E_FRAME = const(2)
E_OVERSIZE = const(3)
E_JSON = const(4)
E_TYPE = const(5)
E_FIELDS = const(6)
E_VERSION = const(7)
E_TABLE = const(8)
E_DEVICE = const(9)
E_STATE = const(10)
E_PROMPT = const(11)
E_ILLEGAL = const(12)
E_MISMATCH = const(13)
E_SEAT = const(14)
E_CONFIG = const(15)
E_DIRECTION = const(16)
E_SPOOF = const(17)
E_INTERNAL = const(18)
E_AUTH = const(19)

ERROR_NAMES = {
    E_CRC: "bad_crc",
    E_FRAME: "bad_frame",
    E_OVERSIZE: "oversize",
    E_JSON: "bad_json",
    E_TYPE: "unknown_type",
    E_FIELDS: "bad_fields",
    E_VERSION: "version_mismatch",
    E_TABLE: "table_mismatch",
    E_DEVICE: "unknown_device",
    E_STATE: "unexpected_now",
    E_PROMPT: "unknown_prompt",
    E_ILLEGAL: "illegal_choice",
    E_MISMATCH: "reveal_mismatch",
    E_SEAT: "no_seat",
    E_CONFIG: "bad_config",
    E_DIRECTION: "wrong_direction",
    E_SPOOF: "uid_in_use",
    E_INTERNAL: "internal",
    E_AUTH: "auth_failed",
}

# The detail of the `unexpected_now` error a controller without a session answers a reliable
# frame with (docs/protocol.md, Handshake): the host identifies again and resumes it.
NO_SESSION = "no session"

# Field names "t" and "seq" are reserved for the decoded dict's type and sequence number.
# Field types: i int, s str, b bool, l list, S str or null, I int or null.
# Direction: d = host->controller (down), u = controller->host (up), b = both.
# Reliable messages carry a sequence number > 0 and are acknowledged with "ack".
# (name, direction, reliable, ((field, type), ...))
MESSAGES = (
    (
        "identify",
        "d",
        0,
        (("proto", "i"), ("table_hash", "s"), ("host", "s"), ("challenge", "s")),
    ),
    (
        "hello",
        "u",
        0,
        (
            ("proto", "i"),
            ("table_hash", "s"),
            ("fw", "s"),
            ("board", "s"),
            ("uid", "s"),
            ("caps", "l"),
            ("mac", "s"),
        ),
    ),
    ("welcome", "d", 1, (("seat", "i"), ("colour", "s"), ("table", "s"), ("name", "s"))),
    ("snapshot", "u", 1, (("pid", "I"), ("state", "s"), ("commitment", "S"))),
    (
        "prompt",
        "d",
        1,
        (
            ("pid", "i"),
            ("sealed", "b"),
            ("unlock", "b"),
            ("text", "s"),
            ("wheels", "l"),
            ("live", "b"),
        ),
    ),
    ("status", "b", 0, (("pid", "I"), ("state", "s"))),
    ("commit", "u", 1, (("pid", "i"), ("commitment", "s"))),
    ("uncommit", "u", 1, (("pid", "i"),)),
    ("alllocked", "d", 1, (("pid", "i"), ("commits", "l"))),
    ("reveal", "u", 1, (("pid", "i"), ("sel", "l"), ("nonce", "s"))),
    ("dial", "u", 0, (("pid", "i"), ("sel", "l"))),
    ("revealed", "d", 1, (("pid", "i"), ("choices", "l"), ("summary", "s"), ("reveals", "l"))),
    ("headline", "d", 1, (("text", "s"),)),
    ("seatview", "d", 1, (("view", "s"),)),
    ("ping", "b", 0, (("ms", "i"),)),
    ("pong", "b", 0, (("ms", "i"),)),
    ("error", "b", 0, (("code", "i"), ("detail", "s"), ("ref", "i"))),
    (
        "config",
        "d",
        1,
        (
            ("device", "s"),
            ("colour", "s"),
            ("ssid", "s"),
            ("psk", "s"),
            ("broker", "s"),
            ("port", "i"),
            ("user", "s"),
            ("password", "s"),
            ("table", "s"),
            ("key", "s"),
        ),
    ),
    ("ack", "b", 0, (("ref", "i"),)),
)

# States a controller reports in "status" and "snapshot".
STATES = ("idle", "editing", "locked", "unlocked", "alllocked", "revealed")

_BY_NAME = {}
for _m in MESSAGES:
    _BY_NAME[_m[0]] = _m


def _table_text():
    parts = []
    for name, direction, reliable, fields in MESSAGES:
        fs = []
        for f, t in fields:
            fs.append(f + "/" + t)
        parts.append("%s:%s:%d:%s" % (name, direction, reliable, ",".join(fs)))
    return "v%d;" % PROTOCOL_VERSION + ";".join(parts)


def _hex(data):
    return binascii.hexlify(data).decode()


TABLE_HASH = _hex(hashlib.sha256(_table_text().encode()).digest()[:4])


def message_spec(name):
    """The table row (name, direction, reliable, fields) for a message type, or None."""
    return _BY_NAME.get(name)


def is_reliable(name):
    m = _BY_NAME.get(name)
    return bool(m and m[2])


class DecodeError:
    """A frame or message that could not be accepted. Returned, never raised."""

    def __init__(self, code, detail, name=None, seq=0, field=None):
        self.code = code
        self.detail = detail
        self.name = name
        self.seq = seq
        self.field = field

    def code_name(self):
        return ERROR_NAMES.get(self.code, "error")

    def __repr__(self):
        return "DecodeError(%s: %s)" % (self.code_name(), self.detail)


# ---------------------------------------------------------------- CRC-32 (IEEE, as zlib)

try:
    _crc32 = binascii.crc32
except AttributeError:  # ports built without binascii.crc32
    _crc32 = None


def crc32(data):
    if _crc32 is not None:
        return _crc32(data) & 0xFFFFFFFF
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            if crc & 1:
                crc = (crc >> 1) ^ 0xEDB88320
            else:
                crc >>= 1
    return crc ^ 0xFFFFFFFF


def _crc_hex(body):
    c = crc32(body)
    return "%08x" % c


# ---------------------------------------------------------------- encoding

_HEXD = "0123456789abcdef"


def _enc_str(s, out):
    # the check walks the bytes: iterating a str makes a 1-character string per character,
    # which MicroPython interns (a new qstr pool, one contiguous block, can then fail)
    for b in s.encode():
        if b == 34 or b == 92 or not 32 <= b < 127:
            break
    else:  # plain printable ASCII: one piece (same output, far fewer small allocations)
        out.append('"' + s + '"')
        return
    out.append('"')
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif 32 <= o < 127:
            out.append(ch)
        elif o > 0xFFFF:
            out.append("?")  # outside the BMP: MicroPython's json cannot rebuild pairs
        else:
            _enc_u(o, out)
    out.append('"')


def _enc_u(o, out):
    out.append(
        "\\u" + _HEXD[(o >> 12) & 15] + _HEXD[(o >> 8) & 15] + _HEXD[(o >> 4) & 15] + _HEXD[o & 15]
    )


def _enc(v, out):
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif type(v) is int:
        out.append(str(v))
    elif type(v) is str:
        _enc_str(v, out)
    elif type(v) is list or type(v) is tuple:
        out.append("[")
        first = True
        for x in v:
            if not first:
                out.append(",")
            first = False
            _enc(x, out)
        out.append("]")
    else:
        raise ValueError("cannot encode %r" % (v,))


def dumps(v):
    """Compact, deterministic JSON text (ASCII only) for ints, strs, bools, None and lists."""
    out = []
    _enc(v, out)
    return "".join(out)


def encode(name, seq, args, text=dumps, check=True):
    """Encode one message as a frame (bytes, newline-terminated).

    args is the list of field values in table order. Raises ValueError for a message the
    table does not describe: encoding is done by our own code, so that is a programming error.
    `text` turns the array into JSON text; the host passes a faster one that gives the same
    bytes (dialbox_protocol.frames). `check=False` skips the field types check, for values
    already validated (the host's messages are checked by their models when built).
    """
    spec = _BY_NAME.get(name)
    if spec is None:
        raise ValueError("unknown message type %r" % (name,))
    err = _check_fields(spec, args) if check else None
    if err is not None:
        raise ValueError("%s: %s" % (name, err[1]))
    body = text([name, seq] + list(args)).encode()
    frame = body + _crc_hex(body).encode() + b"\n"
    if len(frame) > MAX_FRAME:
        raise ValueError("%s frame is %d bytes, over %d" % (name, len(frame), MAX_FRAME))
    return frame


def encode_dict(msg):
    """Encode a message given as a dict {"t": name, "seq": n, field: value, ...}."""
    spec = _BY_NAME.get(msg.get("t"))
    if spec is None:
        raise ValueError("unknown message type %r" % (msg.get("t"),))
    args = []
    for f, _t in spec[3]:
        args.append(msg.get(f))
    return encode(spec[0], msg.get("seq", 0), args)


# ---------------------------------------------------------------- decoding


def _type_ok(v, t):
    if t == "i":
        return type(v) is int
    if t == "s":
        return type(v) is str
    if t == "b":
        return v is True or v is False
    if t == "l":
        return type(v) is list
    if t == "S":
        return v is None or type(v) is str
    if t == "I":
        return v is None or type(v) is int
    return False


def _check_fields(spec, args):
    fields = spec[3]
    if len(args) != len(fields):
        return (None, "expects %d fields, got %d" % (len(fields), len(args)))
    i = 0
    for f, t in fields:
        if not _type_ok(args[i], t):
            return (f, "field %s has the wrong type" % f)
        i += 1
    return None


def decode_frame(line):
    """Decode one frame (bytes, with or without the trailing newline).

    Returns a dict {"t": name, "seq": n, field: value, ...} or a DecodeError. Never raises.
    """
    try:
        return _decode(line)
    except Exception as e:  # belt and braces: the decoder must never raise
        return DecodeError(E_INTERNAL, "decoder failure: %s" % (e,))


def _decode(line):
    n = len(line)
    if n and line[n - 1] == 10:
        n -= 1
    if n and line[n - 1] == 13:
        n -= 1
    if n + 1 > MAX_FRAME:
        return DecodeError(E_OVERSIZE, "frame of %d bytes is over %d" % (n + 1, MAX_FRAME))
    if n < 12:
        return DecodeError(E_FRAME, "frame too short (%d bytes)" % n)
    body = bytes(line[: n - 8])
    crc_text = bytes(line[n - 8 : n])
    if min(body) < 32 or max(body) > 126:
        return DecodeError(E_FRAME, "frame holds non-printable or non-ASCII bytes")
    if _crc_hex(body).encode() != crc_text:
        # only now tell a malformed checksum from a wrong one (the good path skips the loop)
        for c in crc_text:
            if not (48 <= c <= 57 or 97 <= c <= 102):
                return DecodeError(E_FRAME, "frame does not end in 8 lowercase hex digits")
        return DecodeError(E_CRC, "checksum mismatch")
    # json.loads alone differs between the runtimes (MicroPython takes [1,,2], 01, "\v"):
    # the strict check first makes both refuse the same bodies (docs/protocol.md, Strictness)
    if not json_strict(body):
        return DecodeError(E_JSON, "frame body is not valid JSON")
    try:
        arr = json.loads(body)
    except Exception:
        return DecodeError(E_JSON, "frame body is not valid JSON")
    if type(arr) is not list or len(arr) < 2:
        return DecodeError(E_JSON, "frame body is not an array [type, seq, ...]")
    name = arr[0]
    seq = arr[1]
    if type(name) is not str:
        return DecodeError(E_JSON, "message type is not a string")
    if type(seq) is not int or seq < 0 or seq > MAX_SEQ:
        return DecodeError(E_FIELDS, "sequence number out of range", name, 0, "seq")
    spec = _BY_NAME.get(name)
    if spec is None:
        return DecodeError(E_TYPE, "unknown message type %s" % name, name, seq)
    args = arr[2:]
    if name == "hello" or name == "identify":
        # before the field count: a peer of another protocol or message table may well have
        # other fields, and must hear "update", not "bad fields"
        bad = _check_version(name, seq, args)
        if bad is not None:
            return bad
    err = _check_fields(spec, args)
    if err is not None:
        return DecodeError(E_FIELDS, err[1], name, seq, err[0])
    if spec[2] and seq == 0:
        return DecodeError(E_FIELDS, "reliable message without a sequence number", name, 0, "seq")
    msg = {"t": name, "seq": seq}
    i = 0
    for f, _t in spec[3]:
        msg[f] = args[i]
        i += 1
    if name == "prompt":
        bad = check_wheels(msg["wheels"])
        if bad is not None:
            return DecodeError(E_FIELDS, bad, name, seq, "wheels")
    elif name == "reveal" or name == "dial":
        bad = check_selection(msg["sel"])
        if bad is not None:
            return DecodeError(E_FIELDS, bad, name, seq, "sel")
    return msg


def _check_version(name, seq, args):
    """hello/identify: a DecodeError for another protocol version or message table, else
    None (fields that are not [int, str, ...] are left to the field check)."""
    if len(args) < 2 or type(args[0]) is not int or type(args[1]) is not str:
        return None
    if args[0] != PROTOCOL_VERSION:
        return DecodeError(
            E_VERSION,
            "protocol version %d, this side speaks %d" % (args[0], PROTOCOL_VERSION),
            name,
            seq,
            "proto",
        )
    if args[1] != TABLE_HASH:
        return DecodeError(
            E_TABLE,
            "message table %s, this side has %s" % (args[1], TABLE_HASH),
            name,
            seq,
            "table_hash",
        )
    return None


class FrameReader:
    """Splits a byte stream into frames and decodes them.

    The line buffer is allocated once. A reader that starts mid-stream, or meets corrupted
    bytes, loses at most the damaged frame and resynchronises at the next newline.
    """

    def __init__(self, max_frame=MAX_FRAME):
        self.buf = bytearray(max_frame)
        self.mv = memoryview(self.buf)
        self.n = 0
        self.overflow = False
        self.max = max_frame

    def push(self, b):
        """Take one byte. Returns None, or a decoded message / DecodeError at end of line."""
        if b == 10:
            n = self.n
            self.n = 0
            if self.overflow:
                self.overflow = False
                return DecodeError(E_OVERSIZE, "line longer than %d bytes dropped" % self.max)
            if n == 0 or (n == 1 and self.buf[0] == 13):
                return None  # blank line: keepalive or line-ending noise, ignored
            return decode_frame(self.mv[:n])
        if self.overflow:
            return None
        if self.n >= self.max - 1:
            self.overflow = True
            self.n = 0
            return None
        self.buf[self.n] = b
        self.n += 1
        return None

    def feed(self, data):
        """Take a chunk of bytes; return the list of messages / DecodeErrors it completed."""
        out = []
        for b in data:
            r = self.push(b)
            if r is not None:
                out.append(r)
        return out


def check_wheels(wheels):
    """Cheap structural check of a prompt's wheels; returns an error text or None.

    wheels is a list of exactly 3 entries (left, centre, right). Each is null for an
    inactive wheel, or [faces, allowed, start]: faces is null (the wheel's default faces)
    or a list of [label, value, colour]; allowed is a bit mask over the faces (bit i set =
    face i may be chosen); start is the face index the wheel shows first.
    """
    if len(wheels) != WHEELS:
        return "wheels must list exactly 3 wheels"
    w = 0
    for wheel in wheels:
        if wheel is None:
            w += 1
            continue
        if type(wheel) is not list or len(wheel) != 3:
            return "wheel %d must be null or [faces, allowed, start]" % w
        faces, allowed, start = wheel
        if faces is None:
            count = len(DEFAULT_FACES[w])
        elif type(faces) is list:
            count = len(faces)
            if count == 0 or count > MAX_FACES:
                return "wheel %d must have 1 to %d faces" % (w, MAX_FACES)
            for f in faces:
                if (
                    type(f) is not list
                    or len(f) != 3
                    or type(f[0]) is not str
                    or type(f[1]) is not int
                    or type(f[2]) is not str
                    or len(f[2]) != 6
                ):
                    return "wheel %d has a face that is not [label, value, rrggbb]" % w
        else:
            return "wheel %d faces must be null or a list" % w
        if type(allowed) is not int or allowed <= 0 or allowed >= (1 << count):
            return "wheel %d allowed mask must name at least one of its %d faces" % (w, count)
        if type(start) is not int or start < 0 or start >= count:
            return "wheel %d start face out of range" % w
        w += 1
    return None


def check_selection(sel):
    """Cheap check of a selection (reveal, dial): 3 face indices, -1 for an inactive wheel."""
    if len(sel) != WHEELS:
        return "a selection names exactly 3 wheels"
    for v in sel:
        if type(v) is not int or v < -1 or v >= MAX_FACES:
            return "a selection holds face indices -1..%d" % (MAX_FACES - 1)
    return None


# ---------------------------------------------------------------- commit-reveal

_B64_PAD = b"="


def b64(data):
    """Standard base64 without padding or newline."""
    return binascii.b2a_base64(data).strip().rstrip(_B64_PAD).decode()


def unb64(text):
    """Inverse of b64(); returns None for text that is not valid base64."""
    try:
        t = text.encode() if type(text) is str else text
        t = t + _B64_PAD * ((4 - len(t) % 4) % 4)
        return binascii.a2b_base64(t)
    except Exception:
        return None


def selection_text(sel):
    """Canonical text of a selection: face indices per wheel, -1 for an inactive wheel."""
    parts = []
    for v in sel:
        parts.append(str(v))
    return ",".join(parts)


def commitment(sel, nonce, pid, device):
    """The commitment a controller sends on lock.

    base64 (no padding) of the first 16 bytes of
    SHA-256("dialbox-commit-v1|<device>|<pid>|<selection text>|" + nonce bytes).
    """
    text = "dialbox-commit-v1|%s|%d|%s|" % (device, pid, selection_text(sel))
    h = hashlib.sha256(text.encode())
    h.update(nonce)
    return b64(h.digest()[:COMMIT_BYTES])


def verify_reveal(commit_text, sel, nonce_text, pid, device):
    """True when a revealed selection + nonce matches the commitment sent on lock."""
    nonce = unb64(nonce_text)
    if nonce is None or len(nonce) != NONCE_BYTES:
        return False
    return commitment(sel, nonce, pid, device) == commit_text


# ---------------------------------------------------------------- device identity

_BLOCK = const(64)  # SHA-256 block size


def hmac_sha256(key, data):
    """HMAC-SHA256 (RFC 2104) from hashlib.sha256 alone: MicroPython has no hmac module."""
    if len(key) > _BLOCK:
        key = hashlib.sha256(key).digest()
    ipad = bytearray(_BLOCK)
    opad = bytearray(_BLOCK)
    for i in range(_BLOCK):
        k = key[i] if i < len(key) else 0
        ipad[i] = k ^ 0x36
        opad[i] = k ^ 0x5C
    inner = hashlib.sha256(bytes(ipad))
    inner.update(data)
    outer = hashlib.sha256(bytes(opad))
    outer.update(inner.digest())
    return outer.digest()


def hello_mac(key, challenge, uid):
    """The proof a controller puts in its hello: base64 (no padding) of the first 16 bytes
    of HMAC-SHA256(device key, "dialbox-hello-v1|<challenge>|<uid>"), where challenge is
    the text of the identify's challenge field."""
    text = "dialbox-hello-v1|%s|%s" % (challenge, uid)
    return b64(hmac_sha256(key, text.encode())[:MAC_BYTES])


def device_key(text):
    """The device key (bytes) from its base64 text, or None when the text is not a key of
    KEY_MIN..KEY_MAX bytes ("" = no key)."""
    if not text:
        return None
    key = unb64(text)
    if key is None or not KEY_MIN <= len(key) <= KEY_MAX:
        return None
    return key


# ---------------------------------------------------------------- default wheel faces

# The physical controller's wheels, used when a prompt sends null for a wheel's faces.
# A face is [label, value, colour "rrggbb"].
DEFAULT_FACES = (
    # left: 8 directions, clockwise from up
    (
        ("N", 0, "ffffff"),
        ("NE", 1, "ffffff"),
        ("E", 2, "ffffff"),
        ("SE", 3, "ffffff"),
        ("S", 4, "ffffff"),
        ("SW", 5, "ffffff"),
        ("W", 6, "ffffff"),
        ("NW", 7, "ffffff"),
    ),
    # centre: digits 0-9, each on its own colour
    (
        ("0", 0, "9e9e9e"),
        ("1", 1, "e53935"),
        ("2", 2, "fb8c00"),
        ("3", 3, "fdd835"),
        ("4", 4, "43a047"),
        ("5", 5, "00acc1"),
        ("6", 6, "1e88e5"),
        ("7", 7, "8e24aa"),
        ("8", 8, "d81b60"),
        ("9", 9, "6d4c41"),
    ),
    # right: positions A-D in four colours
    (
        ("A", 0, "e53935"),
        ("B", 1, "fdd835"),
        ("C", 2, "43a047"),
        ("D", 3, "1e88e5"),
    ),
)
