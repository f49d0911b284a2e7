"""The lock button, polled with debounce: short press = lock, long press = unlock."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


from dialbox_fw.core.clock import ticks_diff

NONE = const(0)
SHORT = const(1)
LONG = const(2)

DEBOUNCE_MS = const(20)
LONG_MS = const(800)


class Button:
    """Feed sample(pressed, now_ms) every few ms; it returns NONE, SHORT or LONG.

    A level counts only once it has been stable for DEBOUNCE_MS. LONG fires while the
    button is still held (at LONG_MS), so the player feels the unlock happen; the release
    after a long press reports nothing. SHORT fires on the release of a shorter press.
    """

    def __init__(self, debounce_ms=DEBOUNCE_MS, long_ms=LONG_MS):
        self.debounce_ms = debounce_ms
        self.long_ms = long_ms
        self.raw = False
        self.raw_since = 0
        self.stable = False
        self.pressed_at = 0
        self.long_done = False

    def sample(self, pressed, now):
        if pressed != self.raw:
            self.raw = pressed
            self.raw_since = now
            return NONE
        if pressed != self.stable:
            if ticks_diff(now, self.raw_since) < self.debounce_ms:
                return NONE
            self.stable = pressed
            if pressed:
                self.pressed_at = self.raw_since
                self.long_done = False
                return NONE
            if self.long_done:
                return NONE
            return SHORT
        if pressed and not self.long_done:
            if ticks_diff(now, self.pressed_at) >= self.long_ms:
                self.long_done = True
                return LONG
        return NONE
