"""Othello pattern evaluation: tables of weights for the configurations of 46 lines and
regions of the board, trained on millions of positions (`scripts/train_patterns`).

`evaluate(s)` is the value for the side to move, in centi-discs (100 is one disc): the
sum, over every pattern instance on the board, of its table's weight for the
instance's contents, plus a few scalar terms, all with the weights of the position's
phase (`PHASE_EMPTIES` empty squares to a phase).

The patterns are those of the strong programs since Logistello (the set Edax uses), each
read on all its symmetric images:

| type | squares | instances |
| --- | --- | --- |
| corner3x3 | a1-c3 | 4 |
| corner2x5 | a1-e2 | 8 |
| edge2x | row 1, b2 and g2 (the X-squares) | 4 |
| row2, row3, row4 | a whole row (and column) | 4 each |
| diag8 | a1-h8 | 2 |
| diag7, diag6, diag5, diag4 | the shorter diagonals | 4 each |

An instance's contents are a base-3 number, one digit a square (0 empty, 1 the side to
move, 2 the other side), in the order of its type's `squares`. Every instance is its
type's canonical squares read on one of the board's eight symmetric images (`SYMMETRIES`):
the kernel turns the bitboards over with a few shifts and reads each canonical region
with one mask and shift, so that one table serves every instance of a type. The tables
give a configuration and its mirror image within its own pattern (a row read backwards,
a corner read across its diagonal) the same weight, which makes the whole evaluation
symmetric under the board's eight symmetries.

The search carries the instances' indices through its moves, as Edax and Egaroucid do
(`accumulate`, `accumulate_play`, `evaluate_accumulated`): one row of 16-bit lanes a
square, added for each square a move changes, in vector registers. A leaf costs half
as much as reading the instances again from the boards (`scripts/eval_speed`,
docs/othello-evaluation.md), which `evaluate` does.

The scalar terms (`SCALARS`): a bias for the side to move, the difference of legal moves
(mobility) and the parity of the empty squares.

The weights are data: `pattern_weights.npy`, int16 (PHASES, WEIGHTS_SIZE), 5.35 MB, read
once at import and compiled in as a constant, one array a phase (covered by the compile
cache's digest). `scripts/train_patterns` fits them by least squares to the final margins
of 5.8 million positions of expert games, 2.5 million of them solved exactly by the
engine (docs/othello-evaluation.md says how, and how well they do).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from games.kernel import kernel, lowest_bit, popcount
from games.othello.bitboard import move_mask
from games.symmetry import mirror_files, mirror_rows, transpose
from games.weights import read_probcut

WEIGHTS_FILE = Path(__file__).with_name("pattern_weights.npy")

#: Empty squares to a phase: phase = empties // PHASE_EMPTIES, the last phase also for the
#: 61-64 empty squares of a board text (no game reaches them).
PHASE_EMPTIES = 4
PHASES = 60 // PHASE_EMPTIES + 1
#: PHASE_OF[empties]: the phase of a position with that many empty squares.
PHASE_OF = np.array([min(empties // PHASE_EMPTIES, PHASES - 1) for empties in range(65)], dtype=np.int64)

U0 = np.uint64(0)
U1 = np.uint64(1)
U2 = np.uint64(2)
U3 = np.uint64(3)
U4 = np.uint64(4)
U5 = np.uint64(5)
U7 = np.uint64(7)
U8 = np.uint64(8)
U10 = np.uint64(10)
U16 = np.uint64(16)
U24 = np.uint64(24)
U32 = np.uint64(32)
BYTE = np.uint64(0xFF)

# ---- the pattern types ------------------------------------------------------------------

#: (name, squares): each type's canonical squares, in the order of its digits (the order
#: in which `_read_*` gathers their bits). Square = 8 * row + file, a1 = 0, h8 = 63.
TYPES: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("corner3x3", (0, 1, 2, 8, 9, 10, 16, 17, 18)),
    ("corner2x5", (0, 1, 2, 3, 4, 8, 9, 10, 11, 12)),
    ("edge2x", (0, 1, 2, 3, 4, 5, 6, 7, 9, 14)),
    ("row2", tuple(range(8, 16))),
    ("row3", tuple(range(16, 24))),
    ("row4", tuple(range(24, 32))),
    ("diag8", (0, 9, 18, 27, 36, 45, 54, 63)),
    ("diag7", (1, 10, 19, 28, 37, 46, 55)),
    ("diag6", (2, 11, 20, 29, 38, 47)),
    ("diag5", (3, 12, 21, 30, 39)),
    ("diag4", (4, 13, 22, 31)),
)
TYPE_NAMES = tuple(name for name, _ in TYPES)
#: The size of each type's table: 3 to the number of its squares.
TYPE_SIZES = tuple(3 ** len(squares) for _, squares in TYPES)

#: The scalar terms, in the first slots of a phase's weights.
SCALARS = ("bias", "mobility", "parity")
#: TYPE_OFFSETS[t]: where type t's table starts in a phase's weights.
TYPE_OFFSETS = tuple(len(SCALARS) + sum(TYPE_SIZES[:index]) for index in range(len(TYPES)))
WEIGHTS_SIZE = TYPE_OFFSETS[-1] + TYPE_SIZES[-1]

#: The board's symmetries, as the kernel applies them: g = 4 * t + x turns the board
#: over its a1-h8 diagonal when t is 1, then mirrors it as x says (0 none, 1 left-right,
#: 2 top-bottom, 3 both).
SYMMETRIES = 8
#: TYPE_SYMMETRIES[t]: the symmetries on whose images the kernel reads type t; one per
#: instance (their images of the canonical squares are the type's distinct instances).
TYPE_SYMMETRIES: tuple[tuple[int, ...], ...] = (
    (0, 1, 2, 3),
    (0, 1, 2, 3, 4, 5, 6, 7),
    (0, 2, 4, 6),
    (0, 2, 4, 6),
    (0, 2, 4, 6),
    (0, 2, 4, 6),
    (0, 1),
    (0, 1, 2, 3),
    (0, 1, 2, 3),
    (0, 1, 2, 3),
    (0, 1, 2, 3),
)


def symmetric_square(g: int, square: int) -> int:
    """Where symmetry g (see SYMMETRIES) takes `square`."""
    row, file = divmod(square, 8)
    if g >= 4:
        row, file = file, row
    if g & 1:
        file = 7 - file
    if g & 2:
        row = 7 - row
    return 8 * row + file


def instance_squares(type_index: int, g: int) -> tuple[int, ...]:
    """The squares, in digit order, of the instance of type `type_index` read on the image
    of symmetry g: the squares g takes to the canonical ones."""
    inverse = {symmetric_square(g, square): square for square in range(64)}
    return tuple(inverse[square] for square in TYPES[type_index][1])


def _ternary() -> np.ndarray:
    """TERNARY[v]: the bits of v (up to 10) as base-3 digits of value 1."""
    return np.array([sum(3 ** bit for bit in range(10) if value >> bit & 1) for value in range(1024)],
                    dtype=np.uint16)


#: TERNARY[bits]: the base-3 number with digit 1 where `bits` has a bit.
TERNARY = _ternary()


def mirror_index(type_index: int, index: int) -> int:
    """The index of the same configuration read through the type's own symmetry (a row
    backwards, a corner across its diagonal): the instance squares of a symmetry that
    maps the canonical squares onto themselves, in another order. Equal to `index` for
    a type without one (corner2x5)."""
    squares = TYPES[type_index][1]
    for g in range(1, SYMMETRIES):
        image = tuple(symmetric_square(g, square) for square in squares)
        if sorted(image) == sorted(squares):
            position = {square: digit for digit, square in enumerate(squares)}
            digits = [index // 3 ** digit % 3 for digit in range(len(squares))]
            return sum(digits[digit] * 3 ** position[image[digit]] for digit in range(len(squares)))
    return index


@functools.cache
def canonical_indices(type_index: int) -> np.ndarray:
    """CANONICAL[index]: the smaller of `index` and its `mirror_index`: configurations that
    must share a weight share this (read-only; made once)."""
    size = TYPE_SIZES[type_index]
    mirrored = np.array([mirror_index(type_index, index) for index in range(size)], dtype=np.int64)
    canonical = np.minimum(np.arange(size, dtype=np.int64), mirrored)
    canonical.flags.writeable = False
    return canonical


def canonical_slots() -> np.ndarray:
    """SLOT[slot]: for each slot of a phase's weights, the slot that holds the weight it
    shares (its configuration's or its mirror image's `canonical_indices`); the scalar
    slots are their own."""
    slots = np.arange(WEIGHTS_SIZE, dtype=np.int64)
    for type_index, offset in enumerate(TYPE_OFFSETS):
        slots[offset:offset + TYPE_SIZES[type_index]] = offset + canonical_indices(type_index)
    return slots


def load_pattern_weights(path: Path = WEIGHTS_FILE) -> np.ndarray:
    """The weights (PHASES, WEIGHTS_SIZE) int16 of `path`; zeros where there is no file yet.
    Raises ValueError for a file of another shape or type."""
    if not path.exists():
        return np.zeros((PHASES, WEIGHTS_SIZE), dtype=np.int16)
    weights = np.load(path, allow_pickle=False)
    if weights.shape != (PHASES, WEIGHTS_SIZE) or weights.dtype != np.int16:
        raise ValueError(f"{path}: weights of shape {weights.shape} {weights.dtype}, "
                         f"not ({PHASES}, {WEIGHTS_SIZE}) int16")
    return weights


#: WEIGHTS[phase][slot]: the scalar weights, then each type's table (TYPE_OFFSETS); a
#: tuple of one array a phase, since numba compiles in (and caches) no array over 1 MB.
WEIGHTS = tuple(load_pattern_weights())

# ---- the kernels ------------------------------------------------------------------------

DIAG8 = np.uint64(sum(1 << square for square in TYPES[6][1]))
DIAG7 = np.uint64(sum(1 << square for square in TYPES[7][1]))
DIAG6 = np.uint64(sum(1 << square for square in TYPES[8][1]))
DIAG5 = np.uint64(sum(1 << square for square in TYPES[9][1]))
DIAG4 = np.uint64(sum(1 << square for square in TYPES[10][1]))
#: The types' offsets, unsigned like every part of an index (`_weight`).
O_C33, O_C25, O_E2X, O_R2, O_R3, O_R4, O_D8, O_D7, O_D6, O_D5, O_D4 = (np.uint64(offset) for offset in TYPE_OFFSETS)


@kernel(inline=True)
def _diagonal(b, mask, first_file):
    """The squares of the diagonal `mask` (one a file, going down to the right from the
    file `first_file` of row 1) gathered in file order: each row's square folds onto
    row 1."""
    x = b & mask
    x |= x >> U32
    x |= x >> U16
    x |= x >> U8
    return (x & BYTE) >> first_file


@kernel(inline=True)
def _weight(w, offset, own_bits, opp_bits):
    """The weight in `w` of the configuration with the side to move on `own_bits` and the
    other side on `opp_bits` (gathered in digit order), in its type's table at `offset`.
    The index is unsigned: compiled, a signed one costs a test for negative indices at
    each of the 46 look-ups (8% of the search's time, measured)."""
    return np.int64(w[offset + TERNARY[own_bits] + U2 * TERNARY[opp_bits]])


@kernel(inline=True)
def _corner3x3(b):
    return (b & U7) | ((b >> U5) & np.uint64(0x38)) | ((b >> U10) & np.uint64(0x1C0))


@kernel(inline=True)
def _corner2x5(b):
    return (b & np.uint64(0x1F)) | ((b >> U3) & np.uint64(0x3E0))


@kernel(inline=True)
def _edge2x(b):
    return (b & BYTE) | ((b >> U1) & np.uint64(0x100)) | ((b >> U5) & np.uint64(0x200))


@kernel(inline=True)
def _row(b, shift):
    return (b >> shift) & BYTE


@kernel(inline=True)
def _diagonals(w, own, opp):
    """The weights of the four short diagonals (diag7 to diag4) read on this image."""
    return (_weight(w, O_D7, _diagonal(own, DIAG7, U1), _diagonal(opp, DIAG7, U1))
            + _weight(w, O_D6, _diagonal(own, DIAG6, U2), _diagonal(opp, DIAG6, U2))
            + _weight(w, O_D5, _diagonal(own, DIAG5, U3), _diagonal(opp, DIAG5, U3))
            + _weight(w, O_D4, _diagonal(own, DIAG4, U4), _diagonal(opp, DIAG4, U4)))


@kernel(inline=True)
def _edges_and_rows(w, own, opp):
    """The weights of edge2x and the rows 2-4 read on this image."""
    return (_weight(w, O_E2X, _edge2x(own), _edge2x(opp))
            + _weight(w, O_R2, _row(own, U8), _row(opp, U8))
            + _weight(w, O_R3, _row(own, U16), _row(opp, U16))
            + _weight(w, O_R4, _row(own, U24), _row(opp, U24)))


@kernel(inline=True)
def _corners(w, own, opp):
    """The weights of corner3x3 and corner2x5 read on this image."""
    return _weight(w, O_C33, _corner3x3(own), _corner3x3(opp)) + _weight(w, O_C25, _corner2x5(own), _corner2x5(opp))


@kernel
def pattern_sum(w, own, opp):
    """The sum of the pattern weights `w` (one phase's row of WEIGHTS) over all 46
    instances, for the side owning `own` (digit 1)."""
    own_h, opp_h = mirror_files(own), mirror_files(opp)
    own_v, opp_v = mirror_rows(own), mirror_rows(opp)
    own_hv, opp_hv = mirror_rows(own_h), mirror_rows(opp_h)
    own_t, opp_t = transpose(own), transpose(opp)
    own_th, opp_th = mirror_files(own_t), mirror_files(opp_t)
    own_tv, opp_tv = mirror_rows(own_t), mirror_rows(opp_t)
    own_thv, opp_thv = mirror_rows(own_th), mirror_rows(opp_th)
    total = np.int64(0)
    # Symmetry 0: every type; 1 (mirrored left-right): the anti-diagonal too.
    total += _corners(w, own, opp) + _edges_and_rows(w, own, opp) + _diagonals(w, own, opp)
    total += _weight(w, O_D8, _diagonal(own, DIAG8, U0), _diagonal(opp, DIAG8, U0))
    total += _corners(w, own_h, opp_h) + _diagonals(w, own_h, opp_h)
    total += _weight(w, O_D8, _diagonal(own_h, DIAG8, U0), _diagonal(opp_h, DIAG8, U0))
    total += _corners(w, own_v, opp_v) + _edges_and_rows(w, own_v, opp_v) + _diagonals(w, own_v, opp_v)
    total += _corners(w, own_hv, opp_hv) + _diagonals(w, own_hv, opp_hv)
    # The transposed images: the other orientation of corner2x5, and the columns.
    total += _weight(w, O_C25, _corner2x5(own_t), _corner2x5(opp_t)) + _edges_and_rows(w, own_t, opp_t)
    total += _weight(w, O_C25, _corner2x5(own_th), _corner2x5(opp_th))
    total += _weight(w, O_C25, _corner2x5(own_tv), _corner2x5(opp_tv)) + _edges_and_rows(w, own_tv, opp_tv)
    total += _weight(w, O_C25, _corner2x5(own_thv), _corner2x5(opp_thv))
    return total


INSTANCES = 46


@kernel
def _put(out, at, offset, own_bits, opp_bits):
    out[at] = offset + TERNARY[own_bits] + U2 * TERNARY[opp_bits]
    return at + 1


@kernel
def instance_indices(own, opp, out):
    """Write into out[:INSTANCES] the slot in a phase's weights of each instance's
    configuration (`pattern_sum` is the sum of the weights at these slots), for
    training: the instances of each type in TYPE_SYMMETRIES order, type by type."""
    images_own = (own, mirror_files(own), mirror_rows(own), mirror_rows(mirror_files(own)))
    images_opp = (opp, mirror_files(opp), mirror_rows(opp), mirror_rows(mirror_files(opp)))
    t_own, t_opp = transpose(own), transpose(opp)
    images_own_t = (t_own, mirror_files(t_own), mirror_rows(t_own), mirror_rows(mirror_files(t_own)))
    images_opp_t = (t_opp, mirror_files(t_opp), mirror_rows(t_opp), mirror_rows(mirror_files(t_opp)))
    at = 0
    for x in range(4):
        at = _put(out, at, O_C33, _corner3x3(images_own[x]), _corner3x3(images_opp[x]))
    for x in range(4):
        at = _put(out, at, O_C25, _corner2x5(images_own[x]), _corner2x5(images_opp[x]))
    for x in range(4):
        at = _put(out, at, O_C25, _corner2x5(images_own_t[x]), _corner2x5(images_opp_t[x]))
    for x in (0, 2):
        at = _put(out, at, O_E2X, _edge2x(images_own[x]), _edge2x(images_opp[x]))
    for x in (0, 2):
        at = _put(out, at, O_E2X, _edge2x(images_own_t[x]), _edge2x(images_opp_t[x]))
    for offset, shift in ((O_R2, U8), (O_R3, U16), (O_R4, U24)):
        for x in (0, 2):
            at = _put(out, at, offset, _row(images_own[x], shift), _row(images_opp[x], shift))
        for x in (0, 2):
            at = _put(out, at, offset, _row(images_own_t[x], shift), _row(images_opp_t[x], shift))
    for x in range(2):
        at = _put(out, at, O_D8, _diagonal(images_own[x], DIAG8, U0), _diagonal(images_opp[x], DIAG8, U0))
    for offset, mask, first in ((O_D7, DIAG7, U1), (O_D6, DIAG6, U2), (O_D5, DIAG5, U3), (O_D4, DIAG4, U4)):
        for x in range(4):
            at = _put(out, at, offset, _diagonal(images_own[x], mask, first), _diagonal(images_opp[x], mask, first))
    return at


#: The instances' lanes in an accumulator view: INSTANCES, and two more that stay 0 (48
#: 16-bit lanes are three 256-bit vectors).
LANES = 48
#: An accumulator (`accumulate`): both sides' views of the instances' indices, LANES each.
ACCUMULATOR = 2 * LANES


def _square_digits() -> np.ndarray:
    """SQUARE_DIGITS[square, i]: the power of 3 of `square`'s digit in instance i
    (numbered as `instance_indices` writes them), 0 where it does not read the square;
    row 64 (a pass) all 0."""
    digits = np.zeros((65, LANES), dtype=np.uint16)
    instance = 0
    for type_index, symmetries in enumerate(TYPE_SYMMETRIES):
        for g in symmetries:
            for digit, square in enumerate(instance_squares(type_index, g)):
                digits[square, instance] = 3 ** digit
            instance += 1
    return digits


SQUARE_DIGITS = _square_digits()
#: INSTANCE_OFFSETS[i]: where instance i's type's table starts in a phase's weights.
INSTANCE_OFFSETS = np.array([offset for offset, symmetries in zip(TYPE_OFFSETS, TYPE_SYMMETRIES)
                             for _ in symmetries] + [0] * (LANES - INSTANCES), dtype=np.uint64)
U16_2 = np.uint16(2)


@kernel
def accumulate(s, acc, ply):
    """Write into the row acc[ply] (ACCUMULATOR lanes) the instances' indices
    (`instance_indices`, less each type's offset) of the state `s`, from both sides'
    views: into its first LANES with the side to move's discs as digit 1 and the other
    side's as 2, into the next LANES the other way round. `accumulate_play` carries them
    through a move."""
    for i in range(ACCUMULATOR):
        acc[ply, i] = 0
    own, opp = s[0], s[1]
    while own != U0:
        square = lowest_bit(own)
        for i in range(LANES):
            acc[ply, i] += SQUARE_DIGITS[square, i]
            acc[ply, LANES + i] += U16_2 * SQUARE_DIGITS[square, i]
        own &= own - U1
    while opp != U0:
        square = lowest_bit(opp)
        for i in range(LANES):
            acc[ply, i] += U16_2 * SQUARE_DIGITS[square, i]
            acc[ply, LANES + i] += SQUARE_DIGITS[square, i]
        opp &= opp - U1


@kernel(inline=True)
def accumulate_play(parent, child, move, acc, parent_row, row):
    """Write into acc[row] the `accumulate` of `child`, the state after `move` from
    `parent` (a pass, or a disc on the square `move` with the discs `parent[1] &
    ~child[0]` turned), from acc[parent_row], the accumulator of `parent`: the side that moves next
    sees the board as the other side saw it, and only the digits of the squares that
    change, change. Every square's digits are one row of 16-bit lanes (SQUARE_DIGITS),
    so each update is a few vector additions: 50-60 ns a leaf with the look-ups,
    against 110 ns reading the instances again (`scripts/eval_speed`)."""
    square = min(move, 64)
    for i in range(LANES):
        acc[row, i] = acc[parent_row, LANES + i] + U16_2 * SQUARE_DIGITS[square, i]  # empty (0) to the other's (2)
        acc[row, LANES + i] = acc[parent_row, i] + SQUARE_DIGITS[square, i]  # empty (0) to its own (1)
    turned = parent[1] & ~child[0]
    while turned != U0:
        square = lowest_bit(turned)
        for i in range(LANES):
            acc[row, i] += SQUARE_DIGITS[square, i]  # its own (1) to the other side's (2)
            acc[row, LANES + i] -= SQUARE_DIGITS[square, i]  # the other side's (2) to its own (1)
        turned &= turned - U1


@kernel(inline=True)
def accumulated_sum(w, acc, ply):
    """The sum of the pattern weights `w` over the instances of the accumulator
    acc[ply]: `pattern_sum` of the board it was accumulated from."""
    total = np.int64(0)
    for i in range(INSTANCES):
        total += np.int64(w[INSTANCE_OFFSETS[i] + np.uint64(acc[ply, i])])
    return total


def terms(s: tuple) -> list[tuple[str, int]]:
    """The terms `evaluate(s)` sums, for the side to move, as (name, centi-discs): the
    scalar terms, then each pattern type's instances together."""
    own, opp = np.uint64(s[0]), np.uint64(s[1])
    empties = (~int(own | opp) & (1 << 64) - 1).bit_count()
    w = WEIGHTS[PHASE_OF[empties]]
    mobility = int(s[2]).bit_count() - int(move_mask(opp, own)).bit_count()
    rows = [("bias", int(w[0])), ("mobility", int(w[1]) * mobility), ("parity", int(w[2]) * (1 if empties & 1 else -1))]
    slots = np.zeros(INSTANCES, dtype=np.int64)
    instance_indices(own, opp, slots)
    first = 0
    for name, symmetries in zip(TYPE_NAMES, TYPE_SYMMETRIES):
        rows.append((name, int(w[slots[first:first + len(symmetries)]].astype(np.int64).sum())))
        first += len(symmetries)
    return rows


#: Multi-ProbCut's fit for this evaluation (`games.weights.read_probcut`), rows by
#: PHASE_OF; None before `scripts/probcut` has written it.
PROBCUT = read_probcut(Path(__file__).with_name("probcut.json"))


@kernel
def probcut_row(s):
    """The row of multi-ProbCut's fit for the state `s`: its phase."""
    return PHASE_OF[64 - popcount(s[0] | s[1])]


@kernel(inline=True)
def _scalars(w, empties, own_moves, opp_moves):
    """The scalar terms (SCALARS) with the weights `w`, for the side to move."""
    mobility = popcount(own_moves) - popcount(opp_moves)
    parity = 1 if empties & 1 else -1
    return np.int64(w[0]) + np.int64(w[1]) * mobility + np.int64(w[2]) * parity


@kernel
def evaluate_boards(own, opp, own_moves, opp_moves):
    """The value for the side owning `own`, to move, given both sides' placements."""
    empties = popcount(~(own | opp))
    w = WEIGHTS[PHASE_OF[empties]]
    return _scalars(w, empties, own_moves, opp_moves) + pattern_sum(w, own, opp)


@kernel
def evaluate(s):
    """The value for the side to move of the state `s` (see `rules`)."""
    own, opp = s[0], s[1]
    return evaluate_boards(own, opp, s[2], move_mask(opp, own))


@kernel(inline=True)
def evaluate_accumulated(s, acc, ply):
    """`evaluate(s)`, from `s`'s accumulator acc[ply] (`accumulate`): the search carries
    the accumulators through its moves."""
    own, opp = s[0], s[1]
    empties = popcount(~(own | opp))
    w = WEIGHTS[PHASE_OF[empties]]
    return _scalars(w, empties, s[2], move_mask(opp, own)) + accumulated_sum(w, acc, ply)
