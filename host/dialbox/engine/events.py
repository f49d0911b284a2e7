"""Events a game emits: for displays, the journal and the rules explanation."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    """Machine name, e.g. "pixoid.caught" or "stadium.medal"."""
    text: str
    """One sentence a player can read."""
    data: dict[str, Any] = field(default_factory=dict)
    """JSON-able details for displays."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "text": self.text, "data": self.data}
