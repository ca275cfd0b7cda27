"""Generic searches over the `games.base` protocols.

Nothing here prints, reads input or knows a game's name: a search is a generator of
structured `SearchReport`s, driven by whoever owns the I/O.
"""

from __future__ import annotations

from games.base import Game
from search.alphabeta import AlphaBeta
from search.multiplayer import MultiPlayerSearch
from search.tt import TranspositionTable


def new_searcher(game: Game, table: TranspositionTable,
                 multiplayer: str = "paranoid") -> AlphaBeta | MultiPlayerSearch:
    """The search for `game`: alpha-beta for two-player zero-sum games, else the
    multi-player search named by `multiplayer`."""
    if game.num_players == 2 and game.zero_sum:
        return AlphaBeta(game, table)
    return MultiPlayerSearch(game, table, multiplayer)
