"""One socket write per connection per loop turn.

A turn of the host's event loop handles whatever the last poll found readable: under load,
frames of many controllers of many tables. Each session flushes what it posted once per
turn (after the journal's one transaction for that turn, see dialbox.sessions.session); on
MQTT those flushes become several PUBLISH packets on the same broker connection, and
asyncio's transport would make one `send()` system call for each. `Cork` wraps such a
transport: writes made during a turn are joined and handed to the real transport once, at
the start of the next turn, before the loop polls again (`loop.call_soon`), so a 6-seat
table's acks, statuses and reveals leave in one segment. Order is kept; nothing is dropped:
a closing transport still gets what was written before `close()`.
"""

from __future__ import annotations

import asyncio
from typing import Any


class Cork:
    """A stand-in for an asyncio write transport that joins a turn's writes into one."""

    __slots__ = ("_real", "_loop", "_buf", "writes", "sends")

    def __init__(self, real: asyncio.WriteTransport, loop: asyncio.AbstractEventLoop) -> None:
        self._real = real
        self._loop = loop
        self._buf: list[bytes] = []
        self.writes = 0
        """Writes asked for (one per MQTT packet)."""
        self.sends = 0
        """Writes handed to the real transport (one per loop turn that wrote)."""

    def write(self, data: bytes | bytearray | memoryview) -> None:
        if not self._buf:
            self._loop.call_soon(self.flush)
        self._buf.append(bytes(data))
        self.writes += 1

    def flush(self) -> None:
        """Hand everything written so far to the real transport (one write)."""
        if not self._buf:
            return
        data = self._buf[0] if len(self._buf) == 1 else b"".join(self._buf)
        self._buf.clear()
        self.sends += 1
        if not self._real.is_closing():
            self._real.write(data)

    def is_closing(self) -> bool:
        return self._real.is_closing()

    def close(self) -> None:
        self.flush()
        self._real.close()

    def abort(self) -> None:
        self._buf.clear()
        self._real.abort()

    def __getattr__(self, name: str) -> Any:  # get_extra_info, pause_reading, ...
        return getattr(self._real, name)


def cork_gmqtt(client: Any) -> Cork | None:
    """Cork a connected gmqtt client's socket (its protocol and connection both write to the
    transport directly); None when the client has no live transport."""
    conn = getattr(client, "_connection", None)
    proto = getattr(conn, "_protocol", None)
    real = getattr(proto, "_transport", None)
    if conn is None or proto is None or real is None:
        return None
    if isinstance(real, Cork):
        return real
    cork = Cork(real, asyncio.get_running_loop())
    proto._transport = cork
    conn._transport = cork
    return cork
