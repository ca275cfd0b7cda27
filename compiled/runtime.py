"""What the daemon asks of the compiled core: whether a game has one, its tables, its
searchers and its perft, and the loading of its compiled functions. Imported only where
numba imports (`compiled.configure()` is None).

A game's compiled functions are loaded from numba's cache (or compiled, the first time)
by `warm`, in the background for the daemon. Until then the game's compiled searchers
run the reference code on the same table, and switch to compiled code between two
iterations once it is there: the search is the same either way, only faster.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time

from compiled.driver import LOADED, CompiledAlphaBeta, game_modules
from compiled.table import ArrayTable
from games.base import Game, State
from search.perft import perft as reference_perft


LOG = logging.getLogger("engine.compiled")

_loading_lock = threading.Lock()
_loading: dict[str, threading.Thread] = {}


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
    """`search.perft.perft`, by the compiled kernels once they are loaded."""
    if game.name not in LOADED:
        return reference_perft(state, depth)
    kernels, search = game_modules(game.name)
    return int(search.perft(kernels.pack(state), depth))


def warm(game: Game) -> None:
    """Load `game`'s compiled functions (compiling them the first time: seconds, where
    loading takes a fraction of one); from then on its searches run compiled."""
    kernels, search = game_modules(game.name)
    search.warm(kernels.pack(game.initial_state({})))
    LOADED.add(game.name)


def load_in_background(game: Game) -> None:
    """Start `warm(game)` in a background thread unless it is loaded or loading; the
    game's searches meanwhile run on the reference code (see `compiled.driver`)."""
    with _loading_lock:
        if game.name in LOADED or game.name in _loading:
            return
        thread = threading.Thread(target=_warm_logged, args=(game,), name=f"load-{game.name}", daemon=True)
        _loading[game.name] = thread
    thread.start()


def loaded(game: Game) -> bool:
    """Whether `game`'s searches run compiled code now."""
    return game.name in LOADED


def wait_loaded(game: Game, timeout: float) -> bool:
    """Wait up to `timeout` seconds for a background load of `game`; whether it is loaded."""
    thread = _loading.get(game.name)
    if thread is not None:
        thread.join(timeout)
    return game.name in LOADED


def _warm_logged(game: Game) -> None:
    started = time.monotonic()
    try:
        warm(game)
    except Exception:
        LOG.exception("the compiled core of %s failed to load: its searches stay on Python", game.name)
        return
    LOG.info("compiled core of %s loaded in %.2f s", game.name, time.monotonic() - started)
