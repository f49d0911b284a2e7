"""The virtual HAL of the simulated controller: scripted wheels and button, recorded views.

A test process steers it over a control socket (TCP on 127.0.0.1, address in the
environment variable DIALBOX_SIM_CONTROL as host:port). Each direction carries one JSON
object per line:

  test -> sim  {"op": "turn", "wheel": 0, "detents": -2, "bounce": false}
               {"op": "press", "ms": 120}
               {"op": "mem"}     (answered by an "mem" event: heap after gc, peak)
               {"op": "reset"}   (the reset button: reset() as machine.reset() on a board)
               {"op": "hang", "ms": 3000}  (the main loop stops for that long: stuck bus)
               {"op": "quit"}
  (DIALBOX_SIM_BAT_MV=3900 gives it a cell for the self-test's battery line, core/selftest.py)
  sim -> test  {"ev": "view", "lines": [...], "led": "rrggbb", "state": "locked",
                "wire": "locked", "pid": 17, "linked": true}
               {"ev": "mem", "alloc": bytes, "free": bytes, "peak": bytes}
               {"ev": "reset", "n": resets since start, "detail": "button" | "watchdog" | ...}
  (a view also carries "lock": [pid, sel] while the controller holds a lock record)

Resets: reset() counts, reports and raises app.Reset instead of returning: the stack
unwinds as a real reset would take it down, app.run() returns and the caller (sim.main)
boots again in the same process, from flash (the working directory). The watchdog is off
unless DIALBOX_SIM_WDT_MS asks for one: then feed() starts it (the first call) and resets
the firmware when a pass took longer than that.

Turns become the A/B pin waveform of a detented encoder and go through the same
Quadrature decoder as the pin-interrupt driver, so bounce and fast spins are real input.
"""

import gc
import json
import os
import select
import socket
import sys

from dialbox_fw.core import quadrature
from dialbox_fw.core.clock import ticks_diff, ticks_ms
from dialbox_fw.core.controller import STATE_NAMES

_MEM = hasattr(gc, "mem_alloc")  # MicroPython only
_IPOLL = hasattr(select.poll(), "ipoll")  # MicroPython only


def getenv(name, default=None):
    try:
        v = os.getenv(name)
    except AttributeError:
        v = os.environ.get(name)
    return default if v is None else v


class FdStream:
    """stdin/stdout as raw file descriptors (CPython: no buffering between poll and read)."""

    def __init__(self):
        self.poll = select.poll()
        self.poll.register(0, select.POLLIN)

    def readinto(self, buf):
        ev = self.poll.poll(0)
        if not ev:
            return 0
        data = os.read(0, len(buf))
        if not data:
            return -1
        buf[: len(data)] = data
        return len(data)

    def write(self, data):
        view = memoryview(data)
        while len(view):
            n = os.write(1, view)
            view = view[n:]


class SimBattery:
    """hal.board.Battery's read side: read_mv() at the pin, times divider = the cell."""

    divider = 1

    def __init__(self, mv):
        self.mv = mv

    def read_mv(self):
        return self.mv


class VirtualHal:
    """Board-shaped object: the same methods as hal.board.BoardHal, with no hardware."""

    def __init__(self, profile, uid, control=None):
        # only the board's name is kept: the whole profile (several KB of parsed JSON on
        # the 64-bit unix port) would sit in the 96 KB heap for nothing
        self.board = profile["board"]
        self.uid = uid
        cpd = profile.get("counts_per_detent", 4)
        self.encoders = [quadrature.Quadrature(cpd) for _ in range(3)]
        self.pressed_until = None
        self.now = 0
        self.lines = []
        self.colour = "000000"
        self.sock = None
        self.rx = b""
        self.resets = 0
        self.peak = 0  # highest gc.mem_alloc() seen by poll() (benchmarks)
        # a cell for the self-test's battery line, when DIALBOX_SIM_BAT_MV names its mV
        # (the game itself still runs as a USB-powered controller: can_sense_battery())
        mv = getenv("DIALBOX_SIM_BAT_MV")
        self.battery = None if mv is None else SimBattery(int(mv))
        wdt = int(getenv("DIALBOX_SIM_WDT_MS", "0"))
        # the watchdog, when asked for: [timeout ms, last fed (None: not started)]
        self.watchdog = [wdt, None] if wdt else None
        if control:
            host, port = control.rsplit(":", 1)
            addr = socket.getaddrinfo(host, int(port))[0][-1]
            s = socket.socket()
            s.connect(addr)
            self.sock = s
            self.spoll = select.poll()
            self.spoll.register(s, select.POLLIN)

    # -- identity
    def board_name(self):
        return self.board

    def unique_id(self):
        return self.uid

    def can_sense_battery(self):
        return False

    def battery_low(self):
        return False

    def log_error(self, e):
        if not isinstance(e, Exception):
            sys.stderr.write(repr(e) + "\n")
        elif hasattr(sys, "print_exception"):
            sys.print_exception(e, sys.stderr)
        else:
            import traceback

            traceback.print_exception(e)

    def reset(self, detail="reset"):
        """machine.reset(): never returns. Counted, told on the control channel and in the
        log, then app.Reset unwinds the app; the caller boots it again."""
        from dialbox_fw import app

        self.resets += 1
        if self.watchdog is not None:
            self.watchdog[1] = None  # a reset stops the watchdog; the next boot starts it
        sys.stderr.write("dialbox sim: reset (%s)\n" % detail)
        self.send({"ev": "reset", "n": self.resets, "detail": detail})
        raise app.Reset(detail)

    def feed(self):
        """Called once a pass. The first call starts the watchdog, when DIALBOX_SIM_WDT_MS
        asks for one (a board's machine.WDT); a pass that took longer than its timeout (a
        "hang") is what would have let a real watchdog reset the board."""
        w = self.watchdog
        if w is None:
            return
        now = ticks_ms()
        if w[1] is not None and ticks_diff(now, w[1]) > w[0]:
            self.reset("watchdog")
        w[1] = now

    def serial_stream(self):
        if getenv("DIALBOX_SIM_LINK", "pty") != "pty":
            return None
        if sys.implementation.name == "micropython":
            from dialbox_fw.hal.usb_cdc import StdioStream

            return StdioStream()
        return FdStream()

    async def wifi_connect(self, ssid, psk, timeout_ms):
        return True

    # -- inputs
    def turn(self, wheel, detents, bounce=False):
        enc = self.encoders[wheel]
        # edge by edge into the decoder: no list, however fast the spin
        quadrature.drive(detents, bounce, enc.state, enc.update_state)

    def press(self, ms):
        self.pressed_until = self.now + ms

    def take_detents(self, i):
        return self.encoders[i].take()

    def button_pressed(self):
        if self.pressed_until is None:
            return False
        if ticks_diff(self.pressed_until, self.now) > 0:
            return True
        self.pressed_until = None
        return False

    def poll(self, now):
        self.now = now
        if _MEM:
            used = gc.mem_alloc()
            if used > self.peak:
                self.peak = used
        if self.sock is None:
            return
        if self.readable():
            data = self.sock.recv(128)
            if not data:
                # the process that steers this controller is gone
                raise SystemExit("the control socket closed")
            self.rx += data
        while b"\n" in self.rx:
            i = self.rx.index(b"\n")
            cmd = json.loads(self.rx[:i])
            if cmd.get("op") == "reset":  # the reset button: out of the buffer, then reset
                self.rx = self.rx[i + 1 :]
                self.reset("button")
            # a command leaves the buffer only once done, so a MemoryError cannot lose it
            self.command(cmd)
            self.rx = self.rx[i + 1 :]

    def readable(self):
        if _IPOLL:
            for _ in self.spoll.ipoll(0):  # reuses its tuple: no garbage every pass
                return True
            return False
        return bool(self.spoll.poll(0))

    def command(self, cmd):
        op = cmd.get("op")
        if op == "turn":
            self.turn(cmd["wheel"], cmd["detents"], cmd.get("bounce", False))
        elif op == "press":
            self.press(cmd["ms"])
        elif op == "mem":
            gc.collect()
            self.send(
                {"ev": "mem", "alloc": gc.mem_alloc(), "free": gc.mem_free(), "peak": self.peak}
            )
        elif op == "hang":
            import time

            time.sleep(cmd["ms"] / 1000)
        elif op == "quit":
            raise SystemExit("asked to quit")

    # -- outputs
    def view(self, lines, colour, ctl):
        self.lines = lines
        self.colour = colour
        if self.sock is not None:
            ev = {
                "ev": "view",
                "lines": lines,
                "led": colour,
                "state": STATE_NAMES[ctl.state],
                "wire": ctl.wire_state(),
                "pid": ctl.pid(),
                "linked": ctl.linked,
                "seat": ctl.seat,
            }
            rec = ctl.record
            if rec is not None:  # the lock it holds: tests compare it with what was applied
                ev["lock"] = [rec["pid"], rec["sel"]]
            self.send(ev)

    def send(self, ev):
        if self.sock is not None:
            try:
                self.sock.send(json.dumps(ev).encode() + b"\n")
            except OSError:
                self.sock = None
