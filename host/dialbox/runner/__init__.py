"""The game runner: engine decisions become prompts, verified answers go back to the game."""

from dialbox.runner.runner import GameRunner, TableSettings

__all__ = ["GameRunner", "TableSettings"]
