"""Button timing on a fake clock: debounce, short press = lock, long press = unlock."""

from __future__ import annotations

from dialbox_fw.core.button import LONG, NONE, SHORT, Button


def run(b: Button, samples: list[tuple[int, bool]]) -> list[tuple[int, int]]:
    """samples: (time ms, pressed); returns the (time, event) of every event."""
    return [(t, ev) for t, p in samples if (ev := b.sample(p, t)) != NONE]


def hold(start: int, ms: int, step: int = 5) -> list[tuple[int, bool]]:
    out = [(t, True) for t in range(start, start + ms, step)]
    out += [(t, False) for t in range(start + ms, start + ms + 100, step)]
    return out


def test_short_press_fires_once_on_release() -> None:
    events = run(Button(), hold(0, 120))
    assert [e for _, e in events] == [SHORT]
    assert events[0][0] >= 120


def test_long_press_fires_while_held_and_not_again_on_release() -> None:
    events = run(Button(), hold(0, 1500))
    assert [e for _, e in events] == [LONG]
    assert 800 <= events[0][0] < 900


def test_bounce_shorter_than_debounce_is_ignored() -> None:
    samples = [(0, True), (3, False), (6, True), (9, False), (12, False), (100, False)]
    assert run(Button(), samples) == []


def test_bouncy_press_and_release_count_once() -> None:
    samples = [(0, True), (2, False), (4, True)]
    samples += [(t, True) for t in range(5, 200, 5)]
    samples += [(200, False), (202, True), (204, False)]
    samples += [(t, False) for t in range(205, 300, 5)]
    assert [e for _, e in run(Button(), samples)] == [SHORT]


def test_two_presses_two_locks() -> None:
    samples = hold(0, 100) + hold(300, 100)
    assert [e for _, e in run(Button(), samples)] == [SHORT, SHORT]


def test_long_press_at_large_tick_values() -> None:
    b = Button()
    start = 2**20
    assert [e for _, e in run(b, hold(start, 900))] == [LONG]
