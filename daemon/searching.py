"""The control of a session's searches: a `go` to its one answer.

`SearchControl` starts a session's search (or answers from the opening book), keeps
its time budget and watchdog, and ends it at its limits, at `stop` or at `ponderhit`;
it tells what the search produces through the session's `SearchListener`. Every time
here is a `time.monotonic_ns()` value: a command's arrival, a search's deadline, the
watchdog's. A search's deadlines are made once, when its limits start counting
(`deadlines`), and held by its `ActiveSearch`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from typing import Protocol

import attrs

from daemon import cores
from daemon.book import Book, BookMove, load_book
from daemon.refusals import Busy
from daemon.runner import SearchRun, SearchSlots, ThreadBudget
from daemon.tables import SessionTables
from games.base import Position
from protocol.options import EngineOptions
from search import AlphaBeta, MultiPlayerSearch
from search.base import SearchReport
from search.limits import Limits, StopSignal, move_budget_ms
from search.tt import unpack_move

LOG = logging.getLogger("engine.session")

_MS = 1_000_000
#: The loop forces `bestmove` this many ms before a `movetime` runs out, should the
#: search thread not have answered by then.
GUARD_MS = 6
#: The search's own deadline keeps at least this many ms of a budget back, so that it
#: answers before the loop has to force it (GUARD_MS).
SEARCH_MARGIN_MS = 12
#: After `stop`, the loop waits this long for the search's own final report.
STOP_GRACE_MS = 100
#: With clocks (no movetime), the loop forces `bestmove` this long after the budget.
CLOCK_GRACE_MS = 50
#: A timed `go` that finds the opening book still being read waits for it at most this
#: share of the time to its deadline, and then searches.
BOOK_WAIT_SHARE = 0.5


@attrs.frozen
class Deadlines:
    """When a search must stop, and when the loop answers for it should it not.

    Attributes:
        stop_ns: the search's own deadline (its stop signal's), or None.
        answer_ns: the watchdog's: the `bestmove` is written then at the latest, or None.
    """

    stop_ns: int | None
    answer_ns: int | None


def deadlines(limits: Limits, to_move: int, overhead_ms: int, start_ns: int) -> Deadlines:
    """The deadlines of a search whose limits count from `start_ns`: the budget of
    `move_budget_ms` less the overhead (at least SEARCH_MARGIN_MS), and the answer
    GUARD_MS before a `movetime` runs out (CLOCK_GRACE_MS after a clock budget)."""
    budget = move_budget_ms(limits, to_move, max(overhead_ms, SEARCH_MARGIN_MS))
    stop_ns = None if budget is None else start_ns + int(budget * _MS)
    if limits.movetime is not None:
        answer_ns = start_ns + max(limits.movetime - GUARD_MS, 1) * _MS
    elif stop_ns is not None:
        answer_ns = stop_ns + CLOCK_GRACE_MS * _MS
    else:
        answer_ns = None
    return Deadlines(stop_ns, answer_ns)


def limit(stop: StopSignal, limits: Limits, root: Position, overhead_ms: int, start_ns: int) -> Deadlines:
    """Arm `stop` with `limits` counted from `start_ns`; the search's deadlines."""
    bounds = deadlines(limits, root.to_move, overhead_ms, start_ns)
    stop.arm(bounds.stop_ns, limits.nodes, limits.depth)
    return bounds


def take_slot(slots: SearchSlots) -> None:
    """Take one of the daemon's search slots; raises Busy when all are taken."""
    if not slots.take():
        raise Busy(f"{slots.limit} searches running, the daemon's limit (--max-searches)")


class ActiveSearch:
    """The bookkeeping of one `go` until its `bestmove` is written."""

    def __init__(self, root: Position, limits: Limits, stop: StopSignal, overhead_ms: int):
        self.root = root
        self.limits = limits
        self.stop = stop
        #: The `MoveOverhead` of the `go` (options do not change while it runs).
        self.overhead_ms = overhead_ms
        #: No bestmove may be written before stop or ponderhit.
        self.pondering = limits.ponder
        #: No bestmove may be written before stop.
        self.infinite = limits.infinite or not (
            limits.depth or limits.nodes is not None or limits.movetime is not None
            or any(clock is not None for clock in limits.clocks)
        )
        self.deadlines = Deadlines(None, None)
        self.latest: SearchReport | None = None
        self.held: SearchReport | None = None
        self.emitted = False
        self.watchdog: asyncio.TimerHandle | None = None
        self.run: SearchRun | None = None


class SearchListener(Protocol):
    """Where a session engine tells what its searches produce, on the event loop (the
    session formats it: `daemon.session`)."""

    def loading(self, waits_for_deadline: bool) -> None:
        """A search starts while the game's compiled code loads: with a deadline it waits
        for it for most of its time, without one until it is there."""

    def book(self, move: BookMove) -> None:
        """The move about to be answered comes from the opening book."""

    def threads(self, asked: int, granted: int, reason: str) -> None:
        """A search starts with fewer threads (`granted`) than the `Threads` option asks,
        for `reason`."""

    def report(self, root: Position, report: SearchReport) -> None:
        """An iteration of a search of `root` ended (`report.final`: the search did)."""

    def answer(self, root: Position, pv: tuple[int, ...], searched: bool) -> None:
        """The one answer of a search of `root`: its pv (empty when `root` has no move),
        the move to play first; `searched` False when no iteration finished in time and
        the move is the table's or the first legal one."""


class QuietListener:
    """A listener that keeps nothing, for tools that read the reports themselves."""

    def loading(self, waits_for_deadline: bool) -> None:
        pass

    def book(self, move: BookMove) -> None:
        pass

    def threads(self, asked: int, granted: int, reason: str) -> None:
        pass

    def report(self, root: Position, report: SearchReport) -> None:
        pass

    def answer(self, root: Position, pv: tuple[int, ...], searched: bool) -> None:
        pass


class SearchControl:
    """The searches of one session, one at a time (`active`), each answered once through
    the listener: by itself at its limits, by the watchdog at its deadline, at `stop`, or
    at `ponderhit` for a ponder search that has its answer."""

    def __init__(self, listener: SearchListener, tables: SessionTables, slots: SearchSlots,
                 thread_budget: ThreadBudget):
        self.listener = listener
        #: The session's tables: the move of a search answered before any iteration
        #: ended is its table's, where it has one.
        self.tables = tables
        self.slots = slots
        self.thread_budget = thread_budget
        self.active: ActiveSearch | None = None
        self._winding_down: SearchRun | None = None
        #: Draws among the book's near-best moves (`BookVariety`).
        self._book_random = random.Random()

    async def go(self, searcher: AlphaBeta | MultiPlayerSearch, options: EngineOptions, position: Position,
                 limits: Limits, root_moves: list[int] | None, received_ns: int) -> None:
        """Start a search of `position` by `searcher` to `limits`, at the root only
        `root_moves` (legal moves of the position) when given; it answers through the
        listener (at once, with an empty pv, when the position has no move). Its limits
        count from `received_ns` unless it ponders. Raises Busy when the daemon's search
        slots are all taken."""
        if not position.legal_moves():
            self.listener.answer(position, (), True)
            return
        if self._winding_down is not None:
            await self._winding_down.wait()
            self._winding_down = None
        stop = StopSignal()
        active = ActiveSearch(position, limits, stop, options.move_overhead)
        book = None if root_moves else await self._book(position, limits, options, received_ns)
        move = None if book is None else book.probe(position, options.book_variety, self._book_random)
        if move is not None:
            self._answer_from_book(active, book, move)
            return
        take_slot(self.slots)
        threads = self.take_threads(searcher, options)
        if not active.pondering:
            self._arm(active, received_ns)
        if cores.loading(options.core, position.game):
            self.listener.loading(stop.deadline_ns is not None)
        self.active = active

        def ended() -> None:
            self.slots.give_back()
            self.thread_budget.give_back(threads)

        active.run = SearchRun(
            searcher.search(position, stop, root_moves, options.multi_pv), stop,
            lambda report: self._on_report(active, report), ended,
        )

    def take_threads(self, searcher: AlphaBeta | MultiPlayerSearch, options: EngineOptions) -> int:
        """Take the threads of the next search from the daemon's budget and give
        `searcher` as many: the `Threads` option's, fewer where the budget has not that
        many free, one on the Python core (whose kernels hold the interpreter lock); the
        listener hears of a cut. The caller gives them back when the search ends."""
        asked = options.threads
        granted = self.thread_budget.take(asked if options.core == cores.COMPILED else 1)
        if granted < asked:
            reason = ("the python core searches with one thread" if options.core != cores.COMPILED else
                      f"the daemon's thread budget (--threads {self.thread_budget.limit}) has no more free")
            self.listener.threads(asked, granted, reason)
        searcher.set_threads(granted)
        return granted

    async def _book(self, position: Position, limits: Limits, options: EngineOptions,
                    received_ns: int) -> Book | None:
        """The game's book for a `go` that plays (a time limit, or ponder) rather than
        analyses (depth, nodes, infinite), with OwnBook on; else None. While the book is
        still being read (the first `go` of a process, sent before `isready` says the
        game is ready), a `go` with a deadline waits for it at most BOOK_WAIT_SHARE of
        the time to its deadline, and then searches without it: a book never makes a
        `go` late."""
        if not options.own_book:
            return None
        if not (limits.ponder or limits.movetime is not None
                or any(clock is not None for clock in limits.clocks)):
            return None
        reading = load_book(position.game)
        if reading.done():
            return reading.result()
        stop_ns = None if limits.ponder else deadlines(
            limits, position.to_move, options.move_overhead, received_ns).stop_ns
        if stop_ns is None:
            return await asyncio.wrap_future(reading)
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(reading)),
                                          BOOK_WAIT_SHARE * max(0, stop_ns - time.monotonic_ns()) / 1e9)
        except asyncio.TimeoutError:
            LOG.info("the opening book of %s is still being read: searching instead", position.game.name)
            return None

    def _answer_from_book(self, active: ActiveSearch, book: Book, move: BookMove) -> None:
        """Answer `active` with `move`, from `book`, its ponder move the book's best reply
        if it has one: at once, or at ponderhit or stop for a ponder search."""
        root = active.root
        after = root.play(move.move)
        reply = book.probe(after) if after.legal_moves() else None
        pv = (move.move,) if reply is None else (move.move, reply.move)
        self.listener.book(move)
        report = SearchReport(move.depth, move.depth, move.score, 0, 0, 0, pv, True)
        self.active = active
        if active.pondering:
            active.held = report
        else:
            self._emit(active, report)

    async def finish_bounded(self) -> None:
        """Wait for the running search if its limits will end it by themselves."""
        active = self.active
        if active is not None and not active.pondering and not active.infinite and active.run:
            await active.run.wait()

    def _arm(self, active: ActiveSearch, start_ns: int) -> None:
        """Let the search's limits count from `start_ns`, and set the watchdog."""
        active.deadlines = limit(active.stop, active.limits, active.root, active.overhead_ms, start_ns)
        if active.deadlines.answer_ns is not None:
            if active.watchdog is not None:
                active.watchdog.cancel()
            delay = max(active.deadlines.answer_ns - time.monotonic_ns(), 0) / 1e9
            active.watchdog = asyncio.get_running_loop().call_later(delay, self._force, active)

    def _on_report(self, active: ActiveSearch, report: SearchReport | None) -> None:
        if active.emitted:
            return
        if report is None:  # the search failed: answer with what is known
            self._force(active)
            return
        previous, active.latest = active.latest, report
        if not (report.final and previous is not None and previous.nodes == report.nodes):
            self.listener.report(active.root, report)
        if not report.final:
            return
        if active.pondering or active.infinite:
            active.held = report
        else:
            self._emit(active, report)

    def _emit(self, active: ActiveSearch, report: SearchReport | None) -> None:
        """Write the one `bestmove` of this search and free the session for the next."""
        if active.emitted:
            return
        active.emitted = True
        if active.watchdog is not None:
            active.watchdog.cancel()
        root = active.root
        if report is not None and report.pv:
            self.listener.answer(root, report.pv, True)
        else:
            self.listener.answer(root, (self._fallback_move(root),), False)
        active.stop.stop()
        if self.active is active:
            self.active = None
        self._winding_down = active.run

    def _fallback_move(self, root: Position) -> int:
        """The table's move for `root` if it has a legal one, else the first legal move."""
        moves = root.legal_moves()
        entry = self.tables.by_game[root.game.name].probe(root.key)
        remembered = None if entry is None else unpack_move(entry)
        return remembered if remembered in moves else moves[0]

    def _force(self, active: ActiveSearch) -> None:
        """Answer now with the last completed iteration: the search is late or failed."""
        if active.emitted:
            return
        if active.run is not None and not active.run.done.is_set():
            LOG.warning("search late: answering from its last completed iteration")
        self._emit(active, active.held or active.latest)

    async def stop(self) -> None:
        """End the running search and write its bestmove before the next command."""
        active = self.active
        if active is None:
            return
        active.pondering = active.infinite = False
        active.stop.stop()
        if active.held is not None:
            self._emit(active, active.held)
            return
        assert active.run is not None
        try:
            await asyncio.wait_for(active.run.wait(), STOP_GRACE_MS / 1000)
        except asyncio.TimeoutError:
            pass
        self._force(active)

    def ponderhit(self, received_ns: int) -> None:
        """The move pondered on was played: the search's limits count from
        `received_ns`, and it answers at once if it has its answer already."""
        active = self.active
        if active is None or not active.pondering:
            return
        active.pondering = False
        self._arm(active, received_ns)
        if active.held is not None and not active.infinite:
            self._emit(active, active.held)
            return
        depth = active.stop.max_depth
        if depth is not None and active.latest is not None and active.latest.depth >= depth:
            # Pondering went past the depth asked for: the iteration under way is not
            # wanted, and the search answers with the deepest one completed.
            active.stop.stop()

    def abandon(self) -> None:
        """Stop the running search without answering it (quit, disconnect)."""
        active = self.active
        if active is not None:
            active.emitted = True
            active.stop.stop()
            if active.watchdog is not None:
                active.watchdog.cancel()
            self.active = None
