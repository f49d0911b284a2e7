"""Recovery and self-healing of the controller firmware (CPython, fakes for the hardware):
faults in a pass reported and survived, the OLED dropped after repeated I2C failures, fault
storms rate-limited, Ctrl-C never swallowed, the watchdog started and fed, an exception
escaping the loop reported and followed by a reset, safe boot, battery hysteresis, and the
two-step deploy that resets into safe boot before it copies. The same fault handling runs
on the MicroPython unix port in mp_resilience.py."""

from __future__ import annotations

import asyncio
import importlib
import json
import runpy
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from dialbox_fw import app as appmod
from dialbox_fw.core.store import MemoryStore
from dialbox_fw.transports.serial import SerialLink

from dialbox.firmware_tools import bundle, deploy
from dialbox.paths import firmware_dir
from dialbox_protocol import codec
from tests.firmware.conftest import run_micropython
from tests.firmware.test_app import Hal as QuietHal

# ------------------------------------------------------------------ fakes


class Stream:
    """A serial stream: bytes the test supplies, frames the firmware wrote; `raise_next`
    makes the next read raise (a USB glitch), `closed` ends it (-1, the link is down)."""

    def __init__(self) -> None:
        self.rx = b""
        self.tx: list[bytes] = []
        self.raise_next: BaseException | None = None
        self.closed = False

    def readinto(self, buf: Any) -> int:
        if self.raise_next is not None:
            e, self.raise_next = self.raise_next, None
            raise e
        if self.closed:
            return -1
        n = min(len(buf), len(self.rx))
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def write(self, data: bytes) -> None:
        self.tx.append(bytes(data))

    def frames(self, name: str | None = None) -> list[dict[str, Any]]:
        out = []
        for raw in self.tx:
            msg = codec.decode_frame(raw)
            assert isinstance(msg, dict), msg
            if name is None or msg["t"] == name:
                out.append(msg)
        return out


class FakeOled:
    def __init__(self) -> None:
        self.shown: list[list[str]] = []
        self.broken = False

    def show(self, lines: list[str]) -> None:
        if self.broken:
            raise OSError(5)  # EIO: the display does not answer on I2C
        self.shown.append(list(lines))


class FakeWdt:
    def __init__(self) -> None:
        self.feeds = 0

    def feed(self) -> None:
        self.feeds += 1


class Hal(QuietHal):
    """A board-shaped HAL: an optional OLED, a fake watchdog, faults on demand."""

    def __init__(self, stream: Stream | None = None) -> None:
        super().__init__()
        self.stream = stream or Stream()
        self.oled: FakeOled | None = FakeOled()
        self.leds: list[str] = []
        self.resets = 0
        self.wdt: FakeWdt | None = None
        self.polls = 0
        self.poll_fault: BaseException | None = None
        self.poll_faults = 0  # raise poll_fault on this many polls (-1: every one)
        self.feed_fault: BaseException | None = None
        self.stop_after: int | None = None  # close the stream after that many polls
        self.low = False

    def unique_id(self) -> str:
        return "res-1"

    def can_sense_battery(self) -> bool:
        return True

    def battery_low(self) -> bool:
        return self.low

    def serial_stream(self) -> Stream:
        return self.stream

    def poll(self, now: int) -> None:
        self.polls += 1
        if self.stop_after is not None and self.polls >= self.stop_after:
            self.stream.closed = True
        if self.poll_fault is not None and self.poll_faults:
            self.poll_faults -= 1
            raise self.poll_fault

    def view(self, lines: list[str], led: str, ctl: Any) -> None:
        self.leds.append(led)
        if self.oled is not None:
            self.oled.show(lines)

    def feed(self) -> None:
        """As BoardHal.feed: the first call starts the watchdog, the next ones feed it."""
        if self.feed_fault is not None:
            raise self.feed_fault
        if self.wdt is None:
            self.wdt = FakeWdt()
        else:
            self.wdt.feed()

    def reset(self) -> None:
        self.resets += 1


def _app(tmp_path: Path, hal: Hal) -> appmod.App:
    app = appmod.App(hal, str(tmp_path / "config.json"), MemoryStore())
    app.add_link(SerialLink(hal.stream))
    return app


def _errors(stream: Stream) -> list[str]:
    """The details of the `error internal` frames the firmware sent."""
    return [m["detail"] for m in stream.frames("error") if m["code"] == codec.E_INTERNAL]


# ------------------------------------------------------------------ faults in a pass


def test_an_oserror_in_the_view_is_reported_and_the_loop_goes_on(tmp_path: Path) -> None:
    hal = Hal()
    app = _app(tmp_path, hal)
    assert hal.oled is not None
    hal.oled.broken = True
    now = 1000
    app.cycle(now)  # the boot screen's redraw fails: the report is queued
    assert app.ctl.notice == "OSError 5"
    assert hal.errors and isinstance(hal.errors[0], OSError)
    # the loop goes on: the report goes out, and a ping is answered though the display
    # is still failing
    hal.stream.rx = codec.encode("ping", 0, [77])
    now += 5
    app.cycle(now)
    assert _errors(hal.stream) == ["OSError 5 in view"]
    assert [m["ms"] for m in hal.stream.frames("pong")] == [77]
    # the display comes back: the next redraw (not before the retry time) shows the notice
    hal.oled.broken = False
    app.cycle(now + 5)
    assert hal.oled.shown == []  # held back: a failed redraw is not tried every pass
    app.cycle(now + appmod._VIEW_RETRY_MS)
    assert hal.oled.shown and hal.oled.shown[-1][-1] == "! OSError 5"
    assert app.ctl.changed is False


def test_an_oserror_from_the_link_is_reported_and_the_loop_goes_on(tmp_path: Path) -> None:
    hal = Hal()
    app = _app(tmp_path, hal)
    hal.stream.raise_next = OSError(110)  # ETIMEDOUT from the USB stack
    app.cycle(1000)
    assert _errors(hal.stream) == []  # queued in this pass, written by the next
    hal.stream.rx = codec.encode("ping", 0, [5])
    app.cycle(1005)
    assert _errors(hal.stream) == ["OSError 110 in receive"]
    assert [m["ms"] for m in hal.stream.frames("pong")] == [5]
    assert app.reserve is not None  # a clean pass afterwards, as ever


def test_repeated_i2c_failures_drop_the_oled_and_say_so_once(tmp_path: Path) -> None:
    hal = Hal()
    app = _app(tmp_path, hal)
    oled = hal.oled
    assert oled is not None
    oled.broken = True
    now = 1000
    for _ in range(appmod._VIEW_GIVE_UP):
        app.cycle(now)
        now += appmod._VIEW_RETRY_MS
    assert hal.oled is None  # dropped: the controller runs on without it
    for _ in range(5):
        app.cycle(now)
        now += appmod._VIEW_RETRY_MS
    dropped = [d for d in _errors(hal.stream) if "OLED off" in d]
    assert dropped == ["OSError 5 in view, OLED off (+1)"]  # at once, with the one held back
    assert app.ctl.changed is False  # the LED-only redraw went through
    assert hal.leds  # and the LED is still driven


def test_a_fault_storm_is_rate_limited(tmp_path: Path) -> None:
    """A fault on every 5 ms pass for 10 s: at most one report every _FAULT_EVERY_MS,
    each telling how many were not reported since the last one; every fault counted."""
    hal = Hal()
    app = _app(tmp_path, hal)
    hal.poll_fault = OSError(5)
    hal.poll_faults = 2000
    now = 1000
    for _ in range(2000):
        app.cycle(now)
        now += 5
    hal.poll_faults = 0
    app.cycle(now)  # writes what the last faulty pass queued
    reports = _errors(hal.stream)
    assert 2 <= len(reports) <= 10000 // appmod._FAULT_EVERY_MS + 1
    assert reports[0] == "OSError 5 in poll"
    skipped = [int(r.rsplit("(+", 1)[1].rstrip(")")) for r in reports[1:]]
    assert all(n > 0 for n in skipped)
    assert len(reports) + sum(skipped) == 2000 - app.unreported
    assert len(hal.errors) == len(reports)  # the log is rate-limited too


def test_keyboard_interrupt_and_system_exit_are_never_swallowed(tmp_path: Path) -> None:
    hal = Hal()
    app = _app(tmp_path, hal)
    hal.poll_fault = KeyboardInterrupt()
    hal.poll_faults = 1
    with pytest.raises(KeyboardInterrupt):
        app.cycle(1000)
    hal.poll_fault = SystemExit("quit")
    hal.poll_faults = 1
    with pytest.raises(SystemExit):
        app.cycle(1005)
    # and through the whole app: Ctrl-C ends run() (and so reaches the REPL), no reset
    hal2 = Hal()
    hal2.poll_fault = KeyboardInterrupt()
    hal2.poll_faults = 1
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(appmod.run(hal2, str(tmp_path / "c2.json"), MemoryStore()))
    assert hal2.resets == 0
    assert _errors(hal.stream) == [] and _errors(hal2.stream) == []


def test_the_watchdog_is_started_then_fed_on_every_pass(tmp_path: Path) -> None:
    hal = Hal()
    hal.stop_after = 40  # then the serial link ends and run() returns
    app = asyncio.run(appmod.run(hal, str(tmp_path / "config.json"), MemoryStore()))
    assert hal.wdt is not None  # started after the first pass, fed after each other one
    assert hal.polls == 40 and hal.wdt.feeds == hal.polls - 1
    assert app.restart is False and hal.resets == 0


def test_an_exception_escaping_the_loop_is_reported_then_resets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(appmod, "_FATAL_PAUSE_MS", 0)
    hal = Hal()
    hal.feed_fault = RuntimeError("stuck")  # feed() runs outside the guarded pass
    app = asyncio.run(appmod.run(hal, str(tmp_path / "config.json"), MemoryStore()))
    assert hal.resets == 1 and app.restart is True
    assert "RuntimeError stuck in main_loop" in _errors(hal.stream)
    assert hal.oled is not None and hal.oled.shown[-1][-1] == "! RuntimeError s"
    assert hal.errors and isinstance(hal.errors[-1], RuntimeError)


def test_a_hal_reset_unwinds_the_app_and_its_caller_boots_again(tmp_path: Path) -> None:
    """A reset() that raises app.Reset (the virtual HAL's machine.reset()) is no fault:
    run() returns with restart set, nothing reported."""
    hal = Hal()
    hal.poll_fault = appmod.Reset("button")  # as the virtual HAL's reset op raises it
    hal.poll_faults = 1
    app = asyncio.run(appmod.run(hal, str(tmp_path / "config.json"), MemoryStore()))
    assert app.restart is True and app.running is False
    assert _errors(hal.stream) == [] and hal.errors == []
    assert issubclass(appmod.Reset, BaseException) and not issubclass(appmod.Reset, Exception)


def test_the_battery_warning_is_drawn_when_it_changes(tmp_path: Path) -> None:
    hal = Hal()
    app = _app(tmp_path, hal)
    app.cycle(1000)
    assert hal.oled is not None
    drawn = len(hal.oled.shown)
    app.cycle(1005)
    assert len(hal.oled.shown) == drawn  # nothing changed: no redraw
    hal.low = True
    app.cycle(1010)
    assert hal.oled.shown[-1][-1] == "LOW BATTERY"


def test_fault_descriptions_are_short_printable_ascii() -> None:
    assert appmod.describe(OSError(5), "view") == "OSError 5 in view"
    assert appmod.describe(KeyError("pid")) == "KeyError pid"
    assert appmod.describe(RuntimeError()) == "RuntimeError"
    text = appmod.describe(ValueError("caf\xe9 \x03" + "x" * 200), "receive")
    assert text.startswith("ValueError caf?? ?x") and len(text) == appmod._DETAIL_MAX
    assert codec.decode_frame(codec.encode("error", 0, [codec.E_INTERNAL, text, 0]))


def test_a_control_byte_can_never_be_part_of_a_frame() -> None:
    """Why the firmware leaves Ctrl-C on: 0x03 never occurs in a valid frame (the codec
    escapes it when encoding and refuses a frame that holds it when decoding)."""
    frame = codec.encode("error", 0, [codec.E_INTERNAL, "a\x03b", 0])
    assert 3 not in frame
    good = codec.encode("ping", 0, [5])
    bad = good[:2] + b"\x03" + good[2:]
    msg = codec.decode_frame(bad)
    assert not isinstance(msg, dict) and msg.code == codec.E_FRAME


# ------------------------------------------------------------------ the board HAL


class _Hw:
    """Fake `machine`, `rp2`, `framebuf` and `neopixel` modules for hal/board.py."""

    def __init__(self) -> None:
        self.resets = 0
        self.wdts: list[Any] = []
        self.adcs: list[Any] = []
        self.u16 = 0
        self.uv: int | None = None
        self.bootsel: list[int] = []
        self.boot_pin = 1
        self.i2c_broken = False
        hw = self

        class Pin:
            IN, OUT, PULL_UP, PULL_DOWN, IRQ_RISING, IRQ_FALLING = 0, 1, 1, 2, 1, 2

            def __init__(self, pin_id: Any, mode: int = -1, pull: int = -1) -> None:
                self.id = pin_id
                self.pull = pull

            def value(self) -> int:
                return hw.boot_pin if self.id == 0 else 1

            def irq(self, handler: Any = None, trigger: Any = None) -> None:
                pass

        class ADC:
            ATTN_11DB = 3

            def __init__(self, pin: Any, atten: int | None = None) -> None:
                self.pin = pin
                self.atten = atten
                hw.adcs.append(self)
                if hw.uv is not None:
                    self.read_uv = lambda: hw.uv or 0

            def read_u16(self) -> int:
                return hw.u16

        class WDT:
            def __init__(self, timeout: int) -> None:
                self.timeout = timeout
                self.feeds = 0
                hw.wdts.append(self)

            def feed(self) -> None:
                self.feeds += 1

        class I2C:
            def __init__(self, i2c_id: int, sda: Any, scl: Any, freq: int) -> None:
                self.writes = 0

            def writeto(self, addr: int, buf: Any) -> None:
                if hw.i2c_broken:
                    raise OSError(5)
                self.writes += 1

        def reset() -> None:
            hw.resets += 1

        self.machine = types.ModuleType("machine")
        m: Any = self.machine
        m.Pin, m.ADC, m.WDT, m.I2C, m.reset = Pin, ADC, WDT, I2C, reset
        m.unique_id = lambda: b"\x12\x34"
        m.disable_irq = lambda: 0
        m.enable_irq = lambda state: None
        self.rp2 = types.ModuleType("rp2")
        r: Any = self.rp2
        r.bootsel_button = lambda: hw.bootsel.pop(0) if hw.bootsel else 0
        self.framebuf = types.ModuleType("framebuf")
        f: Any = self.framebuf

        class FrameBuffer:
            def __init__(self, *args: Any) -> None:
                pass

            def fill(self, c: int) -> None:
                pass

            def text(self, s: str, x: int, y: int, c: int) -> None:
                pass

        f.FrameBuffer, f.MONO_VLSB = FrameBuffer, 0
        self.neopixel = types.ModuleType("neopixel")
        n: Any = self.neopixel

        class NeoPixel(list):  # type: ignore[type-arg]
            def __init__(self, pin: Any, count: int) -> None:
                super().__init__([(0, 0, 0)] * count)

            def write(self) -> None:
                pass

        n.NeoPixel = NeoPixel


@pytest.fixture
def hw(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Hw]:
    fake = _Hw()
    for name in ("machine", "rp2", "framebuf", "neopixel"):
        monkeypatch.setitem(sys.modules, name, getattr(fake, name))
    for name in ("dialbox_fw.hal.board", "dialbox_fw.hal.ssd1306"):
        monkeypatch.delitem(sys.modules, name, raising=False)
        importlib.import_module(name)  # afresh, with these fakes (and the package's attribute)
    yield fake
    for name in ("dialbox_fw.hal.board", "dialbox_fw.hal.ssd1306"):
        sys.modules.pop(name, None)  # imported with the fakes: not for anyone else


def _profile(**over: Any) -> dict[str, Any]:
    p: dict[str, Any] = {
        "board": "pico_w",
        "mcu": "rp2040",
        "encoder_driver": "irq",
        "encoders": [{"a": 2, "b": 3}, {"a": 6, "b": 7}, {"a": 10, "b": 11}],
        "button": {"pin": 15},
        "led": None,
        "oled": None,
        "battery": None,
    }
    p.update(over)
    return p


def test_board_watchdog_starts_once_and_is_fed(hw: _Hw) -> None:
    from dialbox_fw.hal import board

    hal = board.BoardHal(_profile())
    assert hw.wdts == []  # not while the HAL is built (nor in safe boot: see below)
    hal.feed()  # the main loop's first pass starts it
    assert len(hw.wdts) == 1 and hw.wdts[0].timeout == board.WDT_MS <= 8388  # RP2040 max
    hal.feed()
    hal.feed()
    assert len(hw.wdts) == 1 and hw.wdts[0].feeds == 2


def test_battery_hysteresis_and_read_interval(hw: _Hw) -> None:
    from dialbox_fw.hal import board

    readings = iter([3450, 3390, 3450, 3500, 3502, 3390])
    bat = board.Battery(lambda: next(readings) // 2, 2, 3400)
    now = 0
    assert bat.update(now) is False  # read at once: 3450 mV
    assert bat.update(now + 5000) is False  # not due: no read
    now += board.BAT_EVERY_MS
    assert bat.update(now) is True  # 3390 < 3400: low
    states = []
    for _ in range(3):  # 3450, 3500: still low (hysteresis); 3502: OK again
        now += board.BAT_EVERY_MS
        states.append(bat.update(now))
    assert states == [True, True, False]
    now += board.BAT_EVERY_MS
    assert bat.update(now) is True and bat.mv == 3390


def test_battery_is_read_through_the_profile_pin_and_divider(hw: _Hw) -> None:
    from dialbox_fw.hal import board

    bat = {"adc_pin": 26, "divider": 2, "low_mv": 3400}
    hw.u16 = 1650 * 65535 // 3300 + 1  # 1.65 V at GP26: 3.3 V on the battery
    hal = board.BoardHal(_profile(battery=bat))
    assert hal.can_sense_battery() and hw.adcs[0].pin.id == 26 and hw.adcs[0].atten is None
    assert hal.battery_low() is True and hal.battery is not None
    assert 3290 <= hal.battery.mv <= 3300
    # ESP32-S3: GPIO1, 11 dB attenuation, the calibrated read_uv()
    hw.uv = 1900_000
    hal = board.BoardHal(_profile(mcu="esp32s3", battery=dict(bat, adc_pin=1)))
    adc = hw.adcs[-1]
    assert adc.pin.id == 1 and adc.atten == 3
    assert hal.battery_low() is False and hal.battery is not None and hal.battery.mv == 3800
    assert board.BoardHal(_profile()).can_sense_battery() is False


@pytest.mark.parametrize("name", bundle.boards())
def test_every_board_profile_senses_its_battery_on_a_pin_without_wifi(hw: _Hw, name: str) -> None:
    """The profiles' battery entries (VBAT through 100k/100k): an ADC pin the WiFi chip
    does not share (GP26 on the Picos, not GP29), 11 dB on the ESP32-S3."""
    from dialbox_fw.hal import board

    profile = bundle.profile(name)
    bat = profile["battery"]
    assert bat is not None and bat["divider"] == 2 and bat["low_mv"] == 3400
    hal = board.BoardHal(dict(profile, encoder_driver="irq"))  # (the encoders: not here)
    assert hal.can_sense_battery()
    adc = hw.adcs[-1]
    if profile["mcu"] == "esp32s3":
        assert adc.pin.id == 1 and adc.atten == 3
    else:
        assert adc.pin.id == 26 and adc.atten is None
    hw.u16 = 65535  # full scale: far above low_mv
    assert hal.battery_low() is False


def test_a_failing_display_on_the_board_hal_is_dropped(tmp_path: Path, hw: _Hw) -> None:
    """The real SSD1306 driver on a fake I2C bus that stops answering: the app drops it."""
    from dialbox_fw.hal import board

    oled = {"i2c": 0, "sda": 4, "scl": 5, "address": 60, "width": 128, "height": 64,
            "freq": 400000}
    hal = board.BoardHal(_profile(oled=oled))
    assert hal.oled is not None
    stream = Stream()
    app = appmod.App(hal, str(tmp_path / "config.json"), MemoryStore())
    app.add_link(SerialLink(stream))
    monkey_errors: list[Any] = []
    hal.log_error = monkey_errors.append
    app.cycle(1000)
    assert hal.oled is not None and not _errors(stream)  # drawn
    hw.i2c_broken = True
    app.ctl.changed = True
    now = 1000
    for _ in range(4):
        now += appmod._VIEW_RETRY_MS
        app.cycle(now)
    assert hal.oled is None
    assert [d for d in _errors(stream) if "OLED off" in d] == ["OSError 5 in view, OLED off (+1)"]
    assert len(monkey_errors) >= 2


def test_board_log_on_flash_is_capped(tmp_path: Path, hw: _Hw,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from dialbox_fw.hal import board

    monkeypatch.chdir(tmp_path)
    hal = board.BoardHal(_profile())
    for i in range(board.LOG_MAX + 5):
        hal.log_error(OSError(i))
    text = (tmp_path / board.LOG_PATH).read_text()
    assert text.count("OSError") == board.LOG_MAX


# ------------------------------------------------------------------ safe boot


def test_safe_boot_decision(hw: _Hw) -> None:
    from dialbox_fw.hal import board

    slept: list[int] = []
    presses = iter([0, 0, 1])
    assert board.safe_boot(True, lambda: 1, 1000, slept.append) == "flag"
    assert slept == []  # the flag needs no window
    assert board.safe_boot(False, lambda: next(presses), 1000, slept.append) == "button"
    assert slept == [board.BUTTON_POLL_MS] * 2
    slept.clear()
    assert board.safe_boot(False, lambda: 0, 100, slept.append) is None
    assert sum(slept) == 100  # the whole window was watched
    assert board.safe_boot(False, None, 1000, slept.append) is None


def test_boot_buttons_per_mcu(hw: _Hw) -> None:
    from dialbox_fw.hal import board

    hw.bootsel = [1]
    for mcu in ("rp2040", "rp2350"):
        assert board.boot_button(mcu) is hw.rp2.bootsel_button
    esp = board.boot_button("esp32s3")
    assert esp is not None
    hw.boot_pin = 1
    assert esp() is False
    hw.boot_pin = 0  # BOOT pulls GPIO0 low
    assert esp() is True
    assert board.boot_button("something else") is None


def _boot_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, profile: Any) -> None:
    monkeypatch.chdir(tmp_path)
    if profile is not None:
        (tmp_path / "board.json").write_text(json.dumps(profile))


def test_boot_stays_in_the_repl_on_the_flag_or_the_button_without_a_watchdog(
    tmp_path: Path, hw: _Hw, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dialbox_fw.hal import board

    started: list[Any] = []
    monkeypatch.setattr(appmod, "run", lambda hal, *a: started.append(hal))
    monkeypatch.setattr(board, "BOOT_WINDOW_MS", 60)
    monkeypatch.setattr(board, "_sleep_ms", lambda ms: None)
    _boot_dir(tmp_path, monkeypatch, _profile())
    (tmp_path / "safeboot").write_text("")
    assert board.boot() == "flag"
    (tmp_path / "safeboot").unlink()
    hw.bootsel = [0, 0, 1]  # BOOTSEL pressed a moment after start
    assert board.boot() == "button"
    (tmp_path / "board.json").unlink()
    assert board.boot() == "no board profile"
    assert started == [] and hw.wdts == [] and hw.resets == 0


def test_boot_runs_the_app_and_resets_after_a_crash_but_not_after_ctrl_c(
    tmp_path: Path, hw: _Hw, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dialbox_fw.hal import board

    monkeypatch.setattr(board, "BOOT_WINDOW_MS", 0)
    monkeypatch.setattr(board, "RESET_PAUSE_MS", 0)
    _boot_dir(tmp_path, monkeypatch, _profile())
    ran: list[Any] = []

    async def crashes(hal: Any) -> None:
        ran.append(hal)
        raise ValueError("bad state")

    monkeypatch.setattr(appmod, "run", crashes)
    assert board.boot() is None
    assert len(ran) == 1 and isinstance(ran[0], board.BoardHal)
    assert hw.resets == 1
    assert "ValueError" in (tmp_path / board.LOG_PATH).read_text()

    async def interrupted(hal: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(appmod, "run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        board.boot()
    assert hw.resets == 1  # Ctrl-C: the REPL, no reset


def test_main_py_checks_the_flag_before_it_imports_the_firmware(
    tmp_path: Path, hw: _Hw, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from dialbox_fw.hal import board

    calls: list[int] = []
    monkeypatch.setattr(board, "boot", lambda: calls.append(1))
    monkeypatch.chdir(tmp_path)
    main = str(firmware_dir() / "main.py")
    (tmp_path / "safeboot").write_text("")
    runpy.run_path(main, run_name="__main__")
    assert calls == [] and "safe boot" in capsys.readouterr().out
    (tmp_path / "safeboot").unlink()
    runpy.run_path(main, run_name="__main__")
    assert calls == [1]


# ------------------------------------------------------------------ deploy

_FAKE_MPREMOTE = """import json, sys
args = sys.argv[1:]
with open({log!r}, "a") as f:
    f.write(json.dumps(args) + "\\n")
calls = sum(1 for _ in open({log!r}))
fail = {fail!r}
if calls in fail:
    print(fail[calls])
    sys.exit(1)
for i, a in enumerate(args):
    if a == "cp":
        print("cp", args[i + 1], args[i + 2])
"""


def _fake(tmp_path: Path, fail: dict[int, str]) -> tuple[list[str], Path]:
    log = tmp_path / "calls.jsonl"
    fake = tmp_path / "mpremote.py"
    fake.write_text(_FAKE_MPREMOTE.format(log=str(log), fail=fail))
    return [sys.executable, str(fake)], log


def _calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_deploy_stops_the_app_into_safe_boot_before_it_copies(tmp_path: Path) -> None:
    b = bundle.build("pico_w", tmp_path / "b")
    cmd, log = _fake(tmp_path, {})
    seen: list[int] = []
    assert deploy.deploy(b, "/dev/ttyACM9", lambda d, t, n: seen.append(d), cmd) == 0
    stop, copy = _calls(log)
    # 1: mpremote's Ctrl-C and raw REPL, the flag written, a hard reset (clears the WDT)
    assert stop[:3] == ["connect", "/dev/ttyACM9", "exec"]
    assert "safeboot" in stop[3] and "'w'" in stop[3] and stop[-2:] == ["+", "reset"]
    # 2: the flag again first, every file, then the flag removed, then the reset
    assert "safeboot" in copy[3] and copy[3].index("safeboot") < copy[3].index("def rm")
    cps = [copy[i + 1] for i, a in enumerate(copy) if a == "cp"]
    assert cps == list(b.files) and seen == list(range(1, len(b.files) + 1))
    last_cp = max(i for i, a in enumerate(copy) if a == "cp")
    clear = copy.index("exec", last_cp)
    assert "os.remove('safeboot')" in copy[clear + 1]
    assert copy[-2:] == ["+", "reset"]


def test_deploy_tries_the_copy_again_while_the_board_comes_back(tmp_path: Path) -> None:
    b = bundle.build("pico_w", tmp_path / "b")
    cmd, log = _fake(tmp_path, {2: "mpremote: failed to access /dev/ttyACM9"})
    seen: list[int] = []
    status = deploy.deploy(b, "/dev/ttyACM9", lambda d, t, n: seen.append(d), cmd,
                           retry_wait=0.0)
    assert status == 0
    calls = _calls(log)
    assert len(calls) == 3 and calls[1] == calls[2]  # the copy, tried again as it was
    assert seen == list(range(1, len(b.files) + 1))


def test_deploy_explains_a_board_that_ignores_ctrl_c(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = bundle.build("pico_w", tmp_path / "b")
    cmd, log = _fake(tmp_path, {1: "could not enter raw repl"})
    assert deploy.deploy(b, "/dev/ttyACM9", lambda d, t, n: None, cmd) == 1
    assert len(_calls(log)) == 1  # nothing copied to a board that is still running
    assert "did not stop its program" in capsys.readouterr().err


# ------------------------------------------------------------------ on the unix port


@pytest.mark.micropython
def test_fault_handling_on_the_micropython_unix_port() -> None:
    proc = run_micropython("mp_resilience.py")  # (sources, compiled here: the default heap)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[-1] == "OK", proc.stdout + proc.stderr
    assert "view OSError 5 in view" in lines
    assert "oled dropped True" in lines
    assert "interrupt passed" in lines
    assert "reset passed" in lines
    assert "OSError 110 in receive | ValueError ??x" in lines  # printable ASCII only
