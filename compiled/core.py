"""What every compiled search shares: result codes and the work block.

A compiled search keeps everything it carries between nodes and iterations in one int64
numpy array, the work block, so that a recursive call passes one array rather than
seven (numba passes each array as 7-9 machine words: measured, 40% of the node rate).

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
    work[KILLERS + 2 * ply + i], i = 0, 1    the killer moves of a ply, -1 none
    work[HISTORY + move]                     the history score of a move
"""

from __future__ import annotations

import numpy as np
from games.kernel import kernel

from games.kernel import monotonic_ns
from search.core import MAX_PLY, POLL_MASK

#: `result(s)` of a position whose game goes on.
ONGOING = 2

STOP, DEADLINE, MAX_NODES, BUDGET = 0, 1, 2, 3
NODES, SELDEPTH, PARTIAL_MOVE, PARTIAL_SCORE, ABORTED = 4, 5, 6, 7, 8
GENERATION, HARD_ONLY = 9, 10
KILLERS = 11
HISTORY = KILLERS + 2 * (MAX_PLY + 1)

#: Bitwise mask of the node counts at which a search polls its control slots.
POLL = np.int64(POLL_MASK)


def new_work(move_limit: int) -> np.ndarray:
    """A work block for a game whose moves are below `move_limit`, reset (a search may
    ask a larger `move_limit` for room of its own after the history table)."""
    work = np.zeros(HISTORY + move_limit, dtype=np.int64)
    reset_work(work)
    return work


def reset_work(work: np.ndarray) -> None:
    """Ready `work` for a new search: no limits, no counts, no killers, no history."""
    work.fill(0)
    work[MAX_NODES] = -1
    work[BUDGET] = -1
    work[PARTIAL_MOVE] = -1
    work[KILLERS:HISTORY] = -1


@kernel
def must_stop(work, nodes):
    """Whether a search that has visited `nodes` nodes must end now: the mirror of
    `StopSignal.should_stop` (with work[HARD_ONLY], of `StopSignal.stop_requested`)."""
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
