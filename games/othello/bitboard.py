"""Othello kernels on 64-bit bitboards held in Python ints.

Bit i is square i = 8 * (row - 1) + file (see the package docstring), so a shift by +1
steps east, +8 one row down the printed board, +9 south-east and +7 south-west. The
kernels are plain functions of ints so that a compiled core can mirror them one for one;
the rules and the evaluation share them.
"""

from __future__ import annotations

FULL = (1 << 64) - 1
FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
NOT_FILE_A = FULL ^ FILE_A
NOT_FILE_H = FULL ^ FILE_H
#: Squares off the a- and h-files: where a run of discs moving east or west can lie.
INNER_FILES = NOT_FILE_A & NOT_FILE_H
#: The pass move: the first index past the board (see the package docstring).
PASS = 64


def move_mask(own: int, opp: int) -> int:
    """The empty squares where the side owning `own` can place a disc.

    Each direction pair grows the runs of `opp` discs next to `own` by one, one, then two
    and two squares (at most six enemy discs fit between two squares of a line); the
    square just past a run is a move when empty. East-west and the diagonals use enemy
    discs off the edge files only, which stops runs wrapping to the next row.
    """
    mask = opp & INNER_FILES
    # East (+1) and west (-1).
    east = mask & (own << 1)
    west = mask & (own >> 1)
    east |= mask & (east << 1)
    west |= mask & (west >> 1)
    pair_east = mask & (mask << 1)
    pair_west = pair_east >> 1
    east |= pair_east & (east << 2)
    west |= pair_west & (west >> 2)
    east |= pair_east & (east << 2)
    west |= pair_west & (west >> 2)
    moves = (east << 1) | (west >> 1)
    # South (+8) and north (-8): no wrap possible, every enemy disc counts.
    south = opp & (own << 8)
    north = opp & (own >> 8)
    south |= opp & (south << 8)
    north |= opp & (north >> 8)
    pair_south = opp & (opp << 8)
    pair_north = pair_south >> 8
    south |= pair_south & (south << 16)
    north |= pair_north & (north >> 16)
    south |= pair_south & (south << 16)
    north |= pair_north & (north >> 16)
    moves |= (south << 8) | (north >> 8)
    # South-west (+7) and north-east (-7).
    south = mask & (own << 7)
    north = mask & (own >> 7)
    south |= mask & (south << 7)
    north |= mask & (north >> 7)
    pair_south = mask & (mask << 7)
    pair_north = pair_south >> 7
    south |= pair_south & (south << 14)
    north |= pair_north & (north >> 14)
    south |= pair_south & (south << 14)
    north |= pair_north & (north >> 14)
    moves |= (south << 7) | (north >> 7)
    # South-east (+9) and north-west (-9).
    south = mask & (own << 9)
    north = mask & (own >> 9)
    south |= mask & (south << 9)
    north |= mask & (north >> 9)
    pair_south = mask & (mask << 9)
    pair_north = pair_south >> 9
    south |= pair_south & (south << 18)
    north |= pair_north & (north >> 18)
    south |= pair_south & (south << 18)
    north |= pair_north & (north >> 18)
    moves |= (south << 9) | (north >> 9)
    return moves & (FULL ^ (own | opp))


_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1))


def _rays() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Per square, the rays of two or more squares towards higher and lower indices."""
    rising, falling = [], []
    for square in range(64):
        row, file = divmod(square, 8)
        up, down = [], []
        for file_step, row_step in _DIRECTIONS:
            ray = 0
            r, f = row + row_step, file + file_step
            while 0 <= r < 8 and 0 <= f < 8:
                ray |= 1 << (r * 8 + f)
                r, f = r + row_step, f + file_step
            # A ray of one square can hold no enemy disc with an own disc behind it.
            if ray.bit_count() >= 2:
                (up if row_step * 8 + file_step > 0 else down).append(ray)
        rising.append(tuple(up))
        falling.append(tuple(down))
    return tuple(rising), tuple(falling)


#: RISING_RAYS[s]: the rays from square s (excluded) towards higher indices (E, S, SE,
#: SW); FALLING_RAYS[s] towards lower ones (W, N, NW, NE).
RISING_RAYS, FALLING_RAYS = _rays()


def flips(own: int, opp: int, square: int) -> int:
    """The enemy discs a disc of the side owning `own` placed on `square` turns over.

    Along each ray the first square that is not an enemy disc must be an own disc; the
    enemy discs before it flip. On a rising ray that square is the lowest set bit of the
    ray minus the enemy discs, on a falling ray the highest.
    """
    flipped = 0
    stops = ~opp
    for ray in RISING_RAYS[square]:
        stop = ray & stops
        first = stop & -stop
        if first & own:
            flipped |= ray & (first - 1)
    for ray in FALLING_RAYS[square]:
        stop = ray & stops
        if stop:
            first = 1 << (stop.bit_length() - 1)
            if first & own:
                flipped |= ray & -(first << 1)
    return flipped


def squares_of(mask: int) -> list[int]:
    """The indices of the set bits of `mask`, lowest first."""
    squares = []
    append = squares.append
    while mask:
        low = mask & -mask
        append(low.bit_length() - 1)
        mask ^= low
    return squares
