"""Prompt ids of one table: from a random point per journal, so an older game's frames miss."""

from __future__ import annotations

import os

from dialbox_protocol import codec


class PromptIds:
    """Hands out prompt ids (game prompts and pairing prompts alike), wrapping at MAX_PID."""

    def __init__(self, first: int) -> None:
        self.next = first

    @classmethod
    def fresh(cls) -> PromptIds:
        """A new journal's ids: start anywhere in the first half of the range."""
        return cls(1 + int.from_bytes(os.urandom(3), "big") % (codec.MAX_PID // 2))

    def take(self) -> int:
        pid = self.next
        self.next = pid % codec.MAX_PID + 1
        return pid

    def spent(self, pid: int) -> None:
        """A journaled id (replay): the next one follows it."""
        self.next = max(self.next, pid + 1)
