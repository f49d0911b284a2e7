"""Bounded logging for input from outside: a flood of bad frames costs a few log lines.

Every link (a serial port, a controller's MQTT topics) logs what it refuses through its own
`LogLimit`: a token bucket that lets `burst` lines through at once and then `rate` lines a
second. Lines it holds back are counted and told in one line ("... suppressed K log lines")
at most once every `report_every` seconds, and at the latest `report_every` seconds after
the last one held back. So a link under a flood of T seconds writes at most

    burst + rate * T + T / report_every + 1

lines (`LogLimit.bound`), whatever the flood's rate: the 10,000 malformed frames a second
that used to write a line each write about three a second.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

RATE = 2.0
"""Log lines a second per link once its burst is spent."""
BURST = 10
"""Log lines a link may write at once (a controller's few bad frames are all told)."""
REPORT_EVERY = 1.0
"""Seconds between two "suppressed" lines of one link."""


class TokenBucket:
    """`burst` tokens at once, refilled at `rate` a second; `take()` spends one if it can."""

    def __init__(self, rate: float, burst: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self.clock = clock
        self.tokens = float(burst)
        self.stamp = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class LogLimit:
    """The log lines of one link, rate-limited (see the module's docstring)."""

    def __init__(self, name: str, rate: float | None = None, burst: int | None = None,
                 report_every: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.name = name
        self.bucket = TokenBucket(RATE if rate is None else rate,
                                  BURST if burst is None else burst, clock)
        self.report_every = REPORT_EVERY if report_every is None else report_every
        self.clock = clock
        self.logged = 0
        """Lines written (the "suppressed" lines included)."""
        self.suppressed = 0
        """Lines held back in all."""
        self._held = 0
        self._held_logger: logging.Logger | None = None
        self._held_level = logging.INFO
        self._last_report = clock() - self.report_every
        self._timer: asyncio.TimerHandle | None = None

    def bound(self, seconds: float) -> int:
        """The most lines this link writes in `seconds` (its "suppressed" lines included)."""
        return int(self.bucket.burst + self.bucket.rate * seconds
                   + seconds / self.report_every) + 1

    def log(self, logger: logging.Logger, level: int, msg: str, *args: object) -> bool:
        """`logger.log(level, msg, *args)` if the bucket allows it, else count it; whether
        it was written. Lines the logger would not write anyway cost no token."""
        if not logger.isEnabledFor(level):
            return False
        if self.bucket.take():
            self._report(force=False)
            self.logged += 1
            logger.log(level, msg, *args)
            return True
        self.suppressed += 1
        self._held += 1
        if self._held_logger is None or level > self._held_level:
            self._held_logger, self._held_level = logger, level
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return False  # told by the next line that gets through
            self._timer = loop.call_later(self.report_every, self._report, True)
        return False

    def _report(self, force: bool) -> None:
        if not force and (not self._held
                          or self.clock() - self._last_report < self.report_every):
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._held:
            return
        logger = self._held_logger or logging.getLogger("dialbox")
        logger.log(self._held_level, "%s: suppressed %d log lines (at most %g a second)",
                   self.name, self._held, self.bucket.rate)
        self.logged += 1
        self._held = 0
        self._held_logger = None
        self._held_level = logging.INFO
        self._last_report = self.clock()
