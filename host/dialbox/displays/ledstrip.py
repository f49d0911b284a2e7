"""The LED strip: one segment per seat in the seat's colour, animated from public seat state.

The pattern is pure (state + tick -> frame) so tests can step it exactly; the driver pushes
frames to a backend: real WS2812 pixels on the Pi (adafruit-blinka + neopixel), or a recording
backend for tests and the demo.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

RGB = tuple[int, int, int]
Frame = tuple[RGB, ...]
OFF: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)
ALARM: RGB = (255, 0, 0)

SeatStatus = Literal["empty", "waiting", "programming", "locked", "offline", "revealed"]
Moment = Literal["none", "alllocked", "reveal"]

FPS = 30
SWEEP_TICKS = 24  # all-locked sweep: 0.8 s at 30 fps
FLASH_TICKS = 12  # reveal flash: 0.4 s, then the revealed colours
BLINK_TICKS = 8  # offline blink half-period


class LedStripConfig(BaseModel):
    """[ledstrip] in the daemon's config file."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: Literal["neopixel", "sim", "none"] = "sim"
    pin: str = Field("D18", pattern=r"^D\d{1,2}$", description="blinka board pin, e.g. D18")
    pixels: int = Field(60, ge=1, le=1024)
    brightness: float = Field(0.5, gt=0, le=1)


def parse_colour(hex6: str) -> RGB:
    return (int(hex6[0:2], 16), int(hex6[2:4], 16), int(hex6[4:6], 16))


def scale(c: RGB, k: float) -> RGB:
    return (int(c[0] * k), int(c[1] * k), int(c[2] * k))


@dataclass(frozen=True, slots=True)
class SeatLight:
    seat: int
    colour: str
    """rrggbb"""
    status: SeatStatus


@dataclass(frozen=True, slots=True)
class StripState:
    seats: tuple[SeatLight, ...]
    moment: Moment = "none"
    moment_tick: int = 0
    """The tick at which the current moment (sweep or flash) began."""


LEVEL: dict[SeatStatus, float] = {
    "empty": 0.0,
    "waiting": 0.06,
    "programming": 0.18,
    "locked": 1.0,
    "offline": 1.0,
    "revealed": 1.0,
}


class StripPattern:
    """Pure: which colour every pixel has for a state at a tick."""

    def __init__(self, pixels: int, brightness: float = 1.0) -> None:
        self.pixels = pixels
        self.brightness = brightness

    def segments(self, seats: int) -> list[range]:
        """Pixels of each seat's segment, with one dark pixel between segments if room."""
        if seats == 0:
            return []
        gap = 1 if self.pixels >= seats * 3 else 0
        width = (self.pixels - gap * (seats - 1)) // seats
        return [range(i * (width + gap), i * (width + gap) + width) for i in range(seats)]

    def frame(self, state: StripState, tick: int) -> Frame:
        px: list[RGB] = [OFF] * self.pixels
        age = tick - state.moment_tick
        for light, seg in zip(state.seats, self.segments(len(state.seats)), strict=False):
            colour = parse_colour(light.colour)
            level = LEVEL[light.status]
            if light.status == "offline" and (tick // BLINK_TICKS) % 2:
                colour, level = ALARM, 1.0
            c = scale(colour, level * self.brightness)
            for i in seg:
                px[i] = c
        if state.moment == "alllocked" and 0 <= age < SWEEP_TICKS:
            head = age * self.pixels // SWEEP_TICKS
            for i in range(max(0, head - 3), min(self.pixels, head + 1)):
                px[i] = scale(WHITE, self.brightness * (1.0 - (head - i) * 0.25))
        elif state.moment == "reveal" and 0 <= age < FLASH_TICKS:
            k = self.brightness * (1.0 - age / FLASH_TICKS)
            px = [
                (max(p[0], int(255 * k)), max(p[1], int(255 * k)), max(p[2], int(255 * k)))
                for p in px
            ]
        return tuple(px)


class StripBackend(Protocol):
    def show(self, frame: Frame) -> None: ...

    def close(self) -> None: ...


@dataclass
class RecordingBackend:
    """Keeps the frames shown, newest last (tests, the demo's on-screen strip)."""

    frames: deque[Frame] = field(default_factory=lambda: deque(maxlen=5000))

    def show(self, frame: Frame) -> None:
        self.frames.append(frame)

    def close(self) -> None:
        pass

    @property
    def last(self) -> Frame:
        return self.frames[-1] if self.frames else ()


class StripUnavailable(RuntimeError):
    """The NeoPixel backend cannot run here (not a Pi, or the `pi` extra is not installed)."""


def _pixel_driver(config: LedStripConfig) -> tuple[Any, Any]:
    """The board pin and the neopixel module (StripUnavailable, one line, if not here)."""
    try:
        import board
        import neopixel
    except (ImportError, NotImplementedError, RuntimeError) as e:
        raise StripUnavailable(
            f"[ledstrip] backend \"neopixel\" cannot drive WS2812 pixels here ({e}); on a "
            "Raspberry Pi `pip install -e '.[pi]'`, or set [ledstrip] backend = \"sim\" "
            "(drawn on the table screen) or \"none\""
        ) from None
    pin = getattr(board, config.pin, None)
    if pin is None:
        raise StripUnavailable(f"[ledstrip] pin {config.pin}: this board has no such pin")
    return pin, neopixel


def check_backend(config: LedStripConfig) -> None:
    """StripUnavailable (one line) if the configured backend cannot run here; touches no
    pixel (`dialbox run` checks this before it writes anything)."""
    if config.backend == "neopixel":
        _pixel_driver(config)


class NeoPixelBackend:
    """WS2812 pixels on a Raspberry Pi through adafruit-blinka + adafruit-circuitpython-neopixel."""

    def __init__(self, config: LedStripConfig) -> None:
        pin, neopixel = _pixel_driver(config)
        self._pixels: Any = neopixel.NeoPixel(
            pin, config.pixels, brightness=1.0, auto_write=False
        )

    def show(self, frame: Frame) -> None:
        for i, c in enumerate(frame):
            self._pixels[i] = c
        self._pixels.show()

    def close(self) -> None:
        self._pixels.fill(OFF)
        self._pixels.show()


class LedStrip:
    """Drives a backend from seat state: call update()/moment(), run() ticks at FPS."""

    def __init__(self, backend: StripBackend, pixels: int, brightness: float = 1.0) -> None:
        self.backend = backend
        self.pattern = StripPattern(pixels, brightness)
        self.state = StripState(())
        self.tick = 0
        self._last: Frame | None = None

    def update(self, seats: Sequence[SeatLight]) -> None:
        self.state = StripState(tuple(seats), self.state.moment, self.state.moment_tick)

    def moment(self, moment: Moment) -> None:
        self.state = StripState(self.state.seats, moment, self.tick)

    def step(self) -> Frame:
        """Advance one tick; shows the frame if it changed."""
        frame = self.pattern.frame(self.state, self.tick)
        self.tick += 1
        if frame != self._last:
            self.backend.show(frame)
            self._last = frame
        return frame

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            while True:
                self.step()
                await asyncio.sleep(max(0.0, start + self.tick / FPS - loop.time()))
        finally:
            self.backend.close()


def make_backend(config: LedStripConfig) -> StripBackend | None:
    if config.backend == "none":
        return None
    if config.backend == "sim":
        return RecordingBackend()
    return NeoPixelBackend(config)
