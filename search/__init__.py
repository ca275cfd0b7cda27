"""Each search written once, over the kernels of `games.base`'s contract.

Nothing here prints, reads input or knows a game's name: a search is a generator of
structured `SearchReport`s, driven by whoever owns the I/O. Its kernels are specialised
to each game by `search.specialised`, compiled or interpreted.
"""

from __future__ import annotations

from games.base import Game
from games.kernel import COMPILING
from search.alphabeta import AlphaBeta
from search.multiplayer import MultiPlayerSearch
from search.specialised import GameSearches
from search.tt import TranspositionTable


def new_searcher(game: Game, table: TranspositionTable, multiplayer: str = "paranoid",
                 compiled: bool = COMPILING) -> AlphaBeta | MultiPlayerSearch:
    """The search for `game`: alpha-beta for two-player zero-sum games, else the
    multi-player search named by `multiplayer`; its kernels compiled or interpreted."""
    searches = GameSearches(game, compiled)
    if game.num_players == 2 and game.zero_sum:
        return AlphaBeta(game, table, searches)
    return MultiPlayerSearch(game, table, searches, multiplayer)
