"""Codec benchmark: encode + stream decode µs per frame, CPython vs the MicroPython unix port."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from dialbox.paths import micropython_binary, protocol_dir

LOOP = Path(__file__).with_name("_codec_loop.py")


def _run(cmd: list[str], n: int) -> float:
    env = dict(os.environ, MICROPYPATH=str(protocol_dir()), PYTHONPATH=str(protocol_dir()))
    out = subprocess.run(
        [*cmd, str(LOOP), str(n)], capture_output=True, text=True, env=env, check=True
    ).stdout
    return float(out.strip().splitlines()[-1])


def main() -> None:
    best_cpy = min(_run([sys.executable], 3000) for _ in range(3))
    best_mpy = min(_run([micropython_binary()], 3000) for _ in range(3))
    print("frames: commit, reveal, prompt (defaults), ack; encode + stream decode each")
    print(f"CPython {sys.version.split()[0]:<10} {best_cpy:8.1f} us/frame")
    print(f"MicroPython unix port  {best_mpy:8.1f} us/frame")


if __name__ == "__main__":
    main()
