"""Othello's exact solver for the last few empty squares: the hooks `ending` and
`solve_ending` that `search.solver` hands such positions to.

Near the end most of an exact search's nodes lie in its last plies, where the general
solver's machinery (table probes, keys, move lists, ordering) costs more than the
subtrees it saves. This one works on the two boards alone:

- the moves are found square by square among the empty ones (a square next to no enemy
  disc is skipped unseen, one that flips nothing is no move), with no move generation;
- the empty squares are tried in parity order: first those in the quadrants (the 4x4
  corners of the board) with an odd number of empty squares, where the side to move
  can hope for the last move of the region; within each, the corners first and the
  squares next to a corner last (`SQUARE_CLASSES`);
- the last empty square is counted, not searched: its flips for either side give the
  final margin at once;
- no table, no key: the subtrees are too small for it to pay.

Values are final disc margins for the side to move (CodinGame counts discs only: an
empty square at the end goes to no one), fail-soft in (alpha, beta).
"""

from __future__ import annotations

import numpy as np

from games.kernel import kernel, lowest_bit, popcount
from games.othello.bitboard import flips
from games.othello.stability import margin_ceiling

#: From this many empty squares down, `search.solver` hands a position to `solve_ending`.
ENDING_EMPTIES = 8

U0 = np.uint64(0)
U1 = np.uint64(1)
FULL = np.uint64((1 << 64) - 1)
#: Above every margin.
INFINITY = 65
#: From this many empty squares up, a node first tries the stability cut-off.
CEILING_EMPTIES = 5

#: The four quadrants: a1-d4, e1-h4, a5-d8, e5-h8.
QUADRANTS = np.array([0x0F0F0F0F, 0xF0F0F0F0, 0x0F0F0F0F << 32, 0xF0F0F0F0 << 32], dtype=np.uint64)


def _square_classes() -> np.ndarray:
    """The squares in the order tried within a parity region: the corners, then the
    squares off the corners' neighbours, then those next to a corner."""
    corners = 1 << 0 | 1 << 7 | 1 << 56 | 1 << 63
    near = 0
    for corner in (0, 7, 56, 63):
        row, file = divmod(corner, 8)
        for r in (row - 1, row, row + 1):
            for f in (file - 1, file, file + 1):
                if 0 <= r < 8 and 0 <= f < 8:
                    near |= 1 << (r * 8 + f)
    near &= ~corners
    rest = ((1 << 64) - 1) & ~corners & ~near
    return np.array([corners, rest, near], dtype=np.uint64)


SQUARE_CLASSES = _square_classes()


def _neighbours() -> np.ndarray:
    """NEIGHBOURS[square]: the squares around `square` (a placement must flip one)."""
    table = np.zeros(64, dtype=np.uint64)
    for square in range(64):
        row, file = divmod(square, 8)
        mask = 0
        for row_step in (-1, 0, 1):
            for file_step in (-1, 0, 1):
                r, f = row + row_step, file + file_step
                if (row_step or file_step) and 0 <= r < 8 and 0 <= f < 8:
                    mask |= 1 << (r * 8 + f)
        table[square] = np.uint64(mask)
    return table


NEIGHBOURS = _neighbours()


@kernel(inline=True)
def ending(s):
    """Whether `s` (an Othello kernel state) has at most ENDING_EMPTIES empty squares."""
    return 64 - popcount(s[0] | s[1]) <= ENDING_EMPTIES


@kernel
def solve_ending(s, alpha, beta, counter):
    """The exact final margin of `s` for the side to move if it lies in (alpha, beta),
    else a bound on the side it failed; adds the nodes visited to counter[0]."""
    own, opp = s[0], s[1]
    empties = ~(own | opp)
    if empties == U0:
        counter[0] += 1
        return popcount(own) - popcount(opp)
    return _search(own, opp, empties, alpha, beta, np.int64(0), counter)


@kernel(inline=True)
def _odd_quadrants(empties):
    """The squares of the quadrants holding an odd number of `empties`."""
    odd = U0
    for quadrant in range(4):
        if popcount(empties & QUADRANTS[quadrant]) & 1:
            odd |= QUADRANTS[quadrant]
    return odd


@kernel(inline=True)
def _last(own, opp, square, counter):
    """The final margin for the side to move with one empty square, `square`."""
    counter[0] += 1
    difference = popcount(own) - popcount(opp)
    flipped = popcount(flips(own, opp, square))
    if flipped != 0:
        return difference + 1 + 2 * flipped
    flipped = popcount(flips(opp, own, square))
    if flipped != 0:
        counter[0] += 1
        return difference - 1 - 2 * flipped
    return difference


@kernel
def _search(own, opp, empties, alpha, beta, passed, counter):
    """Negamax over two or more `empties`; `passed` is 1 when the other side just passed."""
    counter[0] += 1
    left = popcount(empties)
    if left >= CEILING_EMPTIES:
        ceiling = margin_ceiling(own, opp, alpha)
        if ceiling <= alpha:
            return ceiling
    best = -INFINITY
    odd = _odd_quadrants(empties)
    two_left = left == 2
    for region in range(6):
        candidates = empties & (odd if region < 3 else ~odd) & SQUARE_CLASSES[region % 3]
        while candidates != U0:
            square = lowest_bit(candidates)
            candidates &= candidates - U1
            if NEIGHBOURS[square] & opp == U0:
                continue
            flipped = flips(own, opp, square)
            if flipped == U0:
                continue
            placed = U1 << np.uint64(square)
            rest = empties ^ placed
            if two_left:
                value = -_last(opp ^ flipped, own | flipped | placed, lowest_bit(rest), counter)
            else:
                value = -_search(opp ^ flipped, own | flipped | placed, rest, -beta, -alpha, np.int64(0), counter)
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if value >= beta:
                        return best
    if best != -INFINITY:
        return best
    if passed != 0:
        return popcount(own) - popcount(opp)
    return -_search(opp, own, empties, -beta, -alpha, np.int64(1), counter)
