"""Check protocol/vectors.json against the shared codec; runs under MicroPython and CPython.

Usage: micropython mp_vectors.py PATH/TO/vectors.json  (with the protocol dir on MICROPYPATH)
Prints one line per failure and a closing "N passed, M failed" line; exits 1 on any failure.
"""

import json
import sys

from dialbox_protocol import codec


def _bytes(text):
    try:
        return text.encode("latin-1")
    except Exception:  # MicroPython encodes as UTF-8 whatever the argument
        return text.encode()


def _unhex(text):
    return bytes(int(text[i : i + 2], 16) for i in range(0, len(text), 2))


def _name(r):
    if isinstance(r, codec.DecodeError):
        return r.code_name()
    return r["t"]


def main(path):
    with open(path) as f:
        v = json.load(f)  # streamed: no copy of the whole text in a small heap
    passed = 0
    failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL " + what)

    check(v["protocol"] == codec.PROTOCOL_VERSION, "protocol version")
    check(v["table_hash"] == codec.TABLE_HASH, "message table hash")
    ce = v["commitment_example"]
    nonce = bytes(int(ce["nonce_hex"][i : i + 2], 16) for i in range(0, len(ce["nonce_hex"]), 2))
    check(
        codec.commitment(ce["sel"], nonce, ce["pid"], ce["uid"]) == ce["commitment"], "commitment"
    )
    check(
        codec.verify_reveal(ce["commitment"], ce["sel"], codec.b64(nonce), ce["pid"], ce["uid"]),
        "verify_reveal",
    )
    for case in v.get("hmac", ()):
        mac = codec.hmac_sha256(_unhex(case["key_hex"]), _unhex(case["data_hex"]))
        check(mac == _unhex(case["mac_hex"]), "hmac_sha256 key of %d bytes" % (
            len(case["key_hex"]) // 2))
    he = v.get("hello_mac_example")
    if he is not None:
        mac = codec.hello_mac(_unhex(he["key_hex"]), he["challenge"], he["uid"])
        check(mac == he["mac"], "hello_mac")
    for case in v["valid"]:
        m = case["message"]
        spec = codec.message_spec(m["t"])
        args = [m[f] for f, _t in spec[3]]
        frame = _bytes(case["frame"])
        check(codec.encode(m["t"], m["seq"], args) == frame, "encode " + case["name"])
        check(codec.decode_frame(frame) == m, "decode " + case["name"])
        check(codec.encode_dict(m) == frame, "encode_dict " + case["name"])
    for case in v["invalid"]:
        r = codec.decode_frame(_bytes(case["frame"]))
        got = _name(r) if isinstance(r, codec.DecodeError) else "accepted"
        check(got == case["error"], "invalid %s: got %s" % (case["name"], got))
    for case in v["streams"]:
        reader = codec.FrameReader()
        got = [_name(r) for r in reader.feed(_bytes(case["data"]))]
        check(got == case["results"], "stream %s: got %s" % (case["name"], got))
    print("%d passed, %d failed" % (passed, failed))
    return failed


if __name__ == "__main__":
    sys.exit(1 if main(sys.argv[1]) else 0)
