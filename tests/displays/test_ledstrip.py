"""The LED strip through a whole prompt, on the recording backend, stepped tick by tick."""

from __future__ import annotations

import pytest

from dialbox.displays.ledstrip import (
    BLINK_TICKS,
    FLASH_TICKS,
    SWEEP_TICKS,
    LedStrip,
    LedStripConfig,
    NeoPixelBackend,
    RecordingBackend,
    SeatLight,
    StripUnavailable,
)

COLOURS = ["e53935", "43a047", "1e88e5", "fdd835"]


def seats(*statuses: str) -> list[SeatLight]:
    return [SeatLight(i, COLOURS[i], s) for i, s in enumerate(statuses)]  # type: ignore[arg-type]


def segment(
    frame: tuple[tuple[int, int, int], ...], strip: LedStrip, seat: int
) -> set[tuple[int, int, int]]:
    return {frame[i] for i in strip.pattern.segments(4)[seat]}


def test_a_full_prompt_as_frames() -> None:
    rec = RecordingBackend()
    strip = LedStrip(rec, pixels=24)
    strip.update(seats("programming", "programming", "programming", "programming"))
    f = strip.step()
    dim = segment(f, strip, 0)
    assert len(dim) == 1 and 0 < max(next(iter(dim))) < 100  # dim red while programming
    # seat 2 locks: bright in its own colour, others still dim
    strip.update(seats("programming", "locked", "programming", "programming"))
    f = strip.step()
    assert segment(f, strip, 1) == {(0x43, 0xA0, 0x47)}
    assert segment(f, strip, 0) == dim
    # everyone locked, then the all-locked sweep runs forward along the strip
    strip.update(seats("locked", "locked", "locked", "locked"))
    strip.moment("alllocked")
    heads = []
    for _ in range(SWEEP_TICKS):
        f = strip.step()
        whites = [i for i, p in enumerate(f) if p == (255, 255, 255)]
        assert len(whites) == 1
        heads.append(whites[0])
    assert heads == sorted(heads) and heads[0] < 3 and heads[-1] > 20
    f = strip.step()
    assert (255, 255, 255) not in f  # sweep over: locked colours only
    # the reveal flash starts white and fades back to the seat colours
    strip.update(seats("revealed", "revealed", "revealed", "revealed"))
    strip.moment("reveal")
    first = strip.step()
    assert all(p == (255, 255, 255) for p in first)
    for _ in range(FLASH_TICKS):
        f = strip.step()
    assert segment(f, strip, 3) == {(0xFD, 0xD8, 0x35)}
    # frames are only pushed when they change
    n = len(rec.frames)
    strip.step()
    assert len(rec.frames) == n


def test_offline_controller_blinks_alarm_red() -> None:
    strip = LedStrip(RecordingBackend(), pixels=12)
    strip.update(seats("locked", "offline", "locked", "locked"))
    a = strip.step()
    for _ in range(BLINK_TICKS):
        b = strip.step()
    assert segment(a, strip, 1) != segment(b, strip, 1)
    assert (255, 0, 0) in segment(a, strip, 1) | segment(b, strip, 1)
    assert segment(a, strip, 0) == segment(b, strip, 0)


def test_segments_fit_the_strip() -> None:
    strip = LedStrip(RecordingBackend(), pixels=10)
    segs = strip.pattern.segments(6)
    assert len(segs) == 6 and all(len(s) >= 1 for s in segs)
    assert max(max(s) for s in segs) < 10


def test_neopixel_backend_explains_when_it_cannot_run() -> None:
    # This machine is not a Raspberry Pi and has no blinka: the error says what to do.
    with pytest.raises(StripUnavailable, match='backend = "sim"'):
        NeoPixelBackend(LedStripConfig(backend="neopixel"))


def test_config_rejects_a_bad_pin() -> None:
    with pytest.raises(ValueError):
        LedStripConfig(pin="GPIO18")
