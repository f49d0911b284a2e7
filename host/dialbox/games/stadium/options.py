"""Stadium's options: player count, named house rules, setup aids and the printed components."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator
from pydantic_core import PydanticCustomError

from dialbox.engine import GameOptions
from dialbox.games.stadium.components import SAMPLE, ComponentError, load_dice, load_tiles

START_ENERGY = 25
MAX_ENERGY = 30


class StadiumOptions(GameOptions):
    """Stadium's options; everything past `players` is a named house rule or a setup aid."""

    wager_limit: int = Field(9, ge=9, le=MAX_ENERGY)
    """Highest wager on the centre wheel: the physical wheel stops at 9 (house rule: to 30)."""
    fencing_zero_dice: Literal["green-red-yellow", "red-yellow"] = "green-red-yellow"
    """Fencing dice for a wager of 0: the Trial booklet's table or the base rulebook's text."""
    equestrian_zero_ranked: bool = True
    """Equestrian: riders who cleared no obstacle are ranked too (on 0); False leaves them out."""
    round_limit: int = Field(40, ge=1, le=10_000)
    """Safeguard for open-ended Trials (Rugby, Fencing, Taekwondo, Basketball): after this many
    rounds the Trial is decided as documented in docs/rules-notes.md."""
    track: tuple[str, ...] | None = None
    """Play these Trials in this order instead of dealing the track (1 to 10 distinct tiles)."""
    first_player: int | None = None
    """Seat (0-based) holding the first player token; None: the coin flip decides."""
    energy: tuple[int, ...] | None = None
    """Starting Energy per seat (handicaps, lessons); None: 25 each."""
    tiles: str = SAMPLE
    """The Trial tiles and track layout: a bundled set by name ("sample") or a path to a
    tiles JSON file (docs/games/stadium.md, "Data formats")."""
    dice: str = SAMPLE
    """The five dice: a bundled set by name ("sample") or a path to a dice JSON file."""

    @field_validator("tiles")
    @classmethod
    def _tiles_file(cls, name: str) -> str:
        try:
            load_tiles(name)
        except ComponentError as e:
            raise PydanticCustomError("stadium_tiles", str(e)) from None
        return name

    @field_validator("dice")
    @classmethod
    def _dice_file(cls, name: str) -> str:
        try:
            load_dice(name)
        except ComponentError as e:
            raise PydanticCustomError("stadium_dice", str(e)) from None
        return name

    @model_validator(mode="after")
    def _stadium_rules(self) -> StadiumOptions:
        if self.players not in (4, 6):
            raise ValueError(
                f"Stadium can only be played with 4 or 6 players (two Teams of 2 or 3), "
                f"not {self.players}"
            )
        if self.track is not None:
            known = load_tiles(self.tiles).tiles
            unknown = [t for t in self.track if t not in known]
            if unknown:
                raise ValueError(f"unknown Trial tiles {unknown}; known: {sorted(known)}")
            if not 1 <= len(self.track) <= 10 or len(set(self.track)) != len(self.track):
                raise ValueError("a track holds 1 to 10 different Trial tiles")
        if self.first_player is not None and not 0 <= self.first_player < self.players:
            raise ValueError(f"first_player must be a seat 0..{self.players - 1}")
        if self.energy is not None and (
            len(self.energy) != self.players
            or not all(0 <= e <= MAX_ENERGY for e in self.energy)
        ):
            raise ValueError(f"energy needs one value 0..{MAX_ENERGY} per seat")
        return self
