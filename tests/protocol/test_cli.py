"""`dialbox protocol`: the message table and decoding frames from the command line."""

from __future__ import annotations

import pytest

from dialbox.cli import main
from dialbox_protocol import codec


def test_table_lists_every_message(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["protocol", "--table"]) == 0
    out = capsys.readouterr().out
    assert codec.TABLE_HASH in out
    for name, *_rest in codec.MESSAGES:
        assert f"  {name} " in out


def test_decode_reports_good_and_bad_frames(capsys: pytest.CaptureFixture[str]) -> None:
    good = codec.encode("ack", 0, [5]).decode().strip()
    assert main(["protocol", good]) == 0
    assert "ack seq=0 {'ref': 5}" in capsys.readouterr().out
    assert main(["protocol", good[:-1] + ("0" if good[-1] != "0" else "1")]) == 1
    assert "error bad_crc" in capsys.readouterr().out
