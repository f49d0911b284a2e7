"""In-process publish/subscribe of a table's public state and events, for displays."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

State = dict[str, Any]


class Feed:
    """Latest public state of a table, pushed to every subscriber.

    The state never holds a selection before every seat has locked; displays subscribe here,
    never to a transport. Slow subscribers only ever see the newest state.
    """

    def __init__(self) -> None:
        self.latest: State | None = None
        self._queues: set[asyncio.Queue[State]] = set()
        self._listeners: list[Callable[[State], None]] = []

    def publish(self, state: State) -> None:
        self.latest = state
        for q in self._queues:
            if q.full():
                q.get_nowait()
            q.put_nowait(state)
        for fn in self._listeners:
            fn(state)

    def listen(self, fn: Callable[[State], None]) -> None:
        """Call `fn` synchronously with every new state."""
        self._listeners.append(fn)

    async def subscribe(self) -> AsyncIterator[State]:
        """Yields the current state, then each new one."""
        q: asyncio.Queue[State] = asyncio.Queue(maxsize=1)
        if self.latest is not None:
            q.put_nowait(self.latest)
        self._queues.add(q)
        try:
            while True:
                yield await q.get()
        finally:
            self._queues.discard(q)
