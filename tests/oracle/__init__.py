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
    scattered() -> strategy          board texts of positions far from any game's
                                     start, where the rules' corners come up (a
                                     hypothesis strategy): the playouts start there too
    PLAYOUTS                         random games the property tests play by default

and a game with referee vectors (`tests/data/vectors/<name>.jsonl`) also:

    referee_boards(records) -> list[str]   the board text of each record of its vector
                                           file (all of them, in order: a record may
                                           need the others of its game)
    referee_result(record) -> Result       the result a terminal record states
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st


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


def scattered_rows(cells: list[int], pieces: list[str]) -> str:
    """8 rows of `.` with `pieces[i]` on square `cells[i]` (0 = the first row's first)."""
    content = ["."] * 64
    for cell, piece in zip(cells, pieces):
        content[cell] = piece
    return "/".join("".join(content[row * 8:row * 8 + 8]) for row in range(8))


@st.composite
def sparse_positions(draw, colours: str, most: int) -> str:
    """An 8x8 board text with 0 to `most` pieces of each of the two `colours` scattered
    at random and either to move."""
    first, second = draw(st.integers(0, most)), draw(st.integers(0, most))
    cells = draw(st.permutations(range(64)))
    rows = scattered_rows(cells, [colours[0]] * first + [colours[1]] * second)
    return f"{rows} {draw(st.sampled_from(colours))}"
