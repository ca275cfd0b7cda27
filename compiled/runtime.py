"""What the daemon asks of the compiled core: whether a game has one, its tables, its
searchers and its perft. Imported only where numba imports (`compiled.configure()`
is None)."""

from __future__ import annotations

import importlib.util

from compiled.driver import CompiledAlphaBeta, game_modules
from compiled.table import ArrayTable
from games.base import Game, State


def supports(game: Game) -> bool:
    """Whether `game` has a compiled core."""
    try:
        return importlib.util.find_spec(f"compiled.{game.name}.search") is not None
    except ModuleNotFoundError:
        return False


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


def warm(game: Game) -> None:
    """Call every compiled function a search of `game` uses once, from the start
    position, so that numba loads them from its cache (or compiles them, the first
    time) now rather than during the first timed search."""
    from compiled.core import STOP, new_control, new_stats
    from search.limits import StopSignal
    from search.multiplayer import ALGORITHMS

    start = game.initial_state({})
    table = new_table(game, 1 << 16)
    two_player = game.num_players == 2 and game.zero_sum
    for algorithm in ("paranoid",) if two_player else ALGORITHMS:
        stop = StopSignal()
        stop.arm(None, None, 2)
        for _ in new_searcher(game, table, algorithm).search(start, stop):
            pass
    perft(game, start, 2)
    if two_player:
        kernels, search = game_modules(game.name)
        control = new_control()
        control[STOP] = 1
        search.solve(kernels.pack(start), -1, 1, *search.new_solver_table(), control, new_stats(),
                     search.new_move_buffer())
