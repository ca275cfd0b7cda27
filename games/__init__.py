"""The games the engine plays, one sub-package each, and their registry.

Every sub-package of `games` that exports `GAME` is registered under `GAME.name`.
Discovery is lazy (the first call to `all_games` or `find_game`), so importing
`games.base` never drags in a concrete game. Games are listed by their descriptor's
`listing_order`, then by name.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from games.base import Game, UnknownGameError
from games.text import quote

_REGISTRY: dict[str, Game] = {}


def all_games() -> dict[str, Game]:
    """Every registered game by name, in the order `games` lists them."""
    if not _REGISTRY:
        found: dict[str, Game] = {}
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if not info.ispkg:
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            game = getattr(module, "GAME", None)
            if game is None:
                continue
            if game.name in found:
                raise RuntimeError(f"two games are named {quote(game.name)}")
            found[game.name] = game
        _REGISTRY.update(sorted(found.items(), key=lambda item: (item[1].listing_order, item[0])))
    return _REGISTRY


def find_game(name: str) -> Game:
    """The game named `name`; raises UnknownGameError quoting it.

    A game whose package bears its name is imported alone, without discovering the
    others: a process that plays one game starts that much sooner.
    """
    game = _REGISTRY.get(name)
    if game is not None:
        return game
    if name.isidentifier() and name.isascii() and name.islower():
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
        else:
            game = getattr(module, "GAME", None)
            if game is not None and game.name == name:
                return game
    try:
        return all_games()[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {quote(name)}") from None


def game_part(game: str, part: str) -> ModuleType | None:
    """The module `games.<game>.<part>` where the game has one (its record formats, its
    opening explorer: parts a game may add without an edit elsewhere), None where it
    has none or `game` names no package; an error inside the module is raised."""
    if not (game.isidentifier() and game.isascii()):
        return None
    module = f"{__name__}.{game}.{part}"
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name in (module, f"{__name__}.{game}"):
            return None
        raise
