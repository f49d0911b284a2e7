"""Join codes: the one-time codes a table screen shows for its free seats (pure logic).

A code is 6 characters of an alphabet without the look-alikes 0/O and 1/I, drawn with
`secrets` (32**6, about 10**9 codes). Each free seat has one; it is good for one pairing and
for TTL seconds, after which a new one takes its place. A code of a seat that is no longer
free, or of an earlier stage of the table (another game, the menu), is withdrawn. Codes are
public (the screen shows them to the room on purpose): they are not secrets of the game,
only a way to choose a seat at this table; the device key is what a phone proves itself
with afterwards, and it is handed out once, to the phone that used the code.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""No 0/O, no 1/I: a code read off a screen is typed right."""
LENGTH = 6
TTL = 600.0
"""Seconds a code is good for (a new one is shown after)."""
REMEMBERED = 256
"""Spent, expired and withdrawn codes kept, to say why one is refused."""


@dataclass(frozen=True, slots=True)
class JoinCode:
    code: str
    seat: int
    stage: str
    """Which seats the seat number counts (a game's, or the menu's): a code of another stage
    is withdrawn."""
    expires: float


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a code cannot pair: an HTTP status and one line."""

    status: int
    text: str


def normalise(text: str) -> str | None:
    """The code as typed (any case, spaces and dashes ignored), or None if it cannot be one."""
    code = "".join(text.split()).replace("-", "").upper()
    if len(code) != LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


class JoinCodes:
    """The join codes of one table."""

    def __init__(self, ttl: float = TTL, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self.live: dict[int, JoinCode] = {}
        """seat -> its code now."""
        self.gone: OrderedDict[str, Refusal] = OrderedDict()

    def _forget(self, jc: JoinCode, why: Refusal) -> None:
        self.gone[jc.code] = why
        self.gone.move_to_end(jc.code)
        while len(self.gone) > REMEMBERED:
            self.gone.popitem(last=False)

    def _draw(self) -> str:
        while True:
            code = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
            if code not in self.gone and all(c.code != code for c in self.live.values()):
                return code

    def current(self, free: Iterable[int], stage: str) -> list[JoinCode]:
        """The codes of the free seats now, in seat order (new ones drawn where needed)."""
        now = self.clock()
        wanted = set(free)
        for seat, jc in list(self.live.items()):
            if jc.stage != stage:
                del self.live[seat]
                self._forget(jc, Refusal(410, f"code {jc.code} is stale: the table moved on; "
                                              "use a code the screen shows now"))
            elif seat not in wanted:
                del self.live[seat]
                self._forget(jc, Refusal(409, f"seat {seat + 1} is taken already: use the "
                                              "code of a free seat"))
            elif jc.expires <= now:
                del self.live[seat]
                self._forget(jc, Refusal(410, f"code {jc.code} has expired: use the new code "
                                              "the screen shows"))
        for seat in sorted(wanted):
            if seat not in self.live:
                self.live[seat] = JoinCode(self._draw(), seat, stage, now + self.ttl)
        return [self.live[s] for s in sorted(self.live)]

    def check(self, code: str, free: Iterable[int], stage: str) -> JoinCode | Refusal:
        """The live code `code` stands for, or why it cannot pair (nothing is spent)."""
        free = list(free)
        self.current(free, stage)
        for jc in self.live.values():
            if jc.code == code:
                return jc
        gone = self.gone.get(code)
        if gone is not None:
            return gone
        return Refusal(404, f"no such code {code}: type the code the table screen shows")

    def spend(self, jc: JoinCode) -> None:
        """A pairing used `jc`: it is no longer good (its seat gets no new one while taken)."""
        if self.live.get(jc.seat) == jc:
            del self.live[jc.seat]
        self._forget(jc, Refusal(409, f"code {jc.code} was used already: each code pairs one "
                                      "phone"))
