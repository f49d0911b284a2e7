"""The commit-reveal lockbox: sealed choices held as commitments until every seat has locked."""

from dialbox.lockbox.lockbox import Lockbox, Phase, Verdict

__all__ = ["Lockbox", "Phase", "Verdict"]
