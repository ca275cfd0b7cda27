"""Perft: the number of move sequences of a given length, the move generator's checksum."""

from __future__ import annotations

from games.base import State


def perft(state: State, depth: int) -> int:
    """Leaf count at exactly `depth` plies; a finished position (no move) adds 0 below it.

    Relies on the State contract that `legal_moves()` is empty once the game is over.
    """
    if depth <= 0:
        return 1
    moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    return sum(perft(state.play(move), depth - 1) for move in moves)
