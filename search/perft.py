"""Perft: the number of move sequences of a given length, the move generator's checksum.

`leaves` is written over a game's kernels (`BINDS`, and `move_count` where the game's
rules give it: its legal moves counted without listing them) and specialised per game
by `search.specialised` (whose `perft_leaves` counts from a position).
"""

from __future__ import annotations

import numpy as np

from games.base import Position
from games.kernel import kernel, uncounted_template
from search.base import MAX_PLY

#: The deepest perft: as deep as the searches go. A perft keeps a row of moves per ply,
#: and no count that deep ever ends but in a position that ends sooner.
MAX_DEPTH = MAX_PLY
#: The game's kernels these templates call, bound per game.
BINDS = ("MAX_MOVES", "legal_moves", "play")
MAX_MOVES = legal_moves = play = move_count = None
HAS_MOVE_COUNT = False


@kernel(inline=True)
def no_move_count(s):
    """The `move_count` of a game without one (never called: HAS_MOVE_COUNT)."""
    return 0


def layout(kernels) -> dict[str, object]:
    """The game's `move_count`, if it has one: perft counts the last ply with it."""
    return {"HAS_MOVE_COUNT": "move_count" in kernels,
            "move_count": kernels.get("move_count", no_move_count)}


@uncounted_template
def _leaves(s, depth, moves, ply, halt):
    if depth <= 0:
        return 1
    if depth >= 3 and halt[0] != 0:
        return 0
    row = moves[ply]
    count = legal_moves(s, row)
    if depth == 1:
        return count
    total = 0
    for i in range(count):
        if depth == 2 and HAS_MOVE_COUNT:
            # The last ply counted in place: no list, and nothing of the position but
            # its moves computed.
            total += move_count(play(s, row[i]))
        else:
            total += _leaves(play(s, row[i]), depth - 1, moves, ply + 1, halt)
    return total


def leaves(s, depth, halt):
    """Leaf count at exactly `depth` (at most MAX_DEPTH) plies from the kernel state
    `s`; a finished position (no move) adds 0 below it. Once `halt[0]` is non-zero (another thread may
    set it) the count ends within a few thousand nodes and is -1."""
    moves = np.empty((max(depth, 1) + 1, MAX_MOVES), dtype=np.int64)
    total = _leaves(s, np.int64(depth), moves, np.int64(0), halt)
    return -1 if halt[0] != 0 else total


TEMPLATES = (_leaves, leaves)


def halt_flag() -> np.ndarray:
    """A fresh halt flag for `leaves`: set element 0 to stop the count."""
    return np.zeros(1, dtype=np.int64)


def warm(kernels, position: Position) -> None:
    """Call `leaves` once, so that numba loads it from its cache (or compiles it)."""
    kernels.leaves(position.s, np.int64(2), halt_flag())
