"""Lines of Action board text and move tokens, as symmetric parse/format pairs."""

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
from games.text import parse_integer, quote
from games.loa.rules import MAX_PLIES, PASS

_SIDES = {"b": 0, "w": 1}
#: The most checkers a side ever has (its start count); the fewest is one.
MAX_CHECKERS = 12


def parse_board(tokens: Sequence[str]) -> tuple[int, int, int, int]:
    """(black, white, to_move, ply) from `rows side [ply=<n>]`; raises BoardTextError."""
    black, white = parse_grid(tokens, "bw")
    for name, board in (("b", black), ("w", white)):
        count = board.bit_count()
        if not 1 <= count <= MAX_CHECKERS:
            raise BoardTextError(f"{name} must have 1 to {MAX_CHECKERS} checkers, got {count} in {quote(tokens[0])}")
    side = _SIDES.get(tokens[1])
    if side is None:
        raise BoardTextError(f"side to move must be b or w, got {quote(tokens[1])}")
    fields = split_fields(tokens[2:], ("ply",))
    ply = 0
    if "ply" in fields:
        text = fields["ply"]
        try:
            ply = parse_integer(text, 0, MAX_PLIES)
        except ValueError:
            raise BoardTextError(f"ply must be an integer in 0..{MAX_PLIES}, got {quote('ply=' + text)}") from None
    return black, white, side, ply


def format_board(black: int, white: int, to_move: int, ply: int) -> str:
    """The board text, always with its `ply=` field; inverse of `parse_board`."""
    return "/".join(format_grid((black, white), "bw")) + " " + "bw"[to_move] + f" ply={ply}"


def parse_move(text: str, legal: Sequence[int]) -> int:
    """The move int of token `text` (two square names, or `pass`) if it is among `legal`.

    Raises NotationError for a token that is neither and IllegalMoveError for one that
    names no legal move (`pass` is legal only when it is the only move).
    """
    if text == "pass":
        move = PASS
    else:
        if len(text) != 4:
            raise NotationError(f"bad move {quote(text)}: expected two squares such as b1b3, or pass")
        try:
            move = parse_square(text[:2]) << 6 | parse_square(text[2:])
        except NotationError:
            raise NotationError(f"bad move {quote(text)}: expected two squares such as b1b3, or pass") from None
    if move not in legal:
        raise IllegalMoveError(f"illegal move {quote(text)}")
    return move


def format_move(move: int) -> str:
    """The token of a move int, e.g. `b1b3`, or `pass`."""
    if move == PASS:
        return "pass"
    return square_name(move >> 6) + square_name(move & 63)


def picture(black: int, white: int, to_move: int, ply: int) -> list[str]:
    """The board drawn rank 8 first with coordinates, the side to move and the ply."""
    lines = [f"{8 - index} {' '.join(row)}" for index, row in enumerate(format_grid((black, white), "bw"))]
    lines.append("  a b c d e f g h")
    lines.append(f"to move: {'bw'[to_move]}")
    lines.append(f"ply: {ply} of {MAX_PLIES}")
    return lines
