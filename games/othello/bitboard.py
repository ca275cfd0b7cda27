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


#: Every byte value with its bits in reverse order.
_REVERSED_BYTES = bytes(int(f"{value:08b}"[::-1], 2) for value in range(256))
#: The bit where the half-turned copy of a board starts in a packed board: far enough
#: above bit 63 that no shift of the low copy reaches it.
_HIGH = 96
_PACKED_FULL = FULL | FULL << _HIGH
_PACKED_INNER_FILES = INNER_FILES | INNER_FILES << _HIGH


def half_turn(board: int) -> int:
    """The board turned half a round: square s goes to 63 - s (h8 to a1, a8 to h1)."""
    return int.from_bytes(board.to_bytes(8, "little").translate(_REVERSED_BYTES), "big")


def move_mask(own: int, opp: int) -> int:
    """The empty squares where the side owning `own` can place a disc.

    For each line direction, runs of `opp` discs next to `own` grow by one, one, then two
    and two squares (at most six enemy discs fit between two squares of a line); the
    square just past a run is a move when it is empty. East-west and the diagonals use
    the enemy discs off the edge files only, which stops runs wrapping to the next row.

    The boards are packed with a half-turned copy of themselves above `_HIGH`: on the
    copy a left shift steps the opposite way, so one left shift serves both directions
    of a line (east and west, south and north, ...) and the two halves are merged at
    the end.
    """
    own_packed = own | half_turn(own) << _HIGH
    opp_packed = opp | half_turn(opp) << _HIGH
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
    return moves & FULL | half_turn(moves >> _HIGH)


_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1))


def _rays() -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Per square, (first square's bit, ray) for each ray of two or more squares, those
    towards higher indices and those towards lower ones."""
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
                first = 1 << ((row + row_step) * 8 + file + file_step)
                (up if row_step * 8 + file_step > 0 else down).append((first, ray))
        rising.append(tuple(up))
        falling.append(tuple(down))
    return tuple(rising), tuple(falling)


#: RISING_RAYS[s]: (next square's bit, ray) from square s (excluded) towards higher
#: indices (E, S, SE, SW); FALLING_RAYS[s] towards lower ones (W, N, NW, NE).
RISING_RAYS, FALLING_RAYS = _rays()


def flips(own: int, opp: int, square: int) -> int:
    """The enemy discs a disc of the side owning `own` placed on `square` turns over.

    Along each ray that starts with an enemy disc, the first square that is not an
    enemy disc must be an own disc; the enemy discs before it flip. On a rising ray that
    square is the lowest set bit of the ray minus the enemy discs, on a falling ray the
    highest.
    """
    flipped = 0
    for next_bit, ray in RISING_RAYS[square]:
        if opp & next_bit:
            stop = ray & ~opp
            first = stop & -stop
            if first & own:
                flipped |= ray & (first - 1)
    for next_bit, ray in FALLING_RAYS[square]:
        if opp & next_bit:
            stop = ray & ~opp
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
