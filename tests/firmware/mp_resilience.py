"""Run under the MicroPython unix port: the app's fault handling (see test_resilience.py)."""

from dialbox_fw import app as appmod
from dialbox_fw.core.store import MemoryStore
from dialbox_fw.transports.serial import SerialLink

from dialbox_protocol import codec


class Stream:
    def __init__(self):
        self.rx = b""
        self.tx = []

    def readinto(self, buf):
        n = min(len(buf), len(self.rx))
        for i in range(n):
            buf[i] = self.rx[i]
        self.rx = self.rx[n:]
        return n

    def write(self, data):
        self.tx.append(bytes(data))


class Oled:
    broken = True

    def show(self, lines):
        if self.broken:
            raise OSError(5)


class Hal:
    def __init__(self):
        self.oled = Oled()
        self.fault = None
        self.errors = 0

    def unique_id(self):
        return "mp-res"

    def board_name(self):
        return "sim"

    def can_sense_battery(self):
        return False

    def battery_low(self):
        return False

    def take_detents(self, i):
        return 0

    def button_pressed(self):
        return False

    def poll(self, now):
        f = self.fault
        if f is not None:
            self.fault = None
            raise f

    def view(self, lines, led, ctl):
        if self.oled is not None:
            self.oled.show(lines)

    def log_error(self, e):
        self.errors += 1

    def feed(self):
        pass


def errors(stream):
    out = []
    for raw in stream.tx:
        m = codec.decode_frame(raw)
        if m["t"] == "error":
            out.append(m["detail"])
    return out


hal = Hal()
stream = Stream()
app = appmod.App(hal, "/nonexistent/config.json", MemoryStore())
app.add_link(SerialLink(stream))
now = 1000
app.cycle(now)  # the redraw fails: OSError 5
now += 5
app.cycle(now)  # its report goes out
print("view", errors(stream)[0])
for _ in range(3):
    now += 1000
    app.cycle(now)
print("oled dropped", hal.oled is None)
print("reports", len(errors(stream)))
stream.rx = codec.encode("ping", 0, [9])
app.cycle(now + 5)
print("pong", [codec.decode_frame(f)["ms"] for f in stream.tx if b"pong" in f])
for exc in (KeyboardInterrupt(), appmod.Reset("button")):
    hal.fault = exc
    try:
        app.cycle(now + 10)
        print("swallowed", exc)
    except BaseException as e:  # the test: it must come out of the pass
        print("interrupt passed" if isinstance(e, KeyboardInterrupt) else "reset passed")
print(appmod.describe(OSError(110), "receive"), "|", appmod.describe(ValueError("\xe9x")))
print("OK")
