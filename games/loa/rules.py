"""Lines of Action rules as kernels (`games.kernel`) over two 64-bit bitboards.

A kernel state is the tuple `(black, white, to_move, ply, key, status)`: the two
bitboards (np.uint64, a1 = bit 0, h8 = bit 63), the side to move (np.int64, 0 black,
1 white), the plies played (np.int64, 0..MAX_PLIES), the Zobrist key (np.uint64) and the
status (np.int64): IN_PLAY, BLACK_WON, WHITE_WON or DRAWN. The status is settled when a
state is made, as the referee checks after every move (the last mover first, then the
side to move, then the ply cap), because the search asks every state for its result and
the move list must be empty once the game is over.

Moves are `from << 6 | to`, listed checker by checker from the lowest square, each
checker's along its row, file, diagonal and anti-diagonal, each line's two directions in
the order of `bitboards.LINE_STEPS`; PASS alone when there is no other move.
"""

from __future__ import annotations

import numpy as np

from games.base import ONGOING, zobrist_keys
from games.kernel import kernel, lowest_bit, popcount
from games.loa.bitboards import JUMPS, LINES, U0, U1, connected

BLACK, WHITE = 0, 1
STATE_TYPES = (np.uint64, np.uint64, np.int64, np.int64, np.uint64, np.int64)
#: b1-g1 and b8-g8.
BLACK_START = np.uint64(0x7E0000000000007E)
#: a2-a7 and h2-h7.
WHITE_START = np.uint64(0x0081818181818100)

#: The game is drawn once this many plies have been played without a connection.
MAX_PLIES = 150
#: The move int of `pass`, the only move of a side that has no other.
PASS = 1 << 12

#: The status of a state: the game goes on, black or white has won, drawn.
IN_PLAY, BLACK_WON, WHITE_WON, DRAWN = 0, 1, 2, 3

# Keys 0..63 black checkers, 64..127 white checkers, 128 white to move, 129..279 the
# ply counter 0..150. Changing the seed or this layout invalidates saved hash files:
# bump KEY_SCHEME with it.
#
# The ply is part of the key because the 150-ply cap makes it part of the position's
# value: a table entry searched at ply 100 says nothing about the same checkers at ply
# 148. Transpositions by move order always have the same ply, and so do the positions
# one search shares with the next one of the same game, so keying the ply costs the
# table almost nothing; only repetitions (the same checkers 2k plies later) get apart.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0x10AC0DE5, 129 + MAX_PLIES + 1)
#: KEYS[s] black checker on s, KEYS[64 + s] white checker on s.
KEYS = np.array(_KEYS[:128], dtype=np.uint64)
SIDE_KEY = np.uint64(_KEYS[128])
#: PLY_KEYS[p]: p plies played.
PLY_KEYS = np.array(_KEYS[129:], dtype=np.uint64)
#: STEP_KEYS[p]: what the key changes by, besides checkers, on the move that makes ply p.
STEP_KEYS = np.array([0] + [_KEYS[128 + p] ^ _KEYS[129 + p] ^ _KEYS[128] for p in range(1, MAX_PLIES + 1)],
                     dtype=np.uint64)

#: 12 checkers, each with at most two jumps along each of its four lines.
MAX_MOVES = 96
MOVE_LIMIT = PASS + 1
#: Moves index the history table as they are.
HISTORY_MASK = 8191


@kernel(inline=True)
def _settle(mover, other, capture, mover_won, other_won, ply):
    """The status after a move of the side owning `mover`: it wins if connected, else
    the other side wins if connected (only a capture can make it so), else the game is
    drawn from MAX_PLIES plies on."""
    if connected(mover):
        return mover_won
    if capture and connected(other):
        return other_won
    if ply >= MAX_PLIES:
        return np.int64(DRAWN)
    return np.int64(IN_PLAY)


@kernel
def make_state(black, white, to_move, ply):
    """The kernel state of a position, its key and status computed from scratch (the
    side not to move being the last mover)."""
    key = PLY_KEYS[ply]
    if to_move == WHITE:
        key ^= SIDE_KEY
    board = black
    while board != U0:
        key ^= KEYS[lowest_bit(board)]
        board &= board - U1
    board = white
    while board != U0:
        key ^= KEYS[64 + lowest_bit(board)]
        board &= board - U1
    if to_move == WHITE:
        status = _settle(black, white, True, np.int64(BLACK_WON), np.int64(WHITE_WON), ply)
    else:
        status = _settle(white, black, True, np.int64(WHITE_WON), np.int64(BLACK_WON), ply)
    return (black, white, np.int64(to_move), np.int64(ply), key, status)


@kernel
def generate_moves(own, opp, out):
    """The moves of the side owning `own`, without `pass`, into out[:n]; returns n.

    Each checker jumps, along each of its four lines, as many squares as the line holds
    checkers of both sides; it may cross its own checkers but no enemy one, and may land
    on an empty square or an enemy checker (a capture), never on its own. Every jump is
    written at out[n] and counted only when legal: a checker has at most 8 jumps, so
    out[n] stays below MAX_MOVES."""
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
    """The moves of the side to move into out[:n]; returns n: none once the game is
    over, PASS alone when the side has no other move."""
    if s[5] != IN_PLAY:
        return 0
    if s[2] == BLACK:
        n = generate_moves(s[0], s[1], out)
    else:
        n = generate_moves(s[1], s[0], out)
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@kernel
def play(s, move):
    """The position after `move` (PASS included), ply, key and status included."""
    black, white, to_move, ply, key, status = s
    ply += 1
    key ^= STEP_KEYS[ply]
    if move == PASS:
        status = np.int64(DRAWN) if ply >= MAX_PLIES else np.int64(IN_PLAY)
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
    if status == IN_PLAY:
        return np.int64(ONGOING)
    if status == DRAWN:
        return np.int64(0)
    if status - BLACK_WON == s[2]:
        return np.int64(1)
    return np.int64(-1)


@kernel
def margin(s):
    """LOA scores no margin: the side to move's return."""
    return result(s)


@kernel
def solvable(s):
    """Never: games end by connection long before the board empties, so there is no
    exact endgame search."""
    return False
