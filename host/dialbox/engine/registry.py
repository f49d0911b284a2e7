"""Games by name: each game package declares one `GameInfo`; this registry finds it by name.

Everything the rest of dialbox needs to know about a game lives in its package's `INFO`:
the Game class, title, player counts, controllers per table, teams, bots, the terminal
renderer and the web screen's board renderer. Adding a game is one package plus one line in
`GAMES` (or `register()` for a game that lives elsewhere, e.g. in the tests).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dialbox.engine.bots import BotFactory, RandomBot
from dialbox.engine.errors import EngineError, InvalidOptions, UnknownGame
from dialbox.engine.game import Game, GameOptions

# name -> package that defines `INFO` (a GameInfo)
GAMES: dict[str, str] = {
    "outspeed": "dialbox.games.outspeed",
    "pipcycle": "dialbox.games.pipcycle",
    "pixoid": "dialbox.games.pixoid",
    "stadium": "dialbox.games.stadium",
    "trial-of-the-gods": "dialbox.games.trial_of_the_gods",
}

# other spellings -> the registered name. Commands, config files and game_info() accept
# either; what dialbox writes (journals, saves, the table's state) keeps the registered name.
ALIASES: dict[str, str] = {
    "trialofthegods": "trial-of-the-gods",
    "trial_of_the_gods": "trial-of-the-gods",
}

Draw = Callable[[Mapping[str, Any]], Any]
"""A terminal renderer: a seat's (or the table's) view -> something rich can print."""


def _players(options: GameOptions) -> int:
    return options.players


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game package tells the rest of dialbox about itself."""

    game: type[Game]
    title: str
    """The name players read (lobby, screen, terminal)."""
    players: tuple[int, ...]
    """Player counts the game can be played with, e.g. (3, 4)."""
    bots: Mapping[str, BotFactory] = field(default_factory=dict)
    """Bot kinds besides the engine's "random" one (name -> factory taking a seed)."""
    default_bot: str = "random"
    """The bot kind seated when none is asked for (e.g. the game's heuristic bot)."""
    draw: Draw | None = None
    """The terminal renderer of a view (`dialbox play`, the terminal display)."""
    board_js: Path | None = None
    """The web screen's board renderer: a JavaScript file that registers
    `DialboxBoards[name] = (view, board) => Element` (docs/displays.md)."""
    controllers: Callable[[GameOptions], int] = _players
    """Controllers (seats at the table) for these options: one per player unless a variant
    has a player run a second controller (Pixoid's 3 Player Variant: 4)."""
    teams: Callable[[GameOptions], list[str | None]] | None = None
    """Each seat's team, if the game is played in teams (Stadium)."""

    @property
    def name(self) -> str:
        return self.game.name

    @property
    def players_text(self) -> str:
        """The player counts as people write them: "3-4", "4 or 6"."""
        p = sorted(self.players)
        if len(p) > 2 and p == list(range(p[0], p[-1] + 1)):
            return f"{p[0]}-{p[-1]}"
        if len(p) == 2 and p[1] == p[0] + 1:
            return f"{p[0]}-{p[1]}"
        return " or ".join(str(n) for n in p) if len(p) <= 2 else ", ".join(map(str, p))

    @property
    def bot_kinds(self) -> dict[str, BotFactory]:
        """Every bot kind, "random" always among them."""
        return {"random": RandomBot, **self.bots}

    def bot(self, kind: str | None = None) -> BotFactory:
        """The factory of bot `kind` (default: the game's default bot)."""
        kinds = self.bot_kinds
        kind = kind or self.default_bot
        if kind not in kinds:
            raise EngineError(f"{self.name} has no bot {kind!r}; bots: {', '.join(kinds)}")
        return kinds[kind]

    def options(self, raw: GameOptions | Mapping[str, Any]) -> GameOptions:
        """Validated options (InvalidOptions with a one-line reason)."""
        return self.game.parse_options(raw)

    def seats(self, raw: GameOptions | Mapping[str, Any]) -> int:
        """How many controllers a table needs for these options."""
        return self.controllers(self.options(raw))

    def seat_teams(self, raw: GameOptions | Mapping[str, Any]) -> list[str | None]:
        """Each seat's team (all None for a game without teams)."""
        opts = self.options(raw)
        if self.teams is None:
            return [None] * self.controllers(opts)
        return self.teams(opts)

    def options_schema(self) -> dict[str, Any]:
        """The JSON schema of the game's options (documentation, menus)."""
        return self.game.Options.model_json_schema()

    def check_players(self, players: int) -> None:
        if players not in self.players:
            raise InvalidOptions(
                f"{self.name} is for {self.players_text} players, not {players}")


_extra: dict[str, str] = {}


def register(name: str, package: str) -> None:
    """Register a game that lives outside dialbox.games (a plug-in, or a test's own game)."""
    _extra[name] = package


def unregister(name: str) -> None:
    _extra.pop(name, None)


def game_names() -> list[str]:
    """The registered names (not their aliases), in order."""
    return sorted({**GAMES, **_extra})


def canonical_name(name: str) -> str:
    """The registered name a game is known by: `name` itself if registered, else the name an
    alias in ALIASES stands for; anything else (unknown, a package path) comes back as is."""
    if name in _extra or name in GAMES:
        return name
    return ALIASES.get(name, name)


def game_module(name: str) -> Any:
    """The package that declares `name` (a registered name or alias, or a dotted package
    path)."""
    name = canonical_name(name)
    package = _extra.get(name) or GAMES.get(name)
    if package is None:
        if "." not in name:
            raise UnknownGame(f"unknown game {name!r}; known games: {', '.join(game_names())}")
        package = name
    try:
        return importlib.import_module(package)
    except ImportError as e:
        raise UnknownGame(f"game {name!r}: cannot import {package} ({e})") from None


def game_info(name: str) -> GameInfo:
    """The GameInfo of a registered game, of a package path holding `INFO`, or of a bare
    Game class named `package.module:Class` (a title from its name, 1-6 players)."""
    if ":" in name:
        module, _, attr = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError) as e:
            raise UnknownGame(f"game {name!r}: {e}") from None
        if not (isinstance(cls, type) and issubclass(cls, Game)):
            raise UnknownGame(f"game {name!r} is not a Game class")
        return GameInfo(game=cls, title=cls.name.title(), players=(1, 2, 3, 4, 5, 6))
    info = getattr(game_module(name), "INFO", None)
    if not isinstance(info, GameInfo):
        raise UnknownGame(f"game {name!r}: its package declares no INFO (a GameInfo)")
    return info


def get_game(name: str) -> type[Game]:
    """The Game class of a registered game (or alias, or package path; see game_info)."""
    return game_info(name).game
