"""Othello rules as kernels (`games.kernel`) over two 64-bit bitboards.

A kernel state is the tuple

    (own, opp, moves, key, to_move, passing)

    own      np.uint64  the discs of the side to move (bit i = square i)
    opp      np.uint64  the discs of the other side
    moves    np.uint64  the squares where the side to move can place a disc
    key      np.uint64  the Zobrist key
    to_move  np.int64   0 black, 1 white
    passing  np.int64   1 when the pass is the only legal move, else 0

The boards are held by side to move rather than by colour so that `play` needs no branch
on the colour: it swaps them. `play` has to find the next side's placements anyway, to
know whether it must pass, so the state carries them: `legal_moves`, `result` and the
evaluation's mobility then cost nothing more. A finished position has no placement and
no pass.

Moves are the square of the new disc (0..63), listed lowest square first, or PASS alone.
"""

from __future__ import annotations

import numpy as np

from games.base import ONGOING, zobrist_keys
from games.kernel import kernel, lowest_bit, popcount
from games.othello.bitboard import around, flips, move_mask
from games.othello import endgame, stability

BLACK, WHITE = 0, 1
STATE_TYPES = (np.uint64, np.uint64, np.uint64, np.uint64, np.int64, np.int64)
#: The pass move: the first index past the board.
PASS = 64

U0 = np.uint64(0)
U1 = np.uint64(1)
U8 = np.uint64(8)
U16 = np.uint64(16)
U24 = np.uint64(24)
U32 = np.uint64(32)
U40 = np.uint64(40)
U48 = np.uint64(48)
U56 = np.uint64(56)
BYTE = np.uint64(0xFF)
PASS_MOVE = np.int64(PASS)

#: d5 and e4 black, d4 and e5 white (row 1 is the top line: d4 is square 27).
BLACK_START = np.uint64(1 << 28 | 1 << 35)
WHITE_START = np.uint64(1 << 27 | 1 << 36)

# Keys 0..63 black discs, 64..127 white discs, 128 white to move. Changing the seed or
# this layout invalidates saved hash files: bump KEY_SCHEME with it.
KEY_SCHEME = 1
_KEYS = zobrist_keys(0x07E11, 129)
SIDE_KEY = np.uint64(_KEYS[128])
#: DISC_KEYS[colour, square].
DISC_KEYS = np.array([_KEYS[:64], _KEYS[64:128]], dtype=np.uint64)
#: MOVE_KEYS[colour, square]: the key of a new disc and the change of side.
MOVE_KEYS = DISC_KEYS ^ SIDE_KEY


def _flip_byte_keys() -> np.ndarray:
    """FLIP_BYTE_KEYS[b, v]: the key change of the discs on the squares 8 * b + j, for the
    set bits j of the byte value v, turning over (a flip turns a black disc white or back:
    both disc keys change at once). Eight look-ups key any set of flips, where a loop over
    the flipped discs costs more in branch mispredictions than the rest of `play`."""
    flip_keys = [black ^ white for black, white in zip(_KEYS[:64], _KEYS[64:128])]
    table = np.zeros((8, 256), dtype=np.uint64)
    for byte in range(8):
        for value in range(256):
            key = 0
            for bit in range(8):
                if value >> bit & 1:
                    key ^= flip_keys[8 * byte + bit]
            table[byte, value] = np.uint64(key)
    return table


FLIP_BYTE_KEYS = _flip_byte_keys()

#: A position reached in a game has at most 33 placements, but a board text can set up
#: any position: the empty squares bound it.
MAX_MOVES = 64
#: No final margin exceeds the squares of the board.
MARGIN_LIMIT = 64
#: a1, h1, a8 and h8.
CORNERS = np.uint64(1 << 0 | 1 << 7 | 1 << 56 | 1 << 63)
FILE_A_CORNERS = np.uint64(1 << 0 | 1 << 56)
FILE_H_CORNERS = np.uint64(1 << 7 | 1 << 63)
ROW_1_CORNERS = np.uint64(1 << 0 | 1 << 7)
ROW_8_CORNERS = np.uint64(1 << 56 | 1 << 63)
#: The solver's hooks: the last empty squares go to Othello's own solver.
ending = endgame.ending
solve_ending = endgame.solve_ending
#: The first plies of a solve order their moves by the evaluation as well as by
#: mobility (search/solver.py). FFO #40-#49 (20-26 empty squares, 60 s allowed each,
#: an unproved position counted at 60 s) took 219 s with 7 proved by mobility alone;
#: evaluating at 6 plies 191 s with 9 proved, at 10 plies 160 s with 9, at 14 plies
#: 150 s with all 10, at every ply 183 s with all 10. Only where the solve-time model
#: gives the node's proof 10 us or more (`search.solver.EVALUATED_MIN_SECONDS`: 10 empty
#: squares and up): FFO #40-#49 by `prove`, three runs of each, alternating, took 84.5 s
#: on average against 97.0 s evaluating at every count, the nodes 0.2% more; bounds of
#: 0.1 ms and 1 ms (13 and 16 squares) searched 3.7% and 14% more nodes.
SOLVER_EVALUATED_PLIES = 14
#: Of those, the first SOLVER_SEARCHED_PLIES weigh a move by a shallow search of its
#: position (`search.solver.ORDERING_DEPTH` plies) in place of its evaluation, where the
#: solve-time model gives the node 0.1 s or more (`search.solver.SEARCHED_MIN_SECONDS`: 20
#: empty squares and up; searched at every count, the exact margins of 12 random games'
#: positions took 5x as long at 14 empty squares, p50 48 ms against 9, 2x at 16 and 18).
#: Before that bound and the carried evaluation (`patterns.accumulate_play`), FFO #40-#48
#: but #45 took 444 M nodes with 4 plies searched 4 deep (25 s), 374 M with 6 (33 s) and
#: 363 M with 8 (71 s): the shallow searches' own nodes, uncounted, cost more than they
#: saved. With both, FFO #40-#49 by `prove` (the builds run at once, cores swapped) took
#: 63.8 s and 65.6 s with 8 plies against 70.1 s and 71.9 s with 4, #49 18.2-18.5 s
#: against 25.8-28.3 s (402 M nodes against 653 M); 6 plies took 63.2 s and 85.2 s against
#: 8's 65.5 s and 82.4 s in the same runs, #49 474 M nodes.
SOLVER_SEARCHED_PLIES = 8
#: The squares, then PASS.
MOVE_LIMIT = PASS + 1
#: Moves index the history table as they are.
HISTORY_MASK = 127

#: Without a deadline, a search solves a position of at most this many empty squares
#: exactly (win, loss or draw, then the disc margin) after a short heuristic prelude.
#: Measured with scripts/solve --times (12 positions of random games per count,
#: compiled), the exact margin takes at most 0.3 s at 18 empties, 2.5 s at 20.
SOLVE_EMPTIES = 18

#: The solve-time model, for a search with a deadline: a proof of win, loss or draw
#: from SOLVE_MODEL_EMPTIES empty squares takes SOLVE_MODEL_SECONDS, times
#: SOLVE_MODEL_GROWTH for each further empty square. Measured on the 40 positions at
#: each count of 40 games between two engine versions (compiled, a fresh table each),
#: the 90th percentile was 9 ms at 16 empties, 17 at 18, 38 at 19, 104 at 20 and 509 at
#: 21 (the slowest 1-3 times that); the exact margin took 2-8 times as long. Positions
#: of random games (scripts/solve --times), lopsided, take longer to reach the margin
#: but less to prove.
SOLVE_MODEL_EMPTIES = 18
SOLVE_MODEL_SECONDS = 0.020
SOLVE_MODEL_GROWTH = 2.5
#: From SOLVE_MODEL_FAR_EMPTIES on, proofs grow more slowly than that: positions of
#: expert games (10 at each count, `go` proving win, loss or draw after its 4-ply
#: prelude, a fresh table each, the solver with its stability cut-off) took at the 90th
#: percentile 0.087 s at 18 empty squares, 0.38 at 20, 0.86 at 22 and 3.7 at 24 (the
#: slowest 0.17, 0.58, 2.5 and 4.5): about 1.05 s at 22 and 1.85 times as long for each
#: further square, against 2.5 below.
SOLVE_MODEL_FAR_EMPTIES = 22
SOLVE_MODEL_FAR_SECONDS = 1.05
SOLVE_MODEL_FAR_GROWTH = 1.85


@kernel
def make_state(black, white, to_move):
    """The kernel state of a position, its key and legal moves computed from scratch."""
    if to_move == BLACK:
        own, opp = black, white
    else:
        own, opp = white, black
    key = SIDE_KEY if to_move == WHITE else U0
    board = black
    while board != U0:
        key ^= DISC_KEYS[BLACK, lowest_bit(board)]
        board &= board - U1
    board = white
    while board != U0:
        key ^= DISC_KEYS[WHITE, lowest_bit(board)]
        board &= board - U1
    moves = move_mask(own, opp)
    passing = np.int64(0)
    if moves == U0 and move_mask(opp, own) != U0:
        passing = np.int64(1)
    return (own, opp, moves, key, np.int64(to_move), passing)


@kernel(inline=True)
def legal_moves(s, out):
    """The legal moves into out[:n], lowest square first, or PASS alone; returns n."""
    moves = s[2]
    if s[5] != 0:
        out[0] = PASS_MOVE
        return 1
    n = popcount(moves)
    for i in range(n):
        out[i] = lowest_bit(moves)
        moves &= moves - U1
    return n


@kernel(inline=True)
def flip_key(flipped):
    """The key change of the discs `flipped` turning over."""
    return (FLIP_BYTE_KEYS[0, flipped & BYTE] ^ FLIP_BYTE_KEYS[1, (flipped >> U8) & BYTE]
            ^ FLIP_BYTE_KEYS[2, (flipped >> U16) & BYTE] ^ FLIP_BYTE_KEYS[3, (flipped >> U24) & BYTE]
            ^ FLIP_BYTE_KEYS[4, (flipped >> U32) & BYTE] ^ FLIP_BYTE_KEYS[5, (flipped >> U40) & BYTE]
            ^ FLIP_BYTE_KEYS[6, (flipped >> U48) & BYTE] ^ FLIP_BYTE_KEYS[7, flipped >> U56])


@kernel(inline=True)
def play(s, move):
    """The position after `move` (a legal move), key and legal moves included."""
    own, opp, _, key, to_move, _ = s
    if move == PASS_MOVE:
        return (opp, own, move_mask(opp, own), key ^ SIDE_KEY, 1 - to_move, np.int64(0))
    flipped = flips(own, opp, move)
    key ^= MOVE_KEYS[to_move, move] ^ flip_key(flipped)
    own |= flipped | (U1 << np.uint64(move))
    opp ^= flipped
    moves = move_mask(opp, own)
    passing = np.int64(0)
    if moves == U0 and move_mask(own, opp) != U0:
        passing = np.int64(1)
    return (opp, own, moves, key, 1 - to_move, passing)


@kernel(inline=True)
def move_count(s):
    """The number of legal moves (`legal_moves` without the list)."""
    if s[5] != 0:
        return 1
    return popcount(s[2])


@kernel(inline=True)
def _corner_stable(discs):
    """The corners of `discs` and the edge squares next to them it also holds."""
    held = discs & CORNERS
    near = (((held & FILE_A_CORNERS) << U1) | ((held & FILE_H_CORNERS) >> U1)
            | ((held & ROW_1_CORNERS) << np.uint64(8)) | ((held & ROW_8_CORNERS) >> np.uint64(8)))
    return popcount(held | (near & discs))


@kernel(inline=True)
def mobility(s):
    """The solver's ordering hook, low for a position the side to move will find hard:
    its placements, corners counted twice, times four, plus its potential mobility (the
    empty squares next to the other side's discs, where its moves may open later), less
    twice the other side's corner stability (its corners and the edge squares next to
    them). A pass counts no placement. Weighted thus, the FFO #20-#37 proofs took 18%
    fewer nodes than with the placements alone, and corners counted twice 32% fewer; the
    corner stability took 8% off FFO #40-#48's (weighed once 7%, four times 4%)."""
    placements = s[2]
    potential = popcount(around(s[1]) & ~(s[0] | s[1]))
    return 4 * (popcount(placements) + popcount(placements & CORNERS)) + potential - 2 * _corner_stable(s[1])


@kernel(inline=True)
def margin_ceiling(s, alpha):
    """The solver's stability cut-off: the most the side to move can finish with, the
    other side keeping its stable discs, where that could be alpha or less (see
    games/othello/stability.py)."""
    return stability.margin_ceiling(s[0], s[1], alpha)


@kernel(inline=True)
def key(s):
    return s[3]


@kernel(inline=True)
def to_move(s):
    return s[4]


@kernel(inline=True)
def result(s):
    """ONGOING while the side to move has a placement or must pass; else the sign of the
    disc difference for the side to move."""
    if s[2] != U0 or s[5] != 0:
        return ONGOING
    difference = popcount(s[0]) - popcount(s[1])
    if difference > 0:
        return 1
    if difference < 0:
        return -1
    return 0


@kernel(inline=True)
def margin(s):
    """The disc difference for the side to move (empty squares go to no one: the
    CodinGame referee counts discs only)."""
    return popcount(s[0]) - popcount(s[1])


@kernel(inline=True)
def solvable(s):
    """At most SOLVE_EMPTIES empty squares."""
    return 64 - popcount(s[0] | s[1]) <= SOLVE_EMPTIES


@kernel
def solve_seconds(s):
    """The solve-time model: about how long a proof of win, loss or draw takes."""
    empties = 64 - popcount(s[0] | s[1])
    if empties >= SOLVE_MODEL_FAR_EMPTIES:
        return SOLVE_MODEL_FAR_SECONDS * SOLVE_MODEL_FAR_GROWTH ** (empties - SOLVE_MODEL_FAR_EMPTIES)
    return SOLVE_MODEL_SECONDS * SOLVE_MODEL_GROWTH ** (empties - SOLVE_MODEL_EMPTIES)


@kernel
def discs(s):
    """(black's discs, white's discs) as bitboards."""
    if s[4] == BLACK:
        return s[0], s[1]
    return s[1], s[0]
