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
    """A random legal player: on each prompt, dial a random allowed face per wheel, lock.

    It presses again for as long as the same prompt is still being programmed: a press
    can be lost (a repeated welcome put the controller back to "waiting for a seat" while
    the button was down, and the host then re-sent the same pairing prompt), and a player
    who took that prompt as answered would leave the seat waiting for ever.
    """
    hal = app.hal
    ctl = app.ctl
    dialled = None
    while True:
        await asyncio.sleep(0.05)
        if ctl.state != ctlmod.PROGRAMMING or ctl.prompt is None:
            continue
        pid = ctl.prompt[0]
        if pid != dialled:
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
            dialled = pid
        if ctl.state == ctlmod.PROGRAMMING and ctl.prompt is not None and ctl.prompt[0] == pid:
            hal.press(60)
            await asyncio.sleep(0.3)  # the press and its debounce, before looking again


def say(text):
    """One line on stderr (the sim's log): stdout is the serial link."""
    import sys

    sys.stderr.write("dialbox sim: " + text + "\n")


def main():
    from dialbox_fw import app as appmod

    hal = VirtualHal(
        load_profile(getenv("DIALBOX_SIM_PROFILE", "board.json")),  # not kept: heap
        getenv("DIALBOX_SIM_UID", "sim-1"),
        getenv("DIALBOX_SIM_CONTROL"),
    )
    extra = auto_player if getenv("DIALBOX_SIM_AUTO", "0") == "1" else None
    # Every way out leaves a line in the log: a controller that stops is never silent.
    try:
        while True:
            # (only the flag is kept: the old App must not outlive its run in this heap)
            if not asyncio.run(appmod.run(hal, extra=extra)).restart:
                say("the serial link closed (end of stdin): stopping")
                break
            gc.collect()  # provisioning asked for a reset: boot again, from a clean heap
    except KeyboardInterrupt:
        say("interrupted: stopping")
    except SystemExit as e:  # the virtual HAL's way out: the test process let go
        say("stopping: %s" % (e.args[0] if e.args else ""))
        raise SystemExit(0)
    except BaseException as e:  # report on stderr: stdout is the serial link
        import sys

        say("crashed:")
        try:
            if hasattr(sys, "print_exception"):
                sys.print_exception(e, sys.stderr)
            else:
                import traceback

                traceback.print_exc()
        except BaseException:
            say(repr(e))
        raise SystemExit(1)


if __name__ == "__main__":
    main()
