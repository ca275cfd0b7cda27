"""Clobber's small parts: canonical keys and outcome classes, built ahead as data.

A live part (a group of stones holding both colours, `rules.live_parts`) is a game of
its own. Its outcome class depends only on its shape up to a translation, the board's
eight symmetries (a rotation or reflection maps captures onto captures) and a swap of
the colours (which swaps what White and Black can do). `part_key` gives every part one
key for all of these images: the smallest packed image (`packed`) of the sixteen, and
whether it is one with the colours swapped.

The class is two bits: WHITE_FIRST_WINS (White wins the part alone moving first) and
BLACK_FIRST_WINS. A part White wins either way is positive (WHITE_FIRST_WINS alone), one
Black wins either way negative, one the side moving first wins fuzzy (both bits), one
the side moving second wins zero (neither).

The table (`parts.npy`, made by `scripts/parts_table clobber`) holds the class of every
live part of up to TABLE_STONES stones, sorted by key: entry = key << 2 | class, in the
key's own colours: 51,035 parts. Larger parts are the solver's to solve.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import numpy as np

from games.kernel import kernel, lowest_bit, popcount
from games.symmetry import SYMMETRY_COUNT, symmetric_image

#: The largest parts the table holds. A part of n stones spans at most n + 1 files and
#: ranks together, so its packed image fits in 6 + 2 * 20 bits up to 8 stones.
TABLE_STONES = 8
WHITE_FIRST_WINS = 1
BLACK_FIRST_WINS = 2
#: The sides to move, as the rules number them.
WHITE, BLACK = 0, 1
#: The class `part_class` gives a part that the table does not hold.
UNKNOWN = -1
TABLE_FILE = Path(__file__).with_name("parts.npy")

U0 = np.uint64(0)
U1 = np.uint64(1)
U3 = np.uint64(3)
U8 = np.uint64(8)
U16 = np.uint64(16)
U32 = np.uint64(32)
BYTE = np.uint64(0xFF)


def load_table(path: Path = TABLE_FILE) -> np.ndarray:
    """The table (sorted int64 entries, key << 2 | class) of `path`; empty where there is
    no file yet. Raises ValueError for a file that is not a sorted 1-d int64 array."""
    if not path.exists():
        return np.zeros(0, dtype=np.int64)
    table = np.load(path, allow_pickle=False)
    if table.ndim != 1 or table.dtype != np.int64 or np.any(table[1:] <= table[:-1]):
        raise ValueError(f"{path}: not a sorted 1-d int64 table of parts")
    return table


#: The table of classes (`load_table`).
TABLE = load_table()


@kernel(inline=True)
def packed(white, black):
    """The image of the stones translated to a1 (their lowest rank to rank 1, their
    leftmost file to file a), packed: its width in bits 0-2 (width - 1) and height in bits
    3-5 (height - 1), then rank by rank its white and then its black stones, `width`
    bits each. Unique for a given image; fits in 63 bits for up to TABLE_STONES stones."""
    occupied = white | black
    rows = occupied | (occupied >> U32)
    rows |= rows >> U16
    rows |= rows >> U8
    rows &= BYTE
    file0 = lowest_bit(rows)
    rank0 = lowest_bit(occupied) >> 3
    shift = np.uint64(8 * rank0 + file0)
    white >>= shift
    black >>= shift
    occupied >>= shift
    width = 0
    span = rows >> np.uint64(file0)
    while span != U0:
        width += 1
        span >>= U1
    mask = (U1 << np.uint64(width)) - U1
    key = np.uint64(width - 1)
    bit = np.uint64(6)
    height = 0
    while occupied != U0:
        key |= (white & mask) << bit
        bit += np.uint64(width)
        key |= (black & mask) << bit
        bit += np.uint64(width)
        white >>= U8
        black >>= U8
        occupied >>= U8
        height += 1
    return np.int64(key | (np.uint64(height - 1) << U3))


@kernel
def part_key(white, black):
    """(key, swapped): the smallest `packed` image of the part under the eight
    symmetries, with the colours as they are and swapped, and 1 if it is a swapped one,
    else 0. Parts that are images of each other share the key."""
    best = np.int64(-1)
    swapped = 0
    for symmetry in range(SYMMETRY_COUNT):
        w = symmetric_image(white, symmetry)
        b = symmetric_image(black, symmetry)
        key = packed(w, b)
        if best < 0 or key < best:
            best = key
            swapped = 0
        key = packed(b, w)
        if key < best:
            best = key
            swapped = 1
    return best, swapped


@kernel
def part_class(white, black):
    """The outcome class (WHITE_FIRST_WINS | BLACK_FIRST_WINS bits) of the live part of
    `white` and `black` stones, or UNKNOWN when it has more than TABLE_STONES stones or
    the table does not hold it."""
    if popcount(white | black) > TABLE_STONES or len(TABLE) == 0:
        return UNKNOWN
    key, swapped = part_key(white, black)
    index = np.searchsorted(TABLE, key << 2)
    if index == len(TABLE) or (TABLE[index] >> 2) != key:
        return UNKNOWN
    found = TABLE[index] & 3
    if swapped:
        return ((found & 1) << 1) | (found >> 1)
    return found


# ---- building the table (`scripts/parts_table`) -----------------------------------

Shape = frozenset[tuple[int, int]]


def _at_a1(cells: set[tuple[int, int]]) -> Shape | None:
    """The cells (rank, file) moved to rank 0 and file 0; None if they do not fit 8x8."""
    low_rank = min(rank for rank, _ in cells)
    low_file = min(file for _, file in cells)
    moved = frozenset((rank - low_rank, file - low_file) for rank, file in cells)
    if max(rank for rank, _ in moved) > 7 or max(file for _, file in moved) > 7:
        return None
    return moved


def fixed_shapes(most: int) -> list[Shape]:
    """Every fixed polyomino (orthogonally connected squares, up to translation) of 2 to
    `most` squares, grown square by square from one."""
    level: set[Shape] = {frozenset({(0, 0)})}
    shapes: list[Shape] = []
    for _ in range(2, most + 1):
        grown: set[Shape] = set()
        for shape in level:
            for rank, file in shape:
                for step_rank, step_file in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    cell = (rank + step_rank, file + step_file)
                    if cell not in shape:
                        moved = _at_a1(set(shape) | {cell})
                        if moved is not None:
                            grown.add(moved)
        level = grown
        shapes.extend(sorted(level, key=sorted))
    return shapes


def canonical_parts(most: int) -> dict[int, tuple[int, int]]:
    """Canonical key -> (white, black) of one part with that key, in the key's own
    colours, for every live part of up to `most` stones: every fixed polyomino coloured
    in every way that holds both colours, the images sharing a key kept once."""
    found: dict[int, tuple[int, int]] = {}
    for shape in fixed_shapes(most):
        bits = [1 << (8 * rank + file) for rank, file in sorted(shape)]
        occupied = sum(bits)
        for colouring in range(1, (1 << len(bits)) - 1):
            white = sum(bit for i, bit in enumerate(bits) if colouring >> i & 1)
            black = occupied ^ white
            key, swapped = part_key(np.uint64(white), np.uint64(black))
            if int(key) not in found:
                found[int(key)] = (black, white) if swapped else (white, black)
    return found


def positions_to_solve(found: dict[int, tuple[int, int]], make_state) -> Iterator[tuple[int, object, int]]:
    """(key, kernel state, class bit) for each part of `found` with each side moving
    first (`make_state`: the rules' own, interpreted, so that the state holds numpy
    scalars as the compiled solver takes them): the part's class has the bit when the
    side to move wins the state."""
    for key, (white, black) in sorted(found.items()):
        for side, bit in ((WHITE, WHITE_FIRST_WINS), (BLACK, BLACK_FIRST_WINS)):
            yield key, make_state(np.uint64(white), np.uint64(black), np.int64(side)), bit
