"""Copy a built bundle to a board with mpremote, showing progress, then reset the board.

A running controller has a hardware watchdog that nothing can stop once started (RP2,
ESP32): stopped by Ctrl-C for a copy, the board would reset mid-copy. So a deploy is two
mpremote runs:

1. **Stop**: mpremote interrupts the app with Ctrl-C (the firmware leaves Ctrl-C on and
   never catches KeyboardInterrupt) and enters the raw REPL; we write the `safeboot` flag
   file and hard-reset the board. A hard reset clears the watchdog, and main.py, seeing the
   flag, boots into safe boot: no app, no watchdog, the REPL free.
2. **Copy**: once the port is back, remove the old packages, write the flag again (in case
   the board had no firmware yet), copy every file, remove the flag as the last step and
   reset into the new firmware. A copy cut short leaves the flag, so the board boots into
   safe boot again and the next deploy just works.

The port disappears for a moment while the board resets (USB re-enumerates): deploy waits
for a device path to come back and tries the copy again while mpremote cannot connect.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from dialbox.firmware_tools.bundle import Bundle

SAFE_FLAG = "safeboot"
"""The flag file firmware/main.py looks for: when it exists the app does not start."""

PORT_TIMEOUT = 15.0
"""Seconds to wait for a device path to come back after the reset of step 1."""

COPY_ATTEMPTS = 5
"""mpremote runs tried for the copy while the board is not reachable yet."""


def mpremote_cmd() -> list[str]:
    exe = Path(sys.executable).with_name("mpremote")
    return [str(exe) if exe.exists() else "mpremote"]


_SET_FLAG = f"open({SAFE_FLAG!r}, 'w').close()"

_CLEAR_FLAG = f"""import os
try:
    os.remove({SAFE_FLAG!r})
except OSError:
    pass
"""

# Runs on the board before copying: remove the previous firmware packages (a stale .py
# would shadow a new .mpy) and create the bundle's directories. The safeboot flag is
# written first: until the copy is complete, a reset boots into safe boot.
_PREPARE = (
    _SET_FLAG
    + """
import os
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
)


def stop_command(port: str, mpremote: Sequence[str] | None = None) -> list[str]:
    """Step 1: stop the app (mpremote's Ctrl-C), write the safeboot flag, hard reset."""
    base = list(mpremote or mpremote_cmd())
    return [*base, "connect", port, "exec", _SET_FLAG, "+", "reset"]


def deploy_command(bundle: Bundle, port: str, mpremote: Sequence[str] | None = None) -> list[str]:
    """Step 2, one mpremote run: flag, clean and create directories, copy each file (one
    `cp` line of output per file, which drives the progress display), remove the flag,
    then reset the board."""
    base = list(mpremote or mpremote_cmd())
    dirs: set[str] = set()
    for f in bundle.files:
        parts = f.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            dirs.add("/".join(parts[:i]))
    cmd = [*base, "connect", port, "exec", _PREPARE % (sorted(dirs, key=len),)]
    for f in bundle.files:
        cmd += ["+", "fs", "cp", f, ":" + f]
    cmd += ["+", "exec", _CLEAR_FLAG, "+", "reset"]
    return cmd


def _wait_for_port(port: str, timeout: float) -> None:
    """After a reset: give the board a moment to drop off USB, then wait (up to timeout)
    for the device path to exist again."""
    time.sleep(0.5)
    deadline = time.monotonic() + timeout
    while not os.path.exists(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.3)  # the node exists before the device answers


def _run(
    cmd: list[str], cwd: Path, on_line: Callable[[str], None]
) -> int:
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        on_line(line.strip())
    return proc.wait()


def why(port: str, said: Sequence[str], status: int) -> str:
    """One line on a failed deploy: what mpremote said last (or what it means)."""
    if any("raw repl" in line for line in said):
        return (f"{port}: the board did not stop its program for mpremote (Ctrl-C). A "
                "firmware from before safe boot ignores Ctrl-C: see docs/controller.md, "
                "Recovery, to wipe it once.")
    last = next((line for line in reversed(said) if line.strip()), "")
    return f"mpremote failed (exit {status}){': ' + last if last else ''}"


def deploy(
    bundle: Bundle,
    port: str,
    on_file: Callable[[int, int, str], None] | None = None,
    mpremote: Sequence[str] | None = None,
    *,
    port_timeout: float = PORT_TIMEOUT,
    retry_wait: float = 1.0,
    said: list[str] | None = None,
) -> int:
    """Stop the board's app and reset it into safe boot, then copy the bundle with
    mpremote; on_file(done, total, name) is called as each file is copied.

    Returns mpremote's exit status (that of the step that failed, if one did). mpremote's
    lines other than the copies go to stdout when there is no `on_file`; given `said`,
    they are kept there too and the caller says what went wrong (`why()` makes one line
    of them), else a board that ignores Ctrl-C is explained on stderr here.
    """
    total = len(bundle.files)
    done = 0
    caller_explains = said is not None
    said = [] if said is None else said

    def show(line: str) -> None:
        said.append(line)
        if line and on_file is None:
            print(line)

    is_path = os.path.exists(port)  # a device node (else an mpremote shortcut, e.g. "a0")
    status = _run(stop_command(port, mpremote), bundle.root, show)
    if status != 0:
        if not caller_explains and any("raw repl" in line for line in said):
            print(why(port, said, status), file=sys.stderr)
        return status
    if is_path:
        _wait_for_port(port, port_timeout)

    def copied(line: str) -> None:
        nonlocal done
        if line.startswith("cp "):
            done += 1
            if on_file is not None:
                on_file(done, total, line[3:].split(" ")[0])
        else:
            show(line)

    for attempt in range(COPY_ATTEMPTS):
        status = _run(deploy_command(bundle, port, mpremote), bundle.root, copied)
        if status == 0 or done > 0 or attempt == COPY_ATTEMPTS - 1:
            break
        time.sleep(retry_wait)  # not reachable yet (still re-enumerating): again
    return status
