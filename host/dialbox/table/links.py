"""What the table may know about a controller's link: a snapshot of facts, never the session."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class LinkInfo:
    """One controller's link at one moment (made by the runner from its session)."""

    transport: str
    """serial, mqtt or local (in-process)."""
    firmware: str | None
    heartbeat_age: float | None
    """Seconds since the controller was last heard from."""
    rtt_ms: float | None
    unacked: int
    """Reliable frames sent to it and not yet acknowledged."""
    online: bool = True

    @property
    def quality(self) -> float:
        """1.0 with every reliable frame acknowledged; lower as frames wait for an ack."""
        return max(0.0, 1.0 - self.unacked / 4)
