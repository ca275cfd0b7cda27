"""Abalone kernels: `games.abalone.rules` and `games.abalone.evaluation` compiled.

The reference holds each side's marbles in one Python int over the padded 11x11 grid
(bit index (r + 5) * 11 + (q + 5), `games.abalone.hexboard`): 121 bits. Here each board
is two uint64 words with the same bit indices, `lo` the bits 0..63 and `hi` the bits
64..120; a shift of the whole board carries bits across the words (`_shl`, `_shr`,
shifts of 1 to 22). The reference's Python ints never truncate, these do at bit 127, but
every bit past the grid that a left shift makes is ANDed away before any right shift, so
the masks are the reference's bit for bit.

A compiled state is the tuple

    (black_lo, black_hi, white_lo, white_hi, to_move, key, black_score, white_score, turn)

np.uint64 for the four board words and the key, np.int64 for the rest: the fields of
`AbaloneState` in its order, each board split in two.

Move ints are the reference's (`games.abalone.hexboard`). The reference's
`generate_moves` collects its masks per axis and sorts the moves in descending order;
`generate_moves` here emits them straight in that order: the pushes (orders 6 and 5, the
rarer moves) into the buffer as they come and then sorted in place, then every other
group of moves (order, axis, count, direction: the high bits of the move int) from the
highest to the lowest, each group's anchors from the highest bit down. The work is split
over four compiled functions (pushes, lines of three, lines of two, single marbles)
because numba's compile time grows with the square of one inlined body. `play` works
out what a move changes from its fields where the reference looks its `MOVE_EFFECTS`
table up: the same masks and keys, without a table of 65536 entries to keep in cache.
"""

from __future__ import annotations

import numpy as np
from games.kernel import kernel

from games.kernel import lowest_bit, popcount
from compiled.core import ONGOING
from games.abalone import evaluation as _evaluation
from games.abalone import rules as _rules
from games.abalone.hexboard import (
    AXIS_STEPS,
    MAX_PLIES,
    NEGATIVE_DIRECTIONS,
    ON_BOARD,
    ORDER_BROADSIDE_2,
    ORDER_BROADSIDE_3,
    ORDER_INLINE_2,
    ORDER_INLINE_3,
    ORDER_PUSH,
    ORDER_PUSH_OFF,
    ORDER_SINGLE,
    POSITIVE_DIRECTIONS,
    RIM,
    RINGS,
    STEPS,
    WINNING_SCORE,
    move_int,
)
from games.abalone.rules import BLACK, WHITE, AbaloneState

#: Legal moves of one position at most: 14 marbles (the board text allows no more), each
#: moving in each of the 6 directions at most once as a single marble (84), once as each
#: line of two (at most 29 adjacent pairs among 14 cells of a triangular lattice) and
#: once as each line of three (no more than the pairs). The buffer is written up to
#: this bound only: a made-up state with more marbles could overrun it.
MAX_MOVES = 14 * 6 + 29 * 6 + 29 * 6
#: Every move int is below 2**19 (the order field is bits 16..18).
MOVE_LIMIT = 1 << 19
#: The history table is indexed by a move's low 16 bits: its marbles, direction, axis
#: and pushed count, from which its order bits follow (`games.abalone.hexboard`), so
#: distinct moves keep distinct entries in a table 8 times smaller.
HISTORY_MASK = (1 << 16) - 1

_M64 = (1 << 64) - 1


def _lo(board: int) -> np.uint64:
    return np.uint64(board & _M64)


def _hi(board: int) -> np.uint64:
    return np.uint64(board >> 64)


U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U10 = np.uint64(10)
U11 = np.uint64(11)
U20 = np.uint64(20)
U22 = np.uint64(22)
U64 = np.uint64(64)

ON_LO, ON_HI = _lo(ON_BOARD), _hi(ON_BOARD)
# RIM[d]: the cells whose neighbour in direction d is off the board.
RIM0_LO, RIM0_HI = _lo(RIM[0]), _hi(RIM[0])
RIM1_LO, RIM1_HI = _lo(RIM[1]), _hi(RIM[1])
RIM2_LO, RIM2_HI = _lo(RIM[2]), _hi(RIM[2])
RIM3_LO, RIM3_HI = _lo(RIM[3]), _hi(RIM[3])
RIM4_LO, RIM4_HI = _lo(RIM[4]), _hi(RIM[4])
RIM5_LO, RIM5_HI = _lo(RIM[5]), _hi(RIM[5])
RING1_LO, RING1_HI = _lo(RINGS[1]), _hi(RINGS[1])
RING2_LO, RING2_HI = _lo(RINGS[2]), _hi(RINGS[2])
RING3_LO, RING3_HI = _lo(RINGS[3]), _hi(RINGS[3])
RING4_LO, RING4_HI = _lo(RINGS[4]), _hi(RINGS[4])

assert STEPS == (1, -10, -11, -1, 10, 11) and AXIS_STEPS == (1, 10, 11)
assert POSITIVE_DIRECTIONS == (0, 4, 5) and NEGATIVE_DIRECTIONS == (3, 1, 2)

# The bit of each grid cell as two words (an index 0..127).
BIT_LO = np.array([_lo(1 << i) for i in range(128)], dtype=np.uint64)
BIT_HI = np.array([_hi(1 << i) for i in range(128)], dtype=np.uint64)
ON_CELL = np.array([ON_BOARD >> i & 1 for i in range(128)], dtype=np.int64)
STEP = np.array(STEPS, dtype=np.int64)
AXIS_STEP = np.array(AXIS_STEPS, dtype=np.int64)

# Keys, as the reference's (`games.abalone.rules`).
MARBLE_KEYS = np.array([_rules._MARBLE_KEYS[BLACK], _rules._MARBLE_KEYS[WHITE]], dtype=np.uint64)
PLY_KEYS = np.array(_rules._PLY_KEYS, dtype=np.uint64)
SCORE_STEP_KEYS = np.array(_rules._SCORE_STEP_KEYS, dtype=np.uint64)

WIN = WINNING_SCORE
PLY_LIMIT = MAX_PLIES

MATERIAL_WEIGHT = _evaluation.MATERIAL_WEIGHT
CENTRE_WEIGHT = _evaluation.CENTRE_WEIGHT
COHESION_WEIGHT = _evaluation.COHESION_WEIGHT
DANGER_WEIGHT = _evaluation.DANGER_WEIGHT
PUSH_WEIGHT = _evaluation.PUSH_WEIGHT

# ---- move int bases (anchor 0) ---------------------------------------------------------
# np.int64, not int: numba types a global int as a literal, and a helper called with a
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


# ---- 128-bit helpers -------------------------------------------------------------------


@kernel(inline=True)
def _shl(lo, hi, s):
    """(lo, hi) shifted left by s, 0 < s < 64 (bits past 127 are lost)."""
    return lo << s, (hi << s) | (lo >> (U64 - s))


@kernel(inline=True)
def _shr(lo, hi, s):
    """(lo, hi) shifted right by s, 0 < s < 64."""
    return (lo >> s) | (hi << (U64 - s)), hi >> s


@kernel(inline=True)
def _count(lo, hi):
    return popcount(lo) + popcount(hi)


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


# ---- move generation -------------------------------------------------------------------


@kernel(inline=True)
def _pushes_forward(out, n, pl, ph, tl, th, ql, qh, fl, fh, rl, rh, u,
                    b21, b31, b32, o21, o31, o32):
    """The pushes moving +u of the pairs p and triples t into the enemy q, with f the
    cells whose +u neighbour is empty and r the cells whose +u neighbour is off."""
    gl, gh = _shr(ql, qh, u)
    if (pl & gl) | (ph & gh) == U0:
        return n
    onel, oneh = _shr(ql & fl, qh & fh, u)
    offl, offh = _shr(ql & rl, qh & rh, u)
    n = _emit_call(out, n, pl & onel, ph & oneh, b21)
    n = _emit_call(out, n, pl & offl, ph & offh, o21)
    if (tl & gl) | (th & gh) == U0:
        return n
    n = _emit_call(out, n, tl & onel, th & oneh, b31)
    n = _emit_call(out, n, tl & offl, th & offh, o31)
    twol, twoh = _shr(ql & onel, qh & oneh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, b32)
    twol, twoh = _shr(ql & offl, qh & offh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, o32)
    return n


@kernel(inline=True)
def _pushes_backward(out, n, pl, ph, tl, th, ql, qh, fl, fh, rl, rh, u, uu,
                     b21, b31, b32, o21, o31, o32):
    """The pushes moving -u: as `_pushes_forward` with the lines' front marble at their
    lower end (f and r of direction -u)."""
    pl, ph = _shr(pl, ph, u)
    gl, gh = _shl(ql, qh, u)
    if (pl & gl) | (ph & gh) == U0:
        return n
    tl, th = _shr(tl, th, uu)
    onel, oneh = _shl(ql & fl, qh & fh, u)
    offl, offh = _shl(ql & rl, qh & rh, u)
    n = _emit_call(out, n, pl & onel, ph & oneh, b21)
    n = _emit_call(out, n, pl & offl, ph & offh, o21)
    if (tl & gl) | (th & gh) == U0:
        return n
    n = _emit_call(out, n, tl & onel, th & oneh, b31)
    n = _emit_call(out, n, tl & offl, th & offh, o31)
    twol, twoh = _shl(ql & onel, qh & oneh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, b32)
    twol, twoh = _shl(ql & offl, qh & offh, u)
    n = _emit_call(out, n, tl & twol, th & twoh, o32)
    return n


@kernel(inline=True)
def _broadside3(out, n, tl, th, fl, fh, u, base):
    bl, bh = _shl(fl, fh, u)
    bl &= fl
    bh &= fh
    cl, ch = _shl(bl, bh, u)
    return _emit(out, n, tl & bl & cl, th & bh & ch, base)


@kernel(inline=True)
def _broadside2(out, n, pl, ph, fl, fh, u, base):
    bl, bh = _shl(fl, fh, u)
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
        sl, sh = _shr(t2l, t2h, U22)
        n = _emit(out, n, sl & f2l, sh & f2h, I3_2)
    if (t1l | t1h) != U0:
        n = _emit(out, n, t1l & f4l, t1h & f4h, I3_4)
        sl, sh = _shr(t1l, t1h, U20)
        n = _emit(out, n, sl & f1l, sh & f1h, I3_1)
    if (t0l | t0h) != U0:
        sl, sh = _shr(t0l, t0h, U2)
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
        sl, sh = _shr(p2l, p2h, U11)
        n = _emit(out, n, sl & f2l, sh & f2h, I2_2)
    if (p1l | p1h) != U0:
        n = _emit(out, n, p1l & f4l, p1h & f4h, I2_4)
        sl, sh = _shr(p1l, p1h, U10)
        n = _emit(out, n, sl & f1l, sh & f1h, I2_1)
    if (p0l | p0h) != U0:
        sl, sh = _shr(p0l, p0h, U1)
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
    """The reference's `generate_moves(own, opp)` into out[:n]; returns n."""
    el = ON_LO ^ ol ^ ql
    eh = ON_HI ^ oh ^ qh
    # f<d>: the cells whose neighbour in direction d is empty.
    f0l, f0h = _shr(el, eh, U1)
    f1l, f1h = _shl(el, eh, U10)
    f2l, f2h = _shl(el, eh, U11)
    f3l, f3h = _shl(el, eh, U1)
    f4l, f4h = _shr(el, eh, U10)
    f5l, f5h = _shr(el, eh, U11)
    # p<a>, t<a>: the cells c with c, c - u own (pairs) and c, c - u, c - 2u (triples).
    sl, sh = _shl(ol, oh, U1)
    p0l, p0h = ol & sl, oh & sh
    sl, sh = _shl(p0l, p0h, U1)
    t0l, t0h = p0l & sl, p0h & sh
    sl, sh = _shl(ol, oh, U10)
    p1l, p1h = ol & sl, oh & sh
    sl, sh = _shl(p1l, p1h, U10)
    t1l, t1h = p1l & sl, p1h & sh
    sl, sh = _shl(ol, oh, U11)
    p2l, p2h = ol & sl, oh & sh
    sl, sh = _shl(p2l, p2h, U11)
    t2l, t2h = p2l & sl, p2h & sh

    # Pushes (orders 6 and 5): only where a line has an enemy marble in front.
    n = np.int64(0)
    al, ah = _shr(ql, qh, U1)
    bl, bh = _shl(ql, qh, U1)
    sl, sh = _shr(p0l, p0h, U1)
    cl = (p0l & al) | (sl & bl)
    ch = (p0h & ah) | (sh & bh)
    al, ah = _shr(ql, qh, U10)
    bl, bh = _shl(ql, qh, U10)
    sl, sh = _shr(p1l, p1h, U10)
    cl |= (p1l & al) | (sl & bl)
    ch |= (p1h & ah) | (sh & bh)
    al, ah = _shr(ql, qh, U11)
    bl, bh = _shl(ql, qh, U11)
    sl, sh = _shr(p2l, p2h, U11)
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
    onel, oneh = _shr(ql & fl, qh & fh, u)
    offl, offh = _shr(ql & rl, qh & rh, u)
    ml = (pl | tl) & (onel | offl)
    mh = (ph | th) & (oneh | offh)
    twol, twoh = _shr(ql & (onel | offl), qh & (oneh | offh), u)
    return ml | (tl & twol), mh | (th & twoh)


@kernel
def has_move(ol, oh, ql, qh):
    """The reference's `has_move(own, opp)`."""
    el = ON_LO ^ ol ^ ql
    eh = ON_HI ^ oh ^ qh
    al, ah = _shr(el, eh, U1)
    bl, bh = _shl(el, eh, U1)
    al |= bl
    ah |= bh
    bl, bh = _shr(el, eh, U10)
    al |= bl
    ah |= bh
    bl, bh = _shl(el, eh, U10)
    al |= bl
    ah |= bh
    bl, bh = _shr(el, eh, U11)
    al |= bl
    ah |= bh
    bl, bh = _shl(el, eh, U11)
    al |= bl
    ah |= bh
    if (ol & al) | (oh & ah) != U0:
        return True
    # No marble has an empty neighbour: only a push can move.
    for axis in range(3):
        if axis == 0:
            u, uu = U1, U2
            fpl, fph, fml, fmh = _shr(el, eh, U1) + _shl(el, eh, U1)
            rpl, rph, rml, rmh = RIM0_LO, RIM0_HI, RIM3_LO, RIM3_HI
        elif axis == 1:
            u, uu = U10, U20
            fpl, fph, fml, fmh = _shr(el, eh, U10) + _shl(el, eh, U10)
            rpl, rph, rml, rmh = RIM4_LO, RIM4_HI, RIM1_LO, RIM1_HI
        else:
            u, uu = U11, U22
            fpl, fph, fml, fmh = _shr(el, eh, U11) + _shl(el, eh, U11)
            rpl, rph, rml, rmh = RIM5_LO, RIM5_HI, RIM2_LO, RIM2_HI
        sl, sh = _shl(ol, oh, u)
        pl, ph = ol & sl, oh & sh
        sl, sh = _shl(pl, ph, u)
        tl, th = pl & sl, ph & sh
        ml, mh = _push_masks_forward(pl, ph, tl, th, ql, qh, fpl, fph, rpl, rph, u)
        if ml | mh != U0:
            return True
        # Moving -u: the mirror image, with the lines' front marble at their lower end.
        pl, ph = _shr(pl, ph, u)
        tl, th = _shr(tl, th, uu)
        onel, oneh = _shl(ql & fml, qh & fmh, u)
        offl, offh = _shl(ql & rml, qh & rmh, u)
        ml = (pl | tl) & (onel | offl)
        mh = (ph | th) & (oneh | offh)
        twol, twoh = _shl(ql & (onel | offl), qh & (oneh | offh), u)
        if (ml | (tl & twol)) | (mh | (th & twoh)) != U0:
            return True
    return False


# ---- the contract ----------------------------------------------------------------------


def pack(state: AbaloneState) -> tuple:
    """The compiled state of a reference `AbaloneState`."""
    black, white, to_move, key, black_score, white_score, turn = state
    return (_lo(black), _hi(black), _lo(white), _hi(white), np.int64(to_move),
            np.uint64(key), np.int64(black_score), np.int64(white_score), np.int64(turn))


def unpack(s: tuple) -> AbaloneState:
    """The reference `AbaloneState` of a compiled state."""
    black_lo, black_hi, white_lo, white_hi, to_move, key, black_score, white_score, turn = s
    return AbaloneState(int(black_lo) | int(black_hi) << 64, int(white_lo) | int(white_hi) << 64,
                        int(to_move), int(key), int(black_score), int(white_score), int(turn))


@kernel
def legal_moves(s, out):
    """The reference's `state.legal_moves()` into out[:n]; returns n."""
    black_lo, black_hi, white_lo, white_hi, side, _, black_score, white_score, turn = s
    if black_score >= WIN or white_score >= WIN or turn >= PLY_LIMIT:
        return 0
    if side == BLACK:
        return generate_moves(black_lo, black_hi, white_lo, white_hi, out)
    return generate_moves(white_lo, white_hi, black_lo, black_hi, out)


@kernel
def play(s, move):
    """The reference's `state.play(move)`."""
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
    """ONGOING, else the sign of the reference's outcome for the side to move:
    `final_outcome` once a side has six off or the ply limit is reached, else
    `no_move_outcome` (a loss) when the side to move has no move."""
    black_lo, black_hi, white_lo, white_hi, side, _, black_score, white_score, turn = s
    if black_score >= WIN or white_score >= WIN or turn >= PLY_LIMIT:
        if black_score >= WIN:
            black_return = 1
        elif white_score >= WIN:
            black_return = -1
        elif black_score > white_score:
            black_return = 1
        elif black_score < white_score:
            black_return = -1
        else:
            black_return = 0
        return black_return if side == BLACK else -black_return
    if side == BLACK:
        moves = has_move(black_lo, black_hi, white_lo, white_hi)
    else:
        moves = has_move(white_lo, white_hi, black_lo, black_hi)
    return ONGOING if moves else -1


@kernel
def margin(s):
    """The outcome's margin for the side to move: black's marbles pushed off minus
    white's, from its view (in every outcome, "no move" included)."""
    side = s[4]
    black_score = s[6]
    white_score = s[7]
    return black_score - white_score if side == BLACK else white_score - black_score


# ---- evaluation ------------------------------------------------------------------------


@kernel(inline=True)
def _attacks_axis(ol, oh, ql, qh, el, eh, u, uu, rpl, rph, rml, rmh):
    """One axis of the reference's `attacks`: (pushes, off mask lo, off mask hi)."""
    pushes = 0
    offl = U0
    offh = U0
    sl, sh = _shl(ol, oh, u)
    pl, ph = ol & sl, oh & sh
    if (pl | ph) == U0:
        return pushes, offl, offh
    sl, sh = _shl(pl, ph, u)
    tl, th = pl & sl, ph & sh
    # Moving +u.
    gl, gh = _shr(ql, qh, u)
    if (pl & gl) | (ph & gh) != U0:
        edgel, edgeh = ql & rpl, qh & rph
        sl, sh = _shr(el, eh, u)
        headl, headh = _shr((ql & sl) | edgel, (qh & sh) | edgeh, u)
        pushes += _count(pl & headl, ph & headh)
        sl, sh = _shl(pl, ph, u)
        offl |= edgel & sl
        offh |= edgeh & sh
        if (tl & gl) | (th & gh) != U0:
            pushes += _count(tl & headl, th & headh)
            twol, twoh = ql & headl, qh & headh
            sl, sh = _shr(twol, twoh, u)
            pushes += _count(tl & sl, th & sh)
            sl, sh = _shl(tl, th, u)
            sl, sh = _shl(twol & sl, twoh & sh, u)
            offl |= edgel & sl
            offh |= edgeh & sh
    # Moving -u.
    pl, ph = _shr(pl, ph, u)
    gl, gh = _shl(ql, qh, u)
    if (pl & gl) | (ph & gh) != U0:
        tl, th = _shr(tl, th, uu)
        edgel, edgeh = ql & rml, qh & rmh
        sl, sh = _shl(el, eh, u)
        headl, headh = _shl((ql & sl) | edgel, (qh & sh) | edgeh, u)
        pushes += _count(pl & headl, ph & headh)
        sl, sh = _shr(pl, ph, u)
        offl |= edgel & sl
        offh |= edgeh & sh
        if (tl & gl) | (th & gh) != U0:
            pushes += _count(tl & headl, th & headh)
            twol, twoh = ql & headl, qh & headh
            sl, sh = _shl(twol, twoh, u)
            pushes += _count(tl & sl, th & sh)
            sl, sh = _shr(tl, th, u)
            sl, sh = _shr(twol & sl, twoh & sh, u)
            offl |= edgel & sl
            offh |= edgeh & sh
    return pushes, offl, offh


@kernel(inline=True)
def _attacks(ol, oh, ql, qh, el, eh):
    """The reference's `attacks(own, opp, empty)`: (pushes, off mask lo, off mask hi)."""
    p0, a0, b0 = _attacks_axis(ol, oh, ql, qh, el, eh, U1, U2, RIM0_LO, RIM0_HI, RIM3_LO, RIM3_HI)
    p1, a1, b1 = _attacks_axis(ol, oh, ql, qh, el, eh, U10, U20,
                               RIM4_LO, RIM4_HI, RIM1_LO, RIM1_HI)
    p2, a2, b2 = _attacks_axis(ol, oh, ql, qh, el, eh, U11, U22,
                               RIM5_LO, RIM5_HI, RIM2_LO, RIM2_HI)
    return p0 + p1 + p2, a0 | a1 | a2, b0 | b1 | b2


@kernel(inline=True)
def _adjacent(bl, bh):
    """Adjacent pairs of a board along the three axes."""
    sl, sh = _shl(bl, bh, U1)
    total = _count(bl & sl, bh & sh)
    sl, sh = _shl(bl, bh, U10)
    total += _count(bl & sl, bh & sh)
    sl, sh = _shl(bl, bh, U11)
    return total + _count(bl & sl, bh & sh)


@kernel
def evaluate(s):
    """The reference's `GAME.evaluate(state)[state.to_move]`."""
    bl, bh, wl, wh, side, _, black_score, white_score, _ = s
    el = ON_LO ^ bl ^ wl
    eh = ON_HI ^ bh ^ wh
    black_pushes, wdl, wdh = _attacks(bl, bh, wl, wh, el, eh)
    white_pushes, bdl, bdh = _attacks(wl, wh, bl, bh, el, eh)
    centre = (_count(wl & RING1_LO, wh & RING1_HI) - _count(bl & RING1_LO, bh & RING1_HI)
              + 2 * (_count(wl & RING2_LO, wh & RING2_HI) - _count(bl & RING2_LO, bh & RING2_HI))
              + 3 * (_count(wl & RING3_LO, wh & RING3_HI) - _count(bl & RING3_LO, bh & RING3_HI))
              + 4 * (_count(wl & RING4_LO, wh & RING4_HI) - _count(bl & RING4_LO, bh & RING4_HI)))
    cohesion = _adjacent(bl, bh) - _adjacent(wl, wh)
    value = (MATERIAL_WEIGHT * (black_score - white_score) + CENTRE_WEIGHT * centre
             + COHESION_WEIGHT * cohesion
             + DANGER_WEIGHT * (_count(wdl, wdh) - _count(bdl, bdh))
             + PUSH_WEIGHT * (black_pushes - white_pushes))
    return value if side == BLACK else -value


@kernel
def solvable(s):
    """The reference's `solvable`: never (the endgame solver is not used for Abalone)."""
    return False
