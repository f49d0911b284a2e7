"""The simulated controller: the firmware on the virtual HAL (MicroPython unix port or CPython).

Environment: DIALBOX_SIM_UID (device id), DIALBOX_SIM_PROFILE (board profile JSON path),
DIALBOX_SIM_CONTROL (host:port of the test's control socket, optional), DIALBOX_SIM_LINK
(pty = frames on stdin/stdout, mqtt = broker from config.json), DIALBOX_SIM_AUTO=1 (play
by itself). The working directory is the controller's flash (config.json, lock.json).
"""

import asyncio
import gc

from dialbox_fw.hal import load_profile
from dialbox_fw.hal.virtual import VirtualHal, getenv


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
    extra = None
    if getenv("DIALBOX_SIM_AUTO", "0") == "1":  # (its own module: only loaded when it plays)
        from dialbox_fw.sim_auto import auto_player as extra
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
