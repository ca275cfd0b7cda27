"""What every compiled search shares: result codes, the control block polled for
stopping, the search statistics block.

The control block is an int64 numpy array written by Python (any thread) and read by a
running compiled search every POLL_MASK + 1 nodes:

    control[STOP]       non-zero: stop now
    control[DEADLINE]   CLOCK_MONOTONIC nanoseconds after which the search stops, 0 none
    control[MAX_NODES]  the node count at which the search stops, -1 none
    control[BUDGET]     a node budget not yet turned into MAX_NODES (counted from the
                        first poll after it is set), -1 none

A stats block (int64 array) carries counters across the iterations of one search:
stats[NODES], stats[SELDEPTH], and the running root iteration's best so far
(stats[PARTIAL_MOVE], -1 none, and stats[PARTIAL_SCORE]); stats[ABORTED] is set when
an iteration was stopped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from compiled.bits import monotonic_ns
from search.core import POLL_MASK

#: `result(s)` of a position whose game goes on.
ONGOING = 2

STOP, DEADLINE, MAX_NODES, BUDGET = 0, 1, 2, 3
CONTROL_SIZE = 4

NODES, SELDEPTH, PARTIAL_MOVE, PARTIAL_SCORE, ABORTED = 0, 1, 2, 3, 4
STATS_SIZE = 5

#: Bitwise mask of the node counts at which a search polls its control block.
POLL = np.int64(POLL_MASK)


def new_control() -> np.ndarray:
    control = np.zeros(CONTROL_SIZE, dtype=np.int64)
    control[MAX_NODES] = -1
    control[BUDGET] = -1
    return control


def new_stats() -> np.ndarray:
    stats = np.zeros(STATS_SIZE, dtype=np.int64)
    stats[PARTIAL_MOVE] = -1
    return stats


@njit(cache=True, nogil=True)
def must_stop(control, nodes, hard_only):
    """Whether a search that has visited `nodes` nodes must end now: the mirror of
    `StopSignal.should_stop` (`hard_only`: of `StopSignal.stop_requested`)."""
    if control[BUDGET] >= 0:
        control[MAX_NODES] = nodes + control[BUDGET]
        control[BUDGET] = -1
    if control[STOP] != 0:
        return True
    if hard_only:
        return False
    if control[DEADLINE] != 0 and monotonic_ns() >= control[DEADLINE]:
        return True
    return control[MAX_NODES] >= 0 and nodes >= control[MAX_NODES]
