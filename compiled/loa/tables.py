"""Lines of Action tables and constants for the compiled kernels, computed once at import
from `games.loa` (plain numpy, no compiled code): bitboard constants, the reference's
state codes, the line and jump tables of move generation, the mobility table of every
line content, the Zobrist key arrays, and the evaluation's weights and masks.
"""

from __future__ import annotations

import numpy as np

from games.loa import bitboards, evaluation, rules

# ---- constants ----------------------------------------------------------------------

U0 = np.uint64(0)
U1 = np.uint64(1)
U7 = np.uint64(7)
U8 = np.uint64(8)
U9 = np.uint64(9)
U56 = np.uint64(56)
U255 = np.uint64(255)
FULL = np.uint64(bitboards.FULL)
FILE_A = np.uint64(bitboards.FILE_A)
FILE_H = np.uint64(bitboards.FILE_H)
NOT_FILE_A = np.uint64(bitboards.NOT_FILE_A)
NOT_FILE_H = np.uint64(bitboards.NOT_FILE_H)
RANK_1 = np.uint64(bitboards.RANK_1)
RANK_8 = np.uint64(bitboards.RANK_8)

MAX_PLIES = bitboards.MAX_PLIES
PASS = bitboards.PASS

BLACK, WHITE = rules.BLACK, rules.WHITE
STATUS_ONGOING, BLACK_WON, WHITE_WON, DRAWN = rules.ONGOING, rules.BLACK_WON, rules.WHITE_WON, rules.DRAWN

# ---- tables -------------------------------------------------------------------------

#: LINES[4 * s + kind]: bitboards.LINE_MASKS[s][kind].
LINES = np.array([mask for s in range(64) for mask in bitboards.LINE_MASKS[s]], dtype=np.uint64)


def _jump_table():
    """The jumps of bitboards.JUMPS in one array, four words per (square, line kind,
    checkers on the line): entry 4 * ((4 * s + kind) * 9 + n) holds the squares strictly
    between and the target bit of the first jump (in the reference's order), then the
    same two of the second. An absent jump has every bit as its target bit: it always
    lands on an own checker (the one that jumps), so that the kernels test both jumps
    without a branch."""
    table = np.zeros(64 * 4 * 9 * 4, dtype=np.uint64)
    for s in range(64):
        for kind in range(4):
            for n in range(9):
                jumps = bitboards.JUMPS[s][kind][n]
                assert len(jumps) <= 2
                base = 4 * ((4 * s + kind) * 9 + n)
                table[base + 1] = table[base + 3] = bitboards.FULL
                for j, (stop, move) in enumerate(jumps):
                    assert move >> 6 == s and stop >> 64 == 1 << (move & 63)
                    table[base + 2 * j] = stop & bitboards.FULL
                    table[base + 2 * j + 1] = stop >> 64
    return table


JUMPS = _jump_table()


def _line_table():
    """The mobility along one line from its contents, the reference's line memo
    computed ahead for every line shape: a line of L squares whose two ends are on
    the board's edge (rows, files and diagonals alike; L = 2..8) or whose squares all
    are (ranks 1 and 8, files a and h). Squares are numbered along the line from 0; a
    content is sum(3**i * c_i) with c_i 0 empty, 1 black, 2 white. Each word holds
    black's weighted moves (bits 0-7), black's checkers with a move (bits 8-15), then
    the same two of white (bits 16-31). Returns the table and the offset of each shape:
    lengths 2..8, then the all-edge line of 8."""
    shapes = [(length, False) for length in range(2, 9)] + [(8, True)]
    offsets = []
    size = 0
    for length, _ in shapes:
        offsets.append(size)
        size += 3 ** length
    table = np.zeros(size, dtype=np.int64)
    for (length, all_edge), offset in zip(shapes, offsets):
        weight = np.array([1 if all_edge or i in (0, length - 1) else 2 for i in range(length)])
        contents = np.arange(3 ** length)
        cells = contents[:, None] // 3 ** np.arange(length) % 3
        count = (cells != 0).sum(axis=1)
        rows = np.arange(len(contents))
        for side, opp in ((1, 2), (2, 1)):
            score = np.zeros(len(contents), dtype=np.int64)
            movers = np.zeros(len(contents), dtype=np.int64)
            for i in range(length):
                for step in (1, -1):
                    to = i + step * count
                    legal = (cells[:, i] == side) & (to >= 0) & (to < length)
                    to = np.clip(to, 0, length - 1)
                    landing = cells[rows, to]
                    legal &= landing != side
                    for k in range(1, length):
                        between = i + step * k
                        if 0 <= between < length:
                            legal &= ~((k < count) & (cells[:, between] == opp))
                    score += legal * (weight[to] + evaluation.CAPTURE * (landing != 0))
                    movers |= legal.astype(np.int64) << i
            table[offset:offset + len(contents)] |= (score | movers << 8) << (16 * (side - 1))
    table = table.astype(np.uint32)
    return table, offsets


LINE_TABLE, _LINE_OFFSETS = _line_table()
#: Offsets in LINE_TABLE of an inner row or file and of an edge one.
INNER_LINE = _LINE_OFFSETS[6]
EDGE_LINE = _LINE_OFFSETS[7]
#: TERNARY[m]: the 8 bits of m read in base 3 (a line's checkers of one colour).
TERNARY = np.array([sum(3 ** i for i in range(8) if m >> i & 1) for m in range(256)], dtype=np.int64)
#: SPREAD[m]: the 8 bits of m onto file a (bit i to square 8 * i).
SPREAD = np.array([sum(1 << 8 * i for i in range(8) if m >> i & 1) for m in range(256)], dtype=np.uint64)
#: Multiplying file a by FILE_GATHER gathers its 8 squares, rank 1 lowest, in the top byte.
FILE_GATHER = np.uint64(sum(1 << 7 * (8 - k) for k in range(8)))
#: The diagonals and anti-diagonals of 2 squares or more: mask, file of the first
#: square, offset of its shape. Multiplying a board masked to one by FILE_A gathers
#: its squares in the top byte, bit f for the square on file f.
_DIAGONALS = [(mask, min(s & 7 for s in range(64) if mask >> s & 1), mask.bit_count())
              for mask, kind in evaluation._LINES if kind >= 2]
DIAGONAL_MASK = np.array([mask for mask, _, _ in _DIAGONALS], dtype=np.uint64)
DIAGONAL_FILE = np.array([first for _, first, _ in _DIAGONALS], dtype=np.uint64)
DIAGONAL_OFFSET = np.array([_LINE_OFFSETS[length - 2] for _, _, length in _DIAGONALS], dtype=np.int64)


KEYS = np.array(rules._KEYS, dtype=np.uint64)
#: KEYS[0:64] black checkers, KEYS[64:128] white checkers.
STEP_KEYS = np.array(rules._STEP_KEYS, dtype=np.uint64)

CONCENTRATION = evaluation.CONCENTRATION
CENTRALISATION = evaluation.CENTRALISATION
CENTRE_OF_MASS = evaluation.CENTRE_OF_MASS
QUADS = evaluation.QUADS
EULER = evaluation.EULER
MOBILITY = evaluation.MOBILITY
CAPTURE = evaluation.CAPTURE
BLOCKED = evaluation.BLOCKED
WALL = evaluation.WALL
WIN_IN_ONE = evaluation.WIN_IN_ONE
THREAT = evaluation.THREAT
TEMPO = evaluation.TEMPO
HORIZON = evaluation.HORIZON

MIN_DISTANCE_SUM = np.array(evaluation.MIN_DISTANCE_SUM, dtype=np.int64)
#: OUTSIDE[7 * c + d]: evaluation.OUTSIDE[c][d].
OUTSIDE = np.array([mask for c in range(64) for mask in evaluation.OUTSIDE[c]], dtype=np.uint64)
CENTRE_TABLE = np.array(evaluation.CENTRE_TABLE, dtype=np.int64)
#: The square table plus 8 (0..13) in four bit planes: the table sum over a board is
#: sum(2**k * popcount(board & plane k)) - 8 * checkers.
_TABLE_PLANES = [sum(1 << s for s in range(64) if (evaluation.CENTRE_TABLE[s] + 8) >> k & 1) for k in range(4)]
assert all(0 <= value + 8 < 16 for value in evaluation.CENTRE_TABLE)
TABLE_0, TABLE_1, TABLE_2, TABLE_3 = (np.uint64(plane) for plane in _TABLE_PLANES)
FILE_BIT_0, FILE_BIT_1, FILE_BIT_2 = (np.uint64(mask) for mask in evaluation._FILE_BITS)
RANK_BIT_0, RANK_BIT_1, RANK_BIT_2 = (np.uint64(mask) for mask in evaluation._RANK_BITS)
INNER = np.uint64(evaluation._INNER)
EDGE_VERTICAL = np.uint64(evaluation._EDGE_VERTICAL)
EDGE_HORIZONTAL = np.uint64(evaluation._EDGE_HORIZONTAL)
CORNERS = np.uint64(evaluation._CORNERS)
