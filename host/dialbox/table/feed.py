"""In-process publish/subscribe of a table's public state and events, for displays."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Feed(Generic[T]):
    """The latest public state of a table, pushed to every subscriber.

    The state never holds a selection before every seat has locked; displays subscribe here,
    never to a transport. A subscriber may fall `backlog` states behind before it loses the
    oldest ones (backlog 1: slow subscribers only ever see the newest state).
    """

    def __init__(self, initial: T | None = None, backlog: int = 1,
                 source: Callable[[], T] | None = None) -> None:
        self.latest: T | None = initial
        self.backlog = backlog
        self.source = source
        """Makes the current state on demand: a new subscriber starts from it."""
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

    @property
    def active(self) -> bool:
        """Whether anyone follows this feed (else publishers need not make states)."""
        return bool(self._queues or self._listeners)

    def listen(self, fn: Callable[[T], None]) -> None:
        """Call `fn` synchronously with every new state."""
        self._listeners.append(fn)

    async def subscribe(self) -> AsyncIterator[T]:
        """Yields the current state, then each new one."""
        q: asyncio.Queue[T] = asyncio.Queue(maxsize=self.backlog)
        if self.source is not None:
            self.latest = self.source()
        if self.latest is not None:
            q.put_nowait(self.latest)
        self._queues.add(q)
        try:
            while True:
                yield await q.get()
        finally:
            self._queues.discard(q)
