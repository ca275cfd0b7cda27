"""Othello kernels compiled with numba: the mirror of `games.othello` (rules.py,
bitboard.py, evaluation.py).

A compiled state is the tuple

    (own, opp, moves, key, to_move, passing)

    own      np.uint64  the discs of the side to move
    opp      np.uint64  the discs of the other side
    moves    np.uint64  the placements of the side to move (the reference's `legal`
                        without its pass bit)
    key      np.uint64  the reference's Zobrist key
    to_move  np.int64   0 black, 1 white
    passing  np.int64   1 when the pass is the only legal move (the reference's bit 64)

The boards are held by side to move rather than by colour so that `play` needs no
branch on the colour: it swaps them. The reference carries the legal moves in its
state and computes them in `play`; so does this state, and `legal_moves`, `result` and
`evaluate` reuse them the same way. A finished position has no placement and no pass.

The evaluation is the reference's `evaluate_with_mobility` computed for the side to
move as if it were black and to move: every term of the reference is a black-minus-white
difference, symmetric in the colours, so black's value with the colours swapped is
white's value (`EDGE_STABILITY` is antisymmetric; the tests check it on every line).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types

from numba.core import cgutils
from numba.extending import intrinsic

from compiled.core import ONGOING
from games.kernel import kernel, lowest_bit, popcount, twin
from games.othello import bitboard, evaluation, rules
from games.othello.bitboard import PASS
from games.othello.rules import OthelloState, SOLVE_EMPTIES

#: A position reached in a game has at most 33 placements, but a board text can set up
#: any position: the empty squares bound it.
MAX_MOVES = 64
MOVE_LIMIT = PASS + 1
#: Moves index the history table as they are (see `compiled.__init__`).
HISTORY_MASK = 127

U0 = np.uint64(0)
U1 = np.uint64(1)
U7 = np.uint64(7)
U8 = np.uint64(8)
U9 = np.uint64(9)
U16 = np.uint64(16)
U24 = np.uint64(24)
U32 = np.uint64(32)
U40 = np.uint64(40)
U48 = np.uint64(48)
U56 = np.uint64(56)
BYTE = np.uint64(0xFF)
FILE_A = np.uint64(0x0101010101010101)
NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)
CORNERS = np.uint64(evaluation.CORNERS)
CORNER_A1 = np.uint64(1 << 0)
CORNER_H1 = np.uint64(1 << 7)
CORNER_A8 = np.uint64(1 << 56)
CORNER_H8 = np.uint64(1 << 63)
FILE_TO_BYTE = np.uint64(evaluation._FILE_TO_BYTE)
SOLVE_MAX_EMPTIES = np.int64(SOLVE_EMPTIES)
PASS_MOVE = np.int64(PASS)

# ---- tables ---------------------------------------------------------------------------


def _rays() -> np.ndarray:
    """RAYS[square, d]: the squares from `square` (excluded) to the board edge in
    direction d; d 0..3 towards higher indices (E, S, SE, SW), 4..7 towards lower ones
    (W, N, NW, NE)."""
    steps = ((1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1))
    rays = np.zeros((64, 8), dtype=np.uint64)
    for square in range(64):
        row, file = divmod(square, 8)
        for index, (file_step, row_step) in enumerate(steps):
            ray = 0
            r, f = row + row_step, file + file_step
            while 0 <= r < 8 and 0 <= f < 8:
                ray |= 1 << (r * 8 + f)
                r, f = r + row_step, f + file_step
            rays[square, index] = np.uint64(ray)
    return rays


RAYS = _rays()

_KEYS = rules._KEYS
SIDE_KEY = np.uint64(_KEYS[128])
#: MOVE_KEYS[colour, square]: the disc key of a new disc and the change of side.
MOVE_KEYS = np.array([[key ^ _KEYS[128] for key in _KEYS[colour * 64:colour * 64 + 64]]
                      for colour in (0, 1)], dtype=np.uint64)
_FLIP_KEYS = [black ^ white for black, white in zip(_KEYS[:64], _KEYS[64:128])]


def _flip_byte_keys() -> np.ndarray:
    """FLIP_BYTE_KEYS[b, v]: the key change of the discs on the squares 8 * b + j, for
    the set bits j of the byte value v, turning over. Eight look-ups key any set of
    flips, where a loop over the flipped discs costs more in branch mispredictions than
    the rest of `play`."""
    table = np.zeros((8, 256), dtype=np.uint64)
    for byte in range(8):
        for value in range(256):
            key = 0
            for bit in range(8):
                if value >> bit & 1:
                    key ^= _FLIP_KEYS[8 * byte + bit]
            table[byte, value] = np.uint64(key)
    return table


FLIP_BYTE_KEYS = _flip_byte_keys()
#: DISC_KEYS[colour, square].
DISC_KEYS = np.array([_KEYS[:64], _KEYS[64:128]], dtype=np.uint64)

#: EDGE_STABILITY[own_line << 8 | opp_line], in int8: 64 KiB rather than 512 of cache.
EDGE_STABILITY = np.array(evaluation.EDGE_STABILITY, dtype=np.int8)
#: WEIGHTS[empties, term], the terms in the reference's order: mobility, potential
#: mobility, frontier, corners, X-squares, C-squares, stable edge discs, parity, discs.
WEIGHTS = np.array(evaluation.WEIGHTS, dtype=np.int64)

# ---- move generation and flips --------------------------------------------------------
#
# Both kernels work on the four line directions at once, in the four 64-bit lanes of an
# LLVM vector (one AVX2 register; LLVM splits it into narrower ones on a machine without
# AVX2): the same operations as the reference, lane by lane, with one shift amount and
# one mask per lane.

_I1 = ir.IntType(1)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_LANES = ir.VectorType(_I64, 4)
_ALL = (1 << 64) - 1
_INNER = 0x7E7E7E7E7E7E7E7E


def _lanes(values) -> ir.Constant:
    return ir.Constant(_LANES, [ir.Constant(_I64, value) for value in values])


def _splat(builder, value):
    """The vector with `value` in every lane."""
    vector = builder.insert_element(ir.Constant(_LANES, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(vector, ir.Constant(_LANES, ir.Undefined),
                                  ir.Constant(ir.VectorType(_I32, 4), [0, 0, 0, 0]))


def _gather(builder, values):
    """The vector of four scalars."""
    vector = ir.Constant(_LANES, ir.Undefined)
    for index, value in enumerate(values):
        vector = builder.insert_element(vector, value, ir.Constant(_I32, index))
    return vector


def _or_lanes(builder, vector):
    """The bitwise or of the four lanes."""
    reduce_or = cgutils.get_or_insert_function(
        builder.module, ir.FunctionType(_I64, [_LANES]), "llvm.vector.reduce.or.v4i64")
    return builder.call(reduce_or, [vector])


@intrinsic
def _move_mask_lanes(typingctx, own, opp):
    """`move_mask` with the lanes south (+8), east (+1), south-east (+9), south-west (+7),
    each lane shifting left for one direction and right for the opposite one."""
    signature = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, sig, args):
        own, opp = args
        step = _lanes([8, 1, 9, 7])
        double_step = _lanes([16, 2, 18, 14])
        own_lanes = _splat(builder, own)
        # A run moving north or south cannot wrap: every enemy disc counts there.
        mask = builder.and_(_splat(builder, opp), _lanes([_ALL, _INNER, _INNER, _INNER]))
        forward = builder.and_(mask, builder.shl(own_lanes, step))
        backward = builder.and_(mask, builder.lshr(own_lanes, step))
        forward = builder.or_(forward, builder.and_(mask, builder.shl(forward, step)))
        backward = builder.or_(backward, builder.and_(mask, builder.lshr(backward, step)))
        forward_pairs = builder.and_(mask, builder.shl(mask, step))
        backward_pairs = builder.and_(mask, builder.lshr(mask, step))
        for _ in range(2):
            forward = builder.or_(forward, builder.and_(forward_pairs, builder.shl(forward, double_step)))
            backward = builder.or_(backward, builder.and_(backward_pairs, builder.lshr(backward, double_step)))
        moves = _or_lanes(builder, builder.or_(builder.shl(forward, step), builder.lshr(backward, step)))
        return builder.and_(moves, builder.not_(builder.or_(own, opp)))

    return signature, codegen


@intrinsic
def _flips_lanes(typingctx, own, opp, east, south, south_east, south_west, west, north,
                 north_west, north_east):
    """`flips` given the eight rays of the square: the rising ones in one vector, the
    falling ones in another.

    Rising rays: adding one to the enemy discs and every square off the ray carries to
    the first square of the ray that is not an enemy disc; the enemy discs below it flip
    when it is an own disc. Falling rays: the highest square of the ray that is not an
    enemy disc must be an own disc; the enemy discs above it flip. Bit 0 stands in when
    every square of a falling ray is an enemy disc: it is then either off the ray or an
    enemy disc, never an own disc of the ray.
    """
    signature = types.uint64(*([types.uint64] * 10))

    def codegen(context, builder, sig, args):
        own = _splat(builder, args[0])
        opp = _splat(builder, args[1])
        rising = _gather(builder, args[2:6])
        falling = _gather(builder, args[6:10])
        zero, one, full = _lanes([0] * 4), _lanes([1] * 4), _lanes([_ALL] * 4)

        carried = builder.add(builder.or_(opp, builder.xor(rising, full)), one)
        outflank = builder.and_(builder.and_(carried, own), rising)
        found = builder.zext(builder.icmp_unsigned("!=", outflank, zero), _LANES)
        flipped = builder.and_(builder.sub(outflank, found), rising)

        stop = builder.or_(builder.and_(falling, builder.xor(opp, full)), one)
        ctlz = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(_LANES, [_LANES, _I1]), "llvm.ctlz.v4i64")
        highest = builder.lshr(_lanes([1 << 63] * 4), builder.call(ctlz, [stop, ir.Constant(_I1, 0)]))
        outflank = builder.and_(builder.and_(highest, own), falling)
        flipped = builder.or_(flipped, builder.and_(falling, builder.sub(zero, builder.shl(outflank, one))))
        return _or_lanes(builder, flipped)

    return signature, codegen


def _move_mask_python(own, opp):
    return np.uint64(bitboard.move_mask(int(own), int(opp)))


def _flips_python(own, opp, square):
    return np.uint64(bitboard.flips(int(own), int(opp), int(square)))


@twin(_move_mask_python)
@kernel(inline=True)
def move_mask(own, opp):
    """The empty squares where the side owning `own` can place a disc (the reference's
    `move_mask`): in each line direction, runs of `opp` discs next to `own` grow by one,
    one, then two and two squares; the square past a run is a move when empty."""
    return _move_mask_lanes(own, opp)


@twin(_flips_python)
@kernel(inline=True)
def flips(own, opp, square):
    """The enemy discs a disc of `own` placed on `square` turns over (the reference's
    `flips`)."""
    rays = RAYS[square]
    return _flips_lanes(own, opp, rays[0], rays[1], rays[2], rays[3], rays[4], rays[5],
                        rays[6], rays[7])


# ---- the contract -----------------------------------------------------------------------


def pack(state: OthelloState) -> tuple:
    """The compiled state of a reference state."""
    black, white, to_move, key, legal = state
    own, opp = (black, white) if to_move == rules.BLACK else (white, black)
    return (np.uint64(own), np.uint64(opp), np.uint64(legal & ((1 << 64) - 1)), np.uint64(key),
            np.int64(to_move), np.int64(legal >> PASS & 1))


def unpack(s: tuple) -> OthelloState:
    """The reference state of a compiled state."""
    own, opp, moves, key, to_move, passing = s
    own, opp, to_move = int(own), int(opp), int(to_move)
    black, white = (own, opp) if to_move == rules.BLACK else (opp, own)
    return OthelloState(black, white, to_move, int(key), int(moves) | int(passing) << PASS)


@kernel
def make_state(black, white, to_move):
    """A state with its key and legal moves computed from scratch (`rules.make_state`)."""
    if to_move == 0:
        own, opp = black, white
    else:
        own, opp = white, black
    key = SIDE_KEY if to_move == 1 else U0
    board = black
    while board != U0:
        key ^= DISC_KEYS[0, lowest_bit(board)]
        board &= board - U1
    board = white
    while board != U0:
        key ^= DISC_KEYS[1, lowest_bit(board)]
        board &= board - U1
    moves = move_mask(own, opp)
    passing = np.int64(0)
    if moves == U0 and move_mask(opp, own) != U0:
        passing = np.int64(1)
    return (own, opp, moves, key, np.int64(to_move), passing)


@kernel(inline=True)
def legal_moves(s, out):
    """The legal moves into out[:n], lowest square first, then PASS alone; returns n."""
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
def move_count(s):
    """The number of legal moves (`legal_moves` without writing them)."""
    if s[5] != 0:
        return 1
    return popcount(s[2])


@kernel(inline=True)
def flip_key(flipped):
    """The key change of the discs `flipped` turning over."""
    return (FLIP_BYTE_KEYS[0, flipped & BYTE] ^ FLIP_BYTE_KEYS[1, (flipped >> U8) & BYTE]
            ^ FLIP_BYTE_KEYS[2, (flipped >> U16) & BYTE] ^ FLIP_BYTE_KEYS[3, (flipped >> U24) & BYTE]
            ^ FLIP_BYTE_KEYS[4, (flipped >> U32) & BYTE] ^ FLIP_BYTE_KEYS[5, (flipped >> U40) & BYTE]
            ^ FLIP_BYTE_KEYS[6, (flipped >> U48) & BYTE] ^ FLIP_BYTE_KEYS[7, flipped >> U56])


@kernel(inline=True)
def play(s, move):
    """The position after `move` (a legal move), key included."""
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
def key(s):
    return s[3]


@kernel(inline=True)
def to_move(s):
    return s[4]


@kernel(inline=True)
def result(s):
    """ONGOING while the side to move has a placement or must pass; else the sign of
    the disc difference for the side to move."""
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
    """The disc difference for the side to move (empty squares go to no one)."""
    return popcount(s[0]) - popcount(s[1])


@kernel(inline=True)
def solvable(s):
    return 64 - popcount(s[0] | s[1]) <= SOLVE_MAX_EMPTIES


@kernel(inline=True)
def _edge(own_line, opp_line):
    return np.int64(EDGE_STABILITY[(own_line << U8) | opp_line])


@kernel(inline=True)
def evaluate_boards(own, opp, own_moves, opp_moves):
    """The reference's `evaluate_with_mobility(own, opp, 0, own_moves, opp_moves)[0]`:
    the value for the side owning `own`, to move."""
    occupied = own | opp
    empty = ~occupied
    empties = popcount(empty)
    weights = WEIGHTS[empties]

    # The squares next to an empty square, an enemy disc, an own disc (8 directions).
    row = empty | ((empty << U1) & NOT_FILE_A) | ((empty >> U1) & NOT_FILE_H)
    next_to_empty = row | (row << U8) | (row >> U8)
    row = opp | ((opp << U1) & NOT_FILE_A) | ((opp >> U1) & NOT_FILE_H)
    next_to_opp = row | (row << U8) | (row >> U8)
    row = own | ((own << U1) & NOT_FILE_A) | ((own >> U1) & NOT_FILE_H)
    next_to_own = row | (row << U8) | (row >> U8)
    frontier = popcount(opp & next_to_empty) - popcount(own & next_to_empty)
    potential = popcount(empty & next_to_opp) - popcount(empty & next_to_own)
    mobility = popcount(own_moves) - popcount(opp_moves)

    corners = popcount(own & CORNERS) - popcount(opp & CORNERS)
    # The X-square (diagonal) and the C-squares (along the edges) of each empty corner.
    free = empty & CORNERS
    x_squares = (((free & CORNER_A1) << U9) | ((free & CORNER_H1) << U7)
                 | ((free & CORNER_A8) >> U7) | ((free & CORNER_H8) >> U9))
    c_squares = (((free & (CORNER_A1 | CORNER_A8)) << U1) | ((free & (CORNER_H1 | CORNER_H8)) >> U1)
                 | ((free & (CORNER_A1 | CORNER_H1)) << U8) | ((free & (CORNER_A8 | CORNER_H8)) >> U8))
    x_count = popcount(opp & x_squares) - popcount(own & x_squares)
    c_count = popcount(opp & c_squares) - popcount(own & c_squares)

    # Row 1, row 8, the a-file and the h-file, each gathered into a byte.
    edges = (_edge(own & BYTE, opp & BYTE)
             + _edge(own >> U56, opp >> U56)
             + _edge(((own & FILE_A) * FILE_TO_BYTE) >> U56, ((opp & FILE_A) * FILE_TO_BYTE) >> U56)
             + _edge((((own >> U7) & FILE_A) * FILE_TO_BYTE) >> U56,
                     (((opp >> U7) & FILE_A) * FILE_TO_BYTE) >> U56))

    parity = 1 if empties & 1 else -1
    discs = popcount(own) - popcount(opp)

    return (weights[0] * mobility + weights[1] * potential + weights[2] * frontier
            + weights[3] * corners + weights[4] * x_count + weights[5] * c_count
            + weights[6] * edges + weights[7] * parity + weights[8] * discs)


@kernel(inline=True)
def evaluate(s):
    """The reference's `GAME.evaluate(state)[state.to_move]`: the side to move's
    placements come from the state, the other side's are computed."""
    own, opp = s[0], s[1]
    return evaluate_boards(own, opp, s[2], move_mask(opp, own))
