"""Naive rule oracles of the games, written from the referee rules alone.

Each module restates one game's rules from `shared/spec/codingame-rules.md` in plain,
slow Python (a dict of squares, no bit tricks) and never imports `games`: the property
tests of `tests/games/test_oracle.py` hold the engine against these restatements, text
to text. Every module offers the same functions:

    parse_board(text) -> position    a position from the engine's board text
    format_board(position) -> str    the board text of a position
    legal_moves(position) -> set     the legal move tokens (empty once the game is over)
    play(position, token) -> position
    result(position) -> Result | None
    referee_board(record) -> str     the board text of a referee vector record
    PLAYOUTS                         random games the property tests play by default
"""

from __future__ import annotations

from typing import NamedTuple


class Result(NamedTuple):
    """A finished game: one return per player (turn-order index), the winner's index or
    None, and the margin per player where the game scores one, else None."""

    returns: tuple[int, ...]
    winner: int | None
    margin: tuple[int, ...] | None = None


def two_player_result(winner: int | None, margin: tuple[int, int] | None = None) -> Result:
    """The result of a two-player game won by `winner` (None: a draw)."""
    if winner is None:
        return Result((0, 0), None, margin)
    return Result((1, -1) if winner == 0 else (-1, 1), winner, margin)
