"""Othello evaluation: a linear sum of classical features with weights by game phase.

`evaluate(s)` is the value for the side to move (the other side's is its negation), in
centi-discs: 100 is one disc. Each term is a difference between the two sides, the same
for either colour (the edge table is antisymmetric), so the side to move is scored as if
it were black:

- mobility: legal placements (a pass counts none). Having moves, and leaving the
  opponent few, matters most in the midgame.
- potential mobility: empty squares next to an enemy disc, where moves may open later.
- frontier: own discs next to an empty square, counted against their owner; they give
  the opponent moves.
- corners: a corner disc can never be flipped and anchors its edges.
- X- and C-squares next to an empty corner: the diagonal neighbour (X) and the two edge
  neighbours (C) of a corner tend to give that corner away while it is empty; counted
  against their owner.
- stable edge discs: discs on an edge (corners excluded) that no sequence of moves can
  flip. An edge disc can only be flipped along its edge, so this is exact stability of
  an 8-square line, precomputed for every line (`EDGE_STABILITY`) with both players free
  to fill any empty square: discs joined to an owned corner, on a full edge, and so on.
- parity: with an odd number of empty squares the side to move gets the last move if
  nobody passes; it counts for the side to move, against it when even.
- discs: the disc difference; zero until the last empty squares, since counting discs
  early measured as a loss (fewer discs tend to keep more moves).

Weights: a hand-set start after the scale in the design notes on Othello evaluation (a
corner worth about ten moves of mobility, potential mobility about half a move, an
X-square about minus five moves), then adjusted by self-play matches of 3-ply searches
from openings of 6 random plies, each played with both colours. Against the start,
dropping potential mobility, frontier or edge stability each scored 0.43-0.45 over 100
games; mobility times 0.7, edge stability times 1.5, X/C-squares times 1.3 and no disc
term before the end scored 0.60 over 200 games, and the result scores 0.635 against the
start over 200 games from other openings. Further changes of single weights by a third
or a half stayed within the noise of such matches. A 3-ply search with these weights
won 200 of 200 games against a uniformly random player. The weights are data
(`weights.json`, read by `games.weights`): given at a few numbers of empty squares and
interpolated linearly in between (`WEIGHTS`); `scripts/tune othello` fits them to
self-play games.
"""

from __future__ import annotations

import numpy as np

from games.kernel import kernel, popcount
from games.weights import load_weights
from games.othello.bitboard import around, move_mask
from games.othello.rules import BYTE, CORNERS, U1, U8, U56

U7 = np.uint64(7)
U9 = np.uint64(9)
U14 = np.uint64(14)
U28 = np.uint64(28)
FILE_A = np.uint64(0x0101010101010101)
NOT_FILE_A = np.uint64(0xFEFEFEFEFEFEFEFE)
NOT_FILE_H = np.uint64(0x7F7F7F7F7F7F7F7F)
CORNER_A1 = np.uint64(1 << 0)
CORNER_H1 = np.uint64(1 << 7)
CORNER_A8 = np.uint64(1 << 56)
CORNER_H8 = np.uint64(1 << 63)


def _line_flips(own: int, opp: int, east: int, west: int) -> int:
    """The `opp` cells of an 8-cell line that a disc of `own` flips when placed on the
    cell between the cells `east` (above it) and the cells `west` (below it)."""
    flipped = 0
    stop = east & ~opp
    first = stop & -stop
    if first & own:
        flipped = east & (first - 1)
    stop = west & ~opp
    if stop:
        first = 1 << (stop.bit_length() - 1)
        if first & own:
            flipped |= west & -(first << 1)
    return flipped


def _edge_stability() -> list[int]:
    """EDGE_STABILITY[black_line << 8 | white_line]: stable black minus stable white discs
    on the six inner cells of an 8-cell edge.

    A disc is stable when no sequence of placements on the line, by either player on any
    empty cell whether or not it flips anything, can change its colour. Lines are solved
    from full to empty: the cells that can change are those some placement flips now,
    plus the occupied ones that can change after some placement.
    """
    lines = []
    for black in range(256):
        rest = white = 255 ^ black
        while True:
            lines.append((black, white))
            if not white:
                break
            white = (white - 1) & rest
    lines.sort(key=lambda line: -(line[0] | line[1]).bit_count())
    cells = [(1 << cell, 0xFF ^ ((2 << cell) - 1), (1 << cell) - 1) for cell in range(8)]
    unstable = [0] * (1 << 16)
    table = [0] * (1 << 16)
    for black, white in lines:
        occupied = black | white
        changing = 0
        for bit, east, west in cells:
            if occupied & bit:
                continue
            flipped = _line_flips(black, white, east, west)
            changing |= flipped | unstable[(black | flipped | bit) << 8 | (white ^ flipped)]
            flipped = _line_flips(white, black, east, west)
            changing |= flipped | unstable[(black ^ flipped) << 8 | (white | flipped | bit)]
        changing &= occupied
        unstable[black << 8 | white] = changing
        stable = occupied & ~changing & 0x7E
        table[black << 8 | white] = (black & stable).bit_count() - (white & stable).bit_count()
    return table


#: EDGE_STABILITY[black_line << 8 | white_line], in int8: 64 KiB rather than 512 of cache.
#: Antisymmetric (a line with the colours swapped scores the negation), which lets
#: `evaluate` score the side to move as if it were black.
EDGE_STABILITY = np.array(_edge_stability(), dtype=np.int8)


#: The terms, in the order of the weights: each a difference between the side to move
#: and the other side (X/C-squares and frontier discs count against their owner).
FEATURES = ("mobility", "potential_mobility", "frontier", "corners", "x_squares", "c_squares",
            "stable_edges", "parity", "discs")
#: The weights, by number of empty squares (`weights.json`, see `games.weights`).
WEIGHTS_DATA = load_weights(__file__, FEATURES)
#: WEIGHTS[empties, term]: the weights for a position with that many empty squares.
WEIGHTS = WEIGHTS_DATA.table()


@kernel(inline=True)
def _edge(own_line, opp_line):
    return np.int64(EDGE_STABILITY[(own_line << U8) | opp_line])


@kernel(inline=True)
def _a_file_byte(board):
    """The a-file of `board` gathered into a byte, row 1 in bit 0: each disc of row r + 1
    (bit 8r) moves down 7r bits, in steps of 7, 14 and 28."""
    line = board & FILE_A
    line |= line >> U7
    line |= line >> U14
    line |= line >> U28
    return line & BYTE


@kernel(inline=True)
def terms(own, opp, own_moves, opp_moves):
    """The terms (`FEATURES`) for the side owning `own`, to move, given both sides'
    placements (`move_mask`): every term is scored as if that side were black."""
    occupied = own | opp
    empty = ~occupied
    empties = popcount(empty)

    # The squares next to an empty square, an enemy disc, an own disc (8 directions).
    next_to_empty = around(empty)
    next_to_opp = around(opp)
    next_to_own = around(own)
    frontier = popcount(opp & next_to_empty) - popcount(own & next_to_empty)
    potential = popcount(empty & next_to_opp) - popcount(empty & next_to_own)
    mobility = popcount(own_moves) - popcount(opp_moves)

    corners = popcount(own & CORNERS) - popcount(opp & CORNERS)
    # The X-square (diagonal) and the C-squares (along the edges) of each empty corner.
    free = empty & CORNERS
    x_squares = (((free & CORNER_A1) << U9) | ((free & CORNER_H1) << U7)
                 | ((free & CORNER_A8) >> U7) | ((free & CORNER_H8) >> U9))
    c_squares = (((free & (CORNER_A1 | CORNER_A8)) << U1) | ((free & (CORNER_H1 | CORNER_H8)) >> U1)
                 | ((free & (CORNER_A1 | CORNER_H1)) << U8) | ((free & (CORNER_A8 | CORNER_H8)) >> U8))
    x_count = popcount(opp & x_squares) - popcount(own & x_squares)
    c_count = popcount(opp & c_squares) - popcount(own & c_squares)

    # Row 1, row 8, the a-file and the h-file, each gathered into a byte.
    edges = (_edge(own & BYTE, opp & BYTE)
             + _edge(own >> U56, opp >> U56)
             + _edge(_a_file_byte(own), _a_file_byte(opp))
             + _edge(_a_file_byte(own >> U7), _a_file_byte(opp >> U7)))

    parity = 1 if empties & 1 else -1
    discs = popcount(own) - popcount(opp)
    return (np.int64(mobility), np.int64(potential), np.int64(frontier), np.int64(corners),
            np.int64(x_count), np.int64(c_count), np.int64(edges), np.int64(parity), np.int64(discs))


@kernel(inline=True)
def evaluate_boards(own, opp, own_moves, opp_moves):
    """The value for the side owning `own`, to move: its terms times the weights of the
    position's number of empty squares."""
    weights = WEIGHTS[popcount(~(own | opp))]
    t = terms(own, opp, own_moves, opp_moves)
    return (weights[0] * t[0] + weights[1] * t[1] + weights[2] * t[2] + weights[3] * t[3]
            + weights[4] * t[4] + weights[5] * t[5] + weights[6] * t[6] + weights[7] * t[7]
            + weights[8] * t[8])


@kernel(inline=True)
def evaluate(s):
    """The value for the side to move: its placements come from the state, the other
    side's are computed."""
    own, opp = s[0], s[1]
    return evaluate_boards(own, opp, s[2], move_mask(opp, own))


@kernel
def features(s):
    """The phase (empty squares) and the terms of `evaluate`, for tuning."""
    own, opp = s[0], s[1]
    return popcount(~(own | opp)), terms(own, opp, s[2], move_mask(opp, own))
