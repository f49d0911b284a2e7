"""The LED strip follows the public table state: status per seat, sweep and flash per prompt."""

from __future__ import annotations

from dialbox.displays.ledstrip import (
    FLASH_TICKS,
    SWEEP_TICKS,
    LedStrip,
    LedStripConfig,
    RecordingBackend,
)
from dialbox.displays.lights import StripFollower, StripOnFeed, seat_lights
from dialbox.displays.public import SeatView, TableView
from tests.displays.helpers import GAMES, Recorded

WHITE = (255, 255, 255)


def test_seat_lights_take_the_prompt_status_and_offline() -> None:
    rec = Recorded(GAMES[0]).play()
    locked = next(s for s in rec.states if s.prompt and s.prompt.phase == "alllocked")
    lights = seat_lights(locked)
    asked = {a.seat for a in locked.prompt.asks} if locked.prompt else set()
    assert {lt.status for lt in lights if lt.seat in asked} == {"locked"}
    off = TableView(seats=(SeatView(seat=0, name="Red", colour="e53935",
                                    occupant="controller", online=False, status="offline"),))
    assert seat_lights(off)[0].status == "offline"


def test_frames_for_whole_prompts_from_the_feed() -> None:
    rec = Recorded(GAMES[0]).play()
    strip = LedStrip(RecordingBackend(), pixels=30)
    follower = StripFollower(strip)
    moments: list[tuple[int, str]] = []
    for st in rec.states:
        before = (strip.state.moment, strip.state.moment_tick)
        follower.show(st)
        if (strip.state.moment, strip.state.moment_tick) != before:
            assert st.prompt is not None
            moments.append((st.prompt.pid, strip.state.moment))
            if strip.state.moment == "alllocked":  # a white head sweeps along the strip
                heads = [strip.step().index(WHITE) for _ in range(SWEEP_TICKS)]
                assert heads == sorted(heads) and heads[-1] > heads[0]
            else:  # the reveal flash: all white, fading back to the seat colours
                assert all(p == WHITE for p in strip.step())
                for _ in range(FLASH_TICKS):
                    strip.step()
                assert WHITE not in strip.step()
        strip.step()
    sealed = sorted({st.prompt.pid for st in rec.states if st.prompt and st.prompt.sealed})
    assert moments == [(pid, m) for pid in sealed for m in ("alllocked", "reveal")]


def test_strip_on_feed_from_config() -> None:
    from dialbox.displays.feed import PublicFeed

    feed = PublicFeed()
    on = StripOnFeed(feed, LedStripConfig(backend="sim", pixels=12))
    assert on.recording is not None and on.strip is not None
    feed.publish(TableView(seats=(SeatView(seat=0, name="Red", colour="e53935",
                                           occupant="bot", online=True, status="locked"),)))
    frame = on.strip.step()
    assert frame[0] == (0xE5 // 2, 0x39 // 2, 0x35 // 2)  # brightness 0.5 from the config
    assert StripOnFeed(feed, LedStripConfig(backend="none")).strip is None
