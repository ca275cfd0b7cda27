"""Othello's two line kernels over 64-bit bitboards: `move_mask` (where a side can place
a disc) and `flips` (which discs a placement turns over).

Bit i is square i = 8 * (row - 1) + file (see the package docstring), so a shift by +1
steps east, +8 one row down the printed board, +9 south-east and +7 south-west.

Compiled, both work on the four line directions at once, in the four 64-bit lanes of an
LLVM vector (one AVX2 register; LLVM splits it into narrower ones on a machine without
AVX2), through numba intrinsics. Each carries its plain-Python twin (`games.kernel.twin`)
over Python ints, run where the kernels are interpreted or numba is missing: the same
runs of enemy discs grown the same way for `move_mask`, ray by ray for `flips`.
"""

from __future__ import annotations

import numpy as np

from games.kernel import COMPILING, kernel, twin

FULL = (1 << 64) - 1
FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
#: Squares off the a- and h-files: where a run of discs moving east or west can lie.
INNER_FILES = FULL ^ FILE_A ^ FILE_H

#: The steps (file, row) of the eight line directions: those towards higher square
#: indices (E, S, SE, SW), then those towards lower ones (W, N, NW, NE).
_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1))


def _rays() -> np.ndarray:
    """RAYS[square, d]: the squares from `square` (excluded) to the board edge in the
    direction `_DIRECTIONS[d]`."""
    rays = np.zeros((64, 8), dtype=np.uint64)
    for square in range(64):
        row, file = divmod(square, 8)
        for index, (file_step, row_step) in enumerate(_DIRECTIONS):
            ray = 0
            r, f = row + row_step, file + file_step
            while 0 <= r < 8 and 0 <= f < 8:
                ray |= 1 << (r * 8 + f)
                r, f = r + row_step, f + file_step
            rays[square, index] = np.uint64(ray)
    return rays


#: RAYS[square, d]: 0..3 the rays towards higher indices, 4..7 towards lower ones.
RAYS = _rays()


# ---- the plain-Python twins ------------------------------------------------------------

#: Every byte value with its bits in reverse order.
_REVERSED_BYTES = bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))
#: The bit where the half-turned copy of a board starts in a packed board: far enough
#: above bit 63 that no shift of the low copy reaches it.
_HIGH = 96
_PACKED_FULL = FULL | FULL << _HIGH
_PACKED_INNER_FILES = INNER_FILES | INNER_FILES << _HIGH


def _half_turn(board: int) -> int:
    """The board turned half a round: square s goes to 63 - s (h8 to a1, a8 to h1)."""
    return int.from_bytes(board.to_bytes(8, "little").translate(_REVERSED_BYTES), "big")


def _move_mask_python(own, opp):
    """`move_mask` over Python ints, one left shift per pair of opposite directions.

    The boards are packed with a half-turned copy of themselves above `_HIGH`: on the
    copy a left shift steps the opposite way, so one left shift serves both directions
    of a line (east and west, south and north, ...) and the two halves are merged at the
    end.
    """
    own, opp = int(own), int(opp)
    own_packed = own | _half_turn(own) << _HIGH
    opp_packed = opp | _half_turn(opp) << _HIGH
    mask = opp_packed & _PACKED_INNER_FILES
    # East (+1); west on the copy.
    run = mask & (own_packed << 1)
    run |= mask & (run << 1)
    pairs = mask & (mask << 1)
    run |= pairs & (run << 2)
    run |= pairs & (run << 2)
    moves = run << 1
    # South (+8); north on the copy. No wrap is possible: every enemy disc counts.
    run = opp_packed & (own_packed << 8)
    run |= opp_packed & (run << 8)
    pairs = opp_packed & (opp_packed << 8)
    run |= pairs & (run << 16)
    run |= pairs & (run << 16)
    moves |= run << 8
    # South-west (+7); north-east on the copy.
    run = mask & (own_packed << 7)
    run |= mask & (run << 7)
    pairs = mask & (mask << 7)
    run |= pairs & (run << 14)
    run |= pairs & (run << 14)
    moves |= run << 7
    # South-east (+9); north-west on the copy.
    run = mask & (own_packed << 9)
    run |= mask & (run << 9)
    pairs = mask & (mask << 9)
    run |= pairs & (run << 18)
    run |= pairs & (run << 18)
    moves |= run << 9
    moves &= _PACKED_FULL ^ (own_packed | opp_packed)
    return np.uint64(moves & FULL | _half_turn(moves >> _HIGH))


def _next_and_ray(ray: int, rising: bool) -> tuple[int, int]:
    """(the bit of the ray's square next to its origin, the ray)."""
    return (ray & -ray if rising else 1 << (ray.bit_length() - 1)), ray


#: _RISING_RAYS[s]: (next square's bit, ray) for each ray of `RAYS[s, 0:4]` that holds
#: two squares or more (a ray of one square can hold no enemy disc with an own disc
#: behind it); _FALLING_RAYS[s] likewise for `RAYS[s, 4:8]`.
_RISING_RAYS = tuple(tuple(_next_and_ray(ray, True) for ray in map(int, RAYS[square, :4]) if ray.bit_count() >= 2)
                     for square in range(64))
_FALLING_RAYS = tuple(tuple(_next_and_ray(ray, False) for ray in map(int, RAYS[square, 4:]) if ray.bit_count() >= 2)
                      for square in range(64))


def _flips_python(own, opp, square):
    """`flips` over Python ints, ray by ray.

    Along each ray that starts with an enemy disc, the first square that is not an enemy
    disc must be an own disc; the enemy discs before it flip. On a rising ray that square
    is the lowest set bit of the ray minus the enemy discs, on a falling ray the highest.
    """
    own, opp, square = int(own), int(opp), int(square)
    flipped = 0
    for next_bit, ray in _RISING_RAYS[square]:
        if opp & next_bit:
            stop = ray & ~opp
            first = stop & -stop
            if first & own:
                flipped |= ray & (first - 1)
    for next_bit, ray in _FALLING_RAYS[square]:
        if opp & next_bit:
            stop = ray & ~opp
            if stop:
                first = 1 << (stop.bit_length() - 1)
                if first & own:
                    flipped |= ray & -(first << 1)
    return np.uint64(flipped)


# ---- the intrinsics ---------------------------------------------------------------------

if COMPILING:
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    _I1 = ir.IntType(1)
    _I32 = ir.IntType(32)
    _I64 = ir.IntType(64)
    _LANES = ir.VectorType(_I64, 4)

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
        """`move_mask` with the lanes south (+8), east (+1), south-east (+9), south-west
        (+7), each lane shifting left for one direction and right for the opposite one:
        runs of enemy discs next to an own disc grow by one, one, then two and two
        squares (at most six enemy discs fit between two squares of a line), and the
        square just past a run is a move when it is empty."""
        signature = types.uint64(types.uint64, types.uint64)

        def codegen(context, builder, sig, args):
            own, opp = args
            step = _lanes([8, 1, 9, 7])
            double_step = _lanes([16, 2, 18, 14])
            own_lanes = _splat(builder, own)
            # A run moving north or south cannot wrap: every enemy disc counts there.
            mask = builder.and_(_splat(builder, opp), _lanes([FULL, INNER_FILES, INNER_FILES, INNER_FILES]))
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

        Rising rays: adding one to the enemy discs and every square off the ray carries
        to the first square of the ray that is not an enemy disc; the enemy discs below
        it flip when it is an own disc. Falling rays: the highest square of the ray that
        is not an enemy disc must be an own disc; the enemy discs above it flip. Bit 0
        stands in when every square of a falling ray is an enemy disc: it is then either
        off the ray or an enemy disc, never an own disc of the ray.
        """
        signature = types.uint64(*([types.uint64] * 10))

        def codegen(context, builder, sig, args):
            own = _splat(builder, args[0])
            opp = _splat(builder, args[1])
            rising = _gather(builder, args[2:6])
            falling = _gather(builder, args[6:10])
            zero, one, full = _lanes([0] * 4), _lanes([1] * 4), _lanes([FULL] * 4)

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


# ---- the kernels ------------------------------------------------------------------------


@twin(_move_mask_python)
@kernel(inline=True)
def move_mask(own, opp):
    """The empty squares where the side owning `own` can place a disc: for each line
    direction, the square just past a run of `opp` discs that starts next to an `own`
    disc, when that square is empty. East-west and the diagonals count the enemy discs
    off the edge files only, which stops runs wrapping to the next row."""
    return _move_mask_lanes(own, opp)


@twin(_flips_python)
@kernel(inline=True)
def flips(own, opp, square):
    """The enemy discs a disc of the side owning `own` placed on `square` turns over:
    along each ray from `square`, the run of `opp` discs closed by an `own` disc."""
    rays = RAYS[square]
    return _flips_lanes(own, opp, rays[0], rays[1], rays[2], rays[3], rays[4], rays[5],
                        rays[6], rays[7])


_U1 = np.uint64(1)
_U8 = np.uint64(8)
_NOT_FILE_A = np.uint64(FULL ^ FILE_A)
_NOT_FILE_H = np.uint64(FULL ^ FILE_H)


@kernel(inline=True)
def around(board):
    """The squares of `board` and every square next to one of them (8 directions)."""
    row = board | ((board << _U1) & _NOT_FILE_A) | ((board >> _U1) & _NOT_FILE_H)
    return row | (row << _U8) | (row >> _U8)
