"""The displays' in-process feed: every published TableView, in order, to every display."""

from __future__ import annotations

from dialbox.displays.public import TableView
from dialbox.table.feed import Feed

BACKLOG = 1024
"""States a slow subscriber may fall behind by before it loses the oldest ones."""


class PublicFeed(Feed[TableView]):
    """Latest public table state plus every change, for the screen, the strip and the terminal.

    Unlike the runner's latest-only `dialbox.table.Feed` (whose TableStates `tablefeed` reads),
    subscribers here see each state in order (up to BACKLOG behind), so
    a short moment such as "all locked" reaches every display even when the reveal follows
    within milliseconds.
    """

    def __init__(self, initial: TableView | None = None) -> None:
        super().__init__(initial if initial is not None else TableView(), BACKLOG)
        self.latest: TableView
        self.phone: object | None = None
        """The phone gateway of the table this feed shows (set by the follower that feeds
        it: dialbox.displays.tablefeed): the screen hands phones' requests to it."""

    def publish(self, view: TableView) -> TableView:  # type: ignore[override]
        """Publish `view` (its seq is set to follow the last one); returns what was published."""
        view = view.model_copy(update={"seq": self.latest.seq + 1})
        super().publish(view)
        return view
