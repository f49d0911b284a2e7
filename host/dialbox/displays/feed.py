"""The displays' in-process feed: every published TableView, in order, to every display."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

from dialbox.displays.public import TableView

BACKLOG = 1024
"""States a slow subscriber may fall behind by before it loses the oldest ones."""


class PublicFeed:
    """Latest public table state plus every change, for the screen, the strip and the terminal.

    Unlike the runner's latest-only `dialbox.table.Feed` (whose dicts `tablefeed` reads),
    subscribers here see each state in order (up to BACKLOG behind), so
    a short moment such as "all locked" reaches every display even when the reveal follows
    within milliseconds.
    """

    def __init__(self, initial: TableView | None = None) -> None:
        self.latest: TableView = initial if initial is not None else TableView()
        self._queues: set[asyncio.Queue[TableView]] = set()
        self._listeners: list[Callable[[TableView], None]] = []

    def publish(self, view: TableView) -> TableView:
        """Publish `view` (its seq is set to follow the last one); returns what was published."""
        view = view.model_copy(update={"seq": self.latest.seq + 1})
        self.latest = view
        for q in self._queues:
            if q.full():
                q.get_nowait()
            q.put_nowait(view)
        for fn in self._listeners:
            fn(view)
        return view

    def listen(self, fn: Callable[[TableView], None]) -> None:
        """Call `fn` synchronously with every new state."""
        self._listeners.append(fn)

    async def subscribe(self) -> AsyncIterator[TableView]:
        """Yields the current state, then each new one."""
        q: asyncio.Queue[TableView] = asyncio.Queue(maxsize=BACKLOG)
        q.put_nowait(self.latest)
        self._queues.add(q)
        try:
            while True:
                yield await q.get()
        finally:
            self._queues.discard(q)
