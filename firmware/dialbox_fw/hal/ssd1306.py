"""A small SSD1306 OLED driver (I2C): one preallocated framebuffer, text lines only."""

try:
    from micropython import const
except ImportError:

    def const(x):
        return x


import framebuf

_CMD = const(0x80)
_DATA = const(0x40)

# power-up sequence (datasheet order): display off, clocks, multiplex, offset, start line,
# charge pump on, horizontal addressing, segment remap, COM scan direction, COM pins,
# contrast, precharge, VCOM level, resume from RAM, normal display, display on
_INIT_128x64 = bytes(
    (
        0xAE, 0xD5, 0x80, 0xA8, 0x3F, 0xD3, 0x00, 0x40, 0x8D, 0x14, 0x20, 0x00,
        0xA1, 0xC8, 0xDA, 0x12, 0x81, 0x7F, 0xD9, 0xF1, 0xDB, 0x40, 0xA4, 0xA6, 0xAF,
    )
)  # fmt: skip


class Oled:
    """128x64 (or 128x32) monochrome display at an I2C address; show(lines) redraws it."""

    def __init__(self, i2c, address=0x3C, width=128, height=64):
        self.i2c = i2c
        self.address = address
        self.width = width
        self.height = height
        self.pages = height // 8
        self.buf = bytearray(width * self.pages + 1)
        self.buf[0] = _DATA
        self.fb = framebuf.FrameBuffer(memoryview(self.buf)[1:], width, height, framebuf.MONO_VLSB)
        self.cmd_buf = bytearray(2)
        self.cmd_buf[0] = _CMD
        init = bytearray(_INIT_128x64)
        if height == 32:
            init[4] = 0x1F
            init[15] = 0x02
        for c in init:
            self.cmd(c)

    def cmd(self, c):
        self.cmd_buf[1] = c
        self.i2c.writeto(self.address, self.cmd_buf)

    def show(self, lines):
        fb = self.fb
        fb.fill(0)
        y = 0
        for line in lines:
            fb.text(line, 0, y, 1)
            y += 8
        for c in (0x21, 0, self.width - 1, 0x22, 0, self.pages - 1):
            self.cmd(c)
        self.i2c.writeto(self.address, self.buf)

    def power(self, on):
        self.cmd(0xAF if on else 0xAE)
