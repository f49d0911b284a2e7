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
    to: int | None = None
    """The one player who may see this event (e.g. "you keep the Nitro token"); None: public.
    Public displays, the journal feed and every other seat never receive a private event."""

    @property
    def public(self) -> bool:
        return self.to is None

    def visible_to(self, player: int | None) -> bool:
        """Whether `player` (None: the public table) may see this event."""
        return self.to is None or self.to == player

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "text": self.text, "data": self.data}
        if self.to is not None:
            out["to"] = self.to
        return out
