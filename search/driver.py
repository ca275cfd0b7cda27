"""The one iterative-deepening frame every search runs.

`Deepening` holds what alpha-beta (`search.alphabeta`) and the multi-player searches
(`search.multiplayer`, `search.mcts`) share: the start of a search, the deepening loop with its
first-iteration rule and the stand-in rule, MultiPV's further lines, the call of one
root iteration (the kernels upgraded once the compiled code is there, the work block
holding the stop signal's slots: `search.limits.StopSignal`) and the report with its
principal variation. A search gives only what differs: its root iteration kernel, whether a score
is proven, how it keeps the root's table entry, the score of a finished root, and the
rest of its own `search`.

Threads (Lazy SMP). A searcher given `set_threads(n)` keeps n - 1 helpers: searchers
of its own kind over the same table, each with a work block (killers, history, node
count, stop slot) of its own, run by threads of its own. While this searcher runs a
root iteration to depth d, every helper runs that same root iteration too, and deeper
ones after it (`_helping`). They share what they find through the table alone, whose
check words keep entries whole under concurrent stores, and share out the tree there:
a move another thread is searching comes after a node's other moves (`search.tt`,
`tt_busy`). This thread alone decides: it reports, keeps the deadline and the limits,
and when its iteration ends (done, stopped or out of time) it tells the helpers to
stop, each polling its stop slot every POLL_MASK + 1 nodes, and answers before it waits
for them, so `stop` and deadlines keep their latency. A searcher's exact solver is
helped the same way (`search.alphabeta`). The kernels release the interpreter lock, so
the helpers run in parallel only when compiled: interpreted ones search alone.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import time
from typing import Callable, Generator, Iterator, Sequence

import numpy as np

from games.base import Game, Position
from search.base import MAX_PLY, Aborted, SearchReport, best_first
from search.limits import StopSignal
from search.tt import TranspositionTable
from search.work import (ABORTED, GENERATION, HARD_ONLY, NODES, PARTIAL_MOVE, PARTIAL_SCORE, SELDEPTH, SHARED,
                         STOP, reset_work)

#: The first iteration depth that helpers join: the shallower ones take less time than
#: handing them to other threads.
HELPER_MIN_DEPTH = 3


def bound_to_its_stop(search: Callable[..., Iterator[SearchReport]]) -> Callable[..., Iterator[SearchReport]]:
    """A searcher's method `search(self, root, stop, ...)` whose stop signal, which
    `Deepening._start` binds to the work block, is unbound when the search ends, however
    it ends: a later `stop()` or `arm()` of that signal reaches no other search."""

    @functools.wraps(search)
    def run(self, root: Position, stop: StopSignal, *arguments, **options) -> Iterator[SearchReport]:
        try:
            yield from search(self, root, stop, *arguments, **options)
        finally:
            stop.unbind()
            self._settle()

    return run


class Deepening:
    """Iterative deepening over one game's root iterations, sharing a transposition
    table, the kernels given by `searches` (`search.specialised.GameSearches`: compiled
    once loaded, else interpreted) and a work block.

    Subclasses give `_iterate`, `_store_root`, `_terminal_score` and `search`, and may
    override `_proven`, `_line_salt` and `_principal_variation`. Raises ValueError at
    construction for a table of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches, work: np.ndarray):
        if table.game != game.name:
            raise ValueError(f"table of {table.game!r} used for {game.name!r}")
        self.game = game
        self.table = table
        self.searches = searches
        self.nodes = 0
        self.seldepth = 0
        self._work = work
        self._line_moves = np.empty(game.rules.MAX_MOVES, dtype=np.int64)
        self._kernels = None
        #: How many root lines each iteration reports (MultiPV).
        self._multipv = 1
        #: The running search's count of legal root moves (more than it searches after
        #: `go searchmoves`).
        self._root_count = 0
        #: The best (move, score) of the running root iteration so far.
        self._partial: tuple[int, int] | None = None
        #: The helpers of `set_threads`, the threads that run them, and their tasks
        #: told to stop and not yet waited for (`_helping`).
        self._helpers: list[Deepening] = []
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._stopping: list[concurrent.futures.Future] = []
        #: The searcher's own table of the nodes next to the leaves, emptied as each
        #: search starts, where its kind keeps one (`search.alphabeta.NEAR_DEPTH`); else
        #: one empty slot. The principal variation reads it after the main table.
        self._near = np.zeros((1, 2), dtype=np.uint64)

    def observe(self, line: Sequence[tuple[Position, int]]) -> None:
        """The moves that led to the next search's root, each with the position it was
        played in, oldest first (as far back as the caller knows the game). A searcher
        that models its opponents reads them; the others need nothing."""

    # ---- what a search gives -------------------------------------------------------

    def _iterate(self, root: Position, moves: list[int], depth: int) -> tuple[int, int]:
        """Call the root iteration kernel on `moves` (all the root's legal moves, or
        fewer: `go searchmoves` or MultiPV's further lines) to `depth`; (score, best
        move). The work block is left for `_iteration` to read."""
        raise NotImplementedError

    def _store_root(self, root: Position, depth: int, score: int, move: int) -> None:
        """Keep the iteration's best line as the root's table entry, after MultiPV's
        further lines (each stored the root with its own move)."""
        raise NotImplementedError

    def _terminal_score(self, root: Position) -> int:
        """The score of a root without moves, for the side to move."""
        raise NotImplementedError

    def _proven(self, score: int, depth: int) -> bool:
        """Whether `score`, from an iteration to `depth`, is a result no deeper search
        changes; by default none is."""
        return False

    def _line_salt(self) -> int:
        """What the search's table keys are salted with (0: plain position keys)."""
        return 0

    def _new_helper(self) -> Deepening:
        """A searcher of this one's kind over the same table and kernels, with a work
        block of its own: a helper (`set_threads`)."""
        raise NotImplementedError

    def _follow(self, main: Deepening) -> None:
        """As a helper, take on what `main`'s running search set up: its kernels and
        its count of root moves (and, in a subclass, what else its iterations read)."""
        self._kernels = main._kernels
        self._root_count = main._root_count

    def _helped(self) -> bool:
        """Whether the running search's iterations are searched by the helpers too (a
        search whose threads share nothing through the table is not)."""
        return True

    # ---- threads -----------------------------------------------------------------------

    @property
    def threads(self) -> int:
        """The threads a search runs: this one and its helpers."""
        return 1 + len(self._helpers)

    def set_threads(self, count: int) -> None:
        """Search with `count` threads (at least 1) from the next search on. Not while
        a search runs."""
        count = max(1, count)
        if count == self.threads:
            return
        if self._pool is not None:
            self._pool.shutdown(wait=False)
        self._helpers = [self._new_helper() for _ in range(count - 1)]
        # The helpers keep the priority of the thread that starts them: at a lower one,
        # a helper preempted while it holds the interpreter lock between two kernel
        # calls would hold up this thread and the event loop.
        self._pool = (concurrent.futures.ThreadPoolExecutor(count - 1, thread_name_prefix="helper")
                      if count > 1 else None)

    @contextlib.contextmanager
    def _helping(self, task: Callable[[Deepening], object]) -> Iterator[None]:
        """Run task(helper) for each helper, in its thread, while
        the body runs in this one; when the body ends, however it ends, tell the
        helpers to stop. They are waited for (`_settle`) before helpers start again
        and when the search ends, not here: the search answers first. Without compiled
        kernels, no helper runs."""
        self._settle()
        helpers = self._helpers if self._kernels is not None and self._kernels.compiled and self._helped() else []
        futures = []
        self._work[SHARED] = len(helpers)
        for helper in helpers:
            helper._work[STOP] = 0
            helper._work[SHARED] = len(helpers)
            futures.append(self._pool.submit(task, helper))
        try:
            yield
        finally:
            self._work[SHARED] = 0
            for helper in helpers:
                helper._work[STOP] = 1
            self._stopping = futures

    def _settle(self) -> None:
        """Wait for the helpers told to stop; a helper's error is raised here."""
        futures, self._stopping = self._stopping, []
        for future in futures:
            future.result()

    def _help_iterate(self, main: Deepening, root: Position, moves: list[int], depth: int) -> None:
        """As a helper, search `main`'s root iteration on `moves` to `depth`, and then
        deeper ones, until `main` stops it; only a stop ends it (HARD_ONLY): the
        deadline and limits are `main`'s to keep."""
        self._follow(main)
        work = self._work
        work[HARD_ONLY] = 1
        work[GENERATION] = main.table.generation
        while depth <= MAX_PLY and not work[STOP]:
            self._iterate(root, list(moves), depth)
            depth += 1

    @property
    def helper_nodes(self) -> int:
        """The nodes the helpers have searched in the running (or last) search."""
        return sum(int(helper._work[NODES]) for helper in self._helpers)

    # ---- the frame -------------------------------------------------------------------

    def _start(self, root: Position, stop: StopSignal) -> float:
        """Make ready for a search of `root` under `stop`, binding the signal to the work
        block (a method calling this is `bound_to_its_stop`); returns its start time."""
        self._kernels = self.searches.ready(stop)
        self.nodes = 0
        self.seldepth = 0
        self._partial = None
        self.table.new_search()
        self._reset()
        for helper in self._helpers:
            helper._reset()
        stop.bind(self._work)
        return time.monotonic()

    def _reset(self) -> None:
        """Ready what this searcher keeps of its own (its work block and near table) for
        a new search."""
        reset_work(self._work)
        self._near.fill(0)

    def _root_moves(self, root: Position, root_moves: Sequence[int] | None, multipv: int) -> list[int]:
        """The root's legal moves (cut to `root_moves` when given) for a search reporting
        `multipv` lines; empty for a finished root."""
        moves = root.legal_moves()
        self._root_count = len(moves)
        self._multipv = multipv
        if root_moves:
            moves = [move for move in moves if move in root_moves]
        return moves

    def _finished(self, root: Position) -> SearchReport:
        """The one report of a search of a root without moves."""
        return SearchReport(0, 0, self._terminal_score(root), 0, 0, self.table.hashfull(), (), True)

    def _deepen(self, root: Position, moves: list[int], stop: StopSignal, started: float,
                limit: int) -> Generator[SearchReport, None, tuple[SearchReport, bool]]:
        """Iterative deepening up to `limit`, yielding a report per completed iteration.

        Returns (the search's final report, settled), settled being True when the search
        must end here: stopped, out of time or nodes, at `stop.max_depth`, a proven result
        on every line reported, or a forced move under a deadline. The final report is
        the last completed iteration's, or where one line is reported (MultiPV 1) the
        unfinished iteration's best move so far when it found one; with MultiPV above 1
        it carries the last completed iteration's lines again: lines of an unfinished
        iteration are never reported beside those of a finished one.
        """
        best_move, best_score, completed = moves[0], 0, 0
        lines: list[tuple[int, int]] = []
        for depth in range(1, limit + 1):
            if stop.max_depth is not None and depth > stop.max_depth and completed:
                return self._final(root, completed, best_score, best_move, started, lines), True
            # The first iteration, with all its lines, always completes unless stopped
            # outright, so that every search reports a searched move and a whole set of
            # lines whatever its time or node budget; but for the interpreted stand-in
            # of compiled code still loading (see standing_in).
            first = depth == 1 and not self.searches.standing_in(self._kernels)
            try:
                score, move = self._iteration(root, moves, depth, hard_only=first)
                moves.remove(move)
                moves.insert(0, move)
                lines = self._lines(root, moves, depth, score, hard_only=first)
            except Aborted:
                # The unfinished iteration's best so far (its first move searched to the
                # full depth, or a later one proved better than it) stands alone.
                if self._partial is not None and self._multipv == 1:
                    best_move, best_score = self._partial
                return self._final(root, completed, best_score, best_move, started, lines), True
            (best_score, best_move), completed = lines[0], depth
            moves.remove(best_move)
            moves.insert(0, best_move)
            yield self._report(root, completed, best_score, best_move, started, False, tuple(lines[1:]))
            # Proven: every line reported, so that MultiPV's other lines are exact too.
            if all(self._proven(line_score, depth) for line_score, _ in lines):
                return self._final(root, completed, best_score, best_move, started, lines), True
            # A forced move needs no deeper look when the clock is running.
            if (len(moves) == 1 and stop.deadline_ns is not None) or stop.should_stop(self.nodes):
                return self._final(root, completed, best_score, best_move, started, lines), True
        return self._final(root, completed, best_score, best_move, started, lines), limit >= MAX_PLY

    def _final(self, root: Position, depth: int, score: int, move: int, started: float,
               lines: Sequence[tuple[int, int]]) -> SearchReport:
        """The final report of `move` at `score`, after `depth` completed iterations,
        with the others of `lines`, the last completed iteration's (`move` leads them,
        but for an unfinished iteration's move under MultiPV 1, when `lines` has no
        others)."""
        return self._report(root, depth, score, move, started, True, tuple(lines[1:]))

    def _lines(self, root: Position, moves: list[int], depth: int, best_score: int,
               hard_only: bool) -> list[tuple[int, int]]:
        """The iteration's lines as (score, move), best first (`best_first`): moves[0]
        at `best_score` (the iteration's best), and with MultiPV the next best root
        moves, up to `_multipv` lines in all, each the best of the moves not listed yet,
        searched to `depth` with a full window, so its score is exact (`hard_only`: only
        a stop ends them). Raises Aborted when stopped. The table keeps the best line's
        root entry in the end."""
        lines = [(best_score, moves[0])]
        remaining = moves[1:]
        try:
            while remaining and len(lines) < self._multipv:
                score, move = self._iteration(root, remaining, depth, hard_only=hard_only)
                lines.append((score, move))
                remaining.remove(move)
        finally:
            if len(lines) > 1:
                score, move = best_first(lines)[0]
                self._store_root(root, depth, score, move)
        return best_first(lines)

    def _iteration(self, root: Position, moves: list[int], depth: int, hard_only: bool) -> tuple[int, int]:
        """One root iteration on `moves` to `depth`; returns (score, best move). Raises
        Aborted when stopped, the iteration's best so far in `_partial`."""
        work = self._work
        assert self._kernels is not None
        self._kernels = self.searches.upgraded(self._kernels)
        work[HARD_ONLY] = hard_only
        work[GENERATION] = self.table.generation
        if depth >= HELPER_MIN_DEPTH:
            with self._helping(lambda helper: helper._help_iterate(self, root, moves, depth)):
                score, move = self._iterate(root, moves, depth)
        else:
            score, move = self._iterate(root, moves, depth)
        work[HARD_ONLY] = 0  # between iterations every limit counts (`StopSignal.should_stop`)
        self.nodes = int(work[NODES])
        self.seldepth = int(work[SELDEPTH])
        if work[ABORTED]:
            partial = int(work[PARTIAL_MOVE])
            self._partial = None if partial < 0 else (partial, int(work[PARTIAL_SCORE]))
            raise Aborted
        return score, move

    def _report(self, root: Position, depth: int, score: int, move: int, started: float,
                final: bool, others: tuple[tuple[int, int], ...] = ()) -> SearchReport:
        length = max(depth, 1)
        return SearchReport(
            depth=depth,
            seldepth=max(self.seldepth, depth),
            score=score,
            nodes=self.nodes + self.helper_nodes,
            elapsed_ms=int((time.monotonic() - started) * 1000),
            hashfull=self.table.hashfull(),
            pv=self._reported_line(root, move, length, score),
            final=final,
            others=tuple((line_score, self._reported_line(root, line_move, length, line_score))
                         for line_score, line_move in others),
        )

    def _reported_line(self, root: Position, first: int, length: int, score: int) -> tuple[int, ...]:
        """The principal variation of the root move `first`, which scores `score`: the
        table's, and where `score` is a result proven one ply past its end, the move
        that ends the game there. (Its node is one ply above the leaves, whose entries
        share the small near table: a collision there had cut a proven line short of
        its last move.)"""
        line = self._principal_variation(root, first, length)
        if self._proven(score, len(line) + 1) and not self._proven(score, len(line)):
            winner = root.to_move if score > 0 else 1 - root.to_move
            end = root
            for move in line:
                end = end.play(move)
            for move in end.legal_moves():
                outcome = end.play(move).outcome()
                if outcome is not None and outcome.winner == winner:
                    return line + (move,)
        return line

    def _principal_variation(self, root: Position, first: int, length: int) -> tuple[int, ...]:
        """`first`, then the table's best replies while they stay legal (`search.pv`)."""
        assert self._kernels is not None
        line = np.empty(max(length, 1), dtype=np.int64)
        count = self._kernels.principal_variation(root.s, np.int64(first), np.int64(length),
                                                  np.uint64(self._line_salt()), self.table.cells,
                                                  self._near, self._line_moves, line)
        return tuple(line[:count].tolist())
