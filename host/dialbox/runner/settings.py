"""What a table plays and how: the runner's settings, validated from the config file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class TableSettings:
    """What a table plays and how (validated from the config file by dialbox.daemon.config)."""

    name: str
    game: str
    players: int
    seed: int = 0
    seats: int | None = None
    """Controllers at the table when it differs from players (Pixoid's 3 Player Variant: 4)."""
    options: dict[str, Any] = field(default_factory=dict)
    bots: list[int] = field(default_factory=list)
    """Seats (0-based) that bots fill from the start."""
    fill_with_bots: bool = False
    """Seat bots in every seat still empty once `controllers` controllers have paired."""
    controllers: list[str] = field(default_factory=list)
    """Unique ids allowed at this table (empty: any controller may pair)."""
    teams: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    pairing: str = "press"
    """'press': a new controller presses its button to take the next free seat; 'auto'."""
    prompt_timeout: float | None = None
    reveal_timeout: float = 30.0
    bot: str | None = None
    """Bot kind for bot seats: one the game offers; default its heuristic bot, else random."""

    @property
    def options_with_players(self) -> dict[str, Any]:
        """The game's options as the config gives them (players and seed included)."""
        return {"players": self.players, "seed": self.seed, **self.options}
