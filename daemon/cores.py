"""The two search cores a session chooses between with the `Core` option.

`python` is the reference: the games and searches of `games/` and `search/`, always
available. `compiled` runs the same searches compiled by numba (`compiled/`), with the
GIL released; it needs numba, and is the default where numba imports. Both cores keep
the same transposition-table entries, so a table moves from one to the other, and a
hash file written by either loads into both.
"""

from __future__ import annotations

from games.base import Game, State
from search import new_searcher as new_reference_searcher
from search.perft import perft as reference_perft
from search.tt import TranspositionTable

PYTHON, COMPILED = "python", "compiled"
CORES = (COMPILED, PYTHON)


def compiled_missing() -> str | None:
    """Why the compiled core cannot run in this process, or None when it can."""
    import compiled

    return compiled.configure()


def default_core() -> str:
    return COMPILED if compiled_missing() is None else PYTHON


def _runtime():
    import compiled.runtime

    return compiled.runtime


def effective(core: str, game: Game) -> str:
    """The core that serves `game`: `compiled` only where the game has one."""
    if core == COMPILED and compiled_missing() is None and _runtime().supports(game):
        return COMPILED
    return PYTHON


def new_table(core: str, game: Game, memory_bytes: int):
    if effective(core, game) == COMPILED:
        return _runtime().new_table(game, memory_bytes)
    return TranspositionTable(game.name, game.key_scheme, memory_bytes)


def adapt_table(core: str, game: Game, table):
    """`table`, or a table of `core` holding the same entries when it is of the other."""
    fresh = new_table(core, game, table.memory_bytes)
    if type(fresh) is type(table):
        return table
    fresh.absorb(table.pairs())
    fresh.generation = table.generation
    return fresh


def new_searcher(core: str, game: Game, table, multiplayer: str):
    if effective(core, game) == COMPILED:
        return _runtime().new_searcher(game, table, multiplayer)
    return new_reference_searcher(game, table, multiplayer)


def perft(core: str, game: Game, state: State, depth: int) -> int:
    if effective(core, game) == COMPILED:
        return _runtime().perft(game, state, depth)
    return reference_perft(state, depth)


def prepare(core: str, game: Game) -> None:
    """Start loading `game`'s compiled functions in the background (see
    `compiled.runtime`); its searches run on Python until they are loaded."""
    if effective(core, game) == COMPILED:
        _runtime().load_in_background(game)


def wait_loaded(core: str, game: Game, timeout: float) -> None:
    """Block up to `timeout` seconds while `game`'s compiled functions load."""
    if effective(core, game) == COMPILED:
        _runtime().wait_loaded(game, timeout)


def loading(core: str, game: Game) -> bool:
    """Whether `game`'s compiled searches still wait for their functions to load."""
    return effective(core, game) == COMPILED and not _runtime().loaded(game)
