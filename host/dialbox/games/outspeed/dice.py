"""Outspeed's yellow (Fuel) and blue (zones) dice, read from data/dice.toml."""

from __future__ import annotations

import tomllib
from functools import cache

from dialbox.engine.chance import Die, DieFace
from dialbox.games.outspeed.tiles import DATA, DICE, TileFormatError


def parse_dice(data: dict[str, object]) -> dict[str, Die]:
    """The dice from parsed TOML: one table per die with `colour` and six signed `faces`."""
    dice: dict[str, Die] = {}
    for name in DICE:
        raw = data.get(name)
        if not isinstance(raw, dict):
            raise TileFormatError(f"dice: missing [{name}]")
        faces = raw.get("faces")
        colour = raw.get("colour", "ffffff")
        if (
            not isinstance(faces, list)
            or not faces
            or not all(isinstance(v, int) and not isinstance(v, bool) and v != 0 for v in faces)
        ):
            raise TileFormatError(f"dice.{name}.faces: a list of non-zero whole numbers")
        if not isinstance(colour, str) or len(colour) != 6:
            raise TileFormatError(f"dice.{name}.colour: six hex digits")
        dice[name] = Die(name, colour, tuple(DieFace(f"{v:+d}", v) for v in faces))
    return dice


@cache
def load_dice() -> dict[str, Die]:
    """The bundled dice (data/dice.toml)."""
    text = (DATA / "dice.toml").read_text(encoding="utf-8")
    return parse_dice(tomllib.loads(text))
