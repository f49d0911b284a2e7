"""Copy a built bundle to a board with mpremote, showing progress, then reset the board."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from dialbox.firmware_tools.bundle import Bundle


def mpremote_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("mpremote")
    return [str(exe) if exe.exists() else "mpremote"]


# Runs on the board before copying: remove the previous firmware packages (a stale .py
# would shadow a new .mpy) and create the bundle's directories.
_PREPARE = """import os
def rm(p):
    try:
        if os.stat(p)[0] & 0x4000:
            for n in os.listdir(p):
                rm(p + '/' + n)
            os.rmdir(p)
        else:
            os.remove(p)
    except OSError:
        pass
for p in ('dialbox_fw', 'dialbox_protocol'):
    rm(p)
for d in %r:
    try:
        os.mkdir(d)
    except OSError:
        pass
"""


def deploy_command(bundle: Bundle, port: str, mpremote: Sequence[str] | None = None) -> list[str]:
    """One mpremote run: clean and create directories, copy each file (one `cp` line of
    output per file, which drives the progress display), then reset the board."""
    base = list(mpremote or mpremote_cmd())
    dirs: set[str] = set()
    for f in bundle.files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    cmd = [*base, "connect", port, "exec", _PREPARE % (sorted(dirs, key=len),)]
    for f in bundle.files:
        cmd += ["+", "fs", "cp", f, ":" + f]
    cmd += ["+", "reset"]
    return cmd


def deploy(
    bundle: Bundle,
    port: str,
    on_file: Callable[[int, int, str], None] | None = None,
    mpremote: Sequence[str] | None = None,
) -> int:
    """Run mpremote; on_file(done, total, name) is called as each file is copied.

    Returns mpremote's exit status.
    """
    cmd = deploy_command(bundle, port, mpremote)
    total = len(bundle.files)
    done = 0
    proc = subprocess.Popen(
        cmd,
        cwd=bundle.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        line = line.strip()
        if line.startswith("cp "):
            done += 1
            if on_file is not None:
                on_file(done, total, line[3:].split(" ")[0])
        elif line and on_file is None:
            print(line)
    return proc.wait()
