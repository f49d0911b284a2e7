"""Shared fixtures for firmware tests: the firmware on sys.path, MicroPython runs, a fake clock."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dialbox.paths import firmware_dir, micropython_binary, micropython_path
from tests.firmware.broker import Mosquitto

if str(firmware_dir()) not in sys.path:
    sys.path.insert(0, str(firmware_dir()))

HERE = Path(__file__).parent


def run_micropython(
    script: str, *args: str, heap: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run tests/firmware/<script> on the MicroPython unix port with the firmware importable."""
    cmd = [micropython_binary()]
    if heap:
        cmd += ["-X", f"heapsize={heap}"]
    cmd += [str(HERE / script), *args]
    env = dict(os.environ, MICROPYPATH=micropython_path())
    return subprocess.run(
        cmd, capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


class FakeClock:
    """Milliseconds that only move when a test says so."""

    def __init__(self, start: int = 1000) -> None:
        self.now = start

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> int:
        self.now += ms
        return self.now


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Mosquitto]:
    """A mosquitto of this test's own on an ephemeral port, stopped by pid afterwards."""
    b = Mosquitto(tmp_path)
    b.start()
    yield b
    b.stop()
