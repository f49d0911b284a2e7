"""PIP Cycle: riders on a grid moved by secretly played cards; crash them for trophies."""


from dialbox.engine.registry import GameInfo
from dialbox.games.pipcycle.game import PipCycle, PipCycleOptions, PipCyclePosition

INFO = GameInfo(
    game=PipCycle,
    title="PIP Cycle",
    players=(2, 3),
    board_js=None,
)

__all__ = ["INFO", "PipCycle", "PipCycleOptions", "PipCyclePosition"]
