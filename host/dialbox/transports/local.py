"""The in-process transport: a pair of linked ends, for tests and in-process controllers."""

from __future__ import annotations

from typing import ClassVar

from dialbox.transports.base import Link, LinkClosed
from dialbox_protocol.frames import parse_frame


class LocalLink(Link):
    """One end of an in-process pair; frames go through the codec exactly as on a wire."""

    kind: ClassVar[str] = "local"
    rto: ClassVar[float] = 0.25

    def __init__(self, name: str, expected_uid: str | None = None) -> None:
        super().__init__(name, expected_uid)
        self.peer: LocalLink | None = None

    @classmethod
    def pair(cls, name: str = "local") -> tuple[LocalLink, LocalLink]:
        """(host end, controller end)."""
        host, device = cls(name), cls(name + "~device")
        host.peer, device.peer = device, host
        return host, device

    def _write(self, frame: bytes) -> None:
        if self.peer is None or self.peer.closed:
            raise LinkClosed(f"{self.name}: the other end is gone")
        self.peer.deliver(parse_frame(frame))

    async def close(self) -> None:
        self.end()
        if self.peer is not None:
            self.peer.end()
