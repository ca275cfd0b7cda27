"""Lines of Action board geometry for the kernels: bitboard constants, the line and jump
tables of move generation, and 8-connectivity.

Square s = 8 * rank + file (a1 = 0); a board is an np.uint64 with bit s set for an
occupied square. The tables are numpy arrays computed once at import; the move generator
and the evaluation both read them and build no mask at run time.
"""

from __future__ import annotations

import numpy as np

from games.kernel import kernel, twin

U0 = np.uint64(0)
U1 = np.uint64(1)
U7 = np.uint64(7)
U8 = np.uint64(8)
U9 = np.uint64(9)
U56 = np.uint64(56)
U255 = np.uint64(255)
_FULL = (1 << 64) - 1
_FILE_A = 0x0101010101010101
FULL = np.uint64(_FULL)
FILE_A = np.uint64(_FILE_A)
FILE_H = np.uint64(_FILE_A << 7)
NOT_FILE_A = np.uint64(_FULL ^ _FILE_A)
NOT_FILE_H = np.uint64(_FULL ^ _FILE_A << 7)
RANK_1 = np.uint64(0xFF)
RANK_8 = np.uint64(0xFF << 56)

#: The four line kinds through a square, in the order of the LINES and JUMPS entries,
#: each with its two opposite steps (file, rank): the first step is the first jump.
LINE_STEPS = (
    ((1, 0), (-1, 0)),  # row
    ((0, 1), (0, -1)),  # file
    ((1, 1), (-1, -1)),  # diagonal a1-h8
    ((1, -1), (-1, 1)),  # anti-diagonal a8-h1
)


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _line_mask(square: int, steps: tuple[tuple[int, int], ...]) -> int:
    """The whole line through `square` along `steps`, the square included."""
    mask = 1 << square
    for df, dr in steps:
        file, rank = (square & 7) + df, (square >> 3) + dr
        while _on_board(file, rank):
            mask |= 1 << (rank * 8 + file)
            file, rank = file + df, rank + dr
    return mask


#: LINES[4 * s + kind]: the line of that kind through s, s included.
LINES = np.array([_line_mask(s, steps) for s in range(64) for steps in LINE_STEPS], dtype=np.uint64)


def _jump_table() -> np.ndarray:
    """Four words per (square s, line kind, checkers n = 0..8 on the line), at
    4 * ((4 * s + kind) * 9 + n): the squares strictly between s and the target of the
    jump of n squares along the kind's first step, the target's bit, then the same two
    along its second step. A jump that would leave the board (or of no square) has
    every bit as its target: it always lands on an own checker (the one that jumps), so
    that a generator tests both jumps without a branch."""
    table = np.zeros(64 * 4 * 9 * 4, dtype=np.uint64)
    for s in range(64):
        file, rank = s & 7, s >> 3
        for kind, steps in enumerate(LINE_STEPS):
            for n in range(9):
                base = 4 * ((4 * s + kind) * 9 + n)
                for j, (df, dr) in enumerate(steps):
                    table[base + 2 * j + 1] = FULL
                    if n == 0 or not _on_board(file + df * n, rank + dr * n):
                        continue
                    between = sum(1 << (rank + dr * k) * 8 + file + df * k for k in range(1, n))
                    table[base + 2 * j] = between
                    table[base + 2 * j + 1] = 1 << (rank + dr * n) * 8 + file + df * n
    return table


JUMPS = _jump_table()


def _product(a, b):
    return np.uint64(int(a) * int(b) & _FULL)


@twin(_product)
@kernel(inline=True)
def wrapping_product(a, b):
    """a * b modulo 2**64 for np.uint64 a and b: what numba computes, where numpy's
    scalars warn of the overflow. Multiplying a masked board gathers its bits."""
    return a * b


@kernel(inline=True)
def lowest(board):
    """The lowest set bit of a non-empty board, as a board."""
    return board & (~board + U1)


@kernel(inline=True)
def dilate(board):
    """`board` and the 8 neighbours of each of its squares, clipped to the board."""
    board |= ((board << U1) & NOT_FILE_A) | ((board >> U1) & NOT_FILE_H)
    return board | (board << U8) | (board >> U8)


@kernel(inline=True)
def group_of(board, seed):
    """The 8-connected group of `board` that holds the squares of `seed`."""
    while True:
        grown = dilate(seed) & board
        if grown == seed:
            return seed
        seed = grown


@kernel
def connected(board):
    """Whether the checkers of a non-empty `board` are one 8-connected group (a single
    checker is one).

    A checker with no neighbour settles it at once (connected only when alone); else the
    group of the lowest checker is grown until it stops."""
    side = ((board << U1) & NOT_FILE_A) | ((board >> U1) & NOT_FILE_H)
    around = side | ((side | board) << U8) | ((side | board) >> U8)
    if board & ~around != U0:
        return board & (board - U1) == U0
    return group_of(board, lowest(board)) == board
