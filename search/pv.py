"""The principal variation every search reports: its first move, then the moves the
transposition table keeps for the positions that follow.

Written once over a game's kernels (`BINDS`) and specialised per game by
`search.specialised`. A search whose table keys are salted (the paranoid search keys a
position by the searcher too) reads the table under the same salt; alpha-beta's is 0.
"""

from __future__ import annotations

import numpy as np

from games.base import Position
from search.tt import entry_move, tt_probe

BINDS = ("legal_moves", "play", "key")
legal_moves = play = key = None


def principal_variation(s, first, length, salt, cells, near, moves, line):
    """`first`, then the table's moves (under `key ^ salt`: the main table `cells`, else
    the near table `near`) while they stay legal and no position repeats, at most
    `length`; written to `line`, returns the count. `moves` holds a position's moves
    (MAX_MOVES)."""
    line[0] = first
    count = 1
    seen = np.empty(length + 1, dtype=np.uint64)
    seen[0] = key(s)
    s = play(s, first)
    seen[1] = key(s)
    known = 2
    while count < length:
        entry = tt_probe(cells, key(s) ^ salt)
        if entry == 0:
            entry = tt_probe(near, key(s) ^ salt)
        move = entry_move(entry)
        if entry == 0 or move < 0:
            break
        legal = False
        for i in range(legal_moves(s, moves)):
            if moves[i] == move:
                legal = True
                break
        if not legal:
            break
        line[count] = move
        count += 1
        s = play(s, move)
        position = key(s)
        for i in range(known):
            if seen[i] == position:
                return count
        seen[known] = position
        known += 1
    return count


TEMPLATES = (principal_variation,)


def warm(kernels, position: Position) -> None:
    """Call `principal_variation` once from `position` (one with moves), so that numba
    loads it from its cache, or compiles it the first time."""
    kernels.principal_variation(position.s, np.int64(position.legal_moves()[0]), np.int64(2), np.uint64(0),
                                np.zeros((1 << 10, 2), dtype=np.uint64), np.zeros((1, 2), dtype=np.uint64),
                                np.empty(kernels.MAX_MOVES, dtype=np.int64), np.empty(2, dtype=np.int64))
