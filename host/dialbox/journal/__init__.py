"""The journal: an SQLite event log from which a killed daemon rebuilds its tables."""

from dialbox.journal.journal import Entry, Journal, JournalError

__all__ = ["Entry", "Journal", "JournalError"]
