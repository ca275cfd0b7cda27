"""Stable discs: discs that no sequence of moves can turn over, and so the bound they put
on the final margin (`margin_ceiling`), which lets the exact solver give up a node that
cannot reach its window without searching it (the stability cut-off).

A disc is found stable (`stable_discs`) when:

- it lies on an edge (the first or last row or file) and the edge table says so: an edge
  disc can be turned over only along its edge, so `EDGE_STABLE` holds, for every
  arrangement of the eight squares of an edge, the discs of one side that stay that
  side's whatever discs of either colour are then placed on the edge's empty squares in
  any order (each placement turning over the runs it closes along the edge, as if every
  placement were legal: the most an edge can change);
- or, inside the edges, along each of the four line directions (east-west, north-south
  and the two diagonals) its line is full (no placement on it can turn it over) or a
  neighbour on that line is a stable disc of its own side (a run to be turned over along
  that line would have to take the neighbour with it). These grow from the edges inward
  until nothing more is found.

This finds most stable discs, not all of them (a disc whose line has empty squares only
on one side of it, say, is not found): `margin_ceiling` is a bound, never more than the
truth allows.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from games.kernel import kernel, popcount
from games.othello import bitboard

U0 = np.uint64(0)
U1 = np.uint64(1)
#: The squares off the board's edges.
INNER = np.uint64(0x007E7E7E7E7E7E00)
ROW_1 = np.uint64(0xFF)
FILE_A = np.uint64(bitboard.FILE_A)
#: A bound above every margin, for a position whose ceiling is not computed.
NO_CEILING = 65


def _edge_flips(own: int, opp: int, square: int) -> int:
    """The `opp` discs of an edge (8-bit sets) that a disc of `own`'s side placed on
    `square` turns over along the edge."""
    flipped = 0
    for step in (-1, 1):
        run, at = 0, square + step
        while 0 <= at < 8 and opp >> at & 1:
            run |= 1 << at
            at += step
        if 0 <= at < 8 and own >> at & 1:
            flipped |= run
    return flipped


@lru_cache(maxsize=None)
def _stable_on_edge(own: int, opp: int) -> int:
    """The squares of `own` (an edge's 8 squares) that stay `own`'s in every arrangement
    reachable from (own, opp) by placements of either side on its empty squares: own's
    discs less those lost in some arrangement one placement away."""
    stable = own
    empty = 0xFF & ~(own | opp)
    for square in range(8):
        if stable == 0:
            break
        if empty >> square & 1:
            placed = 1 << square
            flipped = _edge_flips(own, opp, square)
            stable &= _stable_on_edge(own | placed | flipped, opp & ~flipped)
            flipped = _edge_flips(opp, own, square)
            stable &= _stable_on_edge(own & ~flipped, opp | placed | flipped)
    return stable


def build_edge_table() -> np.ndarray:
    """EDGE_STABLE[own * 256 + opp]: `_stable_on_edge(own, opp)` for every edge (0 where
    own and opp overlap, which no board has). Built in a third of a second, too long for
    every process that imports the game: EDGE_TABLE_FILE keeps it (`python -m
    games.othello.stability` writes it again, and without it the table is built; a test
    holds the two equal)."""
    table = np.zeros(256 * 256, dtype=np.uint8)
    for own in range(256):
        for opp in range(256):
            if own & opp == 0:
                table[own * 256 + opp] = _stable_on_edge(own, opp)
    _stable_on_edge.cache_clear()
    return table


EDGE_TABLE_FILE = Path(__file__).with_name("edge_stability.npy")
EDGE_STABLE = np.load(EDGE_TABLE_FILE) if EDGE_TABLE_FILE.exists() else build_edge_table()


def _unpacked_files() -> np.ndarray:
    """FILE_OF_BYTE[b]: the a-file squares whose rows are the set bits of byte b."""
    table = np.zeros(256, dtype=np.uint64)
    for byte in range(256):
        table[byte] = np.uint64(sum(1 << (8 * row) for row in range(8) if byte >> row & 1))
    return table


FILE_OF_BYTE = _unpacked_files()


def _lines() -> np.ndarray:
    """LINES[d]: the lines of direction d (0 rows, 1 files, 2 and 3 the two diagonal
    directions, those of two squares or more), each a bit pattern; padded with 0."""
    lines = np.zeros((4, 15), dtype=np.uint64)
    for row in range(8):
        lines[0, row] = np.uint64(0xFF << (8 * row))
        lines[1, row] = np.uint64(int(FILE_A) << row)
    for index, total in enumerate(range(1, 14)):
        # Squares with row + file == total, and with row - file == total - 7.
        lines[2, index] = np.uint64(sum(1 << (8 * r + total - r) for r in range(8) if 0 <= total - r < 8))
        lines[3, index] = np.uint64(sum(1 << (8 * r + r - (total - 7)) for r in range(8)
                                        if 0 <= r - (total - 7) < 8))
    return lines


LINES = _lines()


@kernel(inline=True)
def _file_edge(board, file):
    """The squares of `board` on file `file` (0 or 7), gathered into a byte, row 1 as its
    lowest bit."""
    squares = (board >> np.uint64(file)) & FILE_A
    squares |= squares >> np.uint64(7)
    squares |= squares >> np.uint64(14)
    squares |= squares >> np.uint64(28)
    return squares & ROW_1


@kernel(inline=True)
def _edge(own_byte, opp_byte):
    """The stable squares of an edge's `own_byte` (see EDGE_STABLE)."""
    return np.uint64(EDGE_STABLE[np.int64(own_byte) * 256 + np.int64(opp_byte)])


@kernel(inline=True)
def _full_lines(occupied, direction):
    """The squares of the lines of `direction` (see LINES) that `occupied` fills."""
    full = U0
    for i in range(15):
        line = LINES[direction, i]
        if occupied & line == line:
            full |= line
    return full


@kernel
def stable_discs(own, opp):
    """Discs of `own` that no sequence of moves from the position (own, opp) can turn
    over (most of them, not all: see the module docstring)."""
    stable = _edge(own & ROW_1, opp & ROW_1)
    stable |= _edge(own >> np.uint64(56), opp >> np.uint64(56)) << np.uint64(56)
    stable |= FILE_OF_BYTE[np.int64(_edge(_file_edge(own, 0), _file_edge(opp, 0)))]
    stable |= FILE_OF_BYTE[np.int64(_edge(_file_edge(own, 7), _file_edge(opp, 7)))] << np.uint64(7)
    occupied = own | opp
    full_0, full_1 = _full_lines(occupied, 0), _full_lines(occupied, 1)
    full_2, full_3 = _full_lines(occupied, 2), _full_lines(occupied, 3)
    inner = own & INNER
    stable |= inner & full_0 & full_1 & full_2 & full_3
    while True:
        east_west = full_0 | (stable >> U1) | (stable << U1)
        north_south = full_1 | (stable >> np.uint64(8)) | (stable << np.uint64(8))
        diagonal = full_2 | (stable >> np.uint64(7)) | (stable << np.uint64(7))
        anti_diagonal = full_3 | (stable >> np.uint64(9)) | (stable << np.uint64(9))
        grown = stable | (inner & east_west & north_south & diagonal & anti_diagonal)
        if grown == stable:
            return stable
        stable = grown


@kernel(inline=True)
def margin_ceiling(own, opp, alpha):
    """A bound on the final disc margin of the side owning `own`, to move or not: the
    other side keeps its stable discs. NO_CEILING where that bound could not be at most
    `alpha` (the other side has too few discs), without computing it."""
    if 64 - 2 * popcount(opp) > alpha:
        return np.int64(NO_CEILING)
    return np.int64(64 - 2 * popcount(stable_discs(opp, own)))


if __name__ == "__main__":
    np.save(EDGE_TABLE_FILE, build_edge_table())
