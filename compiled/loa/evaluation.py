"""Lines of Action evaluation kernels: `games.loa.evaluation` (here, `evaluation.x` in
a docstring names the reference's `x`) term by term in the same integer arithmetic.

    evaluate      `evaluation.evaluate(...)[to_move]`. Mobility reads one table word per
                  line, the reference's per-line memo computed ahead for every line
                  content (`tables.LINE_TABLE`); the win-in-one test keeps the
                  reference's filters (Euler number, at most 5 groups, the landing
                  squares next to all other groups) and then tests `connected` on the
                  candidate moves, which is the reference's test since a move that
                  connects everything always lands next to every group other than its
                  own.
"""

from __future__ import annotations

import numpy as np
from games.kernel import kernel

from games.kernel import lowest_bit, popcount
from compiled.loa.bitboards import _dilate, _group_of, _lowest, connected
from compiled.loa.tables import (
    BLACK, BLOCKED, CENTRALISATION, CENTRE_OF_MASS, CENTRE_TABLE, CONCENTRATION, CORNERS,
    DIAGONAL_FILE, DIAGONAL_MASK, DIAGONAL_OFFSET, EDGE_HORIZONTAL, EDGE_LINE, EDGE_VERTICAL,
    EULER, FILE_A, FILE_BIT_0, FILE_BIT_1, FILE_BIT_2, FILE_GATHER, FILE_H, FULL, HORIZON,
    INNER, INNER_LINE, JUMPS, LINE_TABLE, LINES, MAX_PLIES, MIN_DISTANCE_SUM, MOBILITY,
    OUTSIDE, QUADS, RANK_1, RANK_8, RANK_BIT_0, RANK_BIT_1, RANK_BIT_2, SPREAD, TABLE_0,
    TABLE_1, TABLE_2, TABLE_3, TEMPO, TERNARY, THREAT, U0, U1, U7, U8, U9, U56, U255, WALL,
    WIN_IN_ONE,
)


@kernel(inline=True)
def _line_word(black_line, white_line, offset):
    """The LINE_TABLE word of a line whose checkers are the low bits of `black_line`
    and `white_line`."""
    return np.int64(LINE_TABLE[offset + TERNARY[black_line] + 2 * TERNARY[white_line]])


@kernel
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


@kernel(inline=True)
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


@kernel(inline=True)
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


@kernel(inline=True)
def _walls(own, opp):
    """evaluation.walls: enemy edge checkers walled in by own checkers."""
    south = opp & RANK_1 & (own >> U8) & ((own >> U7) | FILE_A) & ((own >> U9) | FILE_H)
    north = opp & RANK_8 & (own << U8) & ((own << U9) | FILE_A) & ((own << U7) | FILE_H)
    west = opp & FILE_A & (own >> U1) & ((own >> U9) | RANK_8) & ((own << U7) | RANK_1)
    east = opp & FILE_H & (own << U1) & ((own >> U7) | RANK_8) & ((own << U9) | RANK_1)
    return popcount(south | north | west | east)


@kernel
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


@kernel
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
