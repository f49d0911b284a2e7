"""Device identity in the shared codec: HMAC-SHA256 against CPython's hmac, the hello MAC."""

from __future__ import annotations

import hashlib
import hmac
import os

from hypothesis import given
from hypothesis import strategies as st

from dialbox_protocol import codec
from dialbox_protocol.frames import parse_frame, to_frame
from dialbox_protocol.models import Config, Hello, Identify


@given(st.binary(max_size=200), st.binary(max_size=300))
def test_hmac_sha256_equals_cpythons_hmac(key: bytes, data: bytes) -> None:
    assert codec.hmac_sha256(key, data) == hmac.new(key, data, hashlib.sha256).digest()


def test_hello_mac_binds_key_challenge_and_uid() -> None:
    key = os.urandom(32)
    ch = codec.b64(os.urandom(codec.CHALLENGE_BYTES))
    mac = codec.hello_mac(key, ch, "ctl-a")
    expected = hmac.new(key, f"dialbox-hello-v1|{ch}|ctl-a".encode(), hashlib.sha256).digest()
    assert mac == codec.b64(expected[: codec.MAC_BYTES]) and len(mac) == 22
    assert codec.hello_mac(os.urandom(32), ch, "ctl-a") != mac
    assert codec.hello_mac(key, codec.b64(os.urandom(16)), "ctl-a") != mac
    assert codec.hello_mac(key, ch, "ctl-b") != mac


def test_device_key_text() -> None:
    assert codec.device_key("") is None
    assert codec.device_key(codec.b64(bytes(15))) is None
    assert codec.device_key(codec.b64(bytes(33))) is None
    assert codec.device_key(codec.b64(bytes(16))) == bytes(16)
    assert codec.device_key(codec.b64(b"k" * 32)) == b"k" * 32


def test_identify_carries_a_fresh_challenge_and_hello_a_mac() -> None:
    a, b = Identify(), Identify()
    assert a.challenge != b.challenge and len(a.challenge) == 22
    assert parse_frame(to_frame(a)) == a
    hello = Hello(fw="1", board="b", uid="u", mac=codec.hello_mac(bytes(16), a.challenge, "u"))
    assert parse_frame(to_frame(hello)) == hello
    assert parse_frame(to_frame(Hello(fw="1", board="b", uid="u"))).ok  # no key: mac ""
    bad = codec.encode("hello", 0, [1, codec.TABLE_HASH, "1", "b", "u", [], "short"])
    err = parse_frame(bad)
    assert not err.ok and err.field == "mac"  # type: ignore[union-attr]
    cfg = Config(seq=1, device="d", colour="ffffff", key=codec.b64(bytes(32)))
    assert parse_frame(to_frame(cfg)) == cfg


def test_an_old_shaped_hello_is_told_to_update_not_bad_fields() -> None:
    # a controller of the previous message table (hello without the mac field)
    body = b'["hello",0,1,"0badc0de","0.1.0","pico_w","u",[]]'
    old = body + b"%08x\n" % codec.crc32(body)
    err = parse_frame(old)
    assert not err.ok and err.code_name == "table_mismatch"  # type: ignore[union-attr]
