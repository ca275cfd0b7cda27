"""Othello evaluation: a linear sum of classical features with weights by game phase.

Each term is a difference between black and white (the value is black's; white's is its
negation), in centi-discs: 100 is one disc.

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
won 200 of 200 games against a uniformly random player. The weights are given at a few
numbers of empty squares (`_PHASE_WEIGHTS`) and interpolated linearly in between
(`WEIGHTS`).
"""

from __future__ import annotations

from games.othello.bitboard import FILE_A, FULL, NOT_FILE_A, NOT_FILE_H, move_mask

CORNERS = 1 << 0 | 1 << 7 | 1 << 56 | 1 << 63
#: The magic multiplier that gathers the a-file (bits 0, 8, ..., 56) into bits 56..63.
_FILE_TO_BYTE = 0x0102040810204080


def _next_to_corners() -> dict[int, tuple[int, int]]:
    """For each set of empty corners (as a mask), the X-squares and the C-squares next
    to those corners."""
    squares = {}
    neighbours = {0: (9, (1, 8)), 7: (14, (6, 15)), 56: (49, (48, 57)), 63: (54, (55, 62))}
    for subset in range(16):
        empty = x_mask = c_mask = 0
        for index, corner in enumerate(neighbours):
            if subset >> index & 1:
                empty |= 1 << corner
                x_square, c_pair = neighbours[corner]
                x_mask |= 1 << x_square
                c_mask |= 1 << c_pair[0] | 1 << c_pair[1]
        squares[empty] = (x_mask, c_mask)
    return squares


#: X_AND_C_SQUARES[empty corners]: (X-squares, C-squares) next to those corners.
X_AND_C_SQUARES = _next_to_corners()


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


EDGE_STABILITY = _edge_stability()

#: Weights per term at some numbers of empty squares, in centi-discs per unit of the
#: term: mobility, potential mobility, frontier, corners, X-squares, C-squares, stable
#: edge discs, parity, discs. Signs are in the terms: X/C-squares and frontier discs
#: count against their owner.
_PHASE_WEIGHTS = {
    60: (40, 20, 15, 600, 400, 100, 90, 0, 0),
    40: (35, 20, 20, 600, 400, 100, 120, 0, 0),
    20: (30, 15, 15, 600, 320, 80, 150, 50, 0),
    10: (20, 10, 10, 500, 200, 40, 150, 150, 0),
    0: (0, 0, 0, 0, 0, 0, 0, 0, 100),
}


def _interpolate(anchors: dict[int, tuple[int, ...]]) -> tuple[tuple[int, ...], ...]:
    """The weights for every number of empty squares 0..64, linear between anchors."""
    points = sorted(anchors)
    weights = []
    for empties in range(65):
        if empties >= points[-1]:
            weights.append(anchors[points[-1]])
            continue
        high = next(p for p in points if p > empties)
        low = max(p for p in points if p <= empties)
        share = (empties - low) / (high - low)
        weights.append(tuple(round(a + (b - a) * share)
                             for a, b in zip(anchors[low], anchors[high])))
    return tuple(weights)


#: WEIGHTS[empties]: the weight tuple for a position with that many empty squares.
WEIGHTS = _interpolate(_PHASE_WEIGHTS)


def evaluate(black: int, white: int, to_move: int) -> tuple[int, int]:
    """(black's value, white's value) of a position; they sum to zero."""
    return evaluate_with_mobility(black, white, to_move, move_mask(black, white),
                                  move_mask(white, black))


def evaluate_with_mobility(black: int, white: int, to_move: int, black_moves: int,
                           white_moves: int) -> tuple[int, int]:
    """`evaluate` given both sides' placement masks (`move_mask`), which the caller may
    already know."""
    occupied = black | white
    empty = FULL ^ occupied
    empties = empty.bit_count()
    (w_mobility, w_potential, w_frontier, w_corner, w_x, w_c, w_edge, w_parity,
     w_discs) = WEIGHTS[empties]

    # The squares next to an empty square, a white disc, a black disc (8 directions).
    row = empty | (empty << 1) & NOT_FILE_A | (empty >> 1) & NOT_FILE_H
    next_to_empty = row | row << 8 | row >> 8
    row = white | (white << 1) & NOT_FILE_A | (white >> 1) & NOT_FILE_H
    next_to_white = row | row << 8 | row >> 8
    row = black | (black << 1) & NOT_FILE_A | (black >> 1) & NOT_FILE_H
    next_to_black = row | row << 8 | row >> 8
    frontier = (white & next_to_empty).bit_count() - (black & next_to_empty).bit_count()
    potential = (empty & next_to_white).bit_count() - (empty & next_to_black).bit_count()
    mobility = black_moves.bit_count() - white_moves.bit_count()

    corners = (black & CORNERS).bit_count() - (white & CORNERS).bit_count()
    x_squares, c_squares = X_AND_C_SQUARES[empty & CORNERS]
    x_count = (white & x_squares).bit_count() - (black & x_squares).bit_count()
    c_count = (white & c_squares).bit_count() - (black & c_squares).bit_count()

    west_black = ((black & FILE_A) * _FILE_TO_BYTE >> 56) & 255
    west_white = ((white & FILE_A) * _FILE_TO_BYTE >> 56) & 255
    east_black = ((black >> 7 & FILE_A) * _FILE_TO_BYTE >> 56) & 255
    east_white = ((white >> 7 & FILE_A) * _FILE_TO_BYTE >> 56) & 255
    edges = (EDGE_STABILITY[(black & 255) << 8 | (white & 255)]
             + EDGE_STABILITY[(black >> 48) & 0xFF00 | white >> 56]
             + EDGE_STABILITY[west_black << 8 | west_white]
             + EDGE_STABILITY[east_black << 8 | east_white])

    parity = 1 if empties & 1 else -1
    if to_move:
        parity = -parity
    discs = black.bit_count() - white.bit_count()

    value = (w_mobility * mobility + w_potential * potential + w_frontier * frontier
             + w_corner * corners + w_x * x_count + w_c * c_count + w_edge * edges
             + w_parity * parity + w_discs * discs)
    return value, -value
