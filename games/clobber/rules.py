"""Clobber rules as kernels (`games.kernel`) over two 64-bit bitboards.

A kernel state is the tuple `(white, black, to_move, key)`: the two bitboards (np.uint64,
a1 = bit 0, h8 = bit 63), the side to move (np.int64, 0 white, 1 black) and the Zobrist
key (np.uint64). Moves are `from << 6 | to`, listed by direction (north, south, east,
west) and within one direction by ascending from-square. The game ends when the side to
move has no capture, which loses (no margin, no draw).
"""

from __future__ import annotations

import numpy as np

from games.base import ONGOING, zobrist_keys
from games.clobber.parts import BLACK, BLACK_FIRST_WINS, WHITE, WHITE_FIRST_WINS, part_class
from games.kernel import kernel, lowest_bit, popcount

STATE_TYPES = (np.uint64, np.uint64, np.int64, np.uint64)

U0 = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
FULL = np.uint64((1 << 64) - 1)
FILE_A = 0x0101010101010101
NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)
#: Squares where file + rank is odd: white stones in the start position.
WHITE_START = np.uint64(0x55AA55AA55AA55AA)
BLACK_START = np.uint64(0xAA55AA55AA55AA55)

# Keys 0..63 white stones, 64..127 black stones, 128 black to move. Changing the seed or
# this layout invalidates saved hash files: bump KEY_SCHEME with it.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0xC10BBE5, 129)
STONE_KEYS = np.array([_KEYS[:64], _KEYS[64:128]], dtype=np.uint64)
SIDE_KEY = np.uint64(_KEYS[128])

#: Every move is one of the own-enemy adjacent pairs, at most the 112 edges of the grid
#: (all of them in the start position).
MAX_MOVES = 112
#: from << 6 | to with both squares below 64.
MOVE_LIMIT = 64 * 64
#: Moves index the history table as they are.
HISTORY_MASK = MOVE_LIMIT - 1

#: The final margin is the winner's return: a proof of win or loss is the exact margin.
MARGIN_LIMIT = 1

#: From this many live stones down (stones of groups holding both colours: the others
#: never move again), a search solves the position exactly. Measured on positions of
#: self-play at 100 ms a move (scripts/proofs), the solver proves those of 26 stones in
#: 2 ms (median; 116 ms at most), of 28 in 11 ms (1.8 s at most), of 30 in 0.6 s; at 34
#: stones the solver ran out of time on 127 moves of 100 games.
SOLVE_STONES = 26


@kernel
def make_state(white, black, to_move):
    """The kernel state of a position, its key computed from scratch."""
    key = SIDE_KEY if to_move == BLACK else U0
    for side in range(2):
        board = white if side == WHITE else black
        while board != U0:
            key ^= STONE_KEYS[side, lowest_bit(board)]
            board &= board - U1
    return (white, black, np.int64(to_move), key)


@kernel(inline=True)
def _sides(s):
    """(own, opp) boards of the side to move."""
    if s[2] == WHITE:
        return s[0], s[1]
    return s[1], s[0]


@kernel(inline=True)
def _emit(mask, step, out, n):
    while mask != U0:
        frm = lowest_bit(mask)
        out[n] = (frm << 6) | (frm + step)
        n += 1
        mask &= mask - U1
    return n


@kernel
def legal_moves(s, out):
    """The captures of the side to move into out[:n]; returns n."""
    own, opp = _sides(s)
    n = _emit(own & (opp >> U8), 8, out, 0)
    n = _emit(own & (opp << U8), -8, out, n)
    n = _emit(own & (opp >> U1) & NOT_FILE_H, 1, out, n)
    return _emit(own & (opp << U1) & NOT_FILE_A, -1, out, n)


@kernel(inline=True)
def count_moves(own, opp):
    """The number of legal moves of the side owning `own`."""
    return (popcount(own & (opp >> U8)) + popcount(own & (opp << U8))
            + popcount(own & (opp >> U1) & NOT_FILE_H) + popcount(own & (opp << U1) & NOT_FILE_A))


@kernel(inline=True)
def move_count(s):
    """The number of legal moves (`legal_moves` without the list)."""
    own, opp = _sides(s)
    return count_moves(own, opp)


@kernel
def play(s, move):
    """The position after the capture `move`, key included."""
    white, black, side, key = s
    frm = move >> 6
    to = move & 63
    from_bit = U1 << np.uint64(frm)
    to_bit = U1 << np.uint64(to)
    key ^= STONE_KEYS[side, frm] ^ STONE_KEYS[side, to] ^ STONE_KEYS[side ^ 1, to] ^ SIDE_KEY
    if side == WHITE:
        return (white ^ from_bit ^ to_bit, black ^ to_bit, np.int64(BLACK), key)
    return (white ^ to_bit, black ^ from_bit ^ to_bit, np.int64(WHITE), key)


@kernel
def key(s):
    return s[3]


@kernel
def to_move(s):
    return s[2]


@kernel
def result(s):
    """ONGOING while the side to move can capture, else -1: it has lost."""
    own, opp = _sides(s)
    if count_moves(own, opp) != 0:
        return np.int64(ONGOING)
    return np.int64(-1)


@kernel
def margin(s):
    """The side to move's return in a finished position: always -1, it has lost."""
    return np.int64(-1)


@kernel
def solvable(s):
    """At most SOLVE_STONES live stones on the board."""
    return popcount(live_stones(s[0], s[1])) <= SOLVE_STONES


# ---- the position as a sum of independent parts (`search.solver`) -----------------
# A capture only ever lands on an occupied square, so stones never cross an empty
# square: the orthogonally connected groups of stones are separate games for the rest
# of the game, and the position is their sum. A group of one colour is dead (none of its
# stones will ever move) and plays no part in it.


@kernel(inline=True)
def _grown(stones):
    """`stones` and the squares orthogonally next to them."""
    return (stones | (stones << U8) | (stones >> U8)
            | ((stones << U1) & NOT_FILE_A) | ((stones >> U1) & NOT_FILE_H))


@kernel(inline=True)
def groups_of(stones, occupied):
    """The groups of `occupied` (orthogonally connected) holding some of `stones`."""
    while True:
        wider = _grown(stones) & occupied
        if wider == stones:
            return stones
        stones = wider


@kernel(inline=True)
def live_stones(white, black):
    """The stones of the groups holding both colours: the groups of the stones that
    have an enemy neighbour."""
    return groups_of((white & _grown(black)) | (black & _grown(white)), white | black)


@kernel
def live_parts(s, parts):
    """The live parts of `s` (its groups of stones holding both colours), each as the
    bit pattern (int64) of its squares, in parts[:n] (n <= 32), lowest square first,
    and the squares of all its stones in parts[n]; returns n."""
    white, black = s[0], s[1]
    occupied = white | black
    left = occupied
    n = 0
    while left != U0:
        group = groups_of(U1 << np.uint64(lowest_bit(left)), occupied)
        left &= group ^ FULL
        if (group & white) != U0 and (group & black) != U0:
            parts[n] = np.int64(group)
            n += 1
    parts[n] = np.int64(occupied)
    return np.int64(n)


@kernel
def part_alone(s, squares, swap):
    """The position of `s`'s stones on `squares` (an int64 bit pattern) alone, the side
    to move the same (swap 0) or the other (swap 1)."""
    mask = np.uint64(squares)
    return make_state(s[0] & mask, s[1] & mask, s[2] ^ swap)


@kernel
def part_outcome(s, squares):
    """Where the table of small parts (`parts`) holds the part of `s` on `squares` (an
    int64 bit pattern): bit 0 set if the side to move wins it alone moving first, bit 1
    if it wins it moving second; else -1."""
    mask = np.uint64(squares)
    own, opp = _sides(s)
    found = part_class(own & mask, opp & mask)  # the side to move in White's place
    if found < 0:
        return np.int64(-1)
    return np.int64((1 if found & WHITE_FIRST_WINS else 0) | (0 if found & BLACK_FIRST_WINS else 2))
