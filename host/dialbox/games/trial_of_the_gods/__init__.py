"""Trial of the Gods as a companion game: the players keep the physical game; the console
runs the clock, the public tracks, fights, the Olympics and the end-game rankings
(docs/games/trial-of-the-gods.md)."""

from dialbox.engine.registry import GameInfo
from dialbox.games.trial_of_the_gods.game import TrialOfTheGods, TrialOptions

INFO = GameInfo(
    game=TrialOfTheGods,
    title="Trial of the Gods",
    players=(1, 2, 3, 4),
)

__all__ = ["INFO", "TrialOfTheGods", "TrialOptions"]
