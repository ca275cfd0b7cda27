"""The Python side of the compiled Knight Isolation searches.

`CompiledMultiPlayerSearch` is `search.multiplayer.MultiPlayerSearch` with its root
iteration replaced by the compiled one of `compiled.isolation.search`: iterative
deepening, the stop rules between iterations, the reports and the line stay the
reference's code, so both report the same depths, scores, moves and node counts.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from compiled.core import ABORTED, GENERATION, HARD_ONLY, NODES, PARTIAL_MOVE, SELDEPTH, reset_work
from compiled.driver import LOADED, ControlBridge, load_heuristics
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


class CompiledMultiPlayerSearch(MultiPlayerSearch):
    """`MultiPlayerSearch` over the compiled core: the same nodes, scores and moves.

    Needs an `ArrayTable`; raises ValueError like `MultiPlayerSearch`.
    """

    def __init__(self, game: Game, table: ArrayTable, algorithm: str = "paranoid"):
        super().__init__(game, table, algorithm)  # type: ignore[arg-type]
        if not isinstance(table, ArrayTable):
            raise ValueError("the compiled search needs an ArrayTable")
        if game.name != "isolation":
            raise ValueError(f"the compiled multi-player search plays isolation, not {game.name!r}")
        self._root_function = _ROOTS[algorithm]
        self._work = compiled_search.new_search_work()
        self._bridge: ControlBridge | None = None
        self._packed: tuple | None = None
        self._compiled_iterations = False

    def search(self, root: State, stop: StopSignal) -> Iterator[SearchReport]:
        reset_work(self._work)
        self._bridge = ControlBridge(stop, self._work)
        self._compiled_iterations = False
        self._packed = kernels.pack(root)  # type: ignore[arg-type]
        yield from super().search(root, stop)

    def _root_search(self, root: State, depth: int) -> int:
        # Until the compiled functions are loaded, the reference's iterations (see
        # compiled.driver.CompiledAlphaBeta).
        if "isolation" not in LOADED:
            return super()._root_search(root, depth)
        if not self._compiled_iterations:
            load_heuristics(self._work, self._killers, self._history, self.nodes, self.seldepth,
                            kernels.MOVE_LIMIT - 1)
            self._compiled_iterations = True
        bridge = self._bridge
        assert bridge is not None
        bridge.sync()
        work = self._work
        # The first iteration answers only to `stop` (see MultiPlayerSearch.search).
        work[HARD_ONLY] = self._poll != bridge.stop.should_stop
        work[GENERATION] = self.table.generation
        score = self._root_function(self._packed, depth, self._me, np.uint64(self._salt),
                                    self.table.cells, work)
        bridge.settle()
        self.nodes = int(work[NODES])
        self.seldepth = int(work[SELDEPTH])
        partial = int(work[PARTIAL_MOVE])
        self._root_best = None if partial < 0 else partial
        if work[ABORTED]:
            raise Aborted
        return int(score)
