"""The simulated controller: the firmware on the virtual HAL (MicroPython unix port or CPython).

Environment: DIALBOX_SIM_UID (device id), DIALBOX_SIM_PROFILE (board profile JSON path),
DIALBOX_SIM_CONTROL (host:port of the test's control socket, optional), DIALBOX_SIM_LINK
(pty = frames on stdin/stdout, mqtt = broker from config.json), DIALBOX_SIM_AUTO=1 (play
by itself). The working directory is the controller's flash (config.json, lock.json).
"""

import asyncio
import gc
import os

from dialbox_fw.core import controller as ctlmod
from dialbox_fw.hal import load_profile
from dialbox_fw.hal.virtual import VirtualHal, getenv


def rand_below(n):
    return int.from_bytes(os.urandom(2), "big") % n


async def auto_player(app):
    """A random legal player: on each prompt, dial a random allowed face per wheel, lock."""
    hal = app.hal
    ctl = app.ctl
    done = None
    while True:
        await asyncio.sleep(0.05)
        if ctl.state != ctlmod.PROGRAMMING or ctl.prompt is None:
            continue
        pid = ctl.prompt[0]
        if pid == done:
            continue
        await asyncio.sleep(0.02 * rand_below(10))
        for w in ctl.wheels:
            if not w.active:
                continue
            allowed = [i for i in range(len(w.faces)) if w.is_allowed(i)]
            target = allowed[rand_below(len(allowed))]
            direction = 1 if rand_below(2) else -1
            for _ in range(len(w.faces)):
                if w.index == target or ctl.state != ctlmod.PROGRAMMING:
                    break
                hal.turn(w.position, direction)
                await asyncio.sleep(0.01)
        if ctl.state == ctlmod.PROGRAMMING and ctl.prompt is not None and ctl.prompt[0] == pid:
            hal.press(60)
            await asyncio.sleep(0.15)
            done = pid


def main():
    from dialbox_fw import app as appmod

    profile = load_profile(getenv("DIALBOX_SIM_PROFILE", "board.json"))
    hal = VirtualHal(profile, getenv("DIALBOX_SIM_UID", "sim-1"), getenv("DIALBOX_SIM_CONTROL"))
    extra = auto_player if getenv("DIALBOX_SIM_AUTO", "0") == "1" else None
    try:
        while asyncio.run(appmod.run(hal, extra=extra)).restart:
            gc.collect()  # provisioning asked for a reset: boot again, from a clean heap
    except KeyboardInterrupt:
        pass
    except Exception as e:  # report on stderr: stdout is the serial link
        import sys

        if hasattr(sys, "print_exception"):
            sys.print_exception(e, sys.stderr)
        else:
            import traceback

            traceback.print_exc()
        raise SystemExit(1)


if __name__ == "__main__":
    main()
