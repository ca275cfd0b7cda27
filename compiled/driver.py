"""The Python side of a compiled search: the same generator of reports as the reference
searcher, each iteration (or solver pass) run by compiled code with the GIL released.

`CompiledAlphaBeta` is `search.alphabeta.AlphaBeta` with its root iteration, principal
variation and solver (`CompiledSolver`) replaced by the compiled ones of the game's
generated `search` module; iterative deepening, the stop rules between iterations and
the reports stay the reference's code. `ControlBridge` mirrors a `StopSignal` into the control
block that the compiled search polls.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Iterator

import numpy as np

from compiled.core import (
    ABORTED,
    BUDGET,
    DEADLINE,
    GENERATION,
    HARD_ONLY,
    HISTORY,
    KILLERS,
    MAX_NODES,
    NODES,
    PARTIAL_MOVE,
    PARTIAL_SCORE,
    SELDEPTH,
    STOP,
    new_work,
    reset_work,
)
from compiled.table import ArrayTable
from games.base import Game, State
from search.alphabeta import AlphaBeta
from search.core import Aborted, SearchReport
from search.limits import StopSignal
from search.solver import Solver


#: The games whose compiled functions are loaded in this process (`runtime.warm`). A
#: compiled searcher of another game runs the reference's code until its game is here.
LOADED: set[str] = set()

#: The solver table holds keys as int64 bit patterns.
_KEY_BITS = (1 << 64) - 1


def game_modules(name: str) -> tuple[ModuleType, ModuleType]:
    """The compiled kernels and search modules of the game called `name`; raises
    ImportError when the game has no compiled core."""
    return (importlib.import_module(f"compiled.{name}.kernels"),
            importlib.import_module(f"compiled.{name}.search"))


class ControlBridge:
    """Keeps the control slots of a work block (`compiled.core`) in step with a
    StopSignal.

    The signal's `stop()` and `arm()` write through at once (from any thread); between
    compiled calls, `sync` copies the signal's whole state and `settle` hands back a node
    budget that the compiled side started counting.
    """

    def __init__(self, stop: StopSignal, work: np.ndarray):
        self.stop = stop
        self.control = work
        stop.listen(self.sync)
        self.sync()

    def sync(self) -> None:
        """Copy the signal into the control block (on `stop()`, `arm()`, and before a
        compiled call)."""
        control, stop = self.control, self.stop
        deadline = stop.deadline
        control[DEADLINE] = 0 if deadline is None else max(1, int(deadline * 1_000_000_000))
        budget = stop.pending_node_budget
        if budget is not None:
            control[BUDGET] = budget
        else:
            # Counted already (by the signal between iterations): not to count again.
            control[BUDGET] = -1
            control[MAX_NODES] = -1 if stop.max_nodes is None else stop.max_nodes
        control[STOP] = 1 if stop.stopped else 0

    def settle(self) -> None:
        """After a compiled call: a budget the compiled side counted is counted here too."""
        control = self.control
        if self.stop.pending_node_budget is not None and control[BUDGET] < 0 <= control[MAX_NODES]:
            self.stop.count_budget(int(control[MAX_NODES]) - self.stop.pending_node_budget)


def load_heuristics(work: np.ndarray, killers: list[list[int | None]], history: dict[int, int],
                    nodes: int, seldepth: int, history_mask: int) -> None:
    """Carry the reference searcher's killers, history and counters into a work block,
    where a search that ran its first iterations on the reference goes on compiled."""
    for ply, (first, second) in enumerate(killers):
        work[KILLERS + 2 * ply] = -1 if first is None else first
        work[KILLERS + 2 * ply + 1] = -1 if second is None else second
    for move, score in history.items():
        work[HISTORY + (move & history_mask)] = score
    work[NODES] = nodes
    work[SELDEPTH] = seldepth


class CompiledIterations:
    """What a compiled searcher does around its compiled iterations, mixed into a
    subclass of a reference searcher (which provides `table`, `nodes`, `seldepth`,
    `_poll`, `_killers` and `_history`).

    Until the game's compiled functions are loaded (`LOADED`), the searcher runs the
    reference's iterations; from the first iteration after, compiled ones, with the
    reference's killers and history carried over, so the search is the same.
    """

    def _setup_compiled(self, work: np.ndarray, history_mask: int) -> None:
        self._work = work
        self._history_mask = history_mask
        self._bridge: ControlBridge | None = None
        self._packed: tuple | None = None
        self._compiled_iterations = False

    def _start_search(self, root: State, stop: StopSignal, packed: tuple) -> None:
        reset_work(self._work)
        self._bridge = ControlBridge(stop, self._work)
        self._packed = packed
        self._compiled_iterations = False

    def _before_iteration(self) -> np.ndarray:
        """The work block, ready for a compiled iteration."""
        work = self._work
        if not self._compiled_iterations:
            load_heuristics(work, self._killers, self._history, self.nodes, self.seldepth,  # type: ignore[attr-defined]
                            self._history_mask)
            self._compiled_iterations = True
        bridge = self._bridge
        assert bridge is not None
        bridge.sync()
        # The first iteration answers only to `stop` (see the reference searchers).
        work[HARD_ONLY] = self._poll != bridge.stop.should_stop  # type: ignore[attr-defined]
        work[GENERATION] = self.table.generation  # type: ignore[attr-defined]
        return work

    def _after_iteration(self) -> None:
        assert self._bridge is not None
        self._bridge.settle()
        self.nodes = int(self._work[NODES])
        self.seldepth = int(self._work[SELDEPTH])


class CompiledAlphaBeta(CompiledIterations, AlphaBeta):
    """`AlphaBeta` over the compiled core: the same nodes, scores and moves, faster
    (see `CompiledIterations`). Needs an `ArrayTable`; raises ValueError like `AlphaBeta`
    and ImportError when the game has no compiled core.
    """

    def __init__(self, game: Game, table: ArrayTable):
        super().__init__(game, table)
        if not isinstance(table, ArrayTable):
            raise ValueError("the compiled search needs an ArrayTable")
        self.kernels, self.compiled = game_modules(game.name)
        self._setup_compiled(new_work(self.kernels.HISTORY_MASK + 1), self.kernels.HISTORY_MASK)
        self._moves = self.compiled.new_move_buffer()

    def search(self, root: State, stop: StopSignal) -> Iterator[SearchReport]:
        self._start_search(root, stop, self.kernels.pack(root))
        yield from super().search(root, stop)

    def _root(self, root: State, moves: list[int], depth: int) -> tuple[int, int]:
        if self.game.name not in LOADED:
            return super()._root(root, moves, depth)
        work = self._before_iteration()
        score, move = self.compiled.root_iteration(
            self._packed, np.array(moves, dtype=np.int64), depth, self.table.cells, work, self._moves)
        self._after_iteration()
        if work[ABORTED]:
            partial = int(work[PARTIAL_MOVE])
            self._partial = None if partial < 0 else (partial, int(work[PARTIAL_SCORE]))
            raise Aborted
        return int(score), int(move)

    def _principal_variation(self, root: State, first: int, length: int) -> tuple[int, ...]:
        if self.game.name not in LOADED:
            return super()._principal_variation(root, first, length)
        line = np.empty(max(length, 1), dtype=np.int64)
        count = self.compiled.principal_variation(self._packed, first, length, self.table.cells,
                                                  self._moves, line)
        return tuple(line[:count].tolist())

    def _new_solver(self, stop: StopSignal) -> Solver | CompiledSolver:
        if self.game.name not in LOADED:
            return super()._new_solver(stop)
        return CompiledSolver(self)


class CompiledSolver:
    """`search.solver.Solver`'s interface over a game's compiled solver, polling the
    search's work block (so its stop signal) and counting its nodes there."""

    def __init__(self, searcher: CompiledAlphaBeta):
        self._searcher = searcher
        self._table = searcher.compiled.new_solver_table()
        self._first_node = searcher.nodes
        searcher._work[NODES] = searcher.nodes

    @property
    def nodes(self) -> int:
        return int(self._searcher._work[NODES]) - self._first_node

    def solve(self, state: State, alpha: int, beta: int) -> int:
        """As `Solver.solve`: the exact value within (alpha, beta), else a bound;
        raises Aborted when the stop signal fires."""
        searcher = self._searcher
        bridge, work = searcher._bridge, searcher._work
        assert bridge is not None
        work[HARD_ONLY] = 0
        bridge.sync()
        value = searcher.compiled.solve(searcher.kernels.pack(state), alpha, beta, self._table, work,
                                        searcher._moves)
        bridge.settle()
        if work[ABORTED]:
            raise Aborted
        return int(value)

    def best_line(self, state: State, limit: int = 128) -> list[int]:
        """As `Solver.best_line`: the moves the table holds as best from `state` on."""
        search, table = self._searcher.compiled, self._table
        line: list[int] = []
        seen = {state.key}
        while len(line) < limit:
            slot = table[state.key & (len(table) - 1)]
            move = int(slot[search.S_MOVE])
            if (int(slot[search.S_KEY]) & _KEY_BITS != state.key or move < 0
                    or move not in state.legal_moves()):
                break
            line.append(move)
            state = state.play(move)
            if state.key in seen:
                break
            seen.add(state.key)
        return line
