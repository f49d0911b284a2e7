"""Self-test (docs/build-guide.md): hold the lock button while the controller powers up and
keep holding 2 s. The OLED shows each wheel's count and last direction, the button and the
battery; the LED steps through red, green, blue and white, named on the OLED (a wrong colour
order shows at once). Hold the button 2 s and let go: the game starts. Imported only then."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from dialbox_fw.app import _sleep_loop
from dialbox_fw.core.button import LONG, Button
from dialbox_fw.core.clock import ticks_diff, ticks_ms

_HOLD_MS = const(2000)  # held from power-on to enter; held again (then let go) to leave
_STEP_MS = const(700)  # one LED colour
_BAT_MS = const(1000)  # the battery is read once a second
_LED = ("ff0000", "00ff00", "0000ff", "ffffff")
_NAMES = ("red", "green", "blue", "white")
_WHEELS = ("L", "C", "R")


async def run(hal, ctl):
    """Called when the button is down as the app starts: the self-test, if it stays down
    _HOLD_MS (else back to the app at once); returns once held _HOLD_MS again and let go."""
    t0 = ticks_ms()
    while ticks_diff(ticks_ms(), t0) < _HOLD_MS:
        hal.poll(ticks_ms())
        if not hal.button_pressed():
            return
        await _sleep_loop()
    btn = Button(long_ms=_HOLD_MS)
    btn.raw = btn.stable = btn.long_done = True  # still down: LONG only for a new press
    counts = [0, 0, 0]
    dirs = ["-", "-", "-"]
    bat = getattr(hal, "battery", None)
    mv = None
    step = 0
    at = bat_at = t0
    leaving = False
    shown = None
    while True:
        now = ticks_ms()
        hal.poll(now)
        for i in range(3):
            d = hal.take_detents(i)
            if d:
                counts[i] += d
                dirs[i] = "cw" if d > 0 else "ccw"
                shown = None
        if btn.sample(hal.button_pressed(), now) == LONG:
            leaving = True
        elif leaving and not btn.stable:
            return
        if ticks_diff(now, at) >= _STEP_MS:
            step = (step + 1) & 3
            at = now
        if bat is not None and (mv is None or ticks_diff(now, bat_at) >= _BAT_MS):
            mv = bat.read_mv() * bat.divider
            bat_at = now
        key = (step, btn.stable, leaving, mv)
        if key != shown:
            shown = key
            lines = ["SELF-TEST"]
            for i in range(3):
                lines.append("%s %+4d %s" % (_WHEELS[i], counts[i], dirs[i]))
            lines.append("BTN " + ("down" if btn.stable else "up"))
            lines.append("BAT none" if mv is None else "BAT %d mV" % mv)
            lines.append("LED " + _NAMES[step])
            lines.append("let go: exit" if leaving else "hold 2s: exit")
            hal.view(lines, _LED[step], ctl)
        hal.feed()
        await _sleep_loop()
