"""`dialbox demo` serves the table screen while the game plays; `dialbox screen` rehearses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.displays.helpers import GAMES


def dialbox(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dialbox", *args], capture_output=True,
                          text=True, timeout=120)


def test_demo_prints_the_table_screen_and_plays_to_the_end() -> None:
    out = dialbox("demo", "--runtime", "double", "--game", "outspeed", "--seed", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("table screen: http://127.0.0.1:")
    assert "game over" in lines[-1]


@pytest.mark.parametrize("game", GAMES[:1])
def test_screen_rehearsal(game: str) -> None:
    out = dialbox("screen", "--rehearse", game, "--pace", "0", "--linger", "0", "--seed", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("table screen: http://127.0.0.1:")
    assert len(out.stdout.splitlines()) == 2  # the URL, then the result
