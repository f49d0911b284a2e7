"""Stadium (8Bit Box): all 16 Trials on the controllers, played in two Teams."""

from pathlib import Path

from dialbox.engine.game import GameOptions
from dialbox.engine.registry import GameInfo
from dialbox.games.stadium.bots import StadiumBot
from dialbox.games.stadium.game import Stadium, StadiumOptions
from dialbox.games.stadium.screen import draw


def _teams(options: GameOptions) -> list[str | None]:
    """Even seats play for the Blue Starz, odd seats for the Red Sunz."""
    return [("blue", "red")[seat % 2] for seat in range(options.players)]


INFO = GameInfo(
    game=Stadium,
    title="Stadium",
    players=(4, 6),
    bots={"heuristic": StadiumBot},
    default_bot="heuristic",
    draw=draw,
    board_js=Path(__file__).with_name("board.js"),
    teams=_teams,
)

__all__ = ["INFO", "Stadium", "StadiumBot", "StadiumOptions", "draw"]
