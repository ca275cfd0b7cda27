"""The Abalone board: cells, directions, fixed masks, the game's counts, the move int
layout, and the two-word form of a board that the kernels work on.

Cells are held in axial coordinates (q, r), r growing downwards, on an 11x11 grid with a
border of off-board cells around the 61 cells of the board (|q|, |r|, |q + r| <= 4):
bit index = (r + 5) * 11 + (q + 5). One step in direction d adds STEPS[d] to the index:

    d   on screen   axial (q, r)   index step
    0   E           (+1,  0)        +1
    1   NE          (+1, -1)       -10
    2   NW          ( 0, -1)       -11
    3   W           (-1,  0)        -1
    4   SW          (-1, +1)       +10
    5   SE          ( 0, +1)       +11

A whole board moves one step in direction d by `board << STEPS[d]` (or `>> -STEPS[d]`).
A marble of the board stepping off it lands on a border cell, never on another board
cell, so one step needs no mask; every kernel ANDs with on-board boards before taking a
further step. The three axes of lines are E-W (axis 0), NE-SW (axis 1) and NW-SE (axis
2); a direction d runs along axis d % 3, and AXIS_STEPS[a] is the positive step of axis
a (E, SW, SE).

A board is 121 bits. The masks here are Python ints (the notation reads them); kernels
hold a board as two np.uint64 words with the same bit indices, `lo` the bits 0..63 and
`hi` the bits 64..120 (`split`, `join`), and shift a whole board with `shl` and `shr`,
which carry bits across the words (shifts of 1 to 22). Bits a left shift pushes past
bit 127 are lost, but every bit past the grid is ANDed away before any right shift, so
the masks are those of one wide int bit for bit.

The board text and the move tokens name a cell (x, y): y is the 0-based printed line
from the top (9 lines of 5, 6, 7, 8, 9, 8, 7, 6, 5 cells) and x the 0-based index inside
its line; q = x - 4 + max(0, 4 - y) and r = y - 4.
"""

from __future__ import annotations

import numpy as np

from games.kernel import kernel, popcount

#: Marbles each side starts with, marbles pushed off that win, and the ply limit.
MARBLES = 14
WINNING_SCORE = 6
MAX_PLIES = 350

#: Cells per printed line, top line first.
ROW_LENGTHS = (5, 6, 7, 8, 9, 8, 7, 6, 5)
WIDTH = 11
#: Every bit of the 11x11 grid, border included.
GRID = (1 << WIDTH * WIDTH) - 1

STEPS = (1, -10, -11, -1, 10, 11)
#: The positive step of each axis (E, SW, SE) and the directions that take it or its
#: negation.
AXIS_STEPS = (1, 10, 11)
POSITIVE_DIRECTIONS = (0, 4, 5)
NEGATIVE_DIRECTIONS = (3, 1, 2)


def axial_index(q: int, r: int) -> int:
    """The bit index of the axial cell (q, r), border cells included."""
    return (r + 5) * WIDTH + (q + 5)


def on_board(q: int, r: int) -> bool:
    return abs(q) <= 4 and abs(r) <= 4 and abs(q + r) <= 4


def xy_to_axial(x: int, y: int) -> tuple[int, int]:
    return x - 4 + max(0, 4 - y), y - 4


def axial_to_xy(q: int, r: int) -> tuple[int, int]:
    y = r + 4
    return q + 4 - max(0, 4 - y), y


#: The board cells' bit indices in reading order (top line first, then x).
CELLS: tuple[int, ...] = tuple(
    axial_index(*xy_to_axial(x, y)) for y, length in enumerate(ROW_LENGTHS) for x in range(length)
)
#: XY[index] = (x, y) of a board cell, None for a border cell.
XY: tuple[tuple[int, int] | None, ...] = tuple(
    axial_to_xy(index % WIDTH - 5, index // WIDTH - 5)
    if on_board(index % WIDTH - 5, index // WIDTH - 5) else None
    for index in range(WIDTH * WIDTH)
)
#: INDEX_OF[(x, y)] = bit index.
INDEX_OF = {XY[index]: index for index in CELLS}

ON_BOARD = sum(1 << index for index in CELLS)
OFF_BOARD = GRID ^ ON_BOARD


def step_board(board: int, direction: int) -> int:
    """Every bit of `board` moved one step in `direction` (bits may leave the board)."""
    step = STEPS[direction]
    return board << step if step > 0 else board >> -step


#: RIM[d]: the board cells whose neighbour in direction d is off the board.
RIM: tuple[int, ...] = tuple(step_board(OFF_BOARD, (d + 3) % 6) & ON_BOARD for d in range(6))


def hex_distance(index: int) -> int:
    """Hex distance of a cell from the centre (0 to 4 on the board)."""
    q, r = index % WIDTH - 5, index // WIDTH - 5
    return max(abs(q), abs(r), abs(q + r))


#: RINGS[k]: the board cells at hex distance k from the centre, k = 0..4.
RINGS: tuple[int, ...] = tuple(
    sum(1 << index for index in CELLS if hex_distance(index) == k) for k in range(5)
)


# ---- move ints -------------------------------------------------------------------------
#
# A move is the int
#
#     order << 16 | pushed << 14 | axis << 12 | count << 10 | direction << 7 | anchor
#
# anchor     7 bits  the bit index of one end marble: for an in-line move (direction
#                    along the line, a single marble included) the front marble, the one
#                    that steps first; for a broadside move the end with the larger index
#                    (the end later in reading order);
# direction  3 bits  0..5, as STEPS;
# count      2 bits  1..3 marbles;
# axis       2 bits  the line's axis (direction % 3 for in-line moves and single marbles);
# pushed     2 bits  the enemy marbles an in-line move pushes (0..2);
# order      3 bits  ORDER_*, the move's rank in generation order: sorted descending, the
#                    moves come pushes that push a marble off first, then other pushes,
#                    3-marble in-line, 3-marble broadside, 2-marble in-line, 2-marble
#                    broadside, single marbles.
#
# The low 14 bits (IDENTITY_MASK) name the marbles and the direction; the rest follows
# from the position. Every move is below 2**19.

ORDER_SINGLE, ORDER_BROADSIDE_2, ORDER_INLINE_2, ORDER_BROADSIDE_3, ORDER_INLINE_3 = range(5)
ORDER_PUSH, ORDER_PUSH_OFF = 5, 6
IDENTITY_MASK = (1 << 14) - 1


def move_int(anchor: int, direction: int, count: int, axis: int, pushed: int = 0,
             order: int = 0) -> int:
    return order << 16 | pushed << 14 | axis << 12 | count << 10 | direction << 7 | anchor


def move_fields(move: int) -> tuple[int, int, int, int, int]:
    """(anchor, direction, count, axis, pushed) of a move int."""
    return move & 127, move >> 7 & 7, move >> 10 & 3, move >> 12 & 3, move >> 14 & 3


def is_inline(direction: int, count: int, axis: int) -> bool:
    return count == 1 or direction % 3 == axis


def line_cells(move: int) -> list[int]:
    """The bit indices of the marbles a move moves, from the anchor backwards along the
    line (for an in-line move: front to rear)."""
    anchor, direction, count, axis, _ = move_fields(move)
    step = STEPS[direction] if is_inline(direction, count, axis) else AXIS_STEPS[axis]
    return [anchor - k * step for k in range(count)]


# ---- two-word boards -------------------------------------------------------------------

_WORD = (1 << 64) - 1


def split(board: int) -> tuple[np.uint64, np.uint64]:
    """(lo, hi): the words of a board."""
    return np.uint64(board & _WORD), np.uint64(board >> 64)


def join(lo: int, hi: int) -> int:
    """The board of two words; inverse of `split`."""
    return int(lo) | int(hi) << 64


U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U10 = np.uint64(10)
U11 = np.uint64(11)
U20 = np.uint64(20)
U22 = np.uint64(22)
U64 = np.uint64(64)

ON_LO, ON_HI = split(ON_BOARD)
#: RIM<d>_LO, RIM<d>_HI: the words of RIM[d].
RIM0_LO, RIM0_HI = split(RIM[0])
RIM1_LO, RIM1_HI = split(RIM[1])
RIM2_LO, RIM2_HI = split(RIM[2])
RIM3_LO, RIM3_HI = split(RIM[3])
RIM4_LO, RIM4_HI = split(RIM[4])
RIM5_LO, RIM5_HI = split(RIM[5])


@kernel(inline=True)
def shl(lo, hi, s):
    """The board (lo, hi) shifted left by s, 0 < s < 64 (bits past 127 are lost)."""
    return lo << s, (hi << s) | (lo >> (U64 - s))


@kernel(inline=True)
def shr(lo, hi, s):
    """The board (lo, hi) shifted right by s, 0 < s < 64."""
    return (lo >> s) | (hi << (U64 - s)), hi >> s


@kernel(inline=True)
def bit_count(lo, hi):
    """The number of cells of the board (lo, hi)."""
    return popcount(lo) + popcount(hi)
