"""Golden vectors (protocol/vectors.json) under CPython and the real MicroPython interpreter."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from dialbox.paths import micropython_binary, protocol_dir
from dialbox_protocol import codec
from dialbox_protocol.frames import FrameParser, ProtocolError, parse_frame, to_frame
from dialbox_protocol.models import Message

VECTORS_PATH = protocol_dir() / "vectors.json"
VECTORS: dict[str, Any] = json.loads(VECTORS_PATH.read_text())
HERE = Path(__file__).parent


def raw(text: str) -> bytes:
    return text.encode("latin-1")


def test_vectors_match_this_protocol() -> None:
    assert VECTORS["protocol"] == codec.PROTOCOL_VERSION
    assert VECTORS["table_hash"] == codec.TABLE_HASH


@pytest.mark.parametrize("case", VECTORS["valid"], ids=lambda c: c["name"])
def test_valid_frame_round_trips_through_codec_and_models(case: dict[str, Any]) -> None:
    frame = raw(case["frame"])
    assert codec.decode_frame(frame) == case["message"]
    assert codec.encode_dict(case["message"]) == frame
    typed = parse_frame(frame)
    assert isinstance(typed, Message), typed
    assert typed.type_name() == case["message"]["t"]
    assert to_frame(typed) == frame


@pytest.mark.parametrize("case", VECTORS["invalid"], ids=lambda c: c["name"])
def test_invalid_frame_gives_its_specific_error(case: dict[str, Any]) -> None:
    result = parse_frame(raw(case["frame"]))
    assert isinstance(result, ProtocolError)
    assert result.code_name == case["error"]
    assert result.describe().startswith(f"error {case['error']}")


@pytest.mark.parametrize("case", VECTORS["streams"], ids=lambda c: c["name"])
def test_stream_resynchronises(case: dict[str, Any]) -> None:
    parser = FrameParser()
    got = [
        r.code_name if isinstance(r, ProtocolError) else r.type_name()
        for r in parser.feed(raw(case["data"]))
    ]
    assert got == case["results"]


def test_stream_fed_one_byte_at_a_time_gives_the_same_results() -> None:
    for case in VECTORS["streams"]:
        parser = FrameParser()
        got = []
        for b in raw(case["data"]):
            got += [
                r.code_name if isinstance(r, ProtocolError) else r.type_name()
                for r in parser.feed(bytes([b]))
            ]
        assert got == case["results"], case["name"]


def _run_vectors(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*cmd, str(HERE / "mp_vectors.py"), str(VECTORS_PATH)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def _expected_checks() -> int:
    return (4 + 3 * len(VECTORS["valid"]) + len(VECTORS["invalid"]) + len(VECTORS["streams"])
            + len(VECTORS.get("hmac", ())) + ("hello_mac_example" in VECTORS))


@pytest.mark.micropython
def test_vectors_under_the_micropython_unix_port() -> None:
    env = dict(os.environ, MICROPYPATH=str(protocol_dir()))
    proc = _run_vectors([micropython_binary()], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == f"{_expected_checks()} passed, 0 failed"


@pytest.mark.micropython
def test_vectors_under_micropython_with_a_96k_heap() -> None:
    env = dict(os.environ, MICROPYPATH=str(protocol_dir()))
    proc = _run_vectors([micropython_binary(), "-X", "heapsize=96k"], env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("0 failed")
