"""In-process publish/subscribe of a table's public state and events, for displays."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any, Generic, TypeVar

State = dict[str, Any]
T = TypeVar("T")


class Feed(Generic[T]):
    """The latest public state of a table, pushed to every subscriber.

    The state never holds a selection before every seat has locked; displays subscribe here,
    never to a transport. A subscriber may fall `backlog` states behind before it loses the
    oldest ones (backlog 1: slow subscribers only ever see the newest state).
    """

    def __init__(self, initial: T | None = None, backlog: int = 1) -> None:
        self.latest: T | None = initial
        self.backlog = backlog
        self._queues: set[asyncio.Queue[T]] = set()
        self._listeners: list[Callable[[T], None]] = []

    def publish(self, state: T) -> None:
        self.latest = state
        for q in self._queues:
            if q.full():
                q.get_nowait()
            q.put_nowait(state)
        for fn in self._listeners:
            fn(state)

    def listen(self, fn: Callable[[T], None]) -> None:
        """Call `fn` synchronously with every new state."""
        self._listeners.append(fn)

    async def subscribe(self) -> AsyncIterator[T]:
        """Yields the current state, then each new one."""
        q: asyncio.Queue[T] = asyncio.Queue(maxsize=self.backlog)
        if self.latest is not None:
            q.put_nowait(self.latest)
        self._queues.add(q)
        try:
            while True:
                yield await q.get()
        finally:
            self._queues.discard(q)
