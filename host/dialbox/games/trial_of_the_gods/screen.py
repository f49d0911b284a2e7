"""Trial of the Gods for a terminal (rich) — placeholder being replaced by the full view."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import RenderableType
from rich.text import Text


def draw(view: Mapping[str, Any]) -> RenderableType:
    return Text(f"Trial of the Gods round {view['round']}, {view['phase']}")
