"""The serial link: protocol frames over USB-CDC (stdin/stdout), read without blocking."""

from dialbox_protocol import codec


class SerialLink:
    """Frames over a byte stream with readinto(buf) -> n (never blocks) and write(data).

    The FrameReader's line buffer and this link's read buffer are allocated once.
    """

    kind = "serial"

    def __init__(self, stream):
        self.stream = stream
        self.reader = codec.FrameReader()
        self.buf = bytearray(64)
        self.up = True

    def receive(self, handle, now):
        """Decode whatever bytes have arrived; call handle(msg, now) for each frame."""
        buf = self.buf
        reader = self.reader
        while True:
            n = self.stream.readinto(buf)
            if n is None or n <= 0:
                if n is not None and n < 0:
                    self.up = False
                return
            for i in range(n):
                r = reader.push(buf[i])
                if r is not None:
                    handle(r, now, self)
            if n < len(buf):
                return

    def send(self, frame):
        self.stream.write(frame)
