"""The two forms a session's searches run in, chosen with the `Core` option.

`compiled` runs every game's kernels and searches compiled by numba, with the GIL
released; it needs numba, and is the default where numba imports. `python` runs the
same source interpreted: a debugging aid, and the fallback where numba is missing. Both
search the same tree and share the transposition table's format, so a table moves
between them as it is, and a hash file written in either loads into both.
"""

from __future__ import annotations

import numpy as np

from games.base import Game, Position
from games.kernel import NUMBA_MISSING
from search import AlphaBeta, MctsSearch, MultiPlayerSearch, new_searcher as new_game_searcher
from search import specialised
from search.tt import TranspositionTable

PYTHON, COMPILED = "python", "compiled"
CORES = (COMPILED, PYTHON)
#: The core of a session or daemon made without naming one (a test's, a script's): the
#: Python core, which needs no compiling. The `engine` command serves the compiled core
#: where numba imports (`daemon.main.serving_core`).
DEFAULT = PYTHON


def compiled_missing() -> str | None:
    """Why compiled kernels cannot run in this process, or None when they can."""
    return NUMBA_MISSING


def default_core() -> str:
    return COMPILED if NUMBA_MISSING is None else PYTHON


def new_searcher(core: str, game: Game, table: TranspositionTable,
                 multiplayer: str) -> AlphaBeta | MultiPlayerSearch | MctsSearch:
    return new_game_searcher(game, table, multiplayer, compiled=core == COMPILED)


def perft(core: str, position: Position, depth: int, halt: np.ndarray) -> int:
    """Perft of `position`, by the compiled kernels once loaded, else interpreted; ends
    early with -1 once `halt[0]` is set (`search.perft.halt_flag`)."""
    kernels = specialised.ready_searches(position.game, core == COMPILED)
    return int(kernels.leaves(position.s, np.int64(depth), halt))


def prepare_compiler() -> None:
    """Start setting up numba's compiler in the background, before any game is chosen
    (see `search.specialised.prepare_compiler`)."""
    specialised.prepare_compiler()


def finish_loading(timeout: float) -> None:
    """Before the process ends: wait, at most `timeout` seconds, for compiled code still
    loading (see `search.specialised.finish_loading`)."""
    specialised.finish_loading(timeout)


def prepare(core: str, game: Game) -> None:
    """Start loading `game`'s compiled searches in the background: until they are
    there, its searches run interpreted."""
    if core == COMPILED:
        specialised.load_in_background(game)


def loaded_games() -> tuple[str, ...]:
    """The games (by their kernels' names) whose compiled searches this process has
    loaded, sorted."""
    return specialised.loaded()


def loading(core: str, game: Game) -> bool:
    """Whether `game`'s compiled searches are still loading (`prepare` started them)."""
    return core == COMPILED and specialised.loading(game)
