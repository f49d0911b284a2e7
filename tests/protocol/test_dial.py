"""Live prompts and `dial` (docs/protocol.md, "Live prompts"): the codec and the host's
models under CPython, the golden vectors of both under the MicroPython unix port."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from dialbox.paths import micropython_binary, protocol_dir
from dialbox_protocol import codec
from dialbox_protocol.frames import ProtocolError, parse_frame, to_frame
from dialbox_protocol.models import Dial, Prompt

VECTORS: dict[str, Any] = json.loads((protocol_dir() / "vectors.json").read_text())
HERE = Path(__file__).parent
MENU = [None, [[["Pixoid", 0, "e53935"], ["Stadium", 1, "43a047"]], 3, 0], None]


def _ours(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for c in cases if "dial" in c["name"] or "live" in c["name"]]


def test_the_table_has_live_last_in_prompt_and_dial_up_unreliable() -> None:
    prompt = codec.message_spec("prompt")
    assert prompt is not None and prompt[3][-1] == ("live", "b")
    assert [f for f, _t in prompt[3]] == ["pid", "sealed", "unlock", "text", "wheels", "live"]
    assert codec.message_spec("dial") == ("dial", "u", 0, (("pid", "i"), ("sel", "l")))
    assert not codec.is_reliable("dial")


def test_a_live_prompt_round_trips_through_codec_and_model() -> None:
    p = Prompt(pid=20, sealed=False, unlock=False, text="Next game?", wheels=MENU, live=True,
               seq=5)
    frame = to_frame(p)
    assert frame.startswith(b'["prompt",5,20,false,false,"Next game?",')
    assert frame[:-9].endswith(b",true]")  # (the 8 hex digits of the CRC and the newline)
    assert frame == codec.encode("prompt", 5, p.args())
    decoded = codec.decode_frame(frame)
    assert isinstance(decoded, dict) and decoded["live"] is True and decoded["sealed"] is False
    assert parse_frame(frame) == p
    # not live unless asked: every game prompt the host builds
    plain = Prompt(pid=21, sealed=True, unlock=True, text="Move", wheels=MENU, seq=6)
    assert plain.live is False and to_frame(plain)[:-9].endswith(b",false]")
    again = parse_frame(to_frame(plain))
    assert isinstance(again, Prompt) and again.live is False


def test_a_sealed_prompt_is_never_live() -> None:
    with pytest.raises(ValidationError, match="a live prompt must be open"):
        Prompt(pid=3, sealed=True, unlock=True, text="Move", wheels=MENU, live=True)
    # the host refuses such a frame too (the controller ignores `live` on a sealed prompt)
    frame = codec.encode("prompt", 4, [3, True, True, "Move", MENU, True])
    err = parse_frame(frame)
    assert isinstance(err, ProtocolError) and err.code == codec.E_FIELDS
    assert "a live prompt must be open" in err.detail


def test_dial_round_trips_and_keeps_the_reveal_limits() -> None:
    d = Dial(pid=20, sel=(-1, 1, -1))
    frame = to_frame(d)
    assert frame == codec.encode("dial", 0, [20, [-1, 1, -1]])
    assert frame.startswith(b'["dial",0,20,[-1,1,-1]]')
    assert parse_frame(frame) == d
    assert not d.reliable
    largest = to_frame(Dial(pid=codec.MAX_PID, sel=(31, 31, 31)))
    assert len(largest) <= 40
    for sel in ([1, 2], [-2, 0, 0], [0, 0, 32], [0, "1", 0]):
        body = json.dumps(["dial", 0, 20, sel], separators=(",", ":")).encode()
        err = parse_frame(body + b"%08x\n" % codec.crc32(body))
        assert isinstance(err, ProtocolError) and err.code == codec.E_FIELDS, sel
        assert err.field == "sel"
    with pytest.raises(ValidationError):
        Dial(pid=20, sel=(0, 0, 32))  # type: ignore[arg-type]


def test_the_golden_vectors_hold_live_prompts_and_dials() -> None:
    names = {c["name"] for c in _ours(VECTORS["valid"])}
    assert {"prompt live", "dial", "dial largest"} <= names
    assert all(c["message"].get("live") is False for c in VECTORS["valid"]
               if c["message"]["t"] == "prompt" and c["name"] != "prompt live")
    bad = {c["name"] for c in _ours(VECTORS["invalid"])}
    assert {"prompt without live", "live not a bool", "dial bad selection"} <= bad


@pytest.mark.micropython
def test_live_prompt_and_dial_vectors_under_micropython(tmp_path: Path) -> None:
    """The same checks as test_vectors' MicroPython run (mp_vectors.py), on these vectors
    alone: encode, decode and encode_dict of each valid one, each invalid one's error."""
    mine = {
        "protocol": VECTORS["protocol"],
        "table_hash": VECTORS["table_hash"],
        "commitment_example": VECTORS["commitment_example"],
        "valid": _ours(VECTORS["valid"]),
        "invalid": _ours(VECTORS["invalid"]),
        "streams": [],
    }
    path = tmp_path / "vectors.json"
    path.write_text(json.dumps(mine))
    proc = subprocess.run(
        [micropython_binary(), str(HERE / "mp_vectors.py"), str(path)],
        capture_output=True,
        text=True,
        env=dict(os.environ, MICROPYPATH=str(protocol_dir())),
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    expected = 4 + 3 * len(mine["valid"]) + len(mine["invalid"])
    assert proc.stdout.strip().splitlines()[-1] == f"{expected} passed, 0 failed"
