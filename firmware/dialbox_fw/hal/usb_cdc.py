"""USB-CDC as a byte stream: stdin polled, then read one byte at a time (rp2-safe)."""

import select
import sys


class StdioStream:
    """Non-blocking reads from sys.stdin and writes to sys.stdout on MicroPython.

    On rp2 a multi-byte read of sys.stdin blocks until it is full, so readinto() polls
    and reads single bytes while poll says more are waiting.

    Ctrl-C stays on (micropython.kbd_intr is left alone): a 0x03 byte raises
    KeyboardInterrupt in the app, which is how mpremote stops it to reach the REPL (every
    deploy after the first needs that). It costs the protocol nothing: a valid frame is
    printable ASCII ending in a newline (the codec refuses anything else), so a 0x03 never
    occurs inside one, and nothing the host sends is lost to it.
    """

    def __init__(self):
        self.inp = sys.stdin.buffer
        self.outp = sys.stdout.buffer
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)

    def readinto(self, buf):
        n = 0
        size = len(buf)
        while n < size:
            flags = 0
            for _obj, ev in self.poll.ipoll(0):  # ipoll reuses its tuple: no garbage
                flags = ev
            if not flags:
                break
            if flags & (select.POLLHUP | select.POLLERR) and not flags & select.POLLIN:
                return -1 if n == 0 else n
            b = self.inp.read(1)
            if not b:
                return -1 if n == 0 else n
            buf[n] = b[0]
            n += 1
        return n

    def write(self, data):
        self.outp.write(data)
        try:
            self.outp.flush()
        except AttributeError:
            pass
