"""Drives the LED strip from the public table state: seat lights, all-locked sweep, reveal flash."""

from __future__ import annotations

from dialbox.displays.feed import PublicFeed
from dialbox.displays.ledstrip import (
    LedStrip,
    LedStripConfig,
    RecordingBackend,
    SeatLight,
    SeatStatus,
    make_backend,
)
from dialbox.displays.public import TableView


def seat_lights(view: TableView) -> list[SeatLight]:
    """One light per seat: the prompt's status for asked seats, the seat's own otherwise;
    an offline controller blinks whatever the prompt says."""
    asked: dict[int, SeatStatus] = {}
    if view.prompt is not None:
        asked = {a.seat: a.status for a in view.prompt.asks}
    out = []
    for s in view.seats:
        status: SeatStatus = "offline" if s.status == "offline" else asked.get(s.seat, s.status)
        out.append(SeatLight(s.seat, s.colour, status))
    return out


class StripFollower:
    """Feeds each published state to an LedStrip and starts its moments on the transitions."""

    def __init__(self, strip: LedStrip) -> None:
        self.strip = strip
        self._moment: tuple[int, str] | None = None

    def show(self, view: TableView) -> None:
        self.strip.update(seat_lights(view))
        p = view.prompt
        if p is None or p.phase not in ("alllocked", "revealed"):
            return
        key = (p.pid, p.phase)
        if key == self._moment:
            return
        self._moment = key
        if p.phase == "alllocked":
            self.strip.moment("alllocked")
        elif p.sealed:
            self.strip.moment("reveal")


class StripOnFeed:
    """An LED strip made from [ledstrip] config, following a feed; run() until cancelled."""

    def __init__(self, feed: PublicFeed, config: LedStripConfig) -> None:
        backend = make_backend(config)
        self.config = config
        self.strip: LedStrip | None = (
            None if backend is None else LedStrip(backend, config.pixels, config.brightness)
        )
        self.follower = StripFollower(self.strip) if self.strip is not None else None
        if self.follower is not None:
            self.follower.show(feed.latest)
            feed.listen(self.follower.show)

    @property
    def recording(self) -> RecordingBackend | None:
        """The simulated strip's frames (to draw it on the page or in the terminal)."""
        if self.strip is not None and isinstance(self.strip.backend, RecordingBackend):
            return self.strip.backend
        return None

    async def run(self) -> None:
        if self.strip is not None:
            await self.strip.run()
