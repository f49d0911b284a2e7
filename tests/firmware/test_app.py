"""The application's main-loop pass: the memory reserve around a MemoryError (CPython)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dialbox_fw import app as appmod
from dialbox_fw.core.store import MemoryStore

from dialbox_protocol import codec


class Stream:
    """A serial stream whose incoming bytes the test supplies."""

    def __init__(self) -> None:
        self.rx = b""
        self.tx: list[bytes] = []

    def readinto(self, buf: Any) -> int:
        n = min(len(buf), len(self.rx))
        buf[:n] = self.rx[:n]
        self.rx = self.rx[n:]
        return n

    def write(self, data: bytes) -> None:
        self.tx.append(bytes(data))


class Hal:
    def __init__(self) -> None:
        self.errors: list[Any] = []

    def unique_id(self) -> str:
        return "app-1"

    def board_name(self) -> str:
        return "sim"

    def can_sense_battery(self) -> bool:
        return False

    def battery_low(self) -> bool:
        return False

    def take_detents(self, i: int) -> int:
        return 0

    def button_pressed(self) -> bool:
        return False

    def poll(self, now: int) -> None:
        pass

    def view(self, lines: list[str], led: str, ctl: Any) -> None:
        pass

    def log_error(self, e: Any) -> None:
        self.errors.append(e)


def test_the_reserve_stays_given_up_until_the_retry_went_through(tmp_path: Path) -> None:
    """After a MemoryError frees the reserve, a quiet pass must not take it back: that
    would refill the very hole the host's retransmission needs, and the same MemoryError
    would repeat for ever (the controller then never takes the prompt). It comes back
    once a reliable frame has been handled, or after RESERVE_HOLD_MS."""
    from dialbox_fw.transports.serial import SerialLink

    hal = Hal()
    app = appmod.App(hal, str(tmp_path / "config.json"), MemoryStore())
    stream = Stream()
    link = SerialLink(stream)
    app.add_link(link)
    now = 1000
    app.cycle(now)
    assert app.reserve is not None  # taken on the first clean pass

    # the decoder runs out of memory on a frame (it reports `internal`, never raises)
    app.handle(codec.DecodeError(codec.E_INTERNAL, "decoder failure: out of memory"), now, link)
    assert app.reserve is None and app.memory_errors == 1 and hal.errors
    for _ in range(10):  # quiet passes while the host waits to retransmit
        now += 5
        app.cycle(now)
        assert app.reserve is None

    # the retransmission (here the welcome) goes through: the reserve is taken back
    stream.rx = codec.encode("welcome", 1, [0, "43a047", "t1", "Green"])
    now += 250
    app.cycle(now)
    assert app.ctl.seat == 0
    now += 5
    app.cycle(now)
    assert app.reserve is not None

    # a MemoryError in a pass, and no reliable frame after it: back after the hold time
    app.starved(MemoryError("test"), now)
    now += appmod.RESERVE_HOLD_MS
    app.cycle(now)
    assert app.reserve is None
    now += 5
    app.cycle(now)
    assert app.reserve is not None
