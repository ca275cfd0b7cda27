"""Lines of Action bitboard helpers shared by the rules and the evaluation kernels: the
lowest checker, a group grown from a seed, the squares around a board, and
`connected` (`games.loa.bitboards.connected`).
"""

from __future__ import annotations

from compiled.loa.tables import NOT_FILE_A, NOT_FILE_H, U0, U1, U8
from games.kernel import kernel



@kernel(inline=True)
def _lowest(board):
    return board & (~board + U1)


@kernel
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


@kernel(inline=True)
def _group_of(board, seed):
    while True:
        grown = seed | ((seed << U1) & NOT_FILE_A) | ((seed >> U1) & NOT_FILE_H)
        grown = (grown | (grown << U8) | (grown >> U8)) & board
        if grown == seed:
            return seed
        seed = grown


@kernel(inline=True)
def _dilate(board):
    board |= ((board << U1) & NOT_FILE_A) | ((board >> U1) & NOT_FILE_H)
    return board | (board << U8) | (board >> U8)
