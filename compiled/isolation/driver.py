"""The Python side of the compiled Knight Isolation searches.

`CompiledMultiPlayerSearch` is `search.multiplayer.MultiPlayerSearch` with its root
iteration replaced by the compiled one of `compiled.isolation.search`: iterative
deepening, the stop rules between iterations, the reports and the line stay the
reference's code, so both report the same depths, scores, moves and node counts.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from compiled.core import ABORTED, PARTIAL_MOVE
from compiled.driver import LOADED, CompiledIterations
from compiled.isolation import kernels
from compiled.isolation import search as compiled_search
from compiled.table import ArrayTable
from games.base import Game, State
from search.core import Aborted, SearchReport
from search.limits import StopSignal
from search.multiplayer import MultiPlayerSearch


_ROOTS = {
    "paranoid": compiled_search.paranoid_root,
    "brs": compiled_search.brs_root,
    "maxn": compiled_search.maxn_root,
}


class CompiledMultiPlayerSearch(CompiledIterations, MultiPlayerSearch):
    """`MultiPlayerSearch` over the compiled core: the same nodes, scores and moves (see
    `compiled.driver.CompiledIterations`). Needs an `ArrayTable`; raises ValueError like
    `MultiPlayerSearch`.
    """

    def __init__(self, game: Game, table: ArrayTable, algorithm: str = "paranoid"):
        super().__init__(game, table, algorithm)  # type: ignore[arg-type]
        if not isinstance(table, ArrayTable):
            raise ValueError("the compiled search needs an ArrayTable")
        if game.name != "isolation":
            raise ValueError(f"the compiled multi-player search plays isolation, not {game.name!r}")
        self._root_function = _ROOTS[algorithm]
        self._setup_compiled(compiled_search.new_search_work(), kernels.MOVE_LIMIT - 1)

    def search(self, root: State, stop: StopSignal) -> Iterator[SearchReport]:
        self._start_search(root, stop, kernels.pack(root))  # type: ignore[arg-type]
        yield from super().search(root, stop)

    def _root_search(self, root: State, depth: int) -> int:
        if self.game.name not in LOADED:
            return super()._root_search(root, depth)
        work = self._before_iteration()
        score = self._root_function(self._packed, depth, self._me, np.uint64(self._salt),
                                    self.table.cells, work)
        self._after_iteration()
        partial = int(work[PARTIAL_MOVE])
        self._root_best = None if partial < 0 else partial
        if work[ABORTED]:
            raise Aborted
        return int(score)
