"""The compiled three-player searches of Knight Isolation: perft and one root iteration
of each of `search.multiplayer`'s algorithms (paranoid, best-reply, max^n).

They mirror `MultiPlayerSearch` line for line: the same node counting (`_enter`), the
same terminal values (returns times WIN_VALUE, less the ply), the same searcher's
utility, the same move ordering (a stable sort by history, highest first, then the
second killer, the first killer and the table move brought to the front), the same
table keys (`key ^ salt`), bounds and replacement, so that at a fixed depth both cores
visit the same nodes in the same order and return the same score and move.

An iteration is one call of `paranoid_root`, `brs_root` or `maxn_root`; the Python
driver (`compiled.isolation.driver`) deepens. A stopped iteration sets stats[ABORTED]
and unwinds at once; the best root move found so far is in stats[PARTIAL_MOVE] (-1 none).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from compiled.core import ABORTED, NODES, PARTIAL_MOVE, PARTIAL_SCORE, POLL, SELDEPTH, must_stop
from compiled.isolation.kernels import (
    MAX_MOVES,
    evaluate,
    key,
    legal_moves,
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


def new_move_buffer() -> np.ndarray:
    """The per-ply move lists of one search."""
    return np.empty((MAX_PLY + 2, MAX_MOVES), dtype=np.int64)


@njit(cache=True, nogil=True)
def _perft(s, depth, moves, ply):
    if depth <= 0:
        return 1
    row = moves[ply]
    count = legal_moves(s, row)
    if depth == 1:
        return count
    total = 0
    for i in range(count):
        total += _perft(play(s, row[i]), depth - 1, moves, ply + 1)
    return total


@njit(cache=True, nogil=True)
def perft(s, depth):
    """Leaf count at exactly `depth` plies (`search.perft.perft`)."""
    moves = np.empty((max(depth, 1) + 1, MAX_MOVES), dtype=np.int64)
    return _perft(s, np.int64(depth), moves, np.int64(0))


@njit(cache=True, nogil=True, inline="always")
def _utility(v0, v1, v2, me):
    """v[me] minus the best of the others' values (`search.multiplayer.utility`)."""
    if me == 0:
        return v0 - max(v1, v2)
    if me == 1:
        return v1 - max(v0, v2)
    return v2 - max(v0, v1)


@njit(cache=True, nogil=True, inline="always")
def _enter(ply, control, stats, hard_only):
    """Count a node, poll every POLL + 1 nodes; True when the search must stop."""
    nodes = stats[NODES] + 1
    stats[NODES] = nodes
    if (nodes & POLL) == 0 and must_stop(control, nodes, hard_only):
        stats[ABORTED] = 1
        return True
    if ply > stats[SELDEPTH]:
        stats[SELDEPTH] = ply
    return False


@njit(cache=True, nogil=True, inline="always")
def _static_utility(s, me, values):
    evaluate(s, values)
    return _utility(values[0], values[1], values[2], me)


@njit(cache=True, nogil=True)
def _promote(row, count, move):
    """Move `move` to the front of row[:count] if it is there, keeping the others' order."""
    if move < 0:
        return
    for i in range(count):
        if row[i] == move:
            for j in range(i, 0, -1):
                row[j] = row[j - 1]
            row[0] = move
            return


@njit(cache=True, nogil=True)
def _order(row, count, tt_move, ply, killers, history):
    """`MultiPlayerSearch._ordered`: a stable sort by history, highest first, then the
    second killer, the first killer and the table move to the front."""
    for i in range(1, count):
        move = row[i]
        score = history[move]
        j = i
        while j > 0 and history[row[j - 1]] < score:
            row[j] = row[j - 1]
            j -= 1
        row[j] = move
    _promote(row, count, killers[ply, 1])
    _promote(row, count, killers[ply, 0])
    _promote(row, count, tt_move)


@njit(cache=True, nogil=True, inline="always")
def _cutoff(move, depth, ply, killers, history):
    if move != killers[ply, 0]:
        killers[ply, 1] = killers[ply, 0]
        killers[ply, 0] = move
    history[move] += depth * depth


@njit(cache=True, nogil=True)
def _paranoid(s, depth, alpha, beta, ply, me, salt, keys, data, generation, killers, history,
              control, stats, hard_only, moves, values):
    if _enter(ply, control, stats, hard_only):
        return 0
    if returns(s, values):
        return _utility(WIN_VALUE * values[0] - ply, WIN_VALUE * values[1] - ply,
                        WIN_VALUE * values[2] - ply, me)
    if depth <= 0 or ply >= MAX_PLY:
        return _static_utility(s, me, values)
    position = key(s) ^ salt
    entry = tt_probe(keys, data, position)
    tt_move = -1
    if entry != 0:
        tt_move = entry_move(entry)
        if entry_depth(entry) >= depth and ply != 0:
            value = entry_value(entry)
            bound = entry_bound(entry)
            if bound == EXACT or (bound == LOWER and value >= beta) or (bound == UPPER and value <= alpha):
                return value
    maximising = to_move(s) == me
    row = moves[ply]
    count = legal_moves(s, row)
    _order(row, count, tt_move, ply, killers, history)
    original_alpha = alpha
    original_beta = beta
    best = -INFINITY if maximising else INFINITY
    best_move = row[0]
    for i in range(count):
        move = row[i]
        value = _paranoid(play(s, move), depth - 1, alpha, beta, ply + 1, me, salt, keys, data,
                          generation, killers, history, control, stats, hard_only, moves, values)
        if stats[ABORTED] != 0:
            return 0
        if maximising:
            if value > best:
                best = value
                best_move = move
                if ply == 0:
                    stats[PARTIAL_MOVE] = move
                    stats[PARTIAL_SCORE] = value
                alpha = max(alpha, value)
        elif value < best:
            best = value
            best_move = move
            beta = min(beta, value)
        if alpha >= beta:
            _cutoff(move, depth, ply, killers, history)
            break
    if best >= original_beta:
        bound = LOWER
    elif best <= original_alpha:
        bound = UPPER
    else:
        bound = EXACT
    tt_store(keys, data, position, depth, bound, best, best_move, generation)
    return best


@njit(cache=True, nogil=True)
def paranoid_root(s, depth, me, salt, keys, data, generation, killers, history, control, stats,
                  hard_only):
    """One paranoid iteration to `depth` from `s` for searcher `me`: its utility (see the
    module docstring for the stats block)."""
    stats[PARTIAL_MOVE] = -1
    stats[ABORTED] = 0
    moves = np.empty((MAX_PLY + 2, MAX_MOVES), dtype=np.int64)
    values = np.zeros(PLAYERS, dtype=np.int64)
    # Typed values, not literals: a literal argument would compile another specialisation
    # of the recursive function, and numba's cache cannot reload those.
    return _paranoid(s, np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0), me, salt,
                     keys, data, generation, killers, history, control, stats, hard_only, moves, values)


@njit(cache=True, nogil=True)
def _brs(s, depth, alpha, beta, ply, opponents, me, killers, history, control, stats, hard_only,
         moves, values):
    """`MultiPlayerSearch._brs` (opponents False) and `_brs_opponents` (True) in one."""
    if not opponents:
        if _enter(ply, control, stats, hard_only):
            return 0
        if returns(s, values):
            return _utility(WIN_VALUE * values[0] - ply, WIN_VALUE * values[1] - ply,
                            WIN_VALUE * values[2] - ply, me)
        if depth <= 0 or ply >= MAX_PLY:
            return _static_utility(s, me, values)
        if to_move(s) == me:
            best = -INFINITY
            row = moves[ply]
            count = legal_moves(s, row)
            _order(row, count, -1, ply, killers, history)
            for i in range(count):
                move = row[i]
                # Straight to the opponents' layer, whoever the rules say moves next.
                value = _brs(play(s, move), depth - 1, alpha, beta, ply + 1, np.bool_(True), me, killers,
                             history, control, stats, hard_only, moves, values)
                if stats[ABORTED] != 0:
                    return 0
                if value > best:
                    best = value
                    if ply == 0:
                        stats[PARTIAL_MOVE] = move
                        stats[PARTIAL_SCORE] = value
                    alpha = max(alpha, value)
                    if alpha >= beta:
                        _cutoff(move, depth, ply, killers, history)
                        break
            return best
    # The layer where any one opponent moves, and play returns to the searcher.
    if returns(s, values):
        if _enter(ply, control, stats, hard_only):
            return 0
        return _utility(WIN_VALUE * values[0] - ply, WIN_VALUE * values[1] - ply,
                        WIN_VALUE * values[2] - ply, me)
    if depth <= 0:
        if _enter(ply, control, stats, hard_only):
            return 0
        return _static_utility(s, me, values)
    best = INFINITY
    row = moves[ply]
    for player in range(PLAYERS):
        if player == me:
            continue
        count = moves_for(s, player, row)
        for i in range(count):
            value = _brs(play_for(s, player, row[i], me), depth - 1, alpha, beta, ply + 1, np.bool_(False), me,
                         killers, history, control, stats, hard_only, moves, values)
            if stats[ABORTED] != 0:
                return 0
            if value < best:
                best = value
                beta = min(beta, value)
                if alpha >= beta:
                    return best
    if best == INFINITY:
        # No opponent can move (a settled state never gets here); value it as it is.
        if _enter(ply, control, stats, hard_only):
            return 0
        return _static_utility(s, me, values)
    return best


@njit(cache=True, nogil=True)
def brs_root(s, depth, me, salt, keys, data, generation, killers, history, control, stats,
             hard_only):
    """One best-reply iteration (the table is not used, as in the reference)."""
    stats[PARTIAL_MOVE] = -1
    stats[ABORTED] = 0
    moves = np.empty((MAX_PLY + 2, MAX_MOVES), dtype=np.int64)
    values = np.zeros(PLAYERS, dtype=np.int64)
    return _brs(s, np.int64(depth), np.int64(-INFINITY), np.int64(INFINITY), np.int64(0), np.bool_(False),
                me, killers, history, control, stats, hard_only, moves, values)


@njit(cache=True, nogil=True)
def _maxn(s, depth, ply, me, control, stats, hard_only, moves, values):
    """`MultiPlayerSearch._maxn`: the per-player values every player's best choice leads to."""
    if _enter(ply, control, stats, hard_only):
        return 0, 0, 0
    if returns(s, values):
        return WIN_VALUE * values[0] - ply, WIN_VALUE * values[1] - ply, WIN_VALUE * values[2] - ply
    if depth <= 0 or ply >= MAX_PLY:
        evaluate(s, values)
        return values[0], values[1], values[2]
    player = to_move(s)
    row = moves[ply]
    count = legal_moves(s, row)
    b0 = b1 = b2 = 0
    best_utility = 0
    for i in range(count):
        move = row[i]
        c0, c1, c2 = _maxn(play(s, move), depth - 1, ply + 1, me, control, stats, hard_only, moves,
                           values)
        if stats[ABORTED] != 0:
            return 0, 0, 0
        child_utility = _utility(c0, c1, c2, player)
        if i == 0 or child_utility > best_utility:
            b0, b1, b2 = c0, c1, c2
            best_utility = child_utility
            if ply == 0:
                stats[PARTIAL_MOVE] = move
                stats[PARTIAL_SCORE] = _utility(c0, c1, c2, me)
    return b0, b1, b2


@njit(cache=True, nogil=True)
def maxn_root(s, depth, me, salt, keys, data, generation, killers, history, control, stats,
              hard_only):
    """One max^n iteration: the searcher's utility of the values its tree leads to."""
    stats[PARTIAL_MOVE] = -1
    stats[ABORTED] = 0
    moves = np.empty((MAX_PLY + 2, MAX_MOVES), dtype=np.int64)
    values = np.zeros(PLAYERS, dtype=np.int64)
    v0, v1, v2 = _maxn(s, np.int64(depth), np.int64(0), me, control, stats, hard_only, moves, values)
    return _utility(v0, v1, v2, me)
