"""Iterative-deepening negamax alpha-beta with principal variation search.

The tree is searched by kernels written once over a game's kernels (`BINDS`) and
specialised per game by `search.specialised`, compiled or interpreted: one root
iteration at a time (`root_iteration`), with the table, two killer moves per ply and the
history heuristic in the work block (`search.work`). `AlphaBeta` gives the deepening
frame of `search.driver` these root iterations, and hands positions the game calls
solvable to the exact solver (`search.solver`) after a short heuristic prelude.

Preconditions (checked at construction): a two-player zero-sum game.
"""

from __future__ import annotations

import time
from typing import Generator, Iterator, Sequence

import attrs
import numpy as np

from games.base import ONGOING, Game, Position
from games.kernel import borrowed, inline_template, kernel, uncounted_template
from search.base import INFINITY, MATE, MATE_BOUND, MAX_PLY, SearchReport
from search.driver import Deepening, bound_to_its_stop
from search.limits import StopSignal
from search.proving import Solver, proof_report, prove_root
from search.solver import new_solver_table, promote, sort_by_score
from search.tt import (
    EXACT,
    DEFER_DEPTH,
    LOWER,
    NO_MARK,
    UPPER,
    TranspositionTable,
    bound_decides,
    entry_bound,
    entry_depth,
    entry_move,
    entry_value,
    move_mark,
    next_move,
    tt_claim,
    tt_probe,
    tt_store,
    tt_unmark,
    unpack_move,
)
from search.work import (
    ABORTED,
    GENERATION,
    HARD_ONLY,
    HISTORY,
    KILLERS,
    NODES,
    PARTIAL_MOVE,
    PARTIAL_SCORE,
    POLL,
    PROBCUT_T,
    SELDEPTH,
    SHARED,
    accumulator_rows,
    move_rows,
    must_stop,
    new_work,
)

#: Where a game says a position is solvable, the heuristic search goes this deep first,
#: for a move to fall back on should the solver not finish in time.
SOLVER_PRELUDE_DEPTH = 4
#: `prove` searches this deep first, unreported, for the margin's first test.
PROVE_GUESS_DEPTH = 10
#: With a deadline, a search solves a position when the game's solve-time model gives
#: a proof of win, loss or draw at most this share of the time left: the model is a
#: 90th percentile (the slowest proofs measured took one to three times as long), and the
#: exact margin comes after the proof.
SOLVE_SHARE = 0.4
#: With at least this many seconds left, a search solves a position whose modelled proof
#: fits the whole time left, after a heuristic prelude to PROVE_GUESS_DEPTH (a fraction
#: of a second): the move to fall back on should the proof not come, and the score the
#: margin's tests start from, as `prove`'s do, without a test of the sign first (FFO
#: #40-#49 through `go movetime 30000`: 9 of 10 proved, #49 not, with the short prelude
#: and the sign first). Shorter turns keep to SOLVE_SHARE and the short prelude: there
#: the heuristic search's own depth counts for more, and a proof that does not come
#: costs most of the turn.
LONG_SOLVE_SECONDS = 1.0
#: How many times longer the interpreted solver takes than the compiled one: the exact
#: solves of six positions of scripts/solve (12 empty cells) took 12 ms compiled and
#: 1,187 ms interpreted.
INTERPRETED_SLOWDOWN = 100

#: The game's kernels these templates call, bound per game, multi-ProbCut's fit for its
#: evaluation (`probcut_binds`) and the evaluation's accumulators (`accumulator_binds`).
BINDS = ("HISTORY_MASK", "legal_moves", "play", "key", "result", "evaluate", "HAS_PROBCUT", "PROBCUT", "probcut_row",
         "ACCUMULATED", "accumulate", "accumulate_play", "evaluate_accumulated")
HISTORY_MASK = legal_moves = play = key = result = evaluate = HAS_PROBCUT = PROBCUT = probcut_row = None
ACCUMULATED = accumulate = accumulate_play = evaluate_accumulated = None

#: Multi-ProbCut tries its shallow searches at null-window nodes this deep or deeper.
PROBCUT_MIN_DEPTH = 3
#: The default confidence of its cuts, in hundredths of the fitted deviation: a cut
#: where the shallow search predicts the deep one to fall outside the window by at least
#: this many deviations. 0 turns multi-ProbCut off.
PROBCUT_DEFAULT = 150
#: The fit of an evaluation without one: no cut anywhere.
NO_PROBCUT = np.zeros((1, 1, 4))


@kernel
def no_probcut_row(s):
    return 0


@kernel
def no_accumulate(s, acc, row):
    return


@kernel
def no_accumulate_play(parent, child, move, acc, parent_row, row):
    return


@kernel
def no_evaluate_accumulated(s, acc, row):
    return 0


def accumulator_binds(evaluation) -> dict:
    """The evaluation module `evaluation`'s accumulator, as the templates bind it. An
    evaluation may carry what it reads of the board through the moves, in a row of
    `ACCUMULATOR` 16-bit lanes a ply (`search.work.accumulator_rows`): `accumulate(s,
    acc, row)` writes the row acc[row] of `s`, `accumulate_play(parent, child, move, acc,
    parent_row, row)` the row acc[row] of the `child` after `move` from its parent's,
    acc[parent_row], and `evaluate_accumulated(s, acc, row)` is `evaluate(s)` read from
    `s`'s row. The searches carry the rows down their trees, a row a ply (indexed, not
    sliced: compiled with reference counts, a slice costs two calls). ACCUMULATOR is 1
    for an evaluation that keeps none (without `ACCUMULATOR`): it is read from the state
    alone."""
    if getattr(evaluation, "ACCUMULATOR", 0) == 0:
        return {"ACCUMULATED": False, "ACCUMULATOR": 1, "accumulate": no_accumulate,
                "accumulate_play": no_accumulate_play, "evaluate_accumulated": no_evaluate_accumulated}
    return {"ACCUMULATED": True, "ACCUMULATOR": evaluation.ACCUMULATOR, "accumulate": evaluation.accumulate,
            "accumulate_play": evaluation.accumulate_play, "evaluate_accumulated": evaluation.evaluate_accumulated}


def probcut_binds(evaluation) -> dict:
    """Multi-ProbCut's fit for the evaluation module `evaluation`, as the templates
    bind it: `PROBCUT[row, depth]` = (shallow depth, a, b, deviation) of the linear
    relation deep ≈ a × shallow + b between the scores of searches to `depth` and to
    the shallow depth, in the row `probcut_row(s)` of the position (a game phase);
    deviation 0 where there is no fit. Depths past the table's last use its last fit,
    the shallow depth as far below. An evaluation without `PROBCUT` is never cut."""
    fit = getattr(evaluation, "PROBCUT", None)
    if fit is None:
        return {"HAS_PROBCUT": False, "PROBCUT": NO_PROBCUT, "probcut_row": no_probcut_row}
    return {"HAS_PROBCUT": bool(fit[..., 3].any()), "PROBCUT": fit, "probcut_row": evaluation.probcut_row}


#: How many moves a node picks by history one at a time, before it sorts the rest; a
#: list of at most SHORT_LIST moves is picked from to the end. Against a full sort at
#: every node (same trees), the bench searches of the two games of 20-40 moves a
#: position took 23-27% less time, the others 2-3%; picking every move lazily cost the
#: games of long lists more than the sort did.
LAZY_PICKS = 1
SHORT_LIST = 16

#: The nodes this few plies above the leaves keep their entries in the searcher's own
#: small table (`near`, NEAR_SLOTS slots, 512 KiB: it stays in the core's cache), not in
#: the main one, where each probe is a miss of main memory. Measured where multi-ProbCut
#: cuts (20 mid-game positions of expert games, 16 MiB main table, depth 18): 7.2 s
#: against 8.3 s with the main table alone, 8.5 s with depth 2 in the near table too,
#: 7.3 s with 8,192 slots and 8.1 s with 131,072; with no table at all at depth 1,
#: 9.1 s (ProbCut's shallow searches gain from the entries). Every two-player game's
#: bench positions reached their depth sooner, by 6-32%.
NEAR_DEPTH = 1
NEAR_SLOTS = 1 << 15

#: `_visit`'s value for a node whose search goes on.
OPEN = INFINITY + 1


@inline_template
def _visit(s, ply, work):
    """Count the node `s` and poll the stop signal; the node's value if the search ends
    there (0 when stopped, the score of a finished game), else OPEN."""
    nodes = work[NODES] + 1
    work[NODES] = nodes
    if (nodes & POLL) == 0 and must_stop(work, nodes):
        work[ABORTED] = 1
        return 0
    if ply > work[SELDEPTH]:
        work[SELDEPTH] = ply
    outcome = result(s)
    if outcome != ONGOING:
        if outcome > 0:
            return MATE - ply
        if outcome < 0:
            return ply - MATE
        return 0
    return OPEN


@inline_template
def _pick(row, count, i):
    """Bring the move of the highest score of row[i:count] to row[i], the first such if
    several, keeping the order of the others; the scores are in row[count:2 * count]."""
    best = i
    for j in range(i + 1, count):
        if row[count + j] > row[count + best]:
            best = j
    if best != i:
        move = row[best]
        score = row[count + best]
        for j in range(best, i, -1):
            row[j] = row[j - 1]
            row[count + j] = row[count + j - 1]
        row[i] = move
        row[count + i] = score


@inline_template
def evaluate_at(s, ply, acc):
    """The evaluation of `s` at `ply`, from its accumulator acc[ply] where the evaluation
    keeps one (`accumulator_binds`), else from `s` alone. The solver binds it too."""
    if ACCUMULATED:
        return evaluate_accumulated(s, acc, ply)
    return evaluate(s)


@inline_template
def _child(parent, move, depth, alpha, beta, ply, cells, near, work, moves, acc):
    """The value of the position after `move` from `parent` (at ply - 1): a leaf (depth
    0, or the deepest ply) is played, visited and evaluated here, in its parent's code,
    with no call, and numba drops what of `play` the leaf does not use (its key); any
    other is searched. Either way its accumulator, acc[ply], is carried from its
    parent's where the evaluation keeps one (and the leaf's game goes on)."""
    if depth <= 0 or ply >= MAX_PLY:
        s = play(parent, move)
        value = _visit(s, ply, work)
        if value != OPEN:
            return value
        if ACCUMULATED:
            accumulate_play(parent, s, move, acc, ply - 1, ply)
        return evaluate_at(s, ply, acc)
    s = play(parent, move)
    if ACCUMULATED:
        accumulate_play(parent, s, move, acc, ply - 1, ply)
    return _search(s, depth, alpha, beta, ply, cells, near, work, moves, acc)


@uncounted_template
def _search(s, depth, alpha, beta, ply, cells, near, work, moves, acc):
    """The value of `s` searched to `depth` in the window (alpha, beta), fail-soft, with
    the main table `cells` and, NEAR_DEPTH plies from the leaves, the near table `near`;
    acc[ply] is `s`'s accumulator (`accumulator_binds`)."""
    value = _visit(s, ply, work)
    if value != OPEN:
        return value
    if depth <= 0 or ply >= MAX_PLY:
        return evaluate_at(s, ply, acc)

    position = key(s)
    table = cells if depth > NEAR_DEPTH else near
    entry = tt_probe(table, position)
    tt_move = -1
    if entry != 0:
        tt_move = entry_move(entry)
        if entry_depth(entry) >= depth:
            value = entry_value(entry)
            if value > MATE_BOUND:
                value -= ply
            elif value < -MATE_BOUND:
                value += ply
            if bound_decides(entry_bound(entry), value, alpha, beta):
                return value

    if HAS_PROBCUT and depth >= PROBCUT_MIN_DEPTH and beta - alpha == 1 and work[PROBCUT_T] > 0:
        value = _probcut(s, entry, depth, beta, ply, near, work, moves, acc)
        if value != OPEN:
            return value

    row = moves[ply]
    count = legal_moves(s, row)
    # The table's move, then the killers, go first; the others follow by history,
    # highest first, ties in the generator's order. The history scores are read once,
    # into row[count:2 * count], and the first are picked when their turn comes: most
    # nodes are cut after a move or two.
    killer = KILLERS + 2 * ply
    first = promote(row, count, work[killer + 1])
    first += promote(row, count, work[killer])
    if promote(row, count, tt_move) and tt_move != work[killer] and tt_move != work[killer + 1]:
        first += 1
    for i in range(first, count):
        row[count + i] = work[HISTORY + (row[i] & HISTORY_MASK)]

    original_alpha = alpha
    best_score = -INFINITY
    best_move = row[0]
    # With other threads on the tree (work[SHARED]), a node DEFER_DEPTH deep or more
    # searches a move another thread is searching (`tt_busy`) after its other moves;
    # row[count:count + deferred] keeps such moves (their scores are spent by then).
    sharing = work[SHARED] != 0 and depth >= DEFER_DEPTH
    deferred = 0
    taken = 0
    i = 0
    while True:
        if first <= i < count:
            if count <= SHORT_LIST or i < first + LAZY_PICKS:
                _pick(row, count, i)
            elif i == first + LAZY_PICKS:
                sort_by_score(row, count, i)
        more, move, i, taken = next_move(row, 0, count, count, i, taken, deferred)
        if not more:
            break
        mark = move_mark(position, move) if sharing else NO_MARK
        if sharing and not tt_claim(cells, mark, taken == 0 and i > 1):
            row[count + deferred] = move
            deferred += 1
            continue
        if i == 1:
            score = -_child(s, move, depth - 1, -beta, -alpha, ply + 1, cells, near, work, moves, acc)
        else:
            score = -_child(s, move, depth - 1, -alpha - 1, -alpha, ply + 1, cells, near, work, moves, acc)
            if work[ABORTED] == 0 and alpha < score < beta:
                score = -_child(s, move, depth - 1, -beta, -alpha, ply + 1, cells, near, work, moves, acc)
        if sharing:
            tt_unmark(cells, mark)
        if work[ABORTED] != 0:
            return 0
        if score > best_score:
            best_score = score
            best_move = move
            if score > alpha:
                alpha = score
                if score >= beta:
                    if move != work[killer]:
                        work[killer + 1] = work[killer]
                        work[killer] = move
                    work[HISTORY + (move & HISTORY_MASK)] += depth * depth
                    break

    if best_score >= beta:
        bound = LOWER
    elif best_score > original_alpha:
        bound = EXACT
    else:
        bound = UPPER
    stored = best_score
    if stored > MATE_BOUND:
        stored += ply
    elif stored < -MATE_BOUND:
        stored -= ply
    tt_store(table, position, depth, bound, stored, best_move, work[GENERATION])
    return best_score


@inline_template
def _shallow(s, entry, depth, alpha, beta, ply, near, work, moves, acc):
    """ProbCut's shallow search of `s` to `depth` in the window (alpha, beta): the value
    of `s`'s own entry `entry` (0 none) where it is that deep or deeper and its bound
    decides the window, else a search whose every node keeps its entry in the near table
    alone. Kept apart from the main table, which other threads write at other depths,
    what a shallow search predicts depends on this thread's searches only: on 20 expert
    positions two threads reached depth 20 1.77 times as fast as one (1.37 before the
    near table, docs/threads.md), and one thread took 10% less time than with the
    shallow searches in the main table."""
    if entry != 0 and entry_depth(entry) >= depth:
        value = entry_value(entry)
        if -MATE_BOUND <= value <= MATE_BOUND and bound_decides(entry_bound(entry), value, alpha, beta):
            return value
    return _search(s, depth, alpha, beta, ply, near, near, work, moves, acc)


@inline_template
def _probcut(s, entry, depth, beta, ply, near, work, moves, acc):
    """Multi-ProbCut (Buro, 1997) at a null-window node (beta - 1, beta) searched to
    `depth`: where the fit (`probcut_binds`) predicts from a shallow search that the
    deep one would fail high (low) by work[PROBCUT_T] hundredths of a deviation, the
    node's value is beta (beta - 1) without the deep search; else OPEN. Stopped, 0.
    Inlined into `_search`: compiled as two functions calling each other, loaded from
    numba's cache, the first search crashed the process (a segmentation fault)."""
    row = probcut_row(s)
    d = min(depth, PROBCUT.shape[1] - 1)
    sigma = PROBCUT[row, d, 3]
    if sigma <= 0.0:
        return OPEN
    shallow = np.int64(PROBCUT[row, d, 0]) + depth - d
    a, b = PROBCUT[row, d, 1], PROBCUT[row, d, 2]
    margin = work[PROBCUT_T] * sigma / 100.0
    high = np.int64(np.ceil((beta + margin - b) / a))
    if high < MATE_BOUND:
        value = _shallow(s, entry, shallow, high - 1, high, ply, near, work, moves, acc)
        if work[ABORTED] != 0:
            return 0
        if value >= high:
            return beta
    low = np.int64(np.floor((beta - 1 - margin - b) / a))
    if low > -MATE_BOUND:
        value = _shallow(s, entry, shallow, low, low + 1, ply, near, work, moves, acc)
        if work[ABORTED] != 0:
            return 0
        if value <= low:
            return beta - 1
    return OPEN


@uncounted_template
def root_iteration(s, root_moves, depth, cells, near, work, moves, acc, bound):
    """Search every move of `root_moves` (in that order; the array is used up) to
    `depth` from `s` with the table `cells`, the near table `near` (NEAR_DEPTH), the
    work block `work` (`search.work`) and the accumulators `acc` (`accumulator_rows`);
    returns (score, best move), which the table keeps for `s` with `bound` (EXACT, or LOWER when
    `root_moves` are not all the legal moves). When stopped, work[ABORTED] is set and
    the iteration's best so far is in work[PARTIAL_MOVE] (-1 none) and
    work[PARTIAL_SCORE]."""
    cells, near, work, moves, acc = borrowed(cells), borrowed(near), borrowed(work), borrowed(moves), borrowed(acc)
    if ACCUMULATED:
        accumulate(s, acc, 0)
    alpha = np.int64(-INFINITY)
    beta = np.int64(INFINITY)
    ply = np.int64(1)
    best_move = root_moves[0]
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    # As at every node (`_search`): with other threads on the tree, a move another one
    # is searching comes after the others, kept at the front of `root_moves`, whose
    # moves are spent by then.
    position = key(s)
    sharing = work[SHARED] != 0 and depth >= DEFER_DEPTH
    count = len(root_moves)
    deferred = 0
    taken = 0
    index = 0
    while True:
        more, move, index, taken = next_move(root_moves, 0, count, 0, index, taken, deferred)
        if not more:
            break
        mark = move_mark(position, move) if sharing else NO_MARK
        if sharing and not tt_claim(cells, mark, taken == 0 and index > 1):
            root_moves[deferred] = move
            deferred += 1
            continue
        if index == 1:
            score = -_child(s, move, depth - 1, -beta, -alpha, ply, cells, near, work, moves, acc)
        else:
            score = -_child(s, move, depth - 1, -alpha - 1, -alpha, ply, cells, near, work, moves, acc)
            if work[ABORTED] == 0 and score > alpha:
                score = -_child(s, move, depth - 1, -beta, -alpha, ply, cells, near, work, moves, acc)
        if sharing:
            tt_unmark(cells, mark)
        if work[ABORTED] != 0:
            return alpha, best_move
        if score > alpha:
            alpha = score
            best_move = move
            work[PARTIAL_MOVE] = move
            work[PARTIAL_SCORE] = score
    tt_store(cells, position, depth, bound, alpha, best_move, work[GENERATION])
    return alpha, best_move


TEMPLATES = (_visit, _pick, evaluate_at, _child, _search, _shallow, _probcut, root_iteration)


def warm(kernels, position: Position) -> None:
    """Call every entry point once from `position` (one with moves), so that numba loads
    them from its cache, or compiles them the first time."""
    moves = move_rows(kernels.MAX_MOVES)
    cells = np.zeros((1 << 10, 2), dtype=np.uint64)
    work = new_work(kernels.HISTORY_MASK + 1)
    root_moves = np.array(position.legal_moves(), dtype=np.int64)
    near = np.zeros((1 << 4, 2), dtype=np.uint64)
    kernels.root_iteration(position.s, root_moves, np.int64(2), cells, near, work, moves,
                           accumulator_rows(kernels.ACCUMULATOR), np.int64(EXACT))
    # What a search asks of the game before it starts (loading one costs a first search
    # about 100 ms).
    kernels.solvable(position.s)
    if hasattr(kernels, "solve_seconds"):
        kernels.solve_seconds(position.s)


class AlphaBeta(Deepening):
    """A negamax PVS searcher over one game's positions, sharing a transposition table,
    running its game's search kernels as `searches` gives them (`search.specialised`:
    compiled once loaded, else interpreted).

    Raises ValueError at construction for a game that is not two-player zero-sum and for
    a table of another game.
    """

    def __init__(self, game: Game, table: TranspositionTable, searches):
        if game.num_players != 2 or not game.zero_sum:
            raise ValueError(f"alpha-beta needs a two-player zero-sum game, not {game.name!r}")
        super().__init__(game, table, searches, new_work(game.rules.HISTORY_MASK + 1))
        self._moves = move_rows(game.rules.MAX_MOVES)
        self._near = np.zeros((NEAR_SLOTS, 2), dtype=np.uint64)
        self._accumulators = accumulator_rows(accumulator_binds(game.evaluation)["ACCUMULATOR"])
        #: The solver's table, half the main one's memory, made at the first solve and
        #: kept: its bounds are exact.
        self._solver_table: np.ndarray | None = None
        #: Multi-ProbCut's confidence in hundredths of a deviation (`_probcut`), 0 off;
        #: for the searches that start after it is set.
        self.probcut = PROBCUT_DEFAULT

    def static_score(self, position: Position) -> int:
        """What a leaf of this search scores `position` at, for its side to move (the
        game's evaluation, with no search): the `score cp` of a search that stops there."""
        return int(self.game.evaluate(position)[position.to_move])

    @bound_to_its_stop
    def search(self, root: Position, stop: StopSignal, root_moves: Sequence[int] | None = None,
               multipv: int = 1) -> Iterator[SearchReport]:
        """Deepen until `stop` fires, `stop.max_depth` is reached, the result is proven,
        or (with a deadline) the root has a single move; at the root only `root_moves`
        (legal moves of `root`) when given. With `multipv` above 1 each iteration also
        searches the next best root moves, up to `multipv` lines in all (`others`).
        Either runs without the exact solver, which proves the best move alone.

        Yields a report after each completed iteration and a `final` report last, whose
        `pv[0]` is the move to play (pv is empty when the root has no legal move).
        """
        started = self._start(root, stop)
        self._work[PROBCUT_T] = self.probcut
        moves = self._root_moves(root, root_moves, multipv)
        if not moves:
            yield self._finished(root)
            return
        entry = self.table.probe(root.key)
        remembered = None if entry is None else unpack_move(entry)
        if remembered in moves:
            moves.remove(remembered)
            moves.insert(0, remembered)
        prelude = self._prelude(root, stop) if not root_moves and multipv == 1 else None
        final, settled = yield from self._deepen(root, moves, stop, started, prelude or MAX_PLY)
        if prelude is not None and not settled:
            # After the long prelude, the tests start at its score, as `prove`'s do.
            final = yield from self._solve(root, stop, started, final, final.score, prelude == SOLVER_PRELUDE_DEPTH)
        yield final

    def _prelude(self, root: Position, stop: StopSignal) -> int | None:
        """How deep the heuristic search goes before the exact solver takes `root`, or
        None where the search does not solve it. With a deadline, the game's solve-time
        model (`solve_seconds`) decides: a proof of win, loss or draw modelled within
        SOLVE_SHARE of the time left comes after SOLVER_PRELUDE_DEPTH; with at least
        LONG_SOLVE_SECONDS left, one modelled within the whole of it after PROVE_GUESS_DEPTH.
        Without a deadline, or a model, where the game calls it `solvable`, after
        SOLVER_PRELUDE_DEPTH."""
        kernels = self._kernels
        if stop.deadline_ns is None or not hasattr(kernels, "solve_seconds"):
            return SOLVER_PRELUDE_DEPTH if kernels.solvable(root.s) else None
        seconds = float(kernels.solve_seconds(root.s))
        if not kernels.compiled:
            seconds *= INTERPRETED_SLOWDOWN
        left = (stop.deadline_ns - time.monotonic_ns()) / 1e9
        if seconds <= SOLVE_SHARE * left:
            return SOLVER_PRELUDE_DEPTH
        return PROVE_GUESS_DEPTH if left >= LONG_SOLVE_SECONDS and seconds <= left else None

    @bound_to_its_stop
    def prove(self, root: Position, stop: StopSignal) -> Iterator[SearchReport]:
        """Solve `root` exactly with the endgame solver, however far its end: a report
        when win, loss or draw is proved (its line as far as the solver's table holds
        it), another with the exact margin and its whole line (a draw's is known at
        once), the last one `final` (with an empty pv and score 0 if stopped before the
        first answer). Where the game bounds its margins (above 1), a heuristic search to
        PROVE_GUESS_DEPTH comes first, unreported: its score is where the solver's tests
        start (`_solve`). For a finished root, one final report of its result."""
        started = self._start(root, stop)
        if not root.legal_moves():
            yield self._finished(root)
            return
        guess = 0
        if getattr(self._kernels, "MARGIN_LIMIT", 1) > 1:
            # A heuristic search first, unreported, for the margin's first test.
            self._work[PROBCUT_T] = self.probcut
            deepening = self._deepen(root, self._root_moves(root, None, 1), stop, started, PROVE_GUESS_DEPTH)
            while True:
                try:
                    next(deepening)
                except StopIteration as done:
                    guess = done.value[0].score
                    break
        unproved = SearchReport(0, 0, 0, 0, 0, self.table.hashfull(), ())
        yield (yield from self._solve(root, stop, started, unproved, guess, False))

    def _new_helper(self) -> AlphaBeta:
        return AlphaBeta(self.game, self.table, self.searches)

    def _follow(self, main: AlphaBeta) -> None:
        super()._follow(main)
        self._work[PROBCUT_T] = main._work[PROBCUT_T]

    def _help_solve(self, main: AlphaBeta, root: Position, alpha: int, beta: int) -> None:
        """As a helper, solve `root` in the window (alpha, beta) of `main`'s solve of it,
        in its table, until done or stopped (only a stop ends it: HARD_ONLY)."""
        self._follow(main)
        self._work[HARD_ONLY] = 1
        self._kernels.solve(root.s, alpha, beta, main._solver_table, self._work, self._moves, self._accumulators)

    def _iterate(self, root: Position, moves: list[int], depth: int) -> tuple[int, int]:
        # Fewer moves than the root has (go searchmoves, MultiPV's further lines): the
        # root's value is a lower bound only.
        bound = EXACT if len(moves) == self._root_count else LOWER
        score, move = self._kernels.root_iteration(
            root.s, np.array(moves, dtype=np.int64), np.int64(depth), self.table.cells, self._near, self._work,
            self._moves, self._accumulators, np.int64(bound))
        return int(score), int(move)

    def _store_root(self, root: Position, depth: int, score: int, move: int) -> None:
        tt_store(self.table.cells, np.uint64(root.key), np.int64(depth), np.int64(EXACT), np.int64(score),
                 np.int64(move), np.int64(self.table.generation))

    def _proven(self, score: int, depth: int) -> bool:
        """A win or a loss within `depth` plies."""
        return abs(score) > MATE_BOUND and MATE - abs(score) <= depth

    def _solve(self, root: Position, stop: StopSignal, started: float, fallback: SearchReport, guess: int,
               sign_first: bool) -> Generator[SearchReport, None, SearchReport]:
        """Solve the root exactly (`search.proving.prove_root`), with this search's
        helpers; returns the final report (`fallback`, the heuristic search's final
        report, when the solver is stopped before its first answer)."""
        self._work[NODES] = self.nodes
        if self._solver_table is None:
            self._solver_table = new_solver_table(self.table.memory_bytes // 2)
        solver = Solver(self._kernels, self._work, self._moves, self._solver_table, self._accumulators,
                        lambda position, alpha, beta: self._helping(
                            lambda helper: helper._help_solve(self, position, alpha, beta)))

        def report(value: int, alpha: int, beta: int, complete: bool = True) -> SearchReport:
            return proof_report(solver.best_line(root, alpha, beta, complete), value, alpha, beta,
                                self.nodes + solver.nodes + self.helper_nodes, started, self.table.hashfull())

        last = yield from prove_root(solver, root, getattr(self._kernels, "MARGIN_LIMIT", None), guess, sign_first,
                                     report, fallback)
        return attrs.evolve(last, nodes=self.nodes + solver.nodes + self.helper_nodes, final=True,
                            elapsed_ms=int((time.monotonic() - started) * 1000))

    def _terminal_score(self, root: Position) -> int:
        """The score of a root without moves: a win, a loss or a draw for the side to move."""
        result = int(self._kernels.result(root.s))
        if result == ONGOING or result == 0:
            return 0
        return MATE if result > 0 else -MATE
