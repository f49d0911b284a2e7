"""A journal's games as one JSON document, and a game re-run from it elsewhere.

`export` gives every game record with its answer log: each applied step's prompt id,
decision, answers and the state hash journaled after it. A game's options (its seed among
them) and that log are all the engine needs to play it again (`rerun`): the engine is
deterministic, so another machine reaches the same state hashes without the journal, its
commitments or its nonces (which the export leaves out: they proved the answers once, the
audit checks them in the journal).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dialbox import __version__
from dialbox.engine.errors import EngineError
from dialbox.engine.registry import game_info
from dialbox.history.records import Segment, game_segment, read, records_of
from dialbox.journal import Journal
from dialbox.journal.entries import AppliedEntry

EXPORT = 1
"""The version of the export's JSON shape."""

Answer = list[Any]
"""[pid, decision, [[seat, [s0, s1, s2]], ...], hash or None]."""


def answer_log(segment: Segment) -> list[Answer]:
    """The answer log of one game segment: every applied step, in order."""
    return [[s.pid, s.decision, [[seat, list(sel)] for seat, sel in s.answers], s.hash]
            for s in segment.steps if isinstance(s, AppliedEntry)]


def answers(journal: Journal, table: str, number: int) -> list[Answer]:
    """The answer log of game `number` of `table` (HistoryError if there is none)."""
    return answer_log(game_segment(journal, table, number)[1])


def export(journal: Journal, table: str | None = None) -> dict[str, Any]:
    """Every game of the journal (or of one table) with its answer log, as JSON data."""
    out = []
    for t in [table] if table is not None else journal.tables():
        parts = read(journal, t)
        played = [p for p in parts if p.kind == "game"]
        for record, part in zip(records_of(t, parts), played, strict=True):
            out.append({**record.to_json(), "answers": answer_log(part)})
    return {"export": EXPORT, "dialbox": __version__, "games": out}


def rerun(game: Mapping[str, Any]) -> str:
    """Play an exported game again from its options and answer log, without the journal;
    its final state hash. EngineError at the first step that does not apply or does not
    reach the hash exported with it."""
    played = game_info(str(game["game"])).game(game["options"])
    for i, (pid, decision, given, want) in enumerate(game["answers"], 1):
        try:
            played.apply({int(seat): (int(sel[0]), int(sel[1]), int(sel[2]))
                          for seat, sel in given}, int(decision))
        except EngineError as e:
            raise EngineError(f"step {i} (prompt {pid}) does not apply: {e}") from None
        now = played.state_hash()
        if want is not None and now != want:
            raise EngineError(f"step {i} (prompt {pid}): hash {want} exported, {now} replayed")
    return played.state_hash()
