"""One prompt's commit-reveal: commitments in, all-locked out, reveals verified, answers handed on.

Pure logic: no I/O and no clock. The runner journals every change it accepts and decides
what to send; the lockbox only says what is allowed. A selection enters the lockbox only as a
reveal that hashes to the commitment acknowledged for that seat, after all seats locked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from dialbox_protocol import codec

Selection = tuple[int, int, int]


class Phase(StrEnum):
    OPEN = "open"
    """Seats are choosing; commitments come and (if allowed) go."""
    ALL_LOCKED = "alllocked"
    """Every seat has committed; reveals are being collected."""
    COMPLETE = "complete"
    """Every reveal verified; the answers went to the game."""
    VOID = "void"
    """A seat could not produce a valid reveal; nothing was published; asked again."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the lockbox made of one commit / uncommit / reveal."""

    accepted: bool
    changed: bool = False
    """True when the lockbox's state changed (the runner journals exactly these)."""
    code: int = 0
    detail: str = ""

    @classmethod
    def refuse(cls, code: int, detail: str) -> Verdict:
        return cls(False, False, code, detail)


SAME = Verdict(True, False)
CHANGED = Verdict(True, True)


@dataclass(slots=True)
class Lockbox:
    """The commit-reveal state of one prompt (docs/protocol.md, "Commit and reveal")."""

    pid: int
    decision: int
    sealed: bool
    unlock: bool
    seats: tuple[int, ...]
    phase: Phase = Phase.OPEN
    commitments: dict[int, tuple[str, str]] = field(default_factory=dict)
    """seat -> (uid that committed, commitment text)."""
    reveals: dict[int, Selection] = field(default_factory=dict)
    """seat -> verified selection (only after all-locked, or for an open prompt)."""
    proofs: dict[int, tuple[str, str]] = field(default_factory=dict)
    """seat -> (nonce, uid) of its reveal: with the selection, what recomputes the seat's
    commitment (`codec.commitment`), sent to the controllers in `revealed`."""
    defaults: dict[int, Selection] = field(default_factory=dict)
    """seat -> the game's default, used when the prompt timed out before the seat locked."""

    # ---------------------------------------------------------------- questions

    def locked(self, seat: int) -> bool:
        return seat in self.commitments or seat in self.defaults

    @property
    def locked_seats(self) -> list[int]:
        return [s for s in self.seats if self.locked(s)]

    @property
    def waiting_for(self) -> list[int]:
        """Seats whose lock (OPEN) or reveal (ALL_LOCKED) is still missing."""
        if self.phase == Phase.OPEN and self.sealed:
            return [s for s in self.seats if not self.locked(s)]
        return [s for s in self.seats if s not in self.reveals and s not in self.defaults]

    @property
    def complete(self) -> bool:
        return self.phase == Phase.COMPLETE

    def answers(self) -> dict[int, Selection]:
        """Every seat's verified selection; only once the lockbox is complete."""
        if self.phase != Phase.COMPLETE:
            raise RuntimeError(f"prompt {self.pid} is {self.phase}, its answers are sealed")
        return {s: self.reveals.get(s) or self.defaults[s] for s in self.seats}

    # ---------------------------------------------------------------- changes

    def commit(self, seat: int, uid: str, text: str) -> Verdict:
        if seat not in self.seats:
            return Verdict.refuse(codec.E_STATE, f"seat {seat + 1} is not asked in this prompt")
        if not self.sealed:
            return Verdict.refuse(codec.E_STATE, "an open prompt takes a reveal, not a commit")
        held = self.commitments.get(seat)
        if held == (uid, text):
            return SAME
        if self.phase != Phase.OPEN:
            return Verdict.refuse(codec.E_STATE, "all seats have locked: the choice is final")
        if held is not None:
            return Verdict.refuse(codec.E_STATE, "already locked: unlock first")
        if seat in self.defaults:
            return Verdict.refuse(codec.E_STATE, "the prompt timed out for this seat")
        self.commitments[seat] = (uid, text)
        if not self.waiting_for:
            self.phase = Phase.ALL_LOCKED
        return CHANGED

    def uncommit(self, seat: int, uid: str) -> Verdict:
        held = self.commitments.get(seat)
        if held is None:
            return SAME
        if self.phase != Phase.OPEN:
            return Verdict.refuse(codec.E_STATE, "all seats have locked: unlock is over")
        if not self.unlock:
            return Verdict.refuse(codec.E_STATE, "this choice cannot be unlocked")
        if held[0] != uid:
            return Verdict.refuse(codec.E_STATE, "only the controller that locked may unlock")
        del self.commitments[seat]
        return CHANGED

    def withdraw(self, seat: int) -> Verdict:
        """Take back a commitment whose secret is gone (a bot's, lost with a restart) while
        the prompt is open, whatever `unlock` says: nothing of the choice was ever seen."""
        if self.phase != Phase.OPEN or seat not in self.commitments:
            return Verdict.refuse(codec.E_STATE, "no commitment to withdraw while open")
        del self.commitments[seat]
        return CHANGED

    def time_out(self, defaults: dict[int, Selection]) -> bool:
        """Prompt timeout: unlocked seats take the game's default. False if some seat has none."""
        missing = [s for s in self.seats if not self.locked(s)]
        if self.phase != Phase.OPEN or not missing:
            return False
        if any(s not in defaults for s in missing):
            return False
        for s in missing:
            self.defaults[s] = defaults[s]
        self.phase = Phase.ALL_LOCKED if self.sealed else Phase.COMPLETE
        if self.phase == Phase.ALL_LOCKED and not self.waiting_for:
            self.phase = Phase.COMPLETE
        return True

    def reveal(
        self,
        seat: int,
        uid: str,
        sel: Selection,
        nonce: str,
        why_illegal: Callable[[int, Selection], str | None],
    ) -> Verdict:
        if seat not in self.seats:
            return Verdict.refuse(codec.E_STATE, f"seat {seat + 1} is not asked in this prompt")
        if seat in self.reveals:
            if self.reveals[seat] == sel:
                return SAME
            return Verdict.refuse(codec.E_MISMATCH, "a different choice was already revealed")
        if self.sealed:
            if self.phase == Phase.OPEN:
                return Verdict.refuse(codec.E_STATE, "reveal only after all seats have locked")
            if self.phase != Phase.ALL_LOCKED:
                return Verdict.refuse(codec.E_PROMPT, f"prompt {self.pid} is {self.phase}")
            held = self.commitments.get(seat)
            if held is None:
                return Verdict.refuse(codec.E_STATE, "no commitment held for this seat")
            if held[0] != uid or not codec.verify_reveal(held[1], sel, nonce, self.pid, uid):
                return Verdict.refuse(codec.E_MISMATCH, "reveal does not match the commitment")
        elif self.phase != Phase.OPEN:
            return Verdict.refuse(codec.E_PROMPT, f"prompt {self.pid} is {self.phase}")
        why = why_illegal(seat, sel)
        if why is not None:
            return Verdict.refuse(codec.E_ILLEGAL, why)
        self.reveals[seat] = sel
        self.proofs[seat] = (nonce, uid)
        if not self.waiting_for:
            self.phase = Phase.COMPLETE
        return CHANGED

    def void(self) -> None:
        self.phase = Phase.VOID
