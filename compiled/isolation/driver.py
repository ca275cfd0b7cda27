"""The Python side of the compiled Knight Isolation searches.

`CompiledMultiPlayerSearch` is `search.multiplayer.MultiPlayerSearch` with its root
iteration replaced by the compiled one of `compiled.isolation.search`: iterative
deepening, the stop rules between iterations, the reports and the line stay the
reference's code, so both report the same depths, scores, moves and node counts.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from compiled.core import ABORTED, BUDGET, NODES, PARTIAL_MOVE, SELDEPTH, new_stats
from compiled.driver import ControlBridge
from compiled.isolation import kernels
from compiled.isolation import search as compiled_search
from compiled.table import ArrayTable
from games.base import Game, State
from search.core import MAX_PLY, Aborted, SearchReport
from search.limits import StopSignal
from search.multiplayer import MultiPlayerSearch


class _Bridge(ControlBridge):
    """`ControlBridge` that also withdraws a node budget once the signal has counted it
    itself (as `should_stop` does between iterations): left in the control block, the
    compiled side would count it a second time from a later node."""

    def _update(self) -> None:
        super()._update()
        if self.stop.pending_node_budget is None:
            self.control[BUDGET] = -1


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
        self._killer_block = np.full((MAX_PLY + 1, 2), -1, dtype=np.int64)
        self._history_block = np.zeros(kernels.MOVE_LIMIT, dtype=np.int64)
        self._stats = new_stats()
        self._bridge: ControlBridge | None = None
        self._packed: tuple | None = None

    def search(self, root: State, stop: StopSignal) -> Iterator[SearchReport]:
        self._killer_block.fill(-1)
        self._history_block.fill(0)
        self._stats = new_stats()
        self._bridge = _Bridge(stop)
        self._packed = kernels.pack(root)  # type: ignore[arg-type]
        yield from super().search(root, stop)

    def _root_search(self, root: State, depth: int) -> int:
        bridge = self._bridge
        assert bridge is not None
        bridge.sync()
        # The first iteration answers only to `stop` (see MultiPlayerSearch.search).
        hard_only = self._poll != bridge.stop.should_stop
        table = self.table
        stats = self._stats
        score = self._root_function(
            self._packed, depth, self._me, np.uint64(self._salt), table.keys, table.data,
            table.generation, self._killer_block, self._history_block, bridge.control, stats,
            hard_only)
        bridge.settle()
        self.nodes = int(stats[NODES])
        self.seldepth = int(stats[SELDEPTH])
        partial = int(stats[PARTIAL_MOVE])
        self._root_best = None if partial < 0 else partial
        if stats[ABORTED]:
            raise Aborted
        return int(score)
