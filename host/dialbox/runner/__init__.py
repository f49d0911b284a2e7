"""The game runner: engine decisions become prompts, verified answers go back to the game."""

from dialbox.runner.runner import GameRunner
from dialbox.runner.settings import TableSettings

__all__ = ["GameRunner", "TableSettings"]
