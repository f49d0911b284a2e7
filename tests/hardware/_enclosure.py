"""Shared by the enclosure tests: every board's layout and (built once per run) its solids."""

from __future__ import annotations

from functools import cache
from typing import Any

from dialbox.enclosure.layout import Layout, boards, layout


@cache
def layouts() -> dict[str, Layout]:
    return {b: layout(b) for b in boards()}


@cache
def models() -> dict[str, Any]:
    """board -> dialbox.enclosure.model.Model (needs build123d: importorskip first)."""
    from dialbox.enclosure.model import build

    return {b: build(lay) for b, lay in layouts().items()}
