"""All the displays of one table started together: the web screen, the LED strip, the terminal view.

The daemon (or the rehearsal) publishes TableViews to a PublicFeed and opens `Displays` on it:

    async with Displays(feed, config.ledstrip, port=0, terminal=headless) as shown:
        print("table screen:", shown.url)
        ...
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path
from types import TracebackType

from pydantic import BaseModel, ConfigDict, Field
from rich.console import Console

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import LedStripConfig
from dialbox.displays.lights import StripOnFeed
from dialbox.displays.public import TableView
from dialbox.displays.screen import TableScreen
from dialbox.displays.tablefeed import RunnerLike, TableFollower
from dialbox.displays.terminal import TerminalView


class ScreenConfig(BaseModel):
    """[display] in the daemon's config file: the web table screen and the terminal view."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    web: bool = True
    host: str = Field("0.0.0.0", description="0.0.0.0: every interface (the Pi's HDMI, phones)")
    port: int = Field(8080, ge=0, le=65535)
    """The first table's port; the next tables use the ports after it (0: any free port)."""
    terminal: bool = True
    """The live terminal view (of the first table) on the daemon's console."""
    pace: float = Field(0.0, ge=0, le=5)
    """Hold each lock/reveal on screen for a while (0: show states as they happen)."""


class Displays:
    """Starts the screen (unless `web` is False), the strip and the terminal view; stops them."""

    def __init__(
        self,
        feed: PublicFeed,
        ledstrip: LedStripConfig | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        web: bool = True,
        terminal: bool = False,
        console: Console | None = None,
        journal: str | Path | None = None,
    ) -> None:
        """`journal`: the daemon's journal file, for the screen's past games (`/history`)."""
        self.feed = feed
        self.strip = StripOnFeed(feed, ledstrip or LedStripConfig())
        self.screen = (TableScreen(feed, self.strip.recording, host, port, journal=journal)
                       if web else None)
        self.terminal = (
            TerminalView(feed, console, self.strip.recording) if terminal else None
        )
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def url(self) -> str | None:
        return self.screen.url if self.screen is not None else None

    async def start(self) -> None:
        self._tasks.append(asyncio.create_task(self.strip.run(), name="ledstrip"))
        if self.screen is not None:
            self._tasks.append(asyncio.create_task(self.screen.serve(), name="screen"))
            while not self.screen.server.started:
                if self._tasks[-1].done():
                    self._tasks[-1].result()
                    raise RuntimeError("the table screen stopped while starting")
                await asyncio.sleep(0.01)
        if self.terminal is not None:
            self._tasks.append(asyncio.create_task(self.terminal.run(), name="terminal"))

    async def stop(self) -> None:
        if self.screen is not None:
            self.screen.stop()
        for t in self._tasks:
            if t.get_name() != "screen":
                t.cancel()
        for t in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(t, 5)
        self._tasks.clear()

    async def __aenter__(self) -> Displays:
        await self.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()


class TableDisplays:
    """The displays of one daemon table: attach() the table's runner, then it follows it.

        async with TableDisplays(pace=1.0, terminal=True) as shown:
            print("table screen:", shown.url)
            shown.attach(daemon.runners["demo"])
            await daemon.run()

    On leaving, it waits until the screen has shown every state (paced demos lag the daemon).
    """

    def __init__(
        self,
        pace: float = 0.0,
        ledstrip: LedStripConfig | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        terminal: bool = False,
        console: Console | None = None,
        on_moment: Callable[[TableView, str], Awaitable[None]] | None = None,
        web: bool = True,
        journal: str | Path | None = None,
    ) -> None:
        self.feed = PublicFeed()
        self.pace = pace
        self.on_moment = on_moment
        self.displays = Displays(self.feed, ledstrip, host, port, web, terminal, console,
                                 journal=journal)
        self.follower: TableFollower | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str | None:
        return self.displays.url

    def attach(self, runner: RunnerLike) -> None:
        """Follow `runner` (a dialbox.runner.GameRunner); call from inside the event loop."""
        self.follower = TableFollower(runner, self.feed, self.pace, self.on_moment)
        self._task = asyncio.get_running_loop().create_task(self.follower.run())

    async def caught_up(self) -> None:
        """Wait until the screen has shown every state (re-raises what stopped the follower)."""
        if self.follower is None or self._task is None:
            return
        while not self.follower.caught_up:
            if self._task.done():
                self._task.result()
                return
            await asyncio.sleep(0.05)

    async def __aenter__(self) -> TableDisplays:
        await self.displays.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if et is None:
                await self.caught_up()
        finally:
            if self._task is not None:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task  # a failure of the follower surfaces here
            await self.displays.stop()
