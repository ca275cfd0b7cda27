"""Lines of Action constants and board geometry on 64-bit ints: line and jump tables,
8-connectivity.

The tables are computed once at import. Square s = 8 * rank + file (a1 = 0); a
bitboard has bit s set for an occupied square. The move generator and the evaluation
both read these tables; neither builds masks at run time.
"""

from __future__ import annotations

#: The game is drawn once this many plies have been played without a connection.
MAX_PLIES = 150
#: The move int of `pass`, the only move of a side that has no other (moves are
#: `from << 6 | to` < 4096).
PASS = 1 << 12

FULL = (1 << 64) - 1
FILE_A = 0x0101010101010101
FILE_H = FILE_A << 7
NOT_FILE_A = FULL ^ FILE_A
NOT_FILE_H = FULL ^ FILE_H
RANK_1 = 0xFF
RANK_8 = RANK_1 << 56
EDGES = FILE_A | FILE_H | RANK_1 | RANK_8

#: The four line kinds through a square, in the order of LINE_MASKS and JUMPS entries,
#: each with its two opposite steps (file, rank).
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


def _jumps(square: int, steps: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, int], ...], ...]:
    """For a checker count n = 0..8 on the line: the jumps of n squares along it.

    Each jump is (stop mask, move int); jumps that would leave the board are absent. The
    stop mask holds the squares strictly between in its low 64 bits and the target
    square in its high 64 bits, so that one AND with `opp | own << 64`
    finds both an enemy in the way and an own checker on the target.
    """
    by_count = []
    for count in range(9):
        jumps = []
        for df, dr in steps:
            if count == 0:
                break
            file, rank = (square & 7) + df * count, (square >> 3) + dr * count
            if not _on_board(file, rank):
                continue
            target = rank * 8 + file
            between = 0
            for step in range(1, count):
                between |= 1 << ((square >> 3) + dr * step) * 8 + (square & 7) + df * step
            jumps.append((between | 1 << (target + 64), square << 6 | target))
        by_count.append(tuple(jumps))
    return tuple(by_count)


#: LINE_MASKS[s] = (row, file, diagonal, anti-diagonal) through s, s included.
LINE_MASKS = tuple(tuple(_line_mask(s, steps) for steps in LINE_STEPS) for s in range(64))
#: JUMPS[s][kind][n]: the jumps from s along line kind when the line holds n checkers.
JUMPS = tuple(tuple(_jumps(s, steps) for steps in LINE_STEPS) for s in range(64))
#: SQUARE_LINES[s]: the four LINE_MASKS of s then its four JUMPS tables, in one tuple.
SQUARE_LINES = tuple(LINE_MASKS[s] + JUMPS[s] for s in range(64))


def dilate(board: int) -> int:
    """`board` and its 8 neighbours of every square (king moves), clipped to the board."""
    board |= ((board << 1) & NOT_FILE_A) | ((board >> 1) & NOT_FILE_H)
    return (board | (board << 8) | (board >> 8)) & FULL


def group_of(board: int, seed: int) -> int:
    """The 8-connected group of `board` that contains the bits of `seed`."""
    while True:
        grown = seed | ((seed << 1) & NOT_FILE_A) | ((seed >> 1) & NOT_FILE_H)
        grown = (grown | (grown << 8) | (grown >> 8)) & board
        if grown == seed:
            return seed
        seed = grown


def connected(board: int) -> bool:
    """Whether the checkers of `board` form one 8-connected group (one checker does)."""
    seed = board & -board
    while True:
        grown = seed | ((seed << 1) & NOT_FILE_A) | ((seed >> 1) & NOT_FILE_H)
        grown = (grown | (grown << 8) | (grown >> 8)) & board
        if grown == seed:
            return seed == board
        seed = grown


def groups(board: int) -> list[int]:
    """The 8-connected groups of `board`, lowest square first."""
    found = []
    while board:
        group = group_of(board, board & -board)
        found.append(group)
        board ^= group
    return found
