"""Clobber board text and move tokens, as symmetric parse/format pairs."""

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

_SIDES = {"w": 0, "b": 1}


def parse_board(tokens: Sequence[str]) -> tuple[int, int, int]:
    """(white, black, to_move) from `rows side`; raises BoardTextError."""
    white, black = parse_grid(tokens, "wb")
    side = _SIDES.get(tokens[1])
    if side is None:
        raise BoardTextError(f"side to move must be w or b, got {quote(tokens[1])}")
    split_fields(tokens[2:], ())
    return white, black, side


def format_board(white: int, black: int, to_move: int) -> str:
    """The board text; inverse of `parse_board`."""
    return "/".join(format_grid((white, black), "wb")) + " " + "wb"[to_move]


def parse_move(text: str, legal: Sequence[int]) -> int:
    """The move int of token `text` if it is among `legal`.

    Raises NotationError for a token that is not two square names and IllegalMoveError
    for one that names no legal capture.
    """
    if len(text) != 4:
        raise NotationError(f"bad move {quote(text)}: expected two squares such as e2e3")
    try:
        move = parse_square(text[:2]) << 6 | parse_square(text[2:])
    except NotationError:
        raise NotationError(f"bad move {quote(text)}: expected two squares such as e2e3") from None
    if move not in legal:
        raise IllegalMoveError(f"illegal move {quote(text)}")
    return move


def format_move(move: int) -> str:
    """The token of a move int, e.g. `e2e3`."""
    return square_name(move >> 6) + square_name(move & 63)


def picture(white: int, black: int, to_move: int) -> list[str]:
    """The board drawn rank 8 first with coordinates, and the side to move."""
    lines = [f"{8 - index} {' '.join(row)}" for index, row in enumerate(format_grid((white, black), "wb"))]
    lines.append("  a b c d e f g h")
    lines.append(f"to move: {'wb'[to_move]}")
    return lines
