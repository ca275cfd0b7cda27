"""Abalone board text and move tokens, as symmetric parse/format pairs."""

from __future__ import annotations

from typing import Sequence

from games.base import BoardTextError, IllegalMoveError, NotationError, split_fields
from games.text import parse_integer, quote
from games.abalone.hexboard import (
    IDENTITY_MASK,
    INDEX_OF,
    MARBLES,
    MAX_PLIES,
    WINNING_SCORE,
    ROW_LENGTHS,
    STEPS,
    XY,
    line_cells,
    move_fields,
    move_int,
)

#: The board text's side names by player index: black (player 0) is `2`, white `1`.
_SIDES = {"2": 0, "1": 1}
_FIELDS = ("score1", "score2", "turn")
_MOVE_SYNTAX = "expected x1,y1,x2,y2,d such as 2,3,3,5,4"


def _count(token: str, value: str, high: int) -> int:
    try:
        return parse_integer(value, 0, high)
    except ValueError:
        raise BoardTextError(f"bad board field {quote(token)}: expected 0 to {high}") from None


def parse_board(tokens: Sequence[str]) -> tuple[int, int, int, int, int, int]:
    """(black, white, to_move, black_score, white_score, turn) from
    `rows side [score1=<n>] [score2=<n>] [turn=<n>]`; raises BoardTextError.

    Accepted: rows of the right lengths of `0 1 2`, at most 14 marbles of a colour,
    scores 0..6 and not both 6, a colour's marbles on the board plus those the other side
    pushed off at most 14, and turn 0..350. Fewer marbles than that are allowed (set-up
    positions), and the turn need not match the side to move.
    """
    if len(tokens) < 2:
        raise BoardTextError(f"board text needs rows and a side to move, got {quote(' '.join(tokens))}")
    rows = tokens[0].split("/")
    if len(rows) != len(ROW_LENGTHS):
        raise BoardTextError(f"expected 9 rows, got {len(rows)} in {quote(tokens[0])}")
    black = white = 0
    for y, (row, length) in enumerate(zip(rows, ROW_LENGTHS)):
        if len(row) != length:
            raise BoardTextError(f"row {y} must have {length} cells: {quote(row)}")
        for x, cell in enumerate(row):
            if cell == "2":
                black |= 1 << INDEX_OF[x, y]
            elif cell == "1":
                white |= 1 << INDEX_OF[x, y]
            elif cell != "0":
                raise BoardTextError(f"bad cell {quote(cell)} in row {quote(row)}")
    side = _SIDES.get(tokens[1])
    if side is None:
        raise BoardTextError(f"side to move must be 1 or 2, got {quote(tokens[1])}")
    fields = split_fields(tokens[2:], _FIELDS)
    scores = []
    for name in ("score1", "score2"):
        value = fields.get(name, "0")
        scores.append(_count(f"{name}={value}", value, WINNING_SCORE))
    white_score, black_score = scores
    turn = _count(f"turn={fields.get('turn', '0')}", fields.get("turn", "0"), MAX_PLIES)
    for colour, marbles, lost in (("2", black, white_score), ("1", white, black_score)):
        if marbles.bit_count() + lost > MARBLES:
            raise BoardTextError(
                f"player {colour} has {marbles.bit_count()} marbles on the board and {lost} "
                f"pushed off, more than {MARBLES} in {quote(' '.join(tokens))}")
    if black_score == white_score == WINNING_SCORE:
        raise BoardTextError(f"both players cannot have pushed off six in {quote(' '.join(tokens))}")
    return black, white, side, black_score, white_score, turn


def rows_of(black: int, white: int, empty: str = "0") -> list[str]:
    """The 9 printed lines, top first, `2` black, `1` white, `empty` for an empty cell."""
    rows = []
    for y, length in enumerate(ROW_LENGTHS):
        cells = []
        for x in range(length):
            index = INDEX_OF[x, y]
            cells.append("2" if black >> index & 1 else "1" if white >> index & 1 else empty)
        rows.append("".join(cells))
    return rows


def format_board(black: int, white: int, to_move: int, black_score: int, white_score: int,
                 turn: int) -> str:
    """The board text, every field written; inverse of `parse_board`."""
    return (f"{'/'.join(rows_of(black, white))} {'21'[to_move]} "
            f"score1={white_score} score2={black_score} turn={turn}")


def _cell(text: str, x: int, y: int) -> int:
    """The bit index of the cell `x`, `y`; raises NotationError."""
    if y >= len(ROW_LENGTHS) or x >= ROW_LENGTHS[y]:
        raise NotationError(f"bad move {quote(text)}: no cell x={x} y={y} on the board")
    return INDEX_OF[x, y]


def parse_move(text: str, legal: Sequence[int]) -> int:
    """The move int of token `text` if it is among `legal`.

    The token is `x1,y1,x2,y2,d`: the two end marbles of a line of 1 to 3 marbles, in
    either order (a single marble names its cell twice), and the direction 0..5.
    Raises NotationError for a token not of that form or naming a cell off the board,
    and IllegalMoveError for ends that are not one line of 1 to 3 marbles or a move that
    is not legal.
    """
    try:
        # Unpacking raises ValueError too, for more or fewer than five parts.
        x1, y1, x2, y2, direction = (parse_integer(part, 0, 999) for part in text.split(","))
    except ValueError:
        raise NotationError(f"bad move {quote(text)}: {_MOVE_SYNTAX}") from None
    if direction > 5:
        raise NotationError(f"bad move {quote(text)}: direction must be 0 to 5")
    first = _cell(text, x1, y1)
    second = _cell(text, x2, y2)
    # On the board |dq| <= 8, so an index difference of one or two steps is only ever
    # made by cells one or two steps apart along that direction.
    difference = second - first
    if difference == 0:
        count, axis = 1, direction % 3
    elif difference in _LINE_STEPS:
        count, line_direction = _LINE_STEPS[difference]
        axis = line_direction % 3
    else:
        raise IllegalMoveError(f"illegal move {quote(text)}: not a line of 1 to 3 marbles")
    if count == 1 or direction % 3 == axis:
        # In-line: the anchor is the front marble, the end the direction points to.
        anchor = second if count == 1 or line_direction == direction else first
    else:
        anchor = max(first, second)
    identity = move_int(anchor, direction, count, axis)
    for move in legal:
        if move & IDENTITY_MASK == identity:
            return move
    raise IllegalMoveError(f"illegal move {quote(text)}")


#: Index differences between the two ends of a line: (marbles, direction from the first
#: end to the second).
_LINE_STEPS = {k * step: (k + 1, direction) for direction, step in enumerate(STEPS)
               for k in (1, 2)}


def format_move(move: int) -> str:
    """The canonical token of a move int: for an in-line move (a single marble included)
    the rear marble then the front marble; for a broadside move the end that comes first
    in reading order (smaller y, then smaller x) first; then the direction."""
    _, direction, _, _, _ = move_fields(move)
    cells = line_cells(move)
    # line_cells runs from the anchor (front or later end) backwards.
    x1, y1 = XY[cells[-1]]
    x2, y2 = XY[cells[0]]
    return f"{x1},{y1},{x2},{y2},{direction}"


def picture(black: int, white: int, to_move: int, black_score: int, white_score: int,
            turn: int) -> list[str]:
    """The board drawn as a hexagon, each line with its y, then the scores, the turn and
    the side to move."""
    lines = []
    for y, row in enumerate(rows_of(black, white, ".")):
        lines.append(f"{y} " + " " * (9 - len(row)) + " ".join(row))
    lines.append(f"pushed off: 2 has {black_score}, 1 has {white_score}")
    lines.append(f"turn: {turn}")
    lines.append(f"to move: {'21'[to_move]}")
    return lines
