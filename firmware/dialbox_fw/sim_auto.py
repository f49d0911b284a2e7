"""The simulated controller's automatic player (DIALBOX_SIM_AUTO=1): a module of its own, so
a simulated controller played by a test or a `Hand` does not carry its code in its heap."""

import asyncio
import os

from dialbox_fw.core import controller as ctlmod


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
