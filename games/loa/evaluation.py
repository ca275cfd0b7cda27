"""Lines of Action evaluation: how close each side is to one group, and how free it is.

Every term is computed for both sides and enters as (black's - white's); `evaluate`
returns that value for the side to move. The scale is centi-checkers (CENTI = 100),
although material itself is no term: a capture is double-edged in LOA (the fewer
checkers the opponent has, the fewer it must join), so checkers count only through the
shape terms. For a side of 12
checkers, 100 is about three king steps of its checkers toward their centre of mass
(concentration) or six more legal moves than the opponent's.

- Concentration (CONCENTRATION per unit): the sum of the king-move distances from each
  checker to the side's centre of mass (rounded to a square), minus the smallest sum
  possible for that many checkers (0 for 1, n - 1 for up to 9, then 2 per extra
  checker), divided by the number of checkers. The most important term: it is 0 for a
  tight cluster and about 2.5 in the start position.
- Centralisation (CENTRALISATION per table point, averaged over the checkers): the
  square table CENTRE_TABLE, from -8 in a corner to +5 in the four centre squares.
  Central checkers connect and move more easily.
- Centre of mass (CENTRE_OF_MASS per table point): the same table at the centre of mass;
  a group pinned to an edge is easy to block.
- Quads (QUADS per quad): 2x2 windows holding 3 or 4 of the side's checkers, solid
  formations that are hard to break.
- Euler number (EULER per unit, counted against the side): for 8-connectivity,
  E = (Q1 - Q3 - 2 QD) / 4 over the 81 2x2 windows that touch the board (Q1 windows with one checker, Q3 with
  three, QD with two on a diagonal) is the number of groups minus the number of holes.
  It counts the groups still to join, and E > 5 rules out a connection in one move.
- Mobility (MOBILITY per half move): each legal move counts 2, 1 if it lands on an edge,
  and a capture counts CAPTURE more.
- Blocked checkers (BLOCKED each): checkers of the side that have no move at all.
- Walls (WALL each): enemy checkers on an edge whose three inward neighbours (those on
  the board) all hold the side's checkers; such a checker cannot step off its edge.
- Win in one (WIN_IN_ONE): the side to move has a move that joins all its checkers: it
  wins on the next ply, whatever else. It makes the evaluation a one-ply lookahead on
  connections, which the search would otherwise see one ply later.
- Threat (THREAT): the side not to move has such a move; the side to move may parry it.
- Tempo (TEMPO): a small bonus to the side to move.
- Draw horizon: within HORIZON plies of the 150-ply cap, every term but the win in one
  shrinks in proportion to the plies left, since only a connection before the cap
  counts.

Mobility is counted line by line: each of the 42 lines of two or more squares maps its
black and white checkers to both sides' weighted moves along it and their checkers with
a move, by one look-up in LINE_TABLE, computed at import for every content of every
line shape (a row or file of 8 squares is gathered into a byte by shifts and one
multiplication, a diagonal likewise).

The win and threat tests look for a move whose origin's group and landing square could
join every group: the landing square must touch every other group (a square touches at
most 4 separate groups, so with more than 5 groups there is none); only those few moves
get the full flood-fill test.

Weights in centi-checkers, as data (`weights.json`, read by `games.weights`, by the
number of checkers on the board): chosen by hand and then adjusted by fixed-depth self-play
matches of this evaluation against copies with one weight changed (80-game matches from
randomised openings): a larger concentration and mobility weight won, a larger Euler
weight lost clearly, the others were within the noise. `scripts/tune loa` fits them to
self-play games. The win in one, the horizon and the capture bonus inside the mobility are
rules of the evaluation's shape, not weights.
"""

from __future__ import annotations

import numpy as np

from games.kernel import kernel, lowest_bit, popcount
from games.loa.bitboards import (
    FILE_A,
    FILE_H,
    FULL,
    JUMPS,
    LINES,
    NOT_FILE_H,
    RANK_1,
    RANK_8,
    U0,
    U1,
    U7,
    U8,
    U9,
    U56,
    U255,
    connected,
    dilate,
    group_of,
    lowest,
    wrapping_product,
)
from games.loa.rules import BLACK, MAX_PLIES
from games.weights import load_weights

#: The terms, in the order of the weights (see above). Concentration and centralisation
#: are averages over a side's checkers: the evaluation rounds each side's weighted
#: average down to a centi-checker, and the Euler term is 4 x the Euler number.
FEATURES = ("concentration", "centralisation", "centre_of_mass", "quads", "euler", "mobility",
            "blocked", "walls", "threat", "tempo")
#: The weights, by checkers on the board (`weights.json`, see `games.weights`).
WEIGHTS_DATA = load_weights(__file__, FEATURES)
#: WEIGHTS[checkers, term].
WEIGHTS = WEIGHTS_DATA.table()
#: Extra half moves a capture counts in the mobility.
CAPTURE = 2
WIN_IN_ONE = 50_000
HORIZON = 20

# ---- tables -----------------------------------------------------------------------------

#: Smallest sum of king-move distances to a centre square for n checkers (n = 0..12).
MIN_DISTANCE_SUM = np.array((0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14), dtype=np.int64)


def _chebyshev(a: int, b: int) -> int:
    return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))


def _squares(where) -> np.uint64:
    """The board of the squares s for which where(s) holds."""
    return np.uint64(sum(1 << s for s in range(64) if where(s)))


#: OUTSIDE[7 * c + d]: the squares farther than d king moves from c, d = 0..6; the sum
#: of the checkers outside each ball is the sum of their distances to c.
OUTSIDE = np.array([_squares(lambda s: _chebyshev(c, s) > d) for c in range(64) for d in range(7)],
                   dtype=np.uint64)

#: The square table, rank 8 first as the board text reads.
_TABLE_ROWS = (
    (-8, -3, -2, -2, -2, -2, -3, -8),
    (-3, 0, 1, 1, 1, 1, 0, -3),
    (-2, 1, 3, 3, 3, 3, 1, -2),
    (-2, 1, 3, 5, 5, 3, 1, -2),
    (-2, 1, 3, 5, 5, 3, 1, -2),
    (-2, 1, 3, 3, 3, 3, 1, -2),
    (-3, 0, 1, 1, 1, 1, 0, -3),
    (-8, -3, -2, -2, -2, -2, -3, -8),
)
CENTRE_TABLE = np.array([_TABLE_ROWS[7 - (s >> 3)][s & 7] for s in range(64)], dtype=np.int64)
#: The square table plus 8 (0..13) in four bit planes: the table sum over a board is
#: sum(2**k * popcount(board & TABLE_k)) - 8 * checkers.
TABLE_0, TABLE_1, TABLE_2, TABLE_3 = (_squares(lambda s: (CENTRE_TABLE[s] + 8) >> k & 1) for k in range(4))

#: Squares whose file (rank) has bit k set, to sum files (ranks) by popcounts.
FILE_BIT_0, FILE_BIT_1, FILE_BIT_2 = (_squares(lambda s: (s & 7) >> k & 1) for k in range(3))
RANK_BIT_0, RANK_BIT_1, RANK_BIT_2 = (_squares(lambda s: (s >> 3) >> k & 1) for k in range(3))

#: Anchors (lower-left squares) of the 49 2x2 windows inside the board.
INNER = NOT_FILE_H & ~RANK_8
#: Lower squares of the vertical pairs on files a and h, left squares of the horizontal
#: pairs on ranks 1 and 8: the windows that stick out of the board by one line hold such
#: a pair; the four corner windows hold a corner alone.
EDGE_VERTICAL = (FILE_A | FILE_H) & ~RANK_8
EDGE_HORIZONTAL = (RANK_1 | RANK_8) & NOT_FILE_H
CORNERS = np.uint64(1 | 1 << 7 | 1 << 56 | 1 << 63)


def _line_table() -> tuple[np.ndarray, list[int]]:
    """The mobility along one line for every content of every line shape: a line of L
    squares whose two ends are on the board's edge (rows, files and diagonals alike;
    L = 2..8) or whose squares all are (ranks 1 and 8, files a and h). Squares are
    numbered along the line from 0; a content is sum(3**i * c_i) with c_i 0 empty,
    1 black, 2 white. Each word holds black's weighted moves (bits 0-7), black's
    checkers with a move (bits 8-15), then the same two of white (bits 16-31). Returns
    the table and the offset of each shape: lengths 2..8, then the all-edge line of 8."""
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
                    score += legal * (weight[to] + CAPTURE * (landing != 0))
                    movers |= legal.astype(np.int64) << i
            table[offset:offset + len(contents)] |= (score | movers << 8) << (16 * (side - 1))
    return table.astype(np.uint32), offsets


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
#: square, offset of its shape. Multiplying a board masked to one by FILE_A gathers its
#: squares in the top byte, bit f for the square on file f.
_DIAGONALS = sorted({int(LINES[4 * s + kind]) for s in range(64) for kind in (2, 3)
                     if int(LINES[4 * s + kind]).bit_count() > 1})
DIAGONAL_MASK = np.array(_DIAGONALS, dtype=np.uint64)
DIAGONAL_FILE = np.array([min(s & 7 for s in range(64) if mask >> s & 1) for mask in _DIAGONALS],
                         dtype=np.uint64)
DIAGONAL_OFFSET = np.array([_LINE_OFFSETS[mask.bit_count() - 2] for mask in _DIAGONALS], dtype=np.int64)

# ---- terms --------------------------------------------------------------------------------


@kernel(inline=True)
def _line_word(black_line, white_line, offset):
    """The LINE_TABLE word of a line whose checkers are the low bits of `black_line`
    and `white_line`."""
    return np.int64(LINE_TABLE[offset + TERNARY[black_line] + 2 * TERNARY[white_line]])


@kernel
def mobility(black, white):
    """(black's weighted mobility in half moves, black's checkers without a move, the same
    two for white), line by line through LINE_TABLE."""
    black_score = 0
    white_score = 0
    black_movers = U0
    white_movers = U0
    for rank in range(8):
        shift = np.uint64(8 * rank)
        word = _line_word((black >> shift) & U255, (white >> shift) & U255,
                          EDGE_LINE if rank == 0 or rank == 7 else INNER_LINE)
        black_score += word & 255
        white_score += (word >> 16) & 255
        black_movers |= np.uint64((word >> 8) & 255) << shift
        white_movers |= np.uint64(word >> 24) << shift
    for file in range(8):
        shift = np.uint64(file)
        word = _line_word(wrapping_product((black >> shift) & FILE_A, FILE_GATHER) >> U56,
                          wrapping_product((white >> shift) & FILE_A, FILE_GATHER) >> U56,
                          EDGE_LINE if file == 0 or file == 7 else INNER_LINE)
        black_score += word & 255
        white_score += (word >> 16) & 255
        black_movers |= SPREAD[(word >> 8) & 255] << shift
        white_movers |= SPREAD[word >> 24] << shift
    for line in range(DIAGONAL_MASK.shape[0]):
        mask = DIAGONAL_MASK[line]
        shift = DIAGONAL_FILE[line]
        word = _line_word((wrapping_product(black & mask, FILE_A) >> U56) >> shift,
                          (wrapping_product(white & mask, FILE_A) >> U56) >> shift, DIAGONAL_OFFSET[line])
        black_score += word & 255
        white_score += (word >> 16) & 255
        black_movers |= wrapping_product(np.uint64((word >> 8) & 255) << shift, FILE_A) & mask
        white_movers |= wrapping_product(np.uint64(word >> 24) << shift, FILE_A) & mask
    return (black_score, popcount(black & ~black_movers),
            white_score, popcount(white & ~white_movers))


@kernel(inline=True)
def quads(board):
    """(windows with 3 or 4 checkers, 4 x the Euler number) of a side's checkers."""
    right = board >> U1
    up = board >> U8
    diagonal = board >> U9
    odd = (board ^ right ^ up ^ diagonal) & INNER
    pair = (board & right) | (up & diagonal)
    three = odd & pair
    four = board & right & up & diagonal & INNER
    crossed = ((board & diagonal & ~(right | up)) | (right & up & ~(board | diagonal))) & INNER
    ones = (
        popcount(odd ^ three)
        + popcount((board ^ up) & EDGE_VERTICAL)
        + popcount((board ^ right) & EDGE_HORIZONTAL)
        + popcount(board & CORNERS)
    )
    threes = popcount(three)
    return threes + popcount(four), ones - threes - 2 * popcount(crossed)


@kernel(inline=True)
def shape(board):
    """(concentration surplus, centralisation table sum, the table at the centre of mass)
    of a side's checkers: the surplus is the sum of the king-move distances to the centre
    of mass minus the least possible for that many checkers."""
    count = popcount(board)
    files = popcount(board & FILE_BIT_0) + 2 * popcount(board & FILE_BIT_1) + 4 * popcount(board & FILE_BIT_2)
    ranks = popcount(board & RANK_BIT_0) + 2 * popcount(board & RANK_BIT_1) + 4 * popcount(board & RANK_BIT_2)
    centre = ((2 * ranks + count) // (2 * count)) * 8 + (2 * files + count) // (2 * count)
    total = 0
    for d in range(7):
        far = board & OUTSIDE[7 * centre + d]
        if far == U0:
            break
        total += popcount(far)
    table = (popcount(board & TABLE_0) + 2 * popcount(board & TABLE_1) + 4 * popcount(board & TABLE_2)
             + 8 * popcount(board & TABLE_3) - 8 * count)
    return total - MIN_DISTANCE_SUM[count], table, CENTRE_TABLE[centre]


@kernel(inline=True)
def walls(own, opp):
    """Enemy edge checkers whose inward neighbours on the board all hold own checkers."""
    south = opp & RANK_1 & (own >> U8) & ((own >> U7) | FILE_A) & ((own >> U9) | FILE_H)
    north = opp & RANK_8 & (own << U8) & ((own << U9) | FILE_A) & ((own << U7) | FILE_H)
    west = opp & FILE_A & (own >> U1) & ((own >> U9) | RANK_8) & ((own << U7) | RANK_1)
    east = opp & FILE_H & (own << U1) & ((own >> U7) | RANK_8) & ((own << U9) | RANK_1)
    return popcount(south | north | west | east)


@kernel
def connects_in_one(own, opp, euler4):
    """Whether the side owning `own` (against `opp`) has a move that joins all its
    checkers; `euler4` is its 4 x Euler number.

    Only a move landing next to every group but its own can: the squares next to every
    group but at most one are gathered first, and only the moves landing there get the
    full test."""
    if euler4 > 20:
        return False
    every = FULL
    all_but_one = FULL
    groups = 0
    rest = own
    while rest != U0:
        group = group_of(rest, lowest(rest))
        rest ^= group
        groups += 1
        if groups > 5:
            return False
        reach = dilate(group)
        all_but_one = (all_but_one & reach) | every
        every &= reach
    if groups == 1:
        return True
    anywhere = all_but_one
    if anywhere == U0:
        return False
    occupied = own | opp
    rest = own
    while rest != U0:
        square = lowest_bit(rest)
        low = lowest(rest)
        rest ^= low
        for kind in range(4):
            line = 4 * square + kind
            base = (line * 9 + popcount(occupied & LINES[line])) * 4
            for index in range(base, base + 4, 2):
                bit = JUMPS[index + 1]
                if (bit & anywhere != U0 and (JUMPS[index] & opp) | (bit & own) == U0
                        and connected((own ^ low) | bit)):
                    return True
    return False


@kernel(inline=True)
def _parts(s):
    """Whether the side to move connects in one move; if not, the integer parts of the
    terms, black's then white's where a term has two: checkers, concentration surplus,
    centralisation sum, the table at the centre of mass, quads, 4 x Euler number,
    mobility, blocked checkers, walls; then the threat and the tempo from black's side."""
    black = s[0]
    white = s[1]
    black_quads, black_euler4 = quads(black)
    white_quads, white_euler4 = quads(white)
    if s[2] == BLACK:
        win = connects_in_one(black, white, black_euler4)
        threat = -1 if not win and connects_in_one(white, black, white_euler4) else 0
        tempo = 1
    else:
        win = connects_in_one(white, black, white_euler4)
        threat = 1 if not win and connects_in_one(black, white, black_euler4) else 0
        tempo = -1
    black_mobility, black_blocked, white_mobility, white_blocked = mobility(black, white)
    black_surplus, black_table, black_centre = shape(black)
    white_surplus, white_table, white_centre = shape(white)
    return (win, popcount(black), popcount(white), black_surplus, white_surplus, black_table, white_table,
            black_centre - white_centre, black_quads - white_quads, black_euler4, white_euler4,
            black_mobility - white_mobility, black_blocked - white_blocked,
            walls(black, white) - walls(white, black), threat, tempo)


@kernel
def evaluate(s):
    """The value of the kernel state `s` (`games.loa.rules`) for the side to move."""
    (win, black_count, white_count, black_surplus, white_surplus, black_table, white_table, centre,
     quad_count, black_euler4, white_euler4, mobility_count, blocked, wall_count, threat, tempo) = _parts(s)
    if win:
        return np.int64(WIN_IN_ONE)
    w = WEIGHTS[black_count + white_count]
    value = (
        -w[0] * black_surplus // black_count - (-w[0] * white_surplus // white_count)
        + w[1] * black_table // black_count - w[1] * white_table // white_count
        + w[2] * centre
        + w[3] * quad_count
        - (w[4] * black_euler4 >> 2) + (w[4] * white_euler4 >> 2)
        + w[5] * mobility_count
        - w[6] * blocked
        + w[7] * wall_count
        + w[8] * threat
        + w[9] * tempo
    )
    left = MAX_PLIES - s[3]
    if left < HORIZON:
        # Truncated toward zero, so that the two colours stay exact opposites.
        value = value * left // HORIZON if value >= 0 else -(-value * left // HORIZON)
    return np.int64(value) if s[2] == BLACK else np.int64(-value)


@kernel
def features(s):
    """The phase (checkers on the board) and the terms of `evaluate` for the side to move,
    for tuning, as floats: their products with the weights sum to the value up to the
    evaluation's rounding. A position the side to move wins in one move, which the
    evaluation does not value by its weights, has phase -1."""
    (win, black_count, white_count, black_surplus, white_surplus, black_table, white_table, centre,
     quad_count, black_euler4, white_euler4, mobility_count, blocked, wall_count, threat, tempo) = _parts(s)
    scale = min(1.0, (MAX_PLIES - s[3]) / HORIZON)
    if s[2] != BLACK:
        scale = -scale
    terms = (scale * (white_surplus / white_count - black_surplus / black_count),
             scale * (black_table / black_count - white_table / white_count),
             scale * centre, scale * quad_count, scale * (white_euler4 - black_euler4) / 4,
             scale * mobility_count, -scale * blocked, scale * wall_count, scale * threat, scale * tempo)
    return (-1 if win else black_count + white_count), terms
