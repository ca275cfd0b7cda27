"""Search limits, the stop signal a search polls, and time planning for clocks."""

from __future__ import annotations

import threading

import attrs
import numpy as np

from games.kernel import interpreted
from search.work import BUDGET, CONTROL, DEADLINE, MAX_NODES, STOP, control_block, must_stop

_must_stop = interpreted(must_stop)


@attrs.frozen
class Limits:
    """What bounds one search, as the client asked for it.

    Attributes:
        depth: the deepest iteration to complete.
        nodes: the node budget.
        movetime: milliseconds for this move, a hard deadline counted from `start`.
        clocks: each player's remaining time in ms, by player index.
        increments: each player's increment per move in ms, by player index.
        movestogo: moves until the next time control.
        infinite: search until stopped.
        ponder: the search runs on the opponent's time; no limit counts until ponderhit.
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    clocks: tuple[int | None, ...] = ()
    increments: tuple[int | None, ...] = ()
    movestogo: int | None = None
    infinite: bool = False
    ponder: bool = False


#: A side's clock budget: a 1/TIME_SHARE share of the remaining time, plus most of the
#: increment, never more than MAX_CLOCK_FRACTION of what is left.
TIME_SHARE = 25
INCREMENT_SHARE = 0.8
MAX_CLOCK_FRACTION = 0.4


def move_budget_ms(limits: Limits, player: int, overhead_ms: int) -> float | None:
    """The milliseconds this move may take, or None when no time limit applies.

    `movetime` is a hard bound; a clock gives a share of the remaining time. The
    `overhead_ms` the client keeps back for transport is taken from either.
    """
    budgets = []
    if limits.movetime is not None:
        budgets.append(limits.movetime - overhead_ms)
    clock = limits.clocks[player] if player < len(limits.clocks) else None
    if clock is not None:
        increment = limits.increments[player] if player < len(limits.increments) else None
        moves = limits.movestogo if limits.movestogo else TIME_SHARE
        share = clock / max(moves, 1) + INCREMENT_SHARE * (increment or 0)
        budgets.append(min(share, clock * MAX_CLOCK_FRACTION) - overhead_ms)
    if not budgets:
        return None
    return max(min(budgets), 1.0)


class StopSignal:
    """The stop condition of one search: the control slots of a work block
    (`search.work`: STOP, DEADLINE, MAX_NODES, BUDGET), which the search's kernels poll
    every few dozen nodes and Python reads between iterations, and the depth bound,
    read between iterations.

    The slots are the one stop state. Until a search binds the signal to its work block
    (`bind`), and again once it has ended (`unbind`), they live in a small block of the
    signal's own. `stop()` and `arm()` may be called from any thread at any time and
    write wherever the slots are. A pondering search starts unarmed (no bound but
    `stop`) and is armed at ponderhit, when its limits start counting.
    """

    __slots__ = ("_own", "_slots", "_guard", "max_depth")

    def __init__(self) -> None:
        self._own = control_block()
        self._slots = self._own
        self._guard = threading.Lock()
        #: the last iteration depth to start, or None.
        self.max_depth: int | None = None

    def arm(self, deadline_ns: int | None, node_budget: int | None, max_depth: int | None) -> None:
        """Apply limits from now on: a deadline (time.monotonic_ns()), a number of further
        nodes (counted from the search's next poll), a depth."""
        with self._guard:
            slots = self._slots
            self.max_depth = max_depth
            slots[MAX_NODES] = -1  # before the budget: a poll in between counts the new one
            slots[BUDGET] = -1 if node_budget is None else node_budget
            slots[DEADLINE] = 0 if deadline_ns is None else max(1, deadline_ns)

    def stop(self) -> None:
        with self._guard:
            self._slots[STOP] = 1

    @property
    def stopped(self) -> bool:
        return bool(self._slots[STOP])

    @property
    def deadline_ns(self) -> int | None:
        """The time.monotonic_ns() value after which the search must end, or None: the
        unit the search kernels poll (CLOCK_MONOTONIC), so it is never converted."""
        deadline = int(self._slots[DEADLINE])
        return None if deadline == 0 else deadline

    def should_stop(self, nodes: int) -> bool:
        """Whether the search must end now, having visited `nodes` nodes: the rule its
        kernels poll (`search.work.must_stop`; a budget armed since their last poll
        starts counting here)."""
        return bool(_must_stop(self._slots, nodes))

    def bind(self, work: np.ndarray) -> None:
        """Hold the slots in `work`, a search's work block reset for it, from now on."""
        with self._guard:
            work[:CONTROL] = self._slots[:CONTROL]
            self._slots = work

    def unbind(self) -> None:
        """Hold the slots in the signal's own block again (the search has ended)."""
        with self._guard:
            if self._slots is not self._own:
                self._own[:CONTROL] = self._slots[:CONTROL]
                self._slots = self._own
