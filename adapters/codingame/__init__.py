"""CodinGame's turn protocol for each game, both ways, and the tools built on it.

Per game, a module `adapters.codingame.<game>` holds the turn format as the CodinGame
referee writes it (`format_turn`) and as a bot reads it (`parse_turn`, `framer`), the
referee's parsing of a bot's output line (`parse_output`) and the time limits. Every
module has the same names (see `adapters.codingame.common.TurnFormat`), so the adapter
process (`adapter`), the example bots (`bots`) and the local arena (`arena`) are written
once for all games. Rules come from `games`; these modules only read and write text.

Importing this package is cheap (the adapter starts its engine before anything heavy is
loaded); `turn_format` loads a game's module and the games on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adapters.codingame.common import TurnFormat

#: The games with a CodinGame turn format, in the order the engine lists them.
FORMATS = ("clobber", "othello", "loa", "isolation", "abalone")


def turn_format(name: str) -> "TurnFormat":
    """The turn-format module of game `name`; raises UnknownGameError quoting it."""
    if name not in FORMATS:
        from games.base import UnknownGameError, quote

        raise UnknownGameError(f"no CodinGame turn format for {quote(name)}"
                               f" (known: {', '.join(FORMATS)})")
    return importlib.import_module(f"{__name__}.{name}")  # type: ignore[return-value]
