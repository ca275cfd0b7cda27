"""CodinGame's turn protocol for each game, both ways, shared by the applications.

Per game, a module `adapters.codingame.<game>` holds the turn format as the CodinGame
referee writes it (`format_turn`) and as a bot reads it (`parse_turn`, `framer`), the
referee's parsing of a bot's output line (`parse_output`), the time limits and how its
board is drawn (`BOARD_STYLE`). Every module has the same names (see
`adapters.codingame.common.TurnFormat`), so the bot (`adapters.bot`), the arena
(`adapters.arena`), the analysis and the GUI are written once for all games. Rules come
from `games`; these modules only read and write text, and import no application.

Importing this package is cheap (`engine-cg` starts its engine before anything heavy is
loaded); `turn_format` loads a game's module and the games on first use.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adapters.codingame.common import TurnFormat

_HERE = Path(__file__).resolve().parent
_GAMES = _HERE.parent.parent / "games"


def has_format(name: str) -> bool:
    """Whether game `name` has a turn-format module: a module of this package and a game
    package of the same name. Cheap: it imports nothing."""
    return (name.isidentifier() and name.isascii() and (_HERE / f"{name}.py").is_file()
            and (_GAMES / name / "__init__.py").is_file())


def formats() -> tuple[str, ...]:
    """The games with a CodinGame turn format, in the order the engine lists them."""
    from games import all_games

    return tuple(name for name in all_games() if has_format(name))


def turn_format(name: str) -> "TurnFormat":
    """The turn-format module of game `name` (importing that game alone); raises
    UnknownGameError quoting it."""
    if not has_format(name):
        from games.base import UnknownGameError
        from games.text import quote

        raise UnknownGameError(f"no CodinGame turn format for {quote(name)} (known: {', '.join(formats())})")
    return importlib.import_module(f"{__name__}.{name}")  # type: ignore[return-value]


def game_name(name: str) -> str:
    """`name` when it names a game with a turn format: an argparse type, listing the
    known games in its error."""
    if not has_format(name):
        raise argparse.ArgumentTypeError(
            f"no CodinGame turn format for {name!r} (known: {', '.join(formats())})")
    return name
