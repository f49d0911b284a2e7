"""Regenerate protocol/vectors.json, the golden frames <-> messages for protocol v1.

Run `python protocol/tools/make_vectors.py` only when the protocol changes on purpose (a new
protocol version); the tests compare both runtimes' codec against the committed file.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dialbox_protocol import codec  # noqa: E402

E = codec.encode
NONCE = bytes.fromhex("deadbeef0001020304050607")
UID = "e6614c311b7f2a2b"
COMMIT = codec.commitment([2, 3, -1], NONCE, 17, UID)
CHALLENGE = codec.b64(bytes.fromhex("00112233445566778899aabbccddeeff"))
KEY = bytes(range(1, 33))  # a 32-byte device key
MAC = codec.hello_mac(KEY, CHALLENGE, UID)
# a second seat's reveal (a bot: uid bot-<seat>), for alllocked/revealed
NONCE2 = bytes.fromhex("0f0e0d0c0b0a090807060504")
COMMIT2 = codec.commitment([0, 2, -1], NONCE2, 17, "bot-1")

VALID: list[tuple[str, str, int, list[Any]]] = [
    ("identify", "identify", 0, [1, codec.TABLE_HASH, "dialbox", CHALLENGE]),
    ("hello", "hello", 0, [1, codec.TABLE_HASH, "0.1.0", "pico_w", UID, ["oled", "led"], MAC]),
    ("hello without a key", "hello", 0, [1, codec.TABLE_HASH, "0.1.0", "pico_w", UID, [], ""]),
    ("welcome", "welcome", 1, [2, "43a047", "table1", "Green"]),
    ("welcome unseated", "welcome", 1, [-1, "ffffff", "table1", ""]),
    ("snapshot idle", "snapshot", 1, [None, "idle", None]),
    ("snapshot locked", "snapshot", 2, [17, "locked", COMMIT]),
    (
        "prompt defaults",
        "prompt",
        2,
        [17, True, True, "Move Pixoid", [[None, 85, 0], [None, 1022, 1], None], False],
    ),
    (
        "prompt custom faces",
        "prompt",
        3,
        [
            18,
            False,
            False,
            "Keep which token?",
            [None, None, [[["Nitro", 0, "ff0000"], ["Shield", 1, "0000ff"]], 3, 1]],
            False,
        ],
    ),
    (
        "prompt escapes",
        "prompt",
        4,
        [19, True, True, 'Say "hi" \\ \u2191 caf\u00e9', [None, [None, 1, 0], None], False],
    ),
    (
        "prompt live",
        "prompt",
        5,
        [
            20,
            False,
            False,
            "Next game?",
            [None, [[["Pixoid", 0, "e53935"], ["Stadium", 1, "43a047"]], 3, 0], None],
            True,
        ],
    ),
    ("status editing", "status", 0, [17, "editing"]),
    ("status idle no prompt", "status", 0, [None, "idle"]),
    ("commit", "commit", 2, [17, COMMIT]),
    ("commit largest", "commit", 65535, [16777215, COMMIT]),
    ("uncommit", "uncommit", 3, [17]),
    ("alllocked", "alllocked", 5, [17, [[0, COMMIT], [1, COMMIT2]]]),
    ("alllocked empty", "alllocked", 5, [17, []]),
    ("reveal", "reveal", 3, [17, [2, 3, -1], codec.b64(NONCE)]),
    ("reveal largest", "reveal", 65535, [16777215, [31, 31, 31], codec.b64(NONCE)]),
    ("dial", "dial", 0, [20, [-1, 1, -1]]),
    ("dial largest", "dial", 0, [16777215, [31, 31, 31]]),
    (
        "revealed",
        "revealed",
        6,
        [
            17,
            [[0, "E 3"], [1, "N 2"]],
            "Bug 2 caught Pixoid",
            [[0, [2, 3, -1], codec.b64(NONCE), UID], [1, [0, 2, -1], codec.b64(NONCE2), "bot-1"]],
        ],
    ),
    ("revealed void", "revealed", 7, [17, [], "Void: seat 2 lost its choice", []]),
    ("headline", "headline", 8, ["Round 2 Adventure: Blue's turn"]),
    ("headline cleared", "headline", 9, [""]),
    ("seatview", "seatview", 10,
     ['{"game":"pipcycle","seat":0,"phase":"game","private":{"hands":[["2H","5H","2C"],3]},'
      '"own":{"reserve":3,"lost":0},"headline":""}']),
    ("ping", "ping", 0, [123456]),
    ("pong", "pong", 0, [123456]),
    ("error", "error", 0, [13, "reveal does not match commitment", 3]),
    ("error no session", "error", 0, [codec.E_STATE, codec.NO_SESSION, 5]),
    (
        "config",
        "config",
        7,
        [
            "ctrl-1",
            "e53935",
            "clubwifi",
            "secret pass",
            "192.0.2.10",
            1883,
            "ctrl-1",
            "pw",
            "table1",
            codec.b64(KEY),
        ],
    ),
    ("ack", "ack", 0, [65535]),
]


def _hmac_examples() -> list[dict[str, str]]:
    """HMAC-SHA256 computed by CPython's own hmac module, for the codec's hmac_sha256 on
    both runtimes: keys shorter than, equal to and longer than the 64-byte block."""
    import hashlib
    import hmac

    out = []
    for n, data in ((0, b""), (16, b"dialbox"), (32, b"x" * 70), (64, b"block"),
                    (65, b"one over"), (100, b"\x00\xff")):
        key = bytes((i * 7 + n) % 256 for i in range(n))
        mac = hmac.new(key, data, hashlib.sha256).hexdigest()
        out.append({"key_hex": key.hex(), "data_hex": data.hex(), "mac_hex": mac})
    return out


def frame_text(b: bytes) -> str:
    return b.decode("ascii")


def main() -> None:
    out: dict[str, Any] = {
        "protocol": codec.PROTOCOL_VERSION,
        "table_hash": codec.TABLE_HASH,
        "commitment_example": {
            "uid": UID,
            "pid": 17,
            "sel": [2, 3, -1],
            "nonce_hex": NONCE.hex(),
            "commitment": COMMIT,
        },
        "hmac": _hmac_examples(),
        "hello_mac_example": {
            "key_hex": KEY.hex(),
            "challenge": CHALLENGE,
            "uid": UID,
            "mac": MAC,
        },
        "valid": [],
        "invalid": [],
        "streams": [],
    }
    for name, t, seq, args in VALID:
        frame = E(t, seq, args)
        msg: dict[str, Any] = {"t": t, "seq": seq}
        for (f, _ty), v in zip(codec.message_spec(t)[3], args, strict=True):  # type: ignore[index]
            msg[f] = v
        out["valid"].append({"name": name, "frame": frame_text(frame), "message": msg})

    good = E("commit", 2, [17, COMMIT])
    body = good[:-9]

    def crc_of(b: bytes) -> bytes:
        return f"{codec.crc32(b):08x}".encode()

    def sealed(b: bytes) -> str:
        return frame_text(b + crc_of(b) + b"\n")

    invalid = [
        ("garbage", "hello there\n", "bad_frame"),
        ("empty-ish", "[]\n", "bad_frame"),
        ("flipped bit", frame_text(good[:5] + bytes([good[5] ^ 1]) + good[6:]), "bad_crc"),
        ("truncated", frame_text(good[:30]) + "\n", "bad_frame"),
        ("truncated crc", frame_text(good[:-4]) + "\n", "bad_frame"),
        ("crc of another frame", frame_text(body + crc_of(body + b" ")) + "\n", "bad_crc"),
        ("uppercase crc", frame_text(body + crc_of(body).upper() + b"\n"), "bad_frame"),
        (
            "non-ascii",
            '["ping",0,1]\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\n',
            "bad_frame",
        ),
        ("not json", sealed(b"[ping,0,1]"), "bad_json"),
        ("json object", sealed(b'{"t":"ping"}'), "bad_json"),
        ("one-element array", sealed(b"[12345678]"), "bad_json"),
        ("type not a string", sealed(b"[1,0,5]"), "bad_json"),
        ("unknown type", sealed(b'["launch",0,1]'), "unknown_type"),
        ("missing field", sealed(b'["commit",2,17]'), "bad_fields"),
        ("extra field", sealed(b'["ack",0,1,2]'), "bad_fields"),
        ("wrong type", sealed(b'["commit",2,"17","' + COMMIT.encode() + b'"]'), "bad_fields"),
        ("bool is not int", sealed(b'["ack",0,true]'), "bad_fields"),
        ("float is not json here", sealed(b'["ack",0,1.5]'), "bad_json"),
        ("seq out of range", sealed(b'["ack",70000,1]'), "bad_fields"),
        ("reliable without seq", sealed(b'["alllocked",0,17,[]]'), "bad_fields"),
        ("alllocked without commits", sealed(b'["alllocked",5,17]'), "bad_fields"),
        (
            "bad wheels count",
            sealed(b'["prompt",2,1,true,true,"x",[null,null],false]'),
            "bad_fields",
        ),
        (
            "empty allowed mask",
            sealed(b'["prompt",2,1,true,true,"x",[null,[null,0,0],null],false]'),
            "bad_fields",
        ),
        (
            "mask beyond faces",
            sealed(b'["prompt",2,1,true,true,"x",[null,null,[null,16,0]],false]'),
            "bad_fields",
        ),
        (
            "bad selection",
            sealed(b'["reveal",3,17,[2,3],"' + codec.b64(NONCE).encode() + b'"]'),
            "bad_fields",
        ),
        (
            "selection out of range",
            sealed(b'["reveal",3,17,[2,3,40],"' + codec.b64(NONCE).encode() + b'"]'),
            "bad_fields",
        ),
        (
            "prompt without live",
            sealed(b'["prompt",2,1,false,false,"x",[null,[null,1,0],null]]'),
            "bad_fields",
        ),
        (
            "live not a bool",
            sealed(b'["prompt",2,1,false,false,"x",[null,[null,1,0],null],1]'),
            "bad_fields",
        ),
        ("dial bad selection", sealed(b'["dial",0,20,[1,2]]'), "bad_fields"),
        ("dial selection out of range", sealed(b'["dial",0,20,[-2,1,-1]]'), "bad_fields"),
        ("dial without selection", sealed(b'["dial",0,20]'), "bad_fields"),
        (
            "protocol version 2",
            sealed(b'["hello",0,2,"' + codec.TABLE_HASH.encode() + b'","1","b","u",[]]'),
            "version_mismatch",
        ),
        ("other message table", sealed(b'["identify",0,1,"00000000","h"]'), "table_mismatch"),
        ("deep nesting", sealed(b"[" * 400 + b"]" * 400), "bad_json"),
        # strict JSON (docs/protocol.md, Strictness): MicroPython's json takes all of these
        ("doubled comma", sealed(b'["ack",0,,1]'), "bad_json"),
        ("trailing comma", sealed(b'["ack",0,1,]'), "bad_json"),
        ("missing comma", sealed(b'["ack",0 1]'), "bad_json"),
        ("colon for comma", sealed(b'["ack",0:1]'), "bad_json"),
        ("leading zero", sealed(b'["ack",0,017]'), "bad_json"),
        ("negative leading zero", sealed(b'["ping",0,-01]'), "bad_json"),
        ("literal runs into a number", sealed(b'["ack",0,true1]'), "bad_json"),
        ("escape \\v", sealed(b'["error",0,1,"\\v",0]'), "bad_json"),
        ("escape \\x", sealed(b'["error",0,1,"\\x41",0]'), "bad_json"),
        ("bad unicode escape", sealed(b'["error",0,1,"\\uzzzz",0]'), "bad_json"),
        ("surrogate pair escape", sealed(b'["error",0,1,"\\ud83d\\ude00",0]'), "bad_json"),
        ("exponent", sealed(b'["ack",0,1e3]'), "bad_json"),
        ("NaN", sealed(b'["ack",0,NaN]'), "bad_json"),
        ("object in a list", sealed(b'["revealed",4,17,[{"a":1}],"x"]'), "bad_json"),
        (
            "nested 9 deep",
            sealed(b'["revealed",4,17,' + b"[" * 8 + b"]" * 8 + b',"x"]'),
            "bad_json",
        ),
    ]
    for name, bad, err in invalid:
        out["invalid"].append({"name": name, "frame": bad, "error": err})

    oversize = sealed(b'["error",0,1,"' + b"x" * 1100 + b'",0]')
    ping = frame_text(E("ping", 0, [7]))
    streams = [
        ("join mid-stream", frame_text(good[20:]) + ping, ["bad_crc", "ping"]),
        ("noise then frame", "\x00\x01zz\n" + ping + ping, ["bad_frame", "ping", "ping"]),
        ("blank lines ignored", "\n\n" + ping + "\r\n", ["ping"]),
        ("oversize line dropped", oversize + ping, ["oversize", "ping"]),
        (
            "newline inside corruption",
            frame_text(good[:12]) + "\n" + frame_text(good[12:]) + ping,
            ["bad_frame", "bad_crc", "ping"],
        ),
    ]
    for name, data, results in streams:
        out["streams"].append({"name": name, "data": data, "results": results})

    path = Path(__file__).resolve().parents[1] / "vectors.json"
    path.write_text(json.dumps(out, indent=1, ensure_ascii=True) + "\n")
    print(
        f"wrote {path}: {len(out['valid'])} valid, {len(out['invalid'])} invalid, "
        f"{len(out['streams'])} streams"
    )


if __name__ == "__main__":
    main()
