"""Stadium's printed components as data: the 16 Trial tiles and the five dice (JSON files)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialbox.engine import Die, DieFace

HERE = Path(__file__).parent

KINDS = ("standard", "rest", "final")


@dataclass(frozen=True, slots=True)
class TrialTile:
    """One Trial tile: its name, back (kind), communication rule, Medals and printed numbers."""

    key: str
    name: str
    kind: str
    talk: str
    medals: str
    passes_first_player: bool
    summary: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)
    samples: tuple[str, ...] = ()

    def number(self, name: str) -> Any:
        return self.numbers[name]


def load_tiles(path: Path = HERE / "tiles.json") -> tuple[tuple[str, ...], dict[str, TrialTile]]:
    """The track layout (tile backs in playing order) and the tiles by key."""
    raw = json.loads(path.read_text())
    tiles: dict[str, TrialTile] = {}
    fixed = {"name", "kind", "talk", "medals", "passes_first_player", "samples", "summary"}
    for key, t in raw["tiles"].items():
        if t["kind"] not in KINDS:
            raise ValueError(f"tile {key}: unknown kind {t['kind']!r}")
        tiles[key] = TrialTile(
            key, t["name"], t["kind"], t["talk"], t["medals"], bool(t["passes_first_player"]),
            str(t.get("summary", "")), {k: v for k, v in t.items() if k not in fixed},
            tuple(t.get("samples", ())),
        )
    return tuple(raw["layout"]), tiles


def load_dice(path: Path = HERE / "dice.json") -> dict[str, Die]:
    raw = json.loads(path.read_text())
    dice: dict[str, Die] = {}
    for name, d in raw["dice"].items():
        faces = tuple(DieFace(str(f[0]), int(f[1]), str(f[2]) if len(f) > 2 else "")
                      for f in d["faces"])
        dice[name] = Die(name, d["colour"], faces)
    return dice


LAYOUT, TILES = load_tiles()
DICE = load_dice()
