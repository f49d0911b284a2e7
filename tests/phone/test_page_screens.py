"""The phone page's screenshots for the docs (docs/screens/phone-*.png) can be taken, and are
390x844 and small. Write them with `python -m tests.phone.page_helpers docs/screens`."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

import pytest

from tests.phone.page_helpers import phone_screens

pytestmark = [pytest.mark.timeout(240)]


def test_phone_screenshots_are_390x844_and_under_120_kb(tmp_path: Path) -> None:
    shots = asyncio.run(phone_screens(tmp_path, tmp_path / "profile"))
    assert [p.name for p in shots] == [
        "phone-pairing.png", "phone-prompt.png", "phone-locked.png", "phone-revealed.png"]
    for p in shots:
        data = p.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert struct.unpack(">II", data[16:24]) == (390, 844), p.name
        assert len(data) < 120 * 1024, f"{p.name}: {len(data)} bytes"
