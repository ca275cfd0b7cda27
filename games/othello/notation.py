"""Othello board text and move tokens, as symmetric parse/format pairs."""

from __future__ import annotations

from typing import Sequence

from games.base import (
    BoardTextError,
    IllegalMoveError,
    NotationError,
    format_grid,
    parse_grid,
    parse_square,
    split_fields,
    square_name,
)
from games.text import quote
from games.othello.rules import PASS

_SIDES = {"0": 0, "1": 1}
PASS_TOKEN = "pass"


def parse_board(tokens: Sequence[str]) -> tuple[int, int, int]:
    """(black, white, to_move) from `rows side`; raises BoardTextError."""
    black, white = parse_grid(tokens, "01", rank8_first=False)
    side = _SIDES.get(tokens[1])
    if side is None:
        raise BoardTextError(f"side to move must be 0 or 1, got {quote(tokens[1])}")
    split_fields(tokens[2:], ())
    return black, white, side


def format_board(black: int, white: int, to_move: int) -> str:
    """The board text; inverse of `parse_board`."""
    return "/".join(format_grid((black, white), "01", rank8_first=False)) + " " + "01"[to_move]


def parse_move(text: str, legal: Sequence[int]) -> int:
    """The move int of token `text` if it is among `legal`.

    Raises NotationError for a token that is neither a square name nor `pass` and
    IllegalMoveError for one that names no legal move.
    """
    if text == PASS_TOKEN:
        move = PASS
    else:
        try:
            move = parse_square(text)
        except NotationError:
            raise NotationError(f"bad move {quote(text)}: expected a square such as d3, or pass") from None
    if move not in legal:
        raise IllegalMoveError(f"illegal move {quote(text)}")
    return move


def format_move(move: int) -> str:
    """The token of a move int, e.g. `d3` or `pass`."""
    return PASS_TOKEN if move == PASS else square_name(move)


def picture(black: int, white: int, to_move: int) -> list[str]:
    """The board drawn row 1 first with coordinates, the disc counts and the side to move."""
    lines = [f"{index + 1} {' '.join(row)}" for index, row in enumerate(format_grid((black, white), "01", rank8_first=False))]
    lines.append("  a b c d e f g h")
    lines.append(f"discs: 0 has {black.bit_count()}, 1 has {white.bit_count()}")
    lines.append(f"to move: {'01'[to_move]}")
    return lines
