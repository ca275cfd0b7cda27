"""The compiled three-player searches of Knight Isolation: perft and one root iteration
of each of `search.multiplayer`'s algorithms (paranoid, best-reply, max^n).

They mirror `MultiPlayerSearch` line for line: the same node counting (`_enter`), the
same terminal values (returns times WIN_VALUE, less the ply), the same searcher's
utility, the same move ordering (a stable sort by history, highest first, then the
second killer, the first killer and the table move brought to the front), the same
table keys (`key ^ salt`), bounds and replacement, so that at a fixed depth both cores
visit the same nodes in the same order and return the same score and move.

An iteration is one call of `paranoid_root`, `brs_root` or `maxn_root` with the table
`cells` and a work block from `new_search_work()`: the shared slots of `compiled.core`
(control, counters, killers, history) followed by this module's evaluation triple and
per-ply move lists. The Python driver (`compiled.isolation.driver`) deepens. A stopped
iteration sets work[ABORTED] and unwinds at once; the best root move found so far is in
work[PARTIAL_MOVE] (-1 none).
"""

from __future__ import annotations

import numpy as np
from games.kernel import kernel

from compiled.core import (
    ABORTED,
    GENERATION,
    HISTORY,
    KILLERS,
    NODES,
    PARTIAL_MOVE,
    PARTIAL_SCORE,
    POLL,
    SELDEPTH,
    must_stop,
    new_work,
)
from compiled.isolation.kernels import (
    MAX_MOVES,
    MOVE_LIMIT,
    evaluate,
    key,
    legal_moves,
    move_count,
    moves_for,
    play,
    play_for,
    returns,
    to_move,
)
from compiled.table import entry_bound, entry_depth, entry_move, entry_value, tt_probe, tt_store
from search.core import INFINITY, MAX_PLY
from search.multiplayer import WIN_VALUE
from search.tt import EXACT, LOWER, UPPER

PLAYERS = 3


@kernel
def _perft(s, depth, moves, ply):
    if depth <= 0:
        return 1
    if depth == 1:
        return move_count(s)
    row = moves[ply]
    count = legal_moves(s, row)
    total = 0
    for i in range(count):
        total += _perft(play(s, row[i]), depth - 1, moves, ply + 1)
    return total


@kernel
def perft(s, depth):
    """Leaf count at exactly `depth` plies (`search.perft.perft`)."""
    moves = np.empty((max(depth, 1) + 1, MAX_MOVES), dtype=np.int64)
    return _perft(s, np.int64(depth), moves, np.int64(0))


@kernel(inline=True)
def _utility(v0, v1, v2, me):
    """v[me] minus the best of the others' values (`search.multiplayer.utility`)."""
    if me == 0:
        return v0 - max(v1, v2)
    if me == 1:
        return v1 - max(v0, v2)
    return v2 - max(v0, v1)


# This search's part of the work block, after the shared slots and the history table:
# the evaluation triple and the per-ply move lists.
W_VALUES = HISTORY + MOVE_LIMIT
W_MOVES = W_VALUES + PLAYERS
W_SIZE = W_MOVES + (MAX_PLY + 2) * MAX_MOVES


def new_search_work():
    """A work block for these searches (see the module docstring)."""
    return new_work(W_SIZE - HISTORY)


@kernel(inline=True)
def _enter(ply, work):
    """Count a node, poll every POLL + 1 nodes; True when the search must stop."""
    nodes = work[NODES] + 1
    work[NODES] = nodes
    if (nodes & POLL) == 0 and must_stop(work, nodes):
        work[ABORTED] = 1
        return True
    if ply > work[SELDEPTH]:
        work[SELDEPTH] = ply
    return False


@kernel(inline=True)
def _terminal_utility(work, ply, me):
    return _utility(WIN_VALUE * work[W_VALUES] - ply, WIN_VALUE * work[W_VALUES + 1] - ply,
                    WIN_VALUE * work[W_VALUES + 2] - ply, me)


@kernel(inline=True)
def _static_utility(s, me, work):
    evaluate(s, work[W_VALUES:W_VALUES + PLAYERS])
    return _utility(work[W_VALUES], work[W_VALUES + 1], work[W_VALUES + 2], me)


@kernel
def _promote(work, base, count, move):
    """Move `move` to the front of the list at work[base:base + count] if it is there,
    keeping the others' order."""
    if move < 0:
        return
    for i in range(count):
        if work[base + i] == move:
            for j in range(base + i, base, -1):
                work[j] = work[j - 1]
            work[base] = move
            return


@kernel
def _order(work, base, count, tt_move, ply):
    """`MultiPlayerSearch._ordered`: a stable sort by history, highest first, then the
    second killer, the first killer and the table move to the front."""
    for i in range(base + 1, base + count):
        move = work[i]
        score = work[HISTORY + move]
        j = i
        while j > base and work[HISTORY + work[j - 1]] < score:
            work[j] = work[j - 1]
            j -= 1
        work[j] = move
    _promote(work, base, count, work[KILLERS + 2 * ply + 1])
    _promote(work, base, count, work[KILLERS + 2 * ply])
    _promote(work, base, count, tt_move)


@kernel(inline=True)
def _cutoff(move, depth, ply, work):
    killer = KILLERS + 2 * ply
    if move != work[killer]:
        work[killer + 1] = work[killer]
        work[killer] = move
    work[HISTORY + move] += depth * depth


@kernel
def _paranoid(s, depth, alpha, beta, ply, me, salt, cells, work):
    if _enter(ply, work):
        return 0
    if returns(s, work[W_VALUES:W_VALUES + PLAYERS]):
        return _terminal_utility(work, ply, me)
    if depth <= 0 or ply >= MAX_PLY:
        return _static_utility(s, me, work)
    position = key(s) ^ salt
    entry = tt_probe(cells, position)
    tt_move = -1
    if entry != 0:
        tt_move = entry_move(entry)
        if entry_depth(entry) >= depth and ply != 0:
            value = entry_value(entry)
            bound = entry_bound(entry)
            if bound == EXACT or (bound == LOWER and value >= beta) or (bound == UPPER and value <= alpha):
                return value
    maximising = to_move(s) == me
    base = W_MOVES + ply * MAX_MOVES
    count = legal_moves(s, work[base:base + MAX_MOVES])
    _order(work, base, count, tt_move, ply)
    original_alpha = alpha
    original_beta = beta
    best = -INFINITY if maximising else INFINITY
    best_move = work[base]
    for i in range(count):
        move = work[base + i]
        value = _paranoid(play(s, move), depth - 1, alpha, beta, ply + 1, me, salt, cells, work)
        if work[ABORTED] != 0:
            return 0
        if maximising:
            if value > best:
                best = value
                best_move = move
                if ply == 0:
                    work[PARTIAL_MOVE] = move
                    work[PARTIAL_SCORE] = value
                alpha = max(alpha, value)
        elif value < best:
            best = value
            best_move = move
            beta = min(beta, value)
        if alpha >= beta:
            _cutoff(move, depth, ply, work)
            break
    if best >= original_beta:
        bound = LOWER
    elif best <= original_alpha:
        bound = UPPER
    else:
        bound = EXACT
    tt_store(cells, position, depth, bound, best, best_move, work[GENERATION])
    return best


@kernel
def paranoid_root(s, depth, me, salt, cells, work):
    """One paranoid iteration to `depth` from `s` for searcher `me`: its utility."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    # Typed values, not literals: a literal argument would compile another specialisation
    # of the recursive function, and numba's cache cannot reload those.
    return _paranoid(s, np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0), me,
                     salt, cells, work)


@kernel
def _brs(s, depth, alpha, beta, ply, opponents, me, work):
    """`MultiPlayerSearch._brs` (opponents False) and `_brs_opponents` (True) in one."""
    if not opponents:
        if _enter(ply, work):
            return 0
        if returns(s, work[W_VALUES:W_VALUES + PLAYERS]):
            return _terminal_utility(work, ply, me)
        if depth <= 0 or ply >= MAX_PLY:
            return _static_utility(s, me, work)
        if to_move(s) == me:
            best = -INFINITY
            base = W_MOVES + ply * MAX_MOVES
            count = legal_moves(s, work[base:base + MAX_MOVES])
            _order(work, base, count, -1, ply)
            for i in range(count):
                move = work[base + i]
                # Straight to the opponents' layer, whoever the rules say moves next.
                value = _brs(play(s, move), depth - 1, alpha, beta, ply + 1, np.bool_(True), me, work)
                if work[ABORTED] != 0:
                    return 0
                if value > best:
                    best = value
                    if ply == 0:
                        work[PARTIAL_MOVE] = move
                        work[PARTIAL_SCORE] = value
                    alpha = max(alpha, value)
                    if alpha >= beta:
                        _cutoff(move, depth, ply, work)
                        break
            return best
    # The layer where any one opponent moves, and play returns to the searcher.
    if returns(s, work[W_VALUES:W_VALUES + PLAYERS]):
        if _enter(ply, work):
            return 0
        return _terminal_utility(work, ply, me)
    if depth <= 0:
        if _enter(ply, work):
            return 0
        return _static_utility(s, me, work)
    best = INFINITY
    base = W_MOVES + ply * MAX_MOVES
    for player in range(PLAYERS):
        if player == me:
            continue
        count = moves_for(s, player, work[base:base + MAX_MOVES])
        for i in range(count):
            value = _brs(play_for(s, player, work[base + i], me), depth - 1, alpha, beta, ply + 1,
                         np.bool_(False), me, work)
            if work[ABORTED] != 0:
                return 0
            if value < best:
                best = value
                beta = min(beta, value)
                if alpha >= beta:
                    return best
    if best == INFINITY:
        # No opponent can move (a settled state never gets here); value it as it is.
        if _enter(ply, work):
            return 0
        return _static_utility(s, me, work)
    return best


@kernel
def brs_root(s, depth, me, salt, cells, work):
    """One best-reply iteration (the table is not used, as in the reference)."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    return _brs(s, np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0),
                np.bool_(False), me, work)


@kernel
def _maxn(s, depth, ply, me, work):
    """`MultiPlayerSearch._maxn`: the per-player values every player's best choice leads to."""
    if _enter(ply, work):
        return 0, 0, 0
    if returns(s, work[W_VALUES:W_VALUES + PLAYERS]):
        return (WIN_VALUE * work[W_VALUES] - ply, WIN_VALUE * work[W_VALUES + 1] - ply,
                WIN_VALUE * work[W_VALUES + 2] - ply)
    if depth <= 0 or ply >= MAX_PLY:
        evaluate(s, work[W_VALUES:W_VALUES + PLAYERS])
        return work[W_VALUES], work[W_VALUES + 1], work[W_VALUES + 2]
    player = to_move(s)
    base = W_MOVES + ply * MAX_MOVES
    count = legal_moves(s, work[base:base + MAX_MOVES])
    b0 = b1 = b2 = 0
    best_utility = 0
    for i in range(count):
        move = work[base + i]
        c0, c1, c2 = _maxn(play(s, move), depth - 1, ply + 1, me, work)
        if work[ABORTED] != 0:
            return 0, 0, 0
        child_utility = _utility(c0, c1, c2, player)
        if i == 0 or child_utility > best_utility:
            b0, b1, b2 = c0, c1, c2
            best_utility = child_utility
            if ply == 0:
                work[PARTIAL_MOVE] = move
                work[PARTIAL_SCORE] = _utility(c0, c1, c2, me)
    return b0, b1, b2


@kernel
def maxn_root(s, depth, me, salt, cells, work):
    """One max^n iteration: the searcher's utility of the values its tree leads to."""
    work[PARTIAL_MOVE] = -1
    work[ABORTED] = 0
    v0, v1, v2 = _maxn(s, np.int64(depth), np.int64(0), me, work)
    return _utility(v0, v1, v2, me)


def warm(s) -> None:
    """Call every entry point once from `s` (a position with moves), so that numba loads
    them from its cache, or compiles them the first time."""
    cells = np.zeros((1 << 10, 2), dtype=np.uint64)
    work = new_search_work()
    for root in (paranoid_root, brs_root, maxn_root):
        root(s, np.int64(2), to_move(s), np.uint64(0), cells, work)
    perft(s, np.int64(2))
