"""Proving a root exactly with the endgame solver (`search.solver`): `Solver` drives its
`solve` kernel for a search, and `prove_root` runs the windows that find win, loss or
draw and then the exact margin, for `search.alphabeta.AlphaBeta` (its short-turn solves
after a heuristic prelude, and `prove`).

Where the game bounds its margins (MARGIN_LIMIT), null windows close in on the margin
(`close_in`): a null window cuts far more than a wide one (FFO #39, a wipe-out, was not
solved in 600 s in the window (0, 64)). A search that plays a short turn (`sign_first`)
proves win, loss or draw first, with the window (-1, 1), since that decides its move;
then, as `prove` does from the start (and a search with a long deadline, after its
deeper prelude), it tests at `guess`, a heuristic score (hundredths of the margin), and
then just past each bound proved (MTD(f)): the tests near the margin cost the most, and
from a good guess it takes two or three. Halving the interval between the bounds
instead, FFO #40-#49 took 160 s (prove, the other core busy); from a depth-10 guess,
110 s. Where the game has no margin limit: win, loss or draw, then a wide window on the
proved side.
"""

from __future__ import annotations

import contextlib
import time
from types import SimpleNamespace
from typing import Callable, ContextManager, Generator, Iterator

import numpy as np

from games.base import Position
from search.base import MATE, Aborted, SearchReport
from search.solver import _KEY_BITS, EMPTY, MOVE_FIELD, WINDOW_LIMIT
from search.work import ABORTED, HARD_ONLY, NODES, accumulator_rows

#: report(value, alpha, beta, complete): the report of a value just proved in (alpha,
#: beta), its line completed or not (`Solver.best_line`).
Reporter = Callable[..., SearchReport]


class Solver:
    """Solves positions of one search exactly with its game's `solve` kernel, counting
    nodes and polling the stop signal through the search's work block (which holds the
    signal's slots: `search.limits.StopSignal`), in `table` (`new_solver_table`),
    whose bounds are exact and so stay good from one call and one search to the next."""

    def __init__(self, kernels: SimpleNamespace, work: np.ndarray, moves: np.ndarray, table: np.ndarray,
                 accumulators: np.ndarray | None = None,
                 helping: Callable[[Position, int, int], ContextManager[None]] | None = None):
        self._kernels = kernels
        self._work = work
        self._moves = moves
        self._table = table
        #: The evaluation's accumulators (`accumulator_rows`), the searcher's or its own.
        self._accumulators = accumulator_rows(kernels.ACCUMULATOR) if accumulators is None else accumulators
        #: helping(position, alpha, beta): what runs alongside each solve, in other
        #: threads, over the same table (`search.alphabeta`), stopped when it ends.
        self._helping = helping or (lambda position, alpha, beta: contextlib.nullcontext())
        self._first_node = int(self._work[NODES])

    @property
    def nodes(self) -> int:
        """Nodes this solver has visited."""
        return int(self._work[NODES]) - self._first_node

    def solve(self, position: Position, alpha: int, beta: int) -> int:
        """The exact value of `position` if it lies in (alpha, beta), else a bound on the
        side it failed (fail-soft). Raises Aborted when the search is stopped."""
        work = self._work
        work[HARD_ONLY] = 0
        with self._helping(position, alpha, beta):
            value = self._kernels.solve(position.s, alpha, beta, self._table, work, self._moves, self._accumulators)
        if work[ABORTED]:
            raise Aborted
        return int(value)

    def best_line(self, position: Position, alpha: int, beta: int, complete: bool = True,
                  limit: int = 128) -> list[int]:
        """The line of best moves from `position`, just solved in (alpha, beta), to the end
        of the game (or `limit` moves): the moves the table holds, and where it holds none
        (a position the game's own ending solver took, or a slot since overwritten) the
        best by solving each move's position in the window (the root's, negated at every
        ply), unless not `complete`: then the line stops there. It stops short only then,
        or if stopped."""
        line: list[int] = []
        while len(line) < limit and position.outcome() is None:
            try:
                move = self._remembered_move(position)
                if move is None and not complete:
                    break
                if move is None:
                    move = self._best_move(position, alpha, beta)
            except Aborted:
                break
            line.append(move)
            position = position.play(move)
            alpha, beta = -beta, -alpha
        return line

    def _best_move(self, position: Position, alpha: int, beta: int) -> int:
        """The move of highest value (fail-soft in (alpha, beta)) from `position`: the
        first that reaches `beta`, since none can do better within the window (a win's
        line needs one winning move, not every move solved)."""
        best, best_move = -WINDOW_LIMIT - 1, -1
        for move in position.legal_moves():
            value = -self.solve(position.play(move), -beta, -alpha)
            if value > best:
                best, best_move = value, move
                if value >= beta:
                    break
        return best_move

    def _remembered_move(self, position: Position) -> int | None:
        """The best move the table holds for `position`, if it holds one and it is legal;
        in a game of parts, for the position less its dead pieces and zero parts (which
        the table holds its moves under), or the winning move its parts' classes give.
        Raises Aborted when stopped."""
        legal = position.legal_moves()
        move = self._table_move(position.key, legal)
        if move is None and hasattr(self._kernels, "live_parts"):
            _, winning, simpler = self._kernels.simplified(position.s, self._table, self._work, self._moves,
                                                           self._accumulators)
            if self._work[ABORTED]:
                raise Aborted
            move = int(winning) if int(winning) in legal else self._table_move(int(simpler), legal)
        return move

    def _table_move(self, key: int, legal: list[int]) -> int | None:
        """The move the table holds for the position of `key`, if it is one of `legal`."""
        bucket = key & (len(self._table) - 2)
        for check, lower, upper, word in self._table[bucket:bucket + 2].tolist():
            move = (word & MOVE_FIELD) - 1
            if word != EMPTY and (check ^ lower ^ upper ^ word) & _KEY_BITS == key and move in legal:
                return move
        return None


def proof_report(line: list[int], value: int, alpha: int, beta: int, nodes: int, started: float,
                 hashfull: int) -> SearchReport:
    """The report of `value` proved in (alpha, beta) with its `line`: a win or a loss
    scored as a mate at the line's end, its margin where the value is exact."""
    score = 0 if value == 0 else (MATE - len(line)) * (1 if value > 0 else -1)
    return SearchReport(depth=len(line), seldepth=len(line), score=score, nodes=nodes,
                        elapsed_ms=int((time.monotonic() - started) * 1000), hashfull=hashfull, pv=tuple(line),
                        margin=value if alpha < value < beta else None)


def prove_root(solver: Solver, root: Position, limit: int | None, guess: int, sign_first: bool, report: Reporter,
               fallback: SearchReport) -> Generator[SearchReport, None, SearchReport]:
    """Solve `root` exactly, yielding a report when win, loss or draw is proved and
    another with the exact margin (a draw's is known at once), each made by `report`;
    returns the last report, or `fallback` where the solver is stopped before its first
    answer. `limit`: the game's MARGIN_LIMIT, or None (see the module's docstring)."""
    last = fallback
    try:
        if limit is None:
            value = solver.solve(root, -1, 1)
            last = report(value, -1, 1)
            yield last
            if value != 0:
                value = solver.solve(root, *((0, WINDOW_LIMIT) if value > 0 else (-WINDOW_LIMIT, 0)))
                last = report(value, value - 1, value + 1)
                yield last
        else:
            for last in close_in(solver, root, limit, guess, sign_first, report):
                yield last
    except Aborted:
        pass
    return last


def close_in(solver: Solver, root: Position, limit: int, guess: int, sign_first: bool,
             report: Reporter) -> Iterator[SearchReport]:
    """The null-window tests of `prove_root` for a margin within (-limit, limit): first the
    window (-1, 1) where `sign_first`, then (or at once) a test at `guess`
    (hundredths), then each just past the bound the last one proved (MTD(f)).
    Yields report(value, alpha, beta, complete) once the sign is proved, its line as
    far as the table holds it unless that was the first test (complete), and once
    more with the margin and its whole line unless that first report had it (a
    draw)."""
    low, high = -limit, limit  # the margin lies in [low, high]
    first_target = round(guess / 100)
    target, tests, signed = first_target, 0, False
    while low < high:
        if sign_first and tests == 0:
            alpha, beta = -1, 1
        else:
            test = min(max(target, low + 1), high)
            alpha, beta = test - 1, test
        bound = solver.solve(root, alpha, beta)
        tests += 1
        if bound >= beta:
            low, target = bound, bound + 1
        elif bound <= alpha:
            high, target = bound, bound
        else:
            low = high = bound
        if sign_first and tests == 1:
            target = first_target  # after the sign, the guess
        if not signed and (low > 0 or high < 0 or low == high):
            signed = True
            if low == high == 0:
                yield report(0, -1, 1, True)
                return
            # A bound, no margin yet: the line as far as the table holds it, but
            # after the window (-1, 1) (cheap to complete).
            yield report(low if low > 0 else high, alpha, beta, sign_first and tests == 1)
    yield report(low, low - 1, low + 1, True)
