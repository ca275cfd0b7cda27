"""Search limits, the stop signal a search polls, and time planning for clocks."""

from __future__ import annotations

import threading
import time
from typing import Callable

import attrs


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
    """The stop condition a search polls: an event, a deadline, a node and a depth bound.

    `stop()` and `arm()` may be called from any thread; the search calls
    `should_stop(nodes)` every few dozen nodes and reads `max_depth` between iterations.
    A pondering search starts unarmed (no bound but `stop`) and is armed at ponderhit,
    when its limits start counting. Listeners (`listen`) are called after every `stop()`
    and `arm()`, in the caller's thread: a search mirrors the signal into the work block
    its kernels poll.
    """

    __slots__ = ("_event", "deadline_ns", "max_nodes", "max_depth", "_node_budget", "_listeners")

    def __init__(self) -> None:
        self._event = threading.Event()
        #: time.monotonic_ns() value after which the search must end, or None: the unit
        #: the search kernels poll (CLOCK_MONOTONIC), so it is never converted.
        self.deadline_ns: int | None = None
        #: the node count at which the search must end, or None.
        self.max_nodes: int | None = None
        #: the last iteration depth to start, or None.
        self.max_depth: int | None = None
        self._node_budget: int | None = None
        self._listeners: list[Callable[[], None]] = []

    def listen(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every later `stop()` or `arm()`."""
        self._listeners.append(listener)

    @property
    def pending_node_budget(self) -> int | None:
        """A node budget armed but not yet counted from a node count (see `count_budget`)."""
        return self._node_budget

    def count_budget(self, nodes: int) -> None:
        """Start counting a pending node budget at `nodes` (the first poll after `arm`)."""
        if self._node_budget is not None:
            self.max_nodes = nodes + self._node_budget
            self._node_budget = None

    def arm(self, deadline_ns: int | None, node_budget: int | None, max_depth: int | None) -> None:
        """Apply limits from now on: a deadline (time.monotonic_ns()), a number of further
        nodes, a depth."""
        self.max_depth = max_depth
        self._node_budget = node_budget
        self.deadline_ns = deadline_ns
        for listener in self._listeners:
            listener()

    def stop(self) -> None:
        self._event.set()
        for listener in self._listeners:
            listener()

    @property
    def stopped(self) -> bool:
        return self._event.is_set()

    def should_stop(self, nodes: int) -> bool:
        """Whether the search must end now, having visited `nodes` nodes."""
        if self._event.is_set():
            return True
        self.count_budget(nodes)
        deadline = self.deadline_ns
        if deadline is not None and time.monotonic_ns() >= deadline:
            return True
        max_nodes = self.max_nodes
        return max_nodes is not None and nodes >= max_nodes
