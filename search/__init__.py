"""Each search written once, over the kernels of `games.base`'s contract.

Nothing here prints, reads input or knows a game's name: a search is a generator of
structured `SearchReport`s, driven by whoever owns the I/O. Its kernels are specialised
to each game by `search.specialised`, compiled or interpreted.
"""

from __future__ import annotations

import functools

from games.base import Game
from games.kernel import COMPILING
from search.alphabeta import AlphaBeta
from search.mcts import MctsSearch
from search.multiplayer import MultiPlayerSearch
from search.specialised import GameSearches
from search.tt import TranspositionTable

#: The searcher of three-player games each value of the `MultiPlayerSearch` option
#: names, made from (game, table, searches), in the option's order (the first is its
#: default).
MULTIPLAYER_SEARCHERS = {
    "paranoid": functools.partial(MultiPlayerSearch, algorithm="paranoid"),
    "brs": functools.partial(MultiPlayerSearch, algorithm="brs"),
    "maxn": functools.partial(MultiPlayerSearch, algorithm="maxn"),
    "mcts": MctsSearch,
    "model": functools.partial(MctsSearch, modelled=True),
}
ALGORITHMS = tuple(MULTIPLAYER_SEARCHERS)


def new_searcher(game: Game, table: TranspositionTable, multiplayer: str = "paranoid",
                 compiled: bool = COMPILING) -> AlphaBeta | MultiPlayerSearch | MctsSearch:
    """The search for `game`: alpha-beta for two-player zero-sum games, else the
    multi-player search named by `multiplayer` (one of ALGORITHMS); its kernels compiled
    or interpreted. Raises ValueError for an unknown name."""
    searches = GameSearches(game, compiled)
    if game.num_players == 2 and game.zero_sum:
        return AlphaBeta(game, table, searches)
    if multiplayer not in MULTIPLAYER_SEARCHERS:
        raise ValueError(f"unknown multi-player search {multiplayer!r}")
    return MULTIPLAYER_SEARCHERS[multiplayer](game, table, searches)
