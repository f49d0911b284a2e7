"""A bounded fuzz run of the decoder under CPython and under the MicroPython unix port."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dialbox.paths import micropython_binary, protocol_dir

FUZZ = Path(__file__).with_name("mp_fuzz.py")
VECTORS = protocol_dir() / "vectors.json"


def _fuzz(cmd: list[str], iterations: int, seed: int) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, MICROPYPATH=str(protocol_dir()), PYTHONPATH=str(protocol_dir()))
    return subprocess.run(
        [*cmd, str(FUZZ), str(VECTORS), str(iterations), str(seed)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )


def test_fuzz_cpython() -> None:
    proc = _fuzz([sys.executable], 30_000, 20261129)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "30000 passed, 0 failed"


@pytest.mark.micropython
def test_fuzz_micropython() -> None:
    proc = _fuzz([micropython_binary(), "-X", "heapsize=96k"], 5_000, 7)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert proc.stdout.strip().splitlines()[-1] == "5000 passed, 0 failed"
