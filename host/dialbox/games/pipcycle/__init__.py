"""PIP Cycle: riders on a grid moved by secretly played cards; crash them for trophies."""

from pathlib import Path

from dialbox.engine.registry import GameInfo
from dialbox.games.pipcycle.bots import RiderBot
from dialbox.games.pipcycle.game import PipCycle, PipCycleOptions, PipCyclePosition
from dialbox.games.pipcycle.screen import draw

INFO = GameInfo(
    game=PipCycle,
    title="PIP Cycle",
    players=(2, 3),
    bots={"rider": RiderBot},
    default_bot="rider",
    draw=draw,
    board_js=Path(__file__).with_name("board.js"),
)

__all__ = ["INFO", "PipCycle", "PipCycleOptions", "PipCyclePosition", "RiderBot", "draw"]
