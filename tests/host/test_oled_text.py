"""What the host sends a controller is folded to the OLED font's characters (ASCII 32-126);
the screen keeps the game's own words."""

from __future__ import annotations

import pytest

from dialbox.engine.decisions import Ask, Decision
from dialbox.engine.events import Event
from dialbox.engine.wheels import Face, Wheel, wheels
from dialbox.runner.oled import oled_text
from dialbox.runner.telling import tell


@pytest.mark.parametrize(("text", "shown"), [
    ("Round 2 Adventure: Blue's turn", "Round 2 Adventure: Blue's turn"),
    ("Pâle — Nürburg… 5♥ × 2", "Pale - Nurburg... 5H x 2"),
    ("Straße “quoted” 3 ≤ 4", 'Strasse "quoted" 3 <= 4'),
    ("雪 and ✓", "? and v"),
    ("two\nlines", "two lines"),
])
def test_texts_are_folded_to_the_font(text: str, shown: str) -> None:
    assert oled_text(text) == shown
    assert all(" " <= c <= "~" for c in oled_text(text))


def test_revealed_frames_are_folded_and_the_screen_keeps_the_words() -> None:
    ask = Ask(0, "t", "Pick", wheels(None, Wheel.of((Face("é1", 0, "ffffff"),)), None))
    d = Decision(1, "sealed", (ask,), True)
    told = tell(7, d, {0: (-1, 0, -1)}, [Event("x", "Élan — 2…")], lambda a, s: None)
    frame = told.frames[0]
    assert frame.summary == "Elan - 2..." and frame.choices == [(0, "e1")]
    assert told.public.summary == "Élan — 2…"
