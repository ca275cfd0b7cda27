"""Knight Isolation board text, move tokens and the `seed` parameter."""

from __future__ import annotations

from typing import Sequence

from games.base import (
    BadParameterError,
    BoardTextError,
    IllegalMoveError,
    NotationError,
    check_params,
    format_grid,
    parse_grid,
    parse_square,
    split_fields,
    square_name,
)
from games.text import NotAnInteger, OutOfRange, parse_integer, quote

LETTERS = "rgb"


def parse_seed(params: dict[str, str]) -> int:
    """The `seed` parameter of `setgame isolation` (default 0); raises BadParameterError."""
    check_params("isolation", params, ("seed",))
    text = params.get("seed", "0")
    try:
        return parse_integer(text, -(2**63), 2**63 - 1)
    except NotAnInteger:
        raise BadParameterError(f"seed must be an integer, got {quote(text)}") from None
    except OutOfRange:
        raise BadParameterError(f"seed must fit in 64 bits, got {quote(text)}") from None


def parse_board(tokens: Sequence[str]) -> tuple[int, tuple[int, int, int], int, int, tuple[int, int, int]]:
    """(blocked, knights, to_move, alive, scores) from `rows side [alive=...] [out=...]`;
    raises BoardTextError.

    `scores` holds each player's final score, -1 for the players still in: `out` lists
    the players already out, first out first (scores 0, 1); without it they all score 0.
    """
    blocked, *singles = parse_grid(tokens, "#" + LETTERS)
    knights = []
    for player, board in enumerate(singles):
        if board.bit_count() != 1:
            raise BoardTextError(f"expected one {quote(LETTERS[player])} knight, got "
                                 f"{board.bit_count()} in {quote(tokens[0])}")
        knights.append(board.bit_length() - 1)
    if tokens[1] not in ("r", "g", "b"):
        raise BoardTextError(f"side to move must be r, g or b, got {quote(tokens[1])}")
    to_move = LETTERS.index(tokens[1])
    fields = split_fields(tokens[2:], ("alive", "out"))
    alive = 0
    for letter in fields.get("alive", LETTERS):
        if letter not in LETTERS or alive >> LETTERS.index(letter) & 1:
            raise BoardTextError(f"alive must list distinct players of rgb, got {quote(fields['alive'])}")
        alive |= 1 << LETTERS.index(letter)
    if not alive >> to_move & 1:
        raise BoardTextError(f"the side to move {quote(tokens[1])} is not in alive={quote(fields['alive'])}")
    order: tuple[int, ...] = ()
    if "out" in fields:
        order = tuple(LETTERS.index(letter) for letter in fields["out"] if letter in LETTERS)
        if len(order) != len(fields["out"]) or sorted(order) != [p for p in range(3) if not alive >> p & 1]:
            raise BoardTextError(f"out must list the players not alive, got {quote(fields['out'])}")
    scores = [-1 if alive >> player & 1 else order.index(player) if player in order else 0
              for player in range(3)]
    return blocked, (knights[0], knights[1], knights[2]), to_move, alive, (scores[0], scores[1], scores[2])


def _rows(blocked: int, knights: tuple[int, int, int]) -> list[str]:
    return format_grid((*(1 << square for square in knights), blocked), LETTERS + "#")


def format_board(blocked: int, knights: tuple[int, int, int], to_move: int, alive: int,
                 scores: tuple[int, int, int]) -> str:
    """The board text; inverse of `parse_board`. `alive` is always written, `out` (the
    order of the players out, from their scores) when a player is out."""
    letters = "".join(letter for player, letter in enumerate(LETTERS) if alive >> player & 1)
    text = f"{'/'.join(_rows(blocked, knights))} {LETTERS[to_move]} alive={letters}"
    out = sorted((score, player) for player, score in enumerate(scores) if not alive >> player & 1)
    if out:
        text += " out=" + "".join(LETTERS[player] for _, player in out)
    return text


def parse_move(text: str, legal: Sequence[int]) -> int:
    """The destination square of token `text` if it is among `legal`."""
    try:
        move = parse_square(text)
    except NotationError:
        raise NotationError(f"bad move {quote(text)}: expected a square such as e3") from None
    if move not in legal:
        raise IllegalMoveError(f"illegal move {quote(text)}")
    return move


def format_move(move: int) -> str:
    return square_name(move)


def picture(blocked: int, knights: tuple[int, int, int], to_move: int, alive: int) -> list[str]:
    lines = [f"{8 - index} {' '.join(row)}" for index, row in enumerate(_rows(blocked, knights))]
    lines.append("  a b c d e f g h")
    out = "".join(letter for player, letter in enumerate(LETTERS) if not alive >> player & 1)
    lines.append(f"to move: {LETTERS[to_move]}" + (f", out: {out}" if out else ""))
    return lines
