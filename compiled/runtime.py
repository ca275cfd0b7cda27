"""What the daemon asks of the compiled core: whether a game has one, its tables, its
searchers and its perft. Imported only where numba imports (`compiled.missing_reason`
is None)."""

from __future__ import annotations

import importlib.util

from compiled.driver import CompiledAlphaBeta, game_modules
from compiled.table import ArrayTable
from games.base import Game, State


def supports(game: Game) -> bool:
    """Whether `game` has a compiled core."""
    return importlib.util.find_spec(f"compiled.{game.name}.search") is not None


def new_table(game: Game, memory_bytes: int) -> ArrayTable:
    return ArrayTable(game.name, game.key_scheme, memory_bytes)


def new_searcher(game: Game, table: ArrayTable, multiplayer: str = "paranoid"):
    """The compiled search for `game` (the compiled twin of `search.new_searcher`)."""
    if game.num_players == 2 and game.zero_sum:
        return CompiledAlphaBeta(game, table)
    driver = importlib.import_module(f"compiled.{game.name}.driver")
    return driver.CompiledMultiPlayerSearch(game, table, multiplayer)


def perft(game: Game, state: State, depth: int) -> int:
    """`search.perft.perft` by the compiled kernels."""
    kernels, search = game_modules(game.name)
    return int(search.perft(kernels.pack(state), depth))
