"""Stopping the child processes dialbox starts (brokers, daemons, simulated controllers)."""

from __future__ import annotations

import subprocess
from typing import Any


def stop_process(proc: subprocess.Popen[Any], timeout: float, terminate: bool = True) -> None:
    """Ask `proc` to end (SIGTERM unless it was already asked another way), wait up to
    `timeout` seconds, then kill it; always reaps it."""
    if terminate and proc.poll() is None:
        proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
