"""Lines of Action kernels: `games.loa` (rules, bitboards, evaluation) in numba.

A compiled state is the tuple of the reference `LoaState`, field for field:

    (black: uint64, white: uint64, to_move: int64, ply: int64, key: uint64, status: int64)

`status` is the reference's: 0 the game goes on, 1 black has won, 2 white has won, 3
drawn (150 plies). Moves are the reference's ints `from << 6 | to`, and PASS = 4096.

What each kernel mirrors:
    legal_moves   `LoaState.legal_moves` (`rules.generate_moves`, the same checker,
                  line and direction order, `pass` alone when there is no other move)
    play          `LoaState.play`: the incremental key and the status as the referee
                  settles it (the mover first, then the opponent after a capture, then
                  the 150-ply draw)
    evaluate      `evaluation.evaluate(...)[to_move]`, term by term in the same integer
                  arithmetic. Mobility reads one table word per line, the reference's
                  per-line memo computed ahead for every line content; the win-in-one
                  test keeps the reference's filters (Euler number, at most 5 groups,
                  the landing squares next to all other groups) and then tests
                  `connected` on the candidate moves, which is the reference's test
                  since a move that connects everything always lands next to every
                  group other than its own.
    solvable      always False: LOA has no endgame solver.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from compiled.bits import lowest_bit, popcount
from compiled.core import ONGOING
from games.loa import bitboards, evaluation, rules
from games.loa.rules import LoaState

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
#: 12 checkers, each with at most two jumps along each of its four lines.
MAX_MOVES = 96
MOVE_LIMIT = PASS + 1

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


# ---- Python side --------------------------------------------------------------------


def pack(state: LoaState) -> tuple:
    """The compiled state of a reference state."""
    return (np.uint64(state.black), np.uint64(state.white), np.int64(state.to_move),
            np.int64(state.ply), np.uint64(state.key), np.int64(state.status))


def unpack(s: tuple) -> LoaState:
    """The reference state of a compiled state."""
    return LoaState(int(s[0]), int(s[1]), int(s[2]), int(s[3]), int(s[4]), int(s[5]))


# ---- bitboard helpers ---------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _lowest(board):
    return board & (~board + U1)


@njit(cache=True, nogil=True)
def connected(board):
    """bitboards.connected: one 8-connected group (a single checker is one).

    A checker with no neighbour settles it at once (connected only when alone); else
    the group of the lowest checker is grown as the reference does."""
    side = ((board << U1) & NOT_FILE_A) | ((board >> U1) & NOT_FILE_H)
    around = side | ((side | board) << U8) | ((side | board) >> U8)
    if board & ~around != U0:
        return board & (board - U1) == U0
    seed = _lowest(board)
    while True:
        grown = seed | ((seed << U1) & NOT_FILE_A) | ((seed >> U1) & NOT_FILE_H)
        grown = (grown | (grown << U8) | (grown >> U8)) & board
        if grown == seed:
            return seed == board
        seed = grown


@njit(cache=True, nogil=True, inline="always")
def _group_of(board, seed):
    while True:
        grown = seed | ((seed << U1) & NOT_FILE_A) | ((seed >> U1) & NOT_FILE_H)
        grown = (grown | (grown << U8) | (grown >> U8)) & board
        if grown == seed:
            return seed
        seed = grown


@njit(cache=True, nogil=True, inline="always")
def _dilate(board):
    board |= ((board << U1) & NOT_FILE_A) | ((board >> U1) & NOT_FILE_H)
    return board | (board << U8) | (board >> U8)


# ---- the contract -------------------------------------------------------------------


@njit(cache=True, nogil=True)
def generate_moves(own, opp, out):
    """rules.generate_moves into out[:n]; returns n.

    Every jump is written at out[n] and counted only when legal: a checker has at most
    8 jumps, so out[n] stays below MAX_MOVES."""
    occupied = own | opp
    n = 0
    rest = own
    while rest != U0:
        square = lowest_bit(rest)
        rest &= rest - U1
        origin = square << 6
        for kind in range(4):
            line = 4 * square + kind
            base = (line * 9 + popcount(occupied & LINES[line])) * 4
            bit = JUMPS[base + 1]
            out[n] = origin | lowest_bit(bit)
            n += (JUMPS[base] & opp) | (bit & own) == U0
            bit = JUMPS[base + 3]
            out[n] = origin | lowest_bit(bit)
            n += (JUMPS[base + 2] & opp) | (bit & own) == U0
    return n


@njit(cache=True, nogil=True)
def legal_moves(s, out):
    """LoaState.legal_moves into out[:n]; returns n."""
    if s[5] != STATUS_ONGOING:
        return 0
    if s[2] == BLACK:
        n = generate_moves(s[0], s[1], out)
    else:
        n = generate_moves(s[1], s[0], out)
    if n == 0:
        out[0] = PASS
        n = 1
    return n


@njit(cache=True, nogil=True, inline="always")
def _settle(mover, other, capture, mover_won, other_won, ply):
    if connected(mover):
        return mover_won
    if capture and connected(other):
        return other_won
    if ply >= MAX_PLIES:
        return np.int64(DRAWN)
    return np.int64(STATUS_ONGOING)


@njit(cache=True, nogil=True)
def play(s, move):
    """LoaState.play: the position after `move`, key and status included."""
    black, white, to_move, ply, key, status = s
    ply += 1
    key ^= STEP_KEYS[ply]
    if move == PASS:
        status = np.int64(DRAWN) if ply >= MAX_PLIES else np.int64(STATUS_ONGOING)
        return (black, white, to_move ^ 1, ply, key, status)
    frm = move >> 6
    to = move & 63
    frm_bit = U1 << np.uint64(frm)
    to_bit = U1 << np.uint64(to)
    if to_move == BLACK:
        black ^= frm_bit | to_bit
        key ^= KEYS[frm] ^ KEYS[to]
        capture = (white & to_bit) != U0
        if capture:
            white ^= to_bit
            key ^= KEYS[64 + to]
        status = _settle(black, white, capture, np.int64(BLACK_WON), np.int64(WHITE_WON), ply)
        return (black, white, np.int64(WHITE), ply, key, status)
    white ^= frm_bit | to_bit
    key ^= KEYS[64 + frm] ^ KEYS[64 + to]
    capture = (black & to_bit) != U0
    if capture:
        black ^= to_bit
        key ^= KEYS[to]
    status = _settle(white, black, capture, np.int64(WHITE_WON), np.int64(BLACK_WON), ply)
    return (black, white, np.int64(BLACK), ply, key, status)


@njit(cache=True, nogil=True)
def key(s):
    return s[4]


@njit(cache=True, nogil=True)
def to_move(s):
    return s[2]


@njit(cache=True, nogil=True)
def result(s):
    """ONGOING while the game goes on, else the sign of the side to move's return."""
    status = s[5]
    if status == STATUS_ONGOING:
        return np.int64(ONGOING)
    if status == DRAWN:
        return np.int64(0)
    winner = status - BLACK_WON
    return np.int64(1) if winner == s[2] else np.int64(-1)


@njit(cache=True, nogil=True)
def margin(s):
    """LOA has no margins: the side to move's return."""
    return result(s)


@njit(cache=True, nogil=True)
def solvable(s):
    """LoaGame.solvable: no exact endgame in LOA."""
    return False


# ---- the evaluation -----------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _line_word(black_line, white_line, offset):
    """The LINE_TABLE word of a line whose checkers are the low bits of `black_line`
    and `white_line`."""
    return np.int64(LINE_TABLE[offset + TERNARY[black_line] + 2 * TERNARY[white_line]])


@njit(cache=True, nogil=True)
def _mobility(black, white):
    """evaluation.mobility: (black's weighted mobility in half moves, black's checkers
    without a move, the same two for white), line by line through LINE_TABLE."""
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
        word = _line_word((((black >> shift) & FILE_A) * FILE_GATHER) >> U56,
                          (((white >> shift) & FILE_A) * FILE_GATHER) >> U56,
                          EDGE_LINE if file == 0 or file == 7 else INNER_LINE)
        black_score += word & 255
        white_score += (word >> 16) & 255
        black_movers |= SPREAD[(word >> 8) & 255] << shift
        white_movers |= SPREAD[word >> 24] << shift
    for line in range(DIAGONAL_MASK.shape[0]):
        mask = DIAGONAL_MASK[line]
        shift = DIAGONAL_FILE[line]
        word = _line_word((((black & mask) * FILE_A) >> U56) >> shift,
                          (((white & mask) * FILE_A) >> U56) >> shift, DIAGONAL_OFFSET[line])
        black_score += word & 255
        white_score += (word >> 16) & 255
        black_movers |= ((np.uint64((word >> 8) & 255) << shift) * FILE_A) & mask
        white_movers |= ((np.uint64(word >> 24) << shift) * FILE_A) & mask
    return (black_score, popcount(black & ~black_movers),
            white_score, popcount(white & ~white_movers))


@njit(cache=True, nogil=True, inline="always")
def _quads(board):
    """evaluation.quads: (windows with 3 or 4 checkers, 4 x the Euler number)."""
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


@njit(cache=True, nogil=True, inline="always")
def _shape(board):
    """evaluation.shape: (concentration surplus x CONCENTRATION / n, table sum)."""
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
    return (
        -CONCENTRATION * (total - MIN_DISTANCE_SUM[count]) // count,
        CENTRALISATION * table // count + CENTRE_OF_MASS * CENTRE_TABLE[centre],
    )


@njit(cache=True, nogil=True, inline="always")
def _walls(own, opp):
    """evaluation.walls: enemy edge checkers walled in by own checkers."""
    south = opp & RANK_1 & (own >> U8) & ((own >> U7) | FILE_A) & ((own >> U9) | FILE_H)
    north = opp & RANK_8 & (own << U8) & ((own << U9) | FILE_A) & ((own << U7) | FILE_H)
    west = opp & FILE_A & (own >> U1) & ((own >> U9) | RANK_8) & ((own << U7) | RANK_1)
    east = opp & FILE_H & (own << U1) & ((own >> U7) | RANK_8) & ((own << U9) | RANK_1)
    return popcount(south | north | west | east)


@njit(cache=True, nogil=True)
def connects_in_one(own, opp, euler4):
    """evaluation.connects_in_one: whether the side owning `own` has a move that joins
    all its checkers (`euler4`: its 4 x Euler number)."""
    if euler4 > 20:
        return False
    # The squares next to every group but at most one: the reference's `anywhere`.
    every = FULL
    all_but_one = FULL
    groups = 0
    rest = own
    while rest != U0:
        group = _group_of(rest, _lowest(rest))
        rest ^= group
        groups += 1
        if groups > 5:
            return False
        reach = _dilate(group)
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
        low = _lowest(rest)
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


@njit(cache=True, nogil=True)
def evaluate(s):
    """evaluation.evaluate(...)[to_move]."""
    black = s[0]
    white = s[1]
    side = s[2]
    black_quads, black_euler4 = _quads(black)
    white_quads, white_euler4 = _quads(white)
    if side == BLACK:
        if connects_in_one(black, white, black_euler4):
            return np.int64(WIN_IN_ONE)
        threat = -THREAT if connects_in_one(white, black, white_euler4) else 0
        tempo = TEMPO
    else:
        if connects_in_one(white, black, white_euler4):
            return np.int64(WIN_IN_ONE)
        threat = THREAT if connects_in_one(black, white, black_euler4) else 0
        tempo = -TEMPO
    black_mobility, black_blocked, white_mobility, white_blocked = _mobility(black, white)
    black_concentration, black_table = _shape(black)
    white_concentration, white_table = _shape(white)
    value = (
        black_concentration - white_concentration
        + black_table - white_table
        + QUADS * (black_quads - white_quads)
        - (EULER * black_euler4 >> 2) + (EULER * white_euler4 >> 2)
        + MOBILITY * (black_mobility - white_mobility)
        - BLOCKED * (black_blocked - white_blocked)
        + WALL * (_walls(black, white) - _walls(white, black))
        + threat
        + tempo
    )
    left = MAX_PLIES - s[3]
    if left < HORIZON:
        value = value * left // HORIZON if value >= 0 else -(-value * left // HORIZON)
    return np.int64(value) if side == BLACK else np.int64(-value)
