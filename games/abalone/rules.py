"""Abalone rules as kernels (`games.kernel`) over two-word boards of the padded hex grid.

A kernel state is the tuple

    (black_lo, black_hi, white_lo, white_hi, to_move, key, black_score, white_score, turn)

the words of each side's board (np.uint64, `games.abalone.hexboard`), the side to move
(np.int64, 0 black, 1 white), the Zobrist key (np.uint64), the marbles black and white
have pushed off (np.int64, 0..6) and the plies played (np.int64, 0..350).

Move generation works on whole boards, one direction at a time. For the direction d of
step s, the empty board shifted by -s marks the cells whose neighbour in d is empty
(`f<d>` below). Along an axis of positive step u, `own & own << u` marks the cells c
with c and c - u own (pairs, `p<axis>`) and `pairs & pairs << u` the cells c with c,
c - u and c - 2u own (triples, `t<axis>`):

- in-line, moving +u: the front marble is c itself; the move is free when c + u is empty
  (a single marble, a pair or a triple), a push of one when c + u holds an enemy marble
  and c + 2u is empty or off the board (pairs and triples), a push of two when c + u and
  c + 2u hold enemy marbles and c + 3u is empty or off the board (triples only). Moving
  -u, the same with the runs shifted to their other end. An own marble behind the enemy
  column, or a column as long as the pushers' (or longer), leaves none of these masks
  set: the push is not a move. A fourth own marble in a line never counts: only the
  three in front push.
- broadside, for each of the four directions off the axis: a pair or triple whose every
  marble has an empty neighbour in that direction (the empty-neighbour mask ANDed with
  itself shifted along the axis).

`legal_moves` lists the moves best-first, in descending order of the move int (layout
in `games.abalone.hexboard`): the pushes (orders 6 and 5, the rarer moves) into the
buffer as they come and then sorted in place, then every other group of moves (order,
axis, count, direction: the high bits of the move int) from the highest to the lowest,
each group's anchors from the highest bit down. The work is split over four kernels
(pushes, lines of three, lines of two, single marbles inline) because numba's compile
time grows with the square of one inlined body.

`play` works out what a move changes from its fields: the marbles that leave and
arrive, the enemy marbles pushed (the first enemy cell becomes own, the cell behind the
column becomes enemy unless it is off the board, when the mover's score goes up by one).

The game ends when a side has pushed off six marbles or after MAX_PLIES plies (the side
that pushed off more wins, equal is a draw), or when the side to move has no move (only
a set-up position can do this), which loses.
"""

from __future__ import annotations

import numpy as np

from games.base import ONGOING, zobrist_keys
from games.kernel import kernel, lowest_bit, popcount
from games.abalone.hexboard import (
    AXIS_STEPS,
    INDEX_OF,
    MAX_PLIES,
    NEGATIVE_DIRECTIONS,
    ON_BOARD,
    ON_HI,
    ON_LO,
    ORDER_BROADSIDE_2,
    ORDER_BROADSIDE_3,
    ORDER_INLINE_2,
    ORDER_INLINE_3,
    ORDER_PUSH,
    ORDER_PUSH_OFF,
    ORDER_SINGLE,
    POSITIVE_DIRECTIONS,
    RIM0_HI,
    RIM0_LO,
    RIM1_HI,
    RIM1_LO,
    RIM2_HI,
    RIM2_LO,
    RIM3_HI,
    RIM3_LO,
    RIM4_HI,
    RIM4_LO,
    RIM5_HI,
    RIM5_LO,
    STEPS,
    U0,
    U1,
    U2,
    U10,
    U11,
    U20,
    U22,
    WIDTH,
    WINNING_SCORE,
    move_int,
    shl,
    shr,
    split,
)

BLACK, WHITE = 0, 1
STATE_TYPES = (np.uint64, np.uint64, np.uint64, np.uint64, np.int64, np.uint64, np.int64,
               np.int64, np.int64)

#: White fills the top two lines and the middle three cells of the third; black the same
#: at the bottom.
WHITE_START = sum(1 << INDEX_OF[x, y] for y in (0, 1) for x in range(6 if y else 5)) | sum(
    1 << INDEX_OF[x, 2] for x in (2, 3, 4))
BLACK_START = sum(1 << INDEX_OF[x, y] for y in (7, 8) for x in range(6 if y == 7 else 5)) | sum(
    1 << INDEX_OF[x, 6] for x in (2, 3, 4))

#: Legal moves of one position at most: 14 marbles (the board text allows no more), each
#: moving in each of the 6 directions at most once as a single marble (84), once as each
#: line of two (at most 29 adjacent pairs among 14 cells of a triangular lattice) and
#: once as each line of three (no more than the pairs). The buffer is written up to
#: this bound only: a made-up state with more marbles could overrun it.
MAX_MOVES = 14 * 6 + 29 * 6 + 29 * 6
#: Every move int is below 2**19 (the order field is bits 16..18).
MOVE_LIMIT = 1 << 19
#: The history table is indexed by a move's low 16 bits: its marbles, direction, axis
#: and pushed count, from which its order bits follow, so distinct moves keep distinct
#: entries in a table 8 times smaller.
HISTORY_MASK = (1 << 16) - 1

assert STEPS == (1, -10, -11, -1, 10, 11) and AXIS_STEPS == (1, 10, 11)
assert POSITIVE_DIRECTIONS == (0, 4, 5) and NEGATIVE_DIRECTIONS == (3, 1, 2)

#: The bit of each grid cell as two words, and whether it is on the board (an index
#: 0..127).
BIT_LO = np.array([split(1 << i)[0] for i in range(128)], dtype=np.uint64)
BIT_HI = np.array([split(1 << i)[1] for i in range(128)], dtype=np.uint64)
ON_CELL = np.array([ON_BOARD >> i & 1 for i in range(128)], dtype=np.int64)
STEP = np.array(STEPS, dtype=np.int64)
AXIS_STEP = np.array(AXIS_STEPS, dtype=np.int64)

# Keys: 0..120 black marbles, 121..241 white marbles (by bit index, border cells unused),
# 242 white to move, 243..249 black's score 0..6, 250..256 white's score 0..6, 257..607
# turn 0..350. Changing the seed or this layout invalidates saved hash files: bump
# KEY_SCHEME with it.
KEY_SCHEME = 1
_CELL_COUNT = WIDTH * WIDTH
_KEYS = zobrist_keys(0xABA10E, 2 * _CELL_COUNT + 1 + 2 * (WINNING_SCORE + 1) + MAX_PLIES + 1)
_SCORE_BASE = 2 * _CELL_COUNT + 1
_TURN_BASE = _SCORE_BASE + 2 * (WINNING_SCORE + 1)
MARBLE_KEYS = np.array([_KEYS[:_CELL_COUNT], _KEYS[_CELL_COUNT:2 * _CELL_COUNT]], dtype=np.uint64)
SIDE_KEY = np.uint64(_KEYS[2 * _CELL_COUNT])
SCORE_KEYS = np.array([_KEYS[_SCORE_BASE:_SCORE_BASE + WINNING_SCORE + 1],
                       _KEYS[_SCORE_BASE + WINNING_SCORE + 1:_TURN_BASE]], dtype=np.uint64)
TURN_KEYS = np.array(_KEYS[_TURN_BASE:], dtype=np.uint64)
#: What a ply changes whatever the move: the side to move and the turn.
PLY_KEYS = np.array([SIDE_KEY ^ TURN_KEYS[turn] ^ TURN_KEYS[turn + 1] for turn in range(MAX_PLIES)],
                    dtype=np.uint64)
#: A marble pushed off raises the mover's score by one.
SCORE_STEP_KEYS = SCORE_KEYS[:, :WINNING_SCORE] ^ SCORE_KEYS[:, 1:]

# ---- move int bases (anchor 0) ---------------------------------------------------------
# np.int64, not int: numba types a global int as a literal, and a kernel called with a
# literal argument compiles once per value.


def _inline(count: int, pushed: int, order: int) -> tuple[np.int64, ...]:
    """The in-line move of each direction 0..5 (its own axis) from anchor 0."""
    return tuple(np.int64(move_int(0, d, count, d % 3, pushed, order)) for d in range(6))


def _broadside(count: int, axis: int, order: int) -> tuple[np.int64, ...]:
    """The broadside moves of the lines of `axis` from anchor 0, in each of the four
    directions off the axis, ascending."""
    return tuple(np.int64(move_int(0, d, count, axis, 0, order))
                 for d in range(6) if d % 3 != axis)


# Single marbles, in-line pairs and triples; the pushes 2v1, 3v1 and 3v2 without (P)
# and with (O) a marble pushed off; by direction.
S0, S1, S2, S3, S4, S5 = _inline(1, 0, ORDER_SINGLE)
I2_0, I2_1, I2_2, I2_3, I2_4, I2_5 = _inline(2, 0, ORDER_INLINE_2)
I3_0, I3_1, I3_2, I3_3, I3_4, I3_5 = _inline(3, 0, ORDER_INLINE_3)
P21_0, P21_1, P21_2, P21_3, P21_4, P21_5 = _inline(2, 1, ORDER_PUSH)
P31_0, P31_1, P31_2, P31_3, P31_4, P31_5 = _inline(3, 1, ORDER_PUSH)
P32_0, P32_1, P32_2, P32_3, P32_4, P32_5 = _inline(3, 2, ORDER_PUSH)
O21_0, O21_1, O21_2, O21_3, O21_4, O21_5 = _inline(2, 1, ORDER_PUSH_OFF)
O31_0, O31_1, O31_2, O31_3, O31_4, O31_5 = _inline(3, 1, ORDER_PUSH_OFF)
O32_0, O32_1, O32_2, O32_3, O32_4, O32_5 = _inline(3, 2, ORDER_PUSH_OFF)
# Broadside moves: B<count>_<axis>_<direction>.
B2_0_1, B2_0_2, B2_0_4, B2_0_5 = _broadside(2, 0, ORDER_BROADSIDE_2)
B2_1_0, B2_1_2, B2_1_3, B2_1_5 = _broadside(2, 1, ORDER_BROADSIDE_2)
B2_2_0, B2_2_1, B2_2_3, B2_2_4 = _broadside(2, 2, ORDER_BROADSIDE_2)
B3_0_1, B3_0_2, B3_0_4, B3_0_5 = _broadside(3, 0, ORDER_BROADSIDE_3)
B3_1_0, B3_1_2, B3_1_3, B3_1_5 = _broadside(3, 1, ORDER_BROADSIDE_3)
B3_2_0, B3_2_1, B3_2_3, B3_2_4 = _broadside(3, 2, ORDER_BROADSIDE_3)


@kernel
def make_state(black_lo, black_hi, white_lo, white_hi, to_move, black_score, white_score, turn):
    """The kernel state of a position, its key computed from scratch."""
    key = SIDE_KEY if to_move == WHITE else U0
    key ^= SCORE_KEYS[BLACK, black_score] ^ SCORE_KEYS[WHITE, white_score] ^ TURN_KEYS[turn]
    for side in range(2):
        lo = black_lo if side == BLACK else white_lo
        hi = black_hi if side == BLACK else white_hi
        while lo != U0:
            key ^= MARBLE_KEYS[side, lowest_bit(lo)]
            lo &= lo - U1
        while hi != U0:
            key ^= MARBLE_KEYS[side, 64 + lowest_bit(hi)]
            hi &= hi - U1
    return (black_lo, black_hi, white_lo, white_hi, np.int64(to_move), key,
            np.int64(black_score), np.int64(white_score), np.int64(turn))


# ---- move generation -------------------------------------------------------------------


@kernel(inline=True)
def _emit(out, n, lo, hi, base):
    """Append base + cell for every cell of (lo, hi), the highest cell first (written
    from the end of their run backwards, lowest cell first)."""
    high = popcount(hi)
    i = n + high
    while hi != U0:
        i -= 1
        out[i] = base + 64 + lowest_bit(hi)
        hi &= hi - U1
    n += high
    i = n + popcount(lo)
    end = i
    while lo != U0:
        i -= 1
        out[i] = base + lowest_bit(lo)
        lo &= lo - U1
    return end


@kernel
def _emit_call(out, n, lo, hi, base):
    """`_emit` as a call, for the rare masks (inlining costs compile time)."""
    return _emit(out, n, lo, hi, base)


@kernel(inline=True)
def _pushes_forward(out, n, pl, ph, tl, th, ql, qh, fl, fh, rl, rh, u,
                    b21, b31, b32, o21, o31, o32):
    """The pushes moving +u of the pairs p and triples t into the enemy q, with f the
    cells whose +u neighbour is empty and r the cells whose +u neighbour is off."""
    gl, gh = shr(ql, qh, u)
    if (pl & gl) | (ph & gh) == U0:
        return n
    onel, oneh = shr(ql & fl, qh & fh, u)
    offl, offh = shr(ql & rl, qh & rh, u)
    n = _emit_call(out, n, pl & onel, ph & oneh, b21)
    n = _emit_call(out, n, pl & offl, ph & offh, o21)
    if (tl & gl) | (th & gh) == U0:
        return n
    n = _emit_call(out, n, tl & onel, th & oneh, b31)
    n = _emit_call(out, n, tl & offl, th & offh, o31)
    twol, twoh = shr(ql & onel, qh & oneh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, b32)
    twol, twoh = shr(ql & offl, qh & offh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, o32)
    return n


@kernel(inline=True)
def _pushes_backward(out, n, pl, ph, tl, th, ql, qh, fl, fh, rl, rh, u, uu,
                     b21, b31, b32, o21, o31, o32):
    """The pushes moving -u: as `_pushes_forward` with the lines' front marble at their
    lower end (f and r of direction -u)."""
    pl, ph = shr(pl, ph, u)
    gl, gh = shl(ql, qh, u)
    if (pl & gl) | (ph & gh) == U0:
        return n
    tl, th = shr(tl, th, uu)
    onel, oneh = shl(ql & fl, qh & fh, u)
    offl, offh = shl(ql & rl, qh & rh, u)
    n = _emit_call(out, n, pl & onel, ph & oneh, b21)
    n = _emit_call(out, n, pl & offl, ph & offh, o21)
    if (tl & gl) | (th & gh) == U0:
        return n
    n = _emit_call(out, n, tl & onel, th & oneh, b31)
    n = _emit_call(out, n, tl & offl, th & offh, o31)
    twol, twoh = shl(ql & onel, qh & oneh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, b32)
    twol, twoh = shl(ql & offl, qh & offh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, o32)
    return n


@kernel(inline=True)
def _broadside3(out, n, tl, th, fl, fh, u, base):
    bl, bh = shl(fl, fh, u)
    bl &= fl
    bh &= fh
    cl, ch = shl(bl, bh, u)
    return _emit(out, n, tl & bl & cl, th & bh & ch, base)


@kernel(inline=True)
def _broadside2(out, n, pl, ph, fl, fh, u, base):
    bl, bh = shl(fl, fh, u)
    return _emit(out, n, pl & bl & fl, ph & bh & fh, base)


@kernel
def _pushes(out, p0l, p0h, t0l, t0h, p1l, p1h, t1l, t1h, p2l, p2h, t2l, t2h, ql, qh,
            f0l, f0h, f1l, f1h, f2l, f2h, f3l, f3h, f4l, f4h, f5l, f5h):
    """The pushes (orders 6 and 5) into out[:n] in descending order; returns n: found
    in any order, then sorted (there are few)."""
    n = np.int64(0)
    if (p0l | p0h) != U0:
        n = _pushes_forward(out, n, p0l, p0h, t0l, t0h, ql, qh, f0l, f0h, RIM0_LO, RIM0_HI,
                            U1, P21_0, P31_0, P32_0, O21_0, O31_0, O32_0)
        n = _pushes_backward(out, n, p0l, p0h, t0l, t0h, ql, qh, f3l, f3h, RIM3_LO, RIM3_HI,
                             U1, U2, P21_3, P31_3, P32_3, O21_3, O31_3, O32_3)
    if (p1l | p1h) != U0:
        n = _pushes_forward(out, n, p1l, p1h, t1l, t1h, ql, qh, f4l, f4h, RIM4_LO, RIM4_HI,
                            U10, P21_4, P31_4, P32_4, O21_4, O31_4, O32_4)
        n = _pushes_backward(out, n, p1l, p1h, t1l, t1h, ql, qh, f1l, f1h, RIM1_LO, RIM1_HI,
                             U10, U20, P21_1, P31_1, P32_1, O21_1, O31_1, O32_1)
    if (p2l | p2h) != U0:
        n = _pushes_forward(out, n, p2l, p2h, t2l, t2h, ql, qh, f5l, f5h, RIM5_LO, RIM5_HI,
                            U11, P21_5, P31_5, P32_5, O21_5, O31_5, O32_5)
        n = _pushes_backward(out, n, p2l, p2h, t2l, t2h, ql, qh, f2l, f2h, RIM2_LO, RIM2_HI,
                             U11, U22, P21_2, P31_2, P32_2, O21_2, O31_2, O32_2)
    for i in range(1, n):
        move = out[i]
        j = i
        while j > 0 and out[j - 1] < move:
            out[j] = out[j - 1]
            j -= 1
        out[j] = move
    return n


@kernel
def _triple_moves(out, n, t0l, t0h, t1l, t1h, t2l, t2h,
                  f0l, f0h, f1l, f1h, f2l, f2h, f3l, f3h, f4l, f4h, f5l, f5h):
    """The in-line and broadside moves of lines of three (orders 4 and 3)."""
    # In-line triples (order 4): axis 2 (directions 5, 2), 1 (4, 1), 0 (3, 0).
    if (t2l | t2h) != U0:
        n = _emit(out, n, t2l & f5l, t2h & f5h, I3_5)
        sl, sh = shr(t2l, t2h, U22)
        n = _emit(out, n, sl & f2l, sh & f2h, I3_2)
    if (t1l | t1h) != U0:
        n = _emit(out, n, t1l & f4l, t1h & f4h, I3_4)
        sl, sh = shr(t1l, t1h, U20)
        n = _emit(out, n, sl & f1l, sh & f1h, I3_1)
    if (t0l | t0h) != U0:
        sl, sh = shr(t0l, t0h, U2)
        n = _emit(out, n, sl & f3l, sh & f3h, I3_3)
        n = _emit(out, n, t0l & f0l, t0h & f0h, I3_0)
    # Broadside triples (order 3): axis 2 (directions 4, 3, 1, 0), 1 (5, 3, 2, 0),
    # 0 (5, 4, 2, 1).
    if (t2l | t2h) != U0:
        n = _broadside3(out, n, t2l, t2h, f4l, f4h, U11, B3_2_4)
        n = _broadside3(out, n, t2l, t2h, f3l, f3h, U11, B3_2_3)
        n = _broadside3(out, n, t2l, t2h, f1l, f1h, U11, B3_2_1)
        n = _broadside3(out, n, t2l, t2h, f0l, f0h, U11, B3_2_0)
    if (t1l | t1h) != U0:
        n = _broadside3(out, n, t1l, t1h, f5l, f5h, U10, B3_1_5)
        n = _broadside3(out, n, t1l, t1h, f3l, f3h, U10, B3_1_3)
        n = _broadside3(out, n, t1l, t1h, f2l, f2h, U10, B3_1_2)
        n = _broadside3(out, n, t1l, t1h, f0l, f0h, U10, B3_1_0)
    if (t0l | t0h) != U0:
        n = _broadside3(out, n, t0l, t0h, f5l, f5h, U1, B3_0_5)
        n = _broadside3(out, n, t0l, t0h, f4l, f4h, U1, B3_0_4)
        n = _broadside3(out, n, t0l, t0h, f2l, f2h, U1, B3_0_2)
        n = _broadside3(out, n, t0l, t0h, f1l, f1h, U1, B3_0_1)
    return n


@kernel
def _pair_moves(out, n, p0l, p0h, p1l, p1h, p2l, p2h,
                f0l, f0h, f1l, f1h, f2l, f2h, f3l, f3h, f4l, f4h, f5l, f5h):
    """The in-line and broadside moves of lines of two (orders 2 and 1)."""
    # In-line pairs (order 2).
    if (p2l | p2h) != U0:
        n = _emit(out, n, p2l & f5l, p2h & f5h, I2_5)
        sl, sh = shr(p2l, p2h, U11)
        n = _emit(out, n, sl & f2l, sh & f2h, I2_2)
    if (p1l | p1h) != U0:
        n = _emit(out, n, p1l & f4l, p1h & f4h, I2_4)
        sl, sh = shr(p1l, p1h, U10)
        n = _emit(out, n, sl & f1l, sh & f1h, I2_1)
    if (p0l | p0h) != U0:
        sl, sh = shr(p0l, p0h, U1)
        n = _emit(out, n, sl & f3l, sh & f3h, I2_3)
        n = _emit(out, n, p0l & f0l, p0h & f0h, I2_0)
    # Broadside pairs (order 1).
    if (p2l | p2h) != U0:
        n = _broadside2(out, n, p2l, p2h, f4l, f4h, U11, B2_2_4)
        n = _broadside2(out, n, p2l, p2h, f3l, f3h, U11, B2_2_3)
        n = _broadside2(out, n, p2l, p2h, f1l, f1h, U11, B2_2_1)
        n = _broadside2(out, n, p2l, p2h, f0l, f0h, U11, B2_2_0)
    if (p1l | p1h) != U0:
        n = _broadside2(out, n, p1l, p1h, f5l, f5h, U10, B2_1_5)
        n = _broadside2(out, n, p1l, p1h, f3l, f3h, U10, B2_1_3)
        n = _broadside2(out, n, p1l, p1h, f2l, f2h, U10, B2_1_2)
        n = _broadside2(out, n, p1l, p1h, f0l, f0h, U10, B2_1_0)
    if (p0l | p0h) != U0:
        n = _broadside2(out, n, p0l, p0h, f5l, f5h, U1, B2_0_5)
        n = _broadside2(out, n, p0l, p0h, f4l, f4h, U1, B2_0_4)
        n = _broadside2(out, n, p0l, p0h, f2l, f2h, U1, B2_0_2)
        n = _broadside2(out, n, p0l, p0h, f1l, f1h, U1, B2_0_1)
    return n


@kernel
def generate_moves(ol, oh, ql, qh, out):
    """The moves of the side owning the board (ol, oh) against (ql, qh) into out[:n],
    best-first; returns n."""
    el = ON_LO ^ ol ^ ql
    eh = ON_HI ^ oh ^ qh
    # f<d>: the cells whose neighbour in direction d is empty.
    f0l, f0h = shr(el, eh, U1)
    f1l, f1h = shl(el, eh, U10)
    f2l, f2h = shl(el, eh, U11)
    f3l, f3h = shl(el, eh, U1)
    f4l, f4h = shr(el, eh, U10)
    f5l, f5h = shr(el, eh, U11)
    # p<a>, t<a>: the cells c with c, c - u own (pairs) and c, c - u, c - 2u (triples).
    sl, sh = shl(ol, oh, U1)
    p0l, p0h = ol & sl, oh & sh
    sl, sh = shl(p0l, p0h, U1)
    t0l, t0h = p0l & sl, p0h & sh
    sl, sh = shl(ol, oh, U10)
    p1l, p1h = ol & sl, oh & sh
    sl, sh = shl(p1l, p1h, U10)
    t1l, t1h = p1l & sl, p1h & sh
    sl, sh = shl(ol, oh, U11)
    p2l, p2h = ol & sl, oh & sh
    sl, sh = shl(p2l, p2h, U11)
    t2l, t2h = p2l & sl, p2h & sh

    # Pushes (orders 6 and 5): only where a line has an enemy marble in front.
    n = np.int64(0)
    al, ah = shr(ql, qh, U1)
    bl, bh = shl(ql, qh, U1)
    sl, sh = shr(p0l, p0h, U1)
    cl = (p0l & al) | (sl & bl)
    ch = (p0h & ah) | (sh & bh)
    al, ah = shr(ql, qh, U10)
    bl, bh = shl(ql, qh, U10)
    sl, sh = shr(p1l, p1h, U10)
    cl |= (p1l & al) | (sl & bl)
    ch |= (p1h & ah) | (sh & bh)
    al, ah = shr(ql, qh, U11)
    bl, bh = shl(ql, qh, U11)
    sl, sh = shr(p2l, p2h, U11)
    cl |= (p2l & al) | (sl & bl)
    ch |= (p2h & ah) | (sh & bh)
    if (cl | ch) != U0:
        n = _pushes(out, p0l, p0h, t0l, t0h, p1l, p1h, t1l, t1h, p2l, p2h, t2l, t2h, ql, qh,
                    f0l, f0h, f1l, f1h, f2l, f2h, f3l, f3h, f4l, f4h, f5l, f5h)

    if (t0l | t0h | t1l | t1h | t2l | t2h) != U0:
        n = _triple_moves(out, n, t0l, t0h, t1l, t1h, t2l, t2h,
                          f0l, f0h, f1l, f1h, f2l, f2h, f3l, f3h, f4l, f4h, f5l, f5h)
    if (p0l | p0h | p1l | p1h | p2l | p2h) != U0:
        n = _pair_moves(out, n, p0l, p0h, p1l, p1h, p2l, p2h,
                        f0l, f0h, f1l, f1h, f2l, f2h, f3l, f3h, f4l, f4h, f5l, f5h)
    # Single marbles (order 0): directions 5, 2, 4, 1, 3, 0.
    n = _emit(out, n, ol & f5l, oh & f5h, S5)
    n = _emit(out, n, ol & f2l, oh & f2h, S2)
    n = _emit(out, n, ol & f4l, oh & f4h, S4)
    n = _emit(out, n, ol & f1l, oh & f1h, S1)
    n = _emit(out, n, ol & f3l, oh & f3h, S3)
    n = _emit(out, n, ol & f0l, oh & f0h, S0)
    return n


@kernel(inline=True)
def _push_masks_forward(pl, ph, tl, th, ql, qh, fl, fh, rl, rh, u):
    """The union of the anchors of the pushes `_pushes_forward` emits."""
    onel, oneh = shr(ql & fl, qh & fh, u)
    offl, offh = shr(ql & rl, qh & rh, u)
    ml = (pl | tl) & (onel | offl)
    mh = (ph | th) & (oneh | offh)
    twol, twoh = shr(ql & (onel | offl), qh & (oneh | offh), u)
    return ml | (tl & twol), mh | (th & twoh)


@kernel
def has_move(ol, oh, ql, qh):
    """Whether the side owning the board (ol, oh) has a move against (ql, qh): almost
    always some marble has an empty neighbour; else only a push can move."""
    el = ON_LO ^ ol ^ ql
    eh = ON_HI ^ oh ^ qh
    al, ah = shr(el, eh, U1)
    bl, bh = shl(el, eh, U1)
    al |= bl
    ah |= bh
    bl, bh = shr(el, eh, U10)
    al |= bl
    ah |= bh
    bl, bh = shl(el, eh, U10)
    al |= bl
    ah |= bh
    bl, bh = shr(el, eh, U11)
    al |= bl
    ah |= bh
    bl, bh = shl(el, eh, U11)
    al |= bl
    ah |= bh
    if (ol & al) | (oh & ah) != U0:
        return True
    # No marble has an empty neighbour: only a push can move.
    for axis in range(3):
        if axis == 0:
            u, uu = U1, U2
            fpl, fph, fml, fmh = shr(el, eh, U1) + shl(el, eh, U1)
            rpl, rph, rml, rmh = RIM0_LO, RIM0_HI, RIM3_LO, RIM3_HI
        elif axis == 1:
            u, uu = U10, U20
            fpl, fph, fml, fmh = shr(el, eh, U10) + shl(el, eh, U10)
            rpl, rph, rml, rmh = RIM4_LO, RIM4_HI, RIM1_LO, RIM1_HI
        else:
            u, uu = U11, U22
            fpl, fph, fml, fmh = shr(el, eh, U11) + shl(el, eh, U11)
            rpl, rph, rml, rmh = RIM5_LO, RIM5_HI, RIM2_LO, RIM2_HI
        sl, sh = shl(ol, oh, u)
        pl, ph = ol & sl, oh & sh
        sl, sh = shl(pl, ph, u)
        tl, th = pl & sl, ph & sh
        ml, mh = _push_masks_forward(pl, ph, tl, th, ql, qh, fpl, fph, rpl, rph, u)
        if ml | mh != U0:
            return True
        # Moving -u: the mirror image, with the lines' front marble at their lower end.
        pl, ph = shr(pl, ph, u)
        tl, th = shr(tl, th, uu)
        onel, oneh = shl(ql & fml, qh & fmh, u)
        offl, offh = shl(ql & rml, qh & rmh, u)
        ml = (pl | tl) & (onel | offl)
        mh = (ph | th) & (oneh | offh)
        twol, twoh = shl(ql & (onel | offl), qh & (oneh | offh), u)
        if (ml | (tl & twol)) | (mh | (th & twoh)) != U0:
            return True
    return False


# ---- the contract ----------------------------------------------------------------------


@kernel(inline=True)
def finished(black_score, white_score, turn):
    """Whether the game is over whatever the marbles: a side has pushed off six, or the
    ply limit is reached."""
    return black_score >= WINNING_SCORE or white_score >= WINNING_SCORE or turn >= MAX_PLIES


@kernel
def legal_moves(s, out):
    """The moves of the side to move into out[:n], best-first; returns n (0 once the
    game is over)."""
    black_lo, black_hi, white_lo, white_hi, side, _, black_score, white_score, turn = s
    if finished(black_score, white_score, turn):
        return 0
    if side == BLACK:
        return generate_moves(black_lo, black_hi, white_lo, white_hi, out)
    return generate_moves(white_lo, white_hi, black_lo, black_hi, out)


@kernel
def play(s, move):
    """The position after `move`, key included."""
    black_lo, black_hi, white_lo, white_hi, side, key, black_score, white_score, turn = s
    anchor = move & 127
    direction = (move >> 7) & 7
    count = (move >> 10) & 3
    axis = (move >> 12) & 3
    pushed = (move >> 14) & 3
    step = STEP[direction]
    other = 1 - side
    key ^= PLY_KEYS[turn]
    off = 0
    ql = U0
    qh = U0
    if count == 1 or direction % 3 == axis:
        # In line: the cell in front is taken, the rear cell left.
        target = anchor + step
        rear = anchor - (count - 1) * step
        ol = BIT_LO[target] | BIT_LO[rear]
        oh = BIT_HI[target] | BIT_HI[rear]
        key ^= MARBLE_KEYS[side, target] ^ MARBLE_KEYS[side, rear]
        if pushed != 0:
            behind = target + pushed * step
            ql = BIT_LO[target]
            qh = BIT_HI[target]
            key ^= MARBLE_KEYS[other, target]
            if ON_CELL[behind] != 0:
                ql |= BIT_LO[behind]
                qh |= BIT_HI[behind]
                key ^= MARBLE_KEYS[other, behind]
            else:
                off = 1
    else:
        # Broadside: every marble steps aside.
        line = AXIS_STEP[axis]
        ol = U0
        oh = U0
        for k in range(count):
            cell = anchor - k * line
            ol |= BIT_LO[cell] | BIT_LO[cell + step]
            oh |= BIT_HI[cell] | BIT_HI[cell + step]
            key ^= MARBLE_KEYS[side, cell] ^ MARBLE_KEYS[side, cell + step]
    if side == BLACK:
        if off != 0:
            key ^= SCORE_STEP_KEYS[BLACK, black_score]
            black_score += 1
        return (black_lo ^ ol, black_hi ^ oh, white_lo ^ ql, white_hi ^ qh, side ^ 1, key,
                black_score, white_score, turn + 1)
    if off != 0:
        key ^= SCORE_STEP_KEYS[WHITE, white_score]
        white_score += 1
    return (black_lo ^ ql, black_hi ^ qh, white_lo ^ ol, white_hi ^ oh, side ^ 1, key,
            black_score, white_score, turn + 1)


@kernel
def key(s):
    return s[5]


@kernel
def to_move(s):
    return s[4]


@kernel
def result(s):
    """ONGOING while the game goes on, else the side to move's return: once a side has
    pushed off six it wins, at the ply limit the side that pushed off more wins (equal
    is a draw); a side to move without a move has lost."""
    black_lo, black_hi, white_lo, white_hi, side, _, black_score, white_score, turn = s
    if finished(black_score, white_score, turn):
        if black_score >= WINNING_SCORE:
            black_return = 1
        elif white_score >= WINNING_SCORE:
            black_return = -1
        elif black_score > white_score:
            black_return = 1
        elif black_score < white_score:
            black_return = -1
        else:
            black_return = 0
        return np.int64(black_return if side == BLACK else -black_return)
    if side == BLACK:
        moves = has_move(black_lo, black_hi, white_lo, white_hi)
    else:
        moves = has_move(white_lo, white_hi, black_lo, black_hi)
    return np.int64(ONGOING if moves else -1)


@kernel
def margin(s):
    """The side to move's margin in a finished position: the marbles it pushed off minus
    the other side's (in every outcome, "no move" included)."""
    side = s[4]
    black_score = s[6]
    white_score = s[7]
    return black_score - white_score if side == BLACK else white_score - black_score


@kernel
def solvable(s):
    """Never: no exact search reaches the end of an Abalone game."""
    return False
