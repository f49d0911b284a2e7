"""`dialbox sim`: scripted mode and the terminal drawing of the OLED."""

from __future__ import annotations

from pathlib import Path

import pytest

from dialbox.cli import main
from dialbox.cli.sim import draw
from dialbox.sim import SimView


def test_scripted_mode_runs_a_script(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "s.txt"
    script.write_text("# boot, then show the screen\nwait connecting\nturn 0 2 bounce\nscreen\n")
    assert main(["sim", "--runtime", "cpython", "--uid", "cli-1", "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("cli-1\t/dev/")
    assert "connecting..." in out


def test_unknown_script_command_is_reported(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("dance\n")
    assert main(["sim", "--runtime", "cpython", "--script", str(script)]) == 2


def test_oled_is_drawn_as_a_16_by_8_box() -> None:
    text = draw(SimView(lines=("LOCKED", "L E"), led="ffffff", state="locked"), "c1")
    rows = text.split("\r\n")
    assert rows[1] == "+" + "-" * 16 + "+"
    assert rows[2] == "|LOCKED          |"
    assert sum(1 for r in rows if r.startswith("|")) == 8
