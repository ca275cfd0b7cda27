"""Othello board text and move tokens, as symmetric parse/format pairs."""

from __future__ import annotations

from typing import Sequence

from games.base import (
    quote,
    BadParameterError,
    BoardTextError,
    IllegalMoveError,
    NotationError,
    parse_square,
    split_fields,
    square_name,
)
from games.othello.bitboard import PASS

_SIDES = {"0": 0, "1": 1}
PASS_TOKEN = "pass"


def check_no_params(params: dict[str, str]) -> None:
    """Othello's start position takes no parameter; raises BadParameterError."""
    for key, value in params.items():
        raise BadParameterError(f"othello takes no parameter, got {quote(key + '=' + value)}")


def parse_board(tokens: Sequence[str]) -> tuple[int, int, int]:
    """(black, white, to_move) from `rows side`; raises BoardTextError."""
    if len(tokens) < 2:
        raise BoardTextError(f"board text needs rows and a side to move, got {quote(' '.join(tokens))}")
    rows = tokens[0].split("/")
    if len(rows) != 8:
        raise BoardTextError(f"expected 8 rows, got {len(rows)} in {quote(tokens[0])}")
    black = white = 0
    for row_index, row in enumerate(rows):
        if len(row) != 8:
            raise BoardTextError(f"row {row_index + 1} must have 8 cells: {quote(row)}")
        for file, cell in enumerate(row):
            bit = 1 << (row_index * 8 + file)
            if cell == "0":
                black |= bit
            elif cell == "1":
                white |= bit
            elif cell != ".":
                raise BoardTextError(f"bad cell {quote(cell)} in row {quote(row)}")
    side = _SIDES.get(tokens[1])
    if side is None:
        raise BoardTextError(f"side to move must be 0 or 1, got {quote(tokens[1])}")
    split_fields(tokens[2:], ())
    return black, white, side


def format_board(black: int, white: int, to_move: int) -> str:
    """The board text; inverse of `parse_board`."""
    return "/".join(_rows(black, white)) + " " + "01"[to_move]


def _rows(black: int, white: int) -> list[str]:
    rows = []
    for row in range(8):
        cells = []
        for file in range(8):
            bit = 1 << (row * 8 + file)
            cells.append("0" if black & bit else "1" if white & bit else ".")
        rows.append("".join(cells))
    return rows


def parse_move(text: str, legal: int) -> int:
    """The move int of token `text` if it is in the legal-move mask `legal` (bit m for
    move m).

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
    if not legal >> move & 1:
        raise IllegalMoveError(f"illegal move {quote(text)}")
    return move


def format_move(move: int) -> str:
    """The token of a move int, e.g. `d3` or `pass`."""
    return PASS_TOKEN if move == PASS else square_name(move)


def picture(black: int, white: int, to_move: int) -> list[str]:
    """The board drawn row 1 first with coordinates, the disc counts and the side to move."""
    lines = [f"{index + 1} {' '.join(row)}" for index, row in enumerate(_rows(black, white))]
    lines.append("  a b c d e f g h")
    lines.append(f"discs: 0 has {black.bit_count()}, 1 has {white.bit_count()}")
    lines.append(f"to move: {'01'[to_move]}")
    return lines
