"""Lines of Action kernels: `games.loa` (rules, bitboards, evaluation) in numba, the kernel
contract of `compiled` (the tables are in `tables`, the shared bitboard helpers in
`bitboards`, the evaluation in `evaluation`; `evaluate` is re-exported here).

A compiled state is the tuple of the reference `LoaState`, field for field:

    (black: uint64, white: uint64, to_move: int64, ply: int64, key: uint64, status: int64)

`status` is the reference's: 0 the game goes on, 1 black has won, 2 white has won, 3
drawn (150 plies). Moves are the reference's ints `from << 6 | to`, and PASS = 4096.

What each kernel mirrors:
    legal_moves   `LoaState.legal_moves` (`rules.generate_moves`, the same checker,
                  line and direction order, `pass` alone when there is no other move)
    play          `LoaState.play`: the incremental key and the status as the referee
                  settles it (the mover first, then the opponent after a capture, then
                  the 150-ply draw)
    evaluate      `evaluation.evaluate(...)[to_move]`: see `compiled.loa.evaluation`.
    solvable      always False: LOA has no endgame solver.
"""

from __future__ import annotations

import numpy as np
from games.kernel import kernel

from games.kernel import lowest_bit, popcount
from compiled.core import ONGOING
from compiled.loa.bitboards import connected
from compiled.loa.evaluation import evaluate  # noqa: F401  (the contract's evaluate)
from compiled.loa.tables import (
    BLACK, BLACK_WON, DRAWN, JUMPS, KEYS, LINES, MAX_PLIES, PASS, STATUS_ONGOING, STEP_KEYS,
    U0, U1, WHITE, WHITE_WON,
)
from games.loa.rules import LoaState

#: 12 checkers, each with at most two jumps along each of its four lines.
MAX_MOVES = 96
MOVE_LIMIT = PASS + 1
#: Moves index the history table as they are (see `compiled.__init__`).
HISTORY_MASK = 8191


# ---- Python side --------------------------------------------------------------------


def pack(state: LoaState) -> tuple:
    """The compiled state of a reference state."""
    return (np.uint64(state.black), np.uint64(state.white), np.int64(state.to_move),
            np.int64(state.ply), np.uint64(state.key), np.int64(state.status))


def unpack(s: tuple) -> LoaState:
    """The reference state of a compiled state."""
    return LoaState(int(s[0]), int(s[1]), int(s[2]), int(s[3]), int(s[4]), int(s[5]))


# ---- the contract -------------------------------------------------------------------


@kernel
def generate_moves(own, opp, out):
    """rules.generate_moves into out[:n]; returns n.

    Every jump is written at out[n] and counted only when legal: a checker has at most
    8 jumps, so out[n] stays below MAX_MOVES."""
    occupied = own | opp
    n = 0
    rest = own
    while rest != U0:
        square = lowest_bit(rest)
        rest &= rest - U1
        origin = square << 6
        for kind in range(4):
            line = 4 * square + kind
            base = (line * 9 + popcount(occupied & LINES[line])) * 4
            bit = JUMPS[base + 1]
            out[n] = origin | lowest_bit(bit)
            n += (JUMPS[base] & opp) | (bit & own) == U0
            bit = JUMPS[base + 3]
            out[n] = origin | lowest_bit(bit)
            n += (JUMPS[base + 2] & opp) | (bit & own) == U0
    return n


@kernel
def legal_moves(s, out):
    """LoaState.legal_moves into out[:n]; returns n."""
    if s[5] != STATUS_ONGOING:
        return 0
    if s[2] == BLACK:
        n = generate_moves(s[0], s[1], out)
    else:
        n = generate_moves(s[1], s[0], out)
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@kernel(inline=True)
def _settle(mover, other, capture, mover_won, other_won, ply):
    if connected(mover):
        return mover_won
    if capture and connected(other):
        return other_won
    if ply >= MAX_PLIES:
        return np.int64(DRAWN)
    return np.int64(STATUS_ONGOING)


@kernel
def play(s, move):
    """LoaState.play: the position after `move`, key and status included."""
    black, white, to_move, ply, key, status = s
    ply += 1
    key ^= STEP_KEYS[ply]
    if move == PASS:
        status = np.int64(DRAWN) if ply >= MAX_PLIES else np.int64(STATUS_ONGOING)
        return (black, white, to_move ^ 1, ply, key, status)
    frm = move >> 6
    to = move & 63
    frm_bit = U1 << np.uint64(frm)
    to_bit = U1 << np.uint64(to)
    if to_move == BLACK:
        black ^= frm_bit | to_bit
        key ^= KEYS[frm] ^ KEYS[to]
        capture = (white & to_bit) != U0
        if capture:
            white ^= to_bit
            key ^= KEYS[64 + to]
        status = _settle(black, white, capture, np.int64(BLACK_WON), np.int64(WHITE_WON), ply)
        return (black, white, np.int64(WHITE), ply, key, status)
    white ^= frm_bit | to_bit
    key ^= KEYS[64 + frm] ^ KEYS[64 + to]
    capture = (black & to_bit) != U0
    if capture:
        black ^= to_bit
        key ^= KEYS[to]
    status = _settle(white, black, capture, np.int64(WHITE_WON), np.int64(BLACK_WON), ply)
    return (black, white, np.int64(BLACK), ply, key, status)


@kernel
def key(s):
    return s[4]


@kernel
def to_move(s):
    return s[2]


@kernel
def result(s):
    """ONGOING while the game goes on, else the sign of the side to move's return."""
    status = s[5]
    if status == STATUS_ONGOING:
        return np.int64(ONGOING)
    if status == DRAWN:
        return np.int64(0)
    winner = status - BLACK_WON
    return np.int64(1) if winner == s[2] else np.int64(-1)


@kernel
def margin(s):
    """LOA has no margins: the side to move's return."""
    return result(s)


@kernel
def solvable(s):
    """LoaGame.solvable: no exact endgame in LOA."""
    return False
