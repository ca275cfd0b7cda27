"""The work block: everything a search kernel carries between nodes and iterations, in
one int64 numpy array, so that a recursive call passes one array rather than seven
(numba passes each array as 7-9 machine words: measured, 40% of the node rate).

    work[STOP]           non-zero: stop now                       written by Python,
    work[DEADLINE]       CLOCK_MONOTONIC ns to stop at, 0 none    from any thread, and
    work[MAX_NODES]      the node count to stop at, -1 none       polled every POLL + 1
    work[BUDGET]         a node budget not yet counted (from the  nodes
                         first poll after it is set), -1 none
    work[NODES], work[SELDEPTH]              counters of the whole search
    work[PARTIAL_MOVE], work[PARTIAL_SCORE]  the running root iteration's best so far
                                             (move -1: none yet)
    work[ABORTED]        set when an iteration or solver pass was stopped
    work[GENERATION]     the transposition table's current generation
    work[HARD_ONLY]      non-zero: only STOP ends the search (its first iteration)
    work[PROBCUT_T]      multi-ProbCut's confidence, hundredths of a deviation (0 off)
    work[SHARED]         non-zero: other threads search the same tree now (Threads)
    work[KILLERS + 2 * ply + i], i = 0, 1    the killer moves of a ply, -1 none
    work[HISTORY + move]                     the history score of a move
"""

from __future__ import annotations

import numpy as np

from games.kernel import kernel, monotonic_ns
from search.base import MAX_PLY, POLL_MASK

STOP, DEADLINE, MAX_NODES, BUDGET = 0, 1, 2, 3
NODES, SELDEPTH, PARTIAL_MOVE, PARTIAL_SCORE, ABORTED = 4, 5, 6, 7, 8
GENERATION, HARD_ONLY, PROBCUT_T, SHARED = 9, 10, 11, 12
#: The slots a stop signal holds (`search.limits.StopSignal`): STOP to BUDGET.
CONTROL = BUDGET + 1
KILLERS = 13
HISTORY = KILLERS + 2 * (MAX_PLY + 1)

#: Bitwise mask of the node counts at which a search polls its control slots.
POLL = np.int64(POLL_MASK)


def new_work(history_size: int, extra: int = 0) -> np.ndarray:
    """A work block with `history_size` history slots and `extra` slots after them for a
    search's own use, reset."""
    work = np.zeros(HISTORY + history_size + extra, dtype=np.int64)
    reset_work(work)
    return work


def control_block() -> np.ndarray:
    """The control slots alone, as a fresh work block has them (up to HARD_ONLY, 0): where
    a stop signal no search has bound holds them (`search.limits.StopSignal`)."""
    block = np.empty(HARD_ONLY + 1, dtype=np.int64)
    reset_work(block)
    return block


def reset_work(work: np.ndarray) -> None:
    """Ready `work` for a new search: no limits, no counts, no killers, no history."""
    work.fill(0)
    work[MAX_NODES] = -1
    work[BUDGET] = -1
    work[PARTIAL_MOVE] = -1
    work[KILLERS:HISTORY] = -1


@kernel
def must_stop(work, nodes):
    """Whether a search that has visited `nodes` nodes must end now: `stop`, the
    deadline or the node limit (only `stop` while work[HARD_ONLY] is set). A budget armed
    since the last poll starts counting here."""
    if work[BUDGET] >= 0:
        work[MAX_NODES] = nodes + work[BUDGET]
        work[BUDGET] = -1
    if work[STOP] != 0:
        return True
    if work[HARD_ONLY] != 0:
        return False
    if work[DEADLINE] != 0 and monotonic_ns() >= work[DEADLINE]:
        return True
    return work[MAX_NODES] >= 0 and nodes >= work[MAX_NODES]


def accumulator_rows(lanes: int) -> np.ndarray:
    """The searches' accumulators of an evaluation that carries `lanes` 16-bit lanes
    through the moves (`search.alphabeta.accumulator_binds`), a row per ply."""
    return np.zeros((MAX_PLY + 2, lanes), dtype=np.uint16)


def move_rows(max_moves: int) -> np.ndarray:
    """The searches' move lists, a row per ply: a position's moves (at most `max_moves`),
    then as many values to order them by."""
    return np.empty((MAX_PLY + 2, 2 * max_moves), dtype=np.int64)
