"""The games a journal holds, read back: list them, count wins, export them, replay one.

Pure reading: nothing here writes a journal (`dialbox history` opens it read-only, so it can
run beside the daemon). A table's journal is a sequence of segments (format 4: a game or the
menu between games; older journals hold one game); the n-th game segment of a table is its
game number n. docs/host.md, "The journal", describes the layout.

- `split(entries)`: a table's entries as its segments.
- `games(journal, table=None)`: one `GameRecord` per game (players, result, times).
- `replay(journal, table, number)`: a game re-run as the daemon would resume it, every state
  hash checked, with the public `TableState` after every step.
- `stats(records)`: games and wins per player name.
- `export(journal, table=None)`: every game with its answer log (JSON); `rerun` plays an
  exported game again without the journal.
"""

from dialbox.history.export import answers, export, rerun
from dialbox.history.records import (
    GameRecord,
    HistoryError,
    NameStats,
    PlayerRecord,
    Segment,
    check_table,
    game_segment,
    games,
    split,
    stats,
)
from dialbox.history.replays import Replay, ReplayStep, replay

__all__ = [
    "GameRecord",
    "HistoryError",
    "NameStats",
    "PlayerRecord",
    "Replay",
    "ReplayStep",
    "Segment",
    "answers",
    "check_table",
    "export",
    "game_segment",
    "games",
    "replay",
    "rerun",
    "split",
    "stats",
]
