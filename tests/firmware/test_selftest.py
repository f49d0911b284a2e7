"""The self-test (firmware/dialbox_fw/core/selftest.py, docs/build-guide.md) on the simulated
controller, on the MicroPython unix port and on CPython: the lock button held at power-on
(here: held across the reset button) enters it; every wheel turned both ways shows its count
and direction, the button its state, the battery its millivolts; the LED steps through red,
green, blue and white, named on the OLED; a 2 s hold and release leaves it for the game."""

from __future__ import annotations

import pytest

from dialbox.sim import SimController, SimView

LEDS = {"ff0000": "red", "00ff00": "green", "0000ff": "blue", "ffffff": "white"}


def _in_selftest(v: SimView) -> bool:
    return v.lines[:1] == ("SELF-TEST",)


@pytest.mark.parametrize("runtime", ["micropython", "cpython"])
def test_selftest_shows_wheels_button_battery_and_cycles_the_led(
    runtime: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIALBOX_SIM_BAT_MV", "3912")
    with SimController("selftest", runtime=runtime) as sim:  # type: ignore[arg-type]
        sim.wait_for(lambda v: v.serial > 0, 15, "the first view")
        assert not _in_selftest(sim.view())  # a plain power-on: the game
        sim.press(5000)  # held ...
        sim.reset()  # ... while the controller starts again
        v = sim.wait_for(_in_selftest, 15, "the self-test")
        assert v.lines[1:5] == ("L   +0 -", "C   +0 -", "R   +0 -", "BTN down")
        assert v.lines[5] == "BAT 3912 mV"
        sim.wait_for(lambda v: v.lines[4] == "BTN up", 15, "the entry hold let go")
        for wheel, name in enumerate("LCR"):
            sim.turn(wheel, 3)
            sim.wait_for(lambda v, w=wheel + 1, n=name: v.lines[w] == f"{n}   +3 cw", 10)
            sim.turn(wheel, -5)
            sim.wait_for(lambda v, w=wheel + 1, n=name: v.lines[w] == f"{n}   -2 ccw", 10)
        assert sim.screen()[1:4] == ["L   -2 ccw", "C   -2 ccw", "R   -2 ccw"]
        sim.press(300)
        sim.wait_for(lambda v: v.lines[4] == "BTN down", 10, "the button down")
        sim.wait_for(lambda v: v.lines[4] == "BTN up", 10, "the button up")
        assert _in_selftest(sim.view())  # a short press does not leave it
        # the LED steps through every colour, and the OLED names the one it shows
        seen = {v.led for v in sim.history() if _in_selftest(v)}
        if len(seen) < len(LEDS):
            sim.wait_for(lambda v: _in_selftest(v) and v.led == "ffffff", 10, "white")
            sim.wait_for(lambda v: _in_selftest(v) and v.led == "ff0000", 10, "red again")
        shown = [v for v in sim.history() if _in_selftest(v)]
        assert {v.led for v in shown} == set(LEDS)
        assert all(v.lines[6] == f"LED {LEDS[v.led]}" for v in shown)
        # leave: hold 2 s (the OLED says to let go), let go: the game starts
        sim.press(2600)
        sim.wait_for(lambda v: v.lines[-1:] == ("let go: exit",), 10, "let go")
        sim.wait_for(lambda v: not _in_selftest(v), 10, "the game")
        assert sim.resets == ["button"]  # left without a reset
