"""Trial of the Gods as a companion game: the players keep the physical game; the console
runs the clock, the public tracks, fights, the Olympics and the end-game rankings
(docs/games/trial-of-the-gods.md)."""

from pathlib import Path

from dialbox.engine.registry import GameInfo
from dialbox.games.trial_of_the_gods.bots import CompanionBot
from dialbox.games.trial_of_the_gods.game import TrialOfTheGods, TrialOptions
from dialbox.games.trial_of_the_gods.screen import draw

INFO = GameInfo(
    game=TrialOfTheGods,
    title="Trial of the Gods",
    players=(1, 2, 3, 4),
    bots={"companion": CompanionBot},
    default_bot="companion",
    draw=draw,
    board_js=Path(__file__).with_name("board.js"),
)

__all__ = ["INFO", "CompanionBot", "TrialOfTheGods", "TrialOptions", "draw"]
