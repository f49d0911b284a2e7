"""What the OLED and the status LED show in each controller state (text lines + colour)."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from dialbox_fw import FW_VERSION
from dialbox_fw.core import controller as c
from dialbox_fw.core.wheels import NAMES

COLS = const(16)  # 128 px / 8 px font
ROWS = const(8)  # 64 px / 8 px font

# status LED colours (rrggbb) per screen state; the HAL scales brightness
LED_BOOTING = "202020"
LED_CONNECTING = "0000ff"
LED_WAIT_SEAT = "ff00ff"
LED_LOCKED = "ffffff"
LED_ALLLOCKED = "ffa000"
LED_ERROR = "ff0000"
LED_BATTERY = "ff4000"


def wrap(text, rows, out):
    """Append text wrapped at COLS to out, at most rows lines."""
    words = text.split(" ")
    line = ""
    for w in words:
        while len(w) > COLS:
            if line:
                out.append(line)
                rows -= 1
                line = ""
            if rows <= 0:
                return
            out.append(w[:COLS])
            rows -= 1
            w = w[COLS:]
        if not line:
            line = w
        elif len(line) + 1 + len(w) <= COLS:
            line = line + " " + w
        else:
            out.append(line)
            rows -= 1
            if rows <= 0:
                return
            line = w
    if line and rows > 0:
        out.append(line)


def seat_line(ctl):
    if ctl.seat is None or ctl.seat < 0:
        return "no seat"
    name = ctl.name or ctl.colour
    return ("Seat %d %s" % (ctl.seat + 1, name))[:COLS]


def wheel_lines(ctl, out):
    for w in ctl.wheels:
        if w.active:
            out.append(("%s %s" % (NAMES[w.position], w.label()))[:COLS])


def render(ctl, battery_low=False, booting=False):
    """(lines, led colour) for the controller's current state."""
    lines = []
    led = ctl.colour
    state = ctl.view_state()
    if booting or state == c.BOOTING:
        lines = ["dialbox", "fw " + FW_VERSION, ctl.board[:COLS], "booting"]
        led = LED_BOOTING
    elif state == c.ERROR:
        lines.append("ERROR")
        wrap(ctl.error or "unknown", ROWS - 1, lines)
        led = LED_ERROR
    elif state == c.CONNECTING:
        lines = ["dialbox", "connecting..."]
        lines.append(ctl.uid[:COLS])
        if ctl.record is not None:
            lines.append("locked #%d" % ctl.record["pid"])
        led = LED_CONNECTING
    elif state == c.WAIT_SEAT:
        lines = ["Waiting for", "a seat", ctl.table[:COLS]]
        led = LED_WAIT_SEAT
    elif state == c.IDLE:
        lines = [seat_line(ctl), ctl.table[:COLS], ""]
        if ctl.headline:
            wrap(ctl.headline, ROWS - 3, lines)
        else:
            lines.append("waiting...")
    elif state == c.PROGRAMMING:
        wrap(ctl.prompt[3], 3, lines)
        wheel_lines(ctl, lines)
        lines.append("press = lock")
        w = ctl.wheels[1]
        if w.active:
            led = w.face()[2]
    elif state == c.LOCKED:
        lines.append("LOCKED" + (" *" if ctl.host_has_commit else ""))
        if ctl.prompt is not None:
            wrap(ctl.prompt[3], 2, lines)
            wheel_lines(ctl, lines)
            if ctl.prompt[2] and ctl.record is not None and ctl.record.get("sealed"):
                lines.append("hold = unlock")
        led = LED_LOCKED
    elif state == c.ALLLOCKED:
        lines = ["ALL LOCKED", "revealing..."]
        led = LED_ALLLOCKED
    elif state == c.REVEALED:
        choices, summary, verified = ctl.results
        if choices:
            lines.append("VERIFIED" if verified else "REVEALED")
        wrap(summary, 3 - len(lines), lines)
        for seat_choice in choices:
            if len(lines) >= ROWS:
                break
            lines.append(("%d %s" % (seat_choice[0] + 1, seat_choice[1]))[:COLS])
        if ctl.headline and len(lines) < ROWS - 1:  # what comes next, under the reveal
            wrap(ctl.headline, ROWS - len(lines), lines)
    if ctl.alarm is not None:
        lines.insert(0, ctl.alarm)
    if ctl.notice is not None and len(lines) < ROWS:
        lines.append(("! " + ctl.notice)[:COLS])
    if battery_low:
        if len(lines) >= ROWS:
            lines = lines[: ROWS - 1]
        lines.append("LOW BATTERY")
        led = LED_BATTERY
    lines = lines[:ROWS]
    for i in range(len(lines)):
        lines[i] = font_only(lines[i])
    return lines, led


def font_only(line):
    """The line with every character the 8x8 font lacks (outside ASCII 32-126) shown as "?"
    (the host already folds what it sends; a frame from elsewhere may still hold any).
    Walks the UTF-8 bytes: iterating the str would intern a string per character."""
    data = line.encode()
    for b in data:
        if not 32 <= b <= 126:
            break
    else:
        return line
    out = bytearray()
    for b in data:
        if 32 <= b <= 126:
            out.append(b)
        elif not 0x80 <= b < 0xC0:  # one "?" per character: continuation bytes add none
            out.append(63)
    return out.decode()
