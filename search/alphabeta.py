"""Iterative-deepening negamax alpha-beta with principal variation search.

Preconditions (checked at construction): a two-player zero-sum game. The search orders
moves by the transposition-table move, two killer moves per ply and the history
heuristic; it reports after every completed iteration and once more at the end.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Callable, Generator, Iterator

import attrs

from games.base import Game, State
from search.core import (
    INFINITY,
    MATE,
    MATE_BOUND,
    MAX_PLY,
    POLL_MASK,
    Aborted,
    SearchReport,
)
from search.limits import StopSignal
from search.solver import WINDOW_LIMIT, Solver
from search.tt import EXACT, LOWER, UPPER, TranspositionTable, unpack_move

#: Where a game says a position is solvable, the heuristic search goes this deep first,
#: for a move to fall back on should the solver not finish in time.
SOLVER_PRELUDE_DEPTH = 4


class AlphaBeta:
    """A negamax PVS searcher over one game's states, sharing a transposition table.

    Raises ValueError at construction for a game that is not two-player zero-sum.
    """

    def __init__(self, game: Game, table: TranspositionTable):
        if game.num_players != 2 or not game.zero_sum:
            raise ValueError(f"alpha-beta needs a two-player zero-sum game, not {game.name!r}")
        if table.game != game.name:
            raise ValueError(f"table of {table.game!r} used for {game.name!r}")
        self.game = game
        self.table = table
        self.nodes = 0
        self.seldepth = 0
        self._killers: list[list[int | None]] = [[None, None] for _ in range(MAX_PLY + 1)]
        self._history: defaultdict[int, int] = defaultdict(int)
        #: The stop check of the running iteration, called every POLL_MASK + 1 nodes.
        self._poll: Callable[[int], bool] = StopSignal().should_stop
        #: The best (move, score) of the running root iteration so far.
        self._partial: tuple[int, int] | None = None

    def search(self, root: State, stop: StopSignal) -> Iterator[SearchReport]:
        """Deepen until `stop` fires, `stop.max_depth` is reached, the result is proven,
        or (with a deadline) the root has a single move.

        Yields a report after each completed iteration and a `final` report last, whose
        `pv[0]` is the move to play (pv is empty when the root has no legal move).
        """
        self.nodes = 0
        self.seldepth = 0
        self.table.new_search()
        for killers in self._killers:
            killers[0] = killers[1] = None
        self._history.clear()
        started = time.monotonic()
        moves = root.legal_moves()
        if not moves or root.outcome() is not None:
            yield SearchReport(0, 0, self._terminal_score(root, 0), 0, 0, self.table.hashfull(), (), True)
            return
        entry = self.table.probe(root.key)
        remembered = None if entry is None else unpack_move(entry)
        if remembered in moves:
            moves.remove(remembered)
            moves.insert(0, remembered)
        solvable = self.game.solvable(root)
        best_move, best_score, completed, settled = yield from self._deepen(
            root, moves, stop, started, SOLVER_PRELUDE_DEPTH if solvable else MAX_PLY)
        final = self._report(root, completed, best_score, best_move, started, True)
        if solvable and not settled:
            final = yield from self._solve(root, stop, started, final)
        yield final

    def _deepen(self, root: State, moves: list[int], stop: StopSignal, started: float,
                limit: int) -> Generator[SearchReport, None, tuple[int, int, int, bool]]:
        """Iterative deepening up to `limit`, yielding a report per completed iteration.

        Returns (best move, its score, the last completed depth, settled), settled
        being True when the search must end here: stopped, out of time or nodes, at
        `stop.max_depth`, a proven result, or a forced move under a deadline.
        """
        best_move, best_score, completed = moves[0], 0, 0
        for depth in range(1, limit + 1):
            if stop.max_depth is not None and depth > stop.max_depth and completed:
                return best_move, best_score, completed, True
            # The first iteration always completes unless stopped outright, so that every
            # search reports a searched move whatever its time or node budget.
            self._poll = stop.stop_requested if depth == 1 else stop.should_stop
            try:
                score, move = self._root(root, moves, depth)
            except Aborted:
                # The unfinished iteration's best so far: its first move searched to the
                # full depth, or a later one proved better than it.
                if self._partial is not None:
                    best_move, best_score = self._partial
                return best_move, best_score, completed, True
            best_move, best_score, completed = move, score, depth
            moves.remove(move)
            moves.insert(0, move)
            yield self._report(root, completed, best_score, best_move, started, False)
            if abs(score) > MATE_BOUND and MATE - abs(score) <= depth:
                return best_move, best_score, completed, True
            # A forced move needs no deeper look when the clock is running.
            if (len(moves) == 1 and stop.deadline is not None) or stop.should_stop(self.nodes):
                return best_move, best_score, completed, True
        return best_move, best_score, completed, limit >= MAX_PLY

    def _solve(self, root: State, stop: StopSignal, started: float,
               fallback: SearchReport) -> Generator[SearchReport, None, SearchReport]:
        """Solve the root exactly: win, loss or draw, then the exact margin, yielding a
        report after each; returns the final report (`fallback`, the heuristic search's
        final report, when the solver is stopped before its first answer)."""
        solver = self._new_solver(stop)
        last = fallback
        try:
            for alpha, beta in ((-1, 1), (-WINDOW_LIMIT, WINDOW_LIMIT)):
                value = solver.solve(root, alpha, beta)
                line = solver.best_line(root)
                exact = alpha < value < beta
                score = 0 if value == 0 else (MATE - len(line)) * (1 if value > 0 else -1)
                last = SearchReport(
                    depth=len(line), seldepth=len(line), score=score, nodes=self.nodes + solver.nodes,
                    elapsed_ms=int((time.monotonic() - started) * 1000),
                    hashfull=self.table.hashfull(), pv=tuple(line),
                    margin=value if exact else None,
                )
                yield last
        except Aborted:
            pass
        return attrs.evolve(last, nodes=self.nodes + solver.nodes, final=True,
                            elapsed_ms=int((time.monotonic() - started) * 1000))

    def _new_solver(self, stop: StopSignal) -> Solver:
        """The exact solver of this search (a subclass may give one of the same interface)."""
        return Solver(stop.should_stop, POLL_MASK)

    def _report(self, root: State, depth: int, score: int, move: int, started: float,
                final: bool) -> SearchReport:
        return SearchReport(
            depth=depth,
            seldepth=max(self.seldepth, depth),
            score=score,
            nodes=self.nodes,
            elapsed_ms=int((time.monotonic() - started) * 1000),
            hashfull=self.table.hashfull(),
            pv=self._principal_variation(root, move, max(depth, 1)),
            final=final,
        )

    def _principal_variation(self, root: State, first: int, length: int) -> tuple[int, ...]:
        """The best move, then the table's best replies while they stay legal."""
        pv = [first]
        state = root.play(first)
        seen = {root.key, state.key}
        while len(pv) < length:
            entry = self.table.probe(state.key)
            move = None if entry is None else unpack_move(entry)
            if move is None or move not in state.legal_moves():
                break
            pv.append(move)
            state = state.play(move)
            if state.key in seen:
                break
            seen.add(state.key)
        return tuple(pv)

    def _root(self, root: State, moves: list[int], depth: int) -> tuple[int, int]:
        """Search every root move to `depth`; returns (score, best move)."""
        alpha, beta = -INFINITY, INFINITY
        best_move = moves[0]
        self._partial = None
        for index, move in enumerate(moves):
            child = root.play(move)
            if index == 0:
                score = -self._search(child, depth - 1, -beta, -alpha, 1)
            else:
                score = -self._search(child, depth - 1, -alpha - 1, -alpha, 1)
                if score > alpha:
                    score = -self._search(child, depth - 1, -beta, -alpha, 1)
            if score > alpha:
                alpha, best_move = score, move
                self._partial = (move, score)
        self.table.store(root.key, depth, EXACT, alpha, best_move)
        return alpha, best_move

    def _terminal_score(self, state: State, ply: int) -> int:
        outcome = state.outcome()
        if outcome is None:
            return 0
        result = outcome.returns[state.to_move]
        if result > 0:
            return MATE - ply
        if result < 0:
            return ply - MATE
        return 0

    def _search(self, state: State, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The negamax value of `state` within (alpha, beta), fail-soft."""
        self.nodes += 1
        if not self.nodes & POLL_MASK and self._poll(self.nodes):
            raise Aborted
        if ply > self.seldepth:
            self.seldepth = ply
        outcome = state.outcome()
        if outcome is not None:
            result = outcome.returns[state.to_move]
            return MATE - ply if result > 0 else ply - MATE if result < 0 else 0
        if depth <= 0 or ply >= MAX_PLY:
            return self.game.evaluate(state)[state.to_move]

        key = state.key
        table = self.table
        entry = table.probe(key)
        tt_move = None
        if entry is not None:
            tt_move = unpack_move(entry)
            if (entry >> 24) & 0x7F >= depth:
                value = (entry & 0xFFFFFF) - (1 << 23)
                if value > MATE_BOUND:
                    value -= ply
                elif value < -MATE_BOUND:
                    value += ply
                bound = (entry >> 31) & 0x3
                if bound == EXACT or (bound == LOWER and value >= beta) or (
                    bound == UPPER and value <= alpha
                ):
                    return value

        moves = state.legal_moves()
        history = self._history
        moves.sort(key=history.__getitem__, reverse=True)
        killers = self._killers[ply]
        for promoted in (killers[1], killers[0], tt_move):
            if promoted is not None and promoted in moves:
                moves.remove(promoted)
                moves.insert(0, promoted)

        original_alpha = alpha
        best_score = -INFINITY
        best_move = moves[0]
        first = True
        for move in moves:
            child = state.play(move)
            if first:
                score = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
                first = False
            else:
                score = -self._search(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                if alpha < score < beta:
                    score = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_move = score, move
                if score > alpha:
                    alpha = score
                    if score >= beta:
                        if move != killers[0]:
                            killers[1] = killers[0]
                            killers[0] = move
                        history[move] += depth * depth
                        break

        bound = LOWER if best_score >= beta else EXACT if best_score > original_alpha else UPPER
        stored = best_score
        if stored > MATE_BOUND:
            stored += ply
        elif stored < -MATE_BOUND:
            stored -= ply
        table.store(key, depth, bound, stored, best_move)
        return best_score
