"""The games: one package per game, each registered by name in dialbox.engine.registry."""
