"""Clobber, restated from the rules spec, section "1. Clobber".

The board is 8x8, a black stone where file + rank is even (a1 black), a white one
elsewhere; white (player 0) moves first. A move takes one of the mover's stones onto an
orthogonally adjacent enemy stone, which is removed. A player with no move loses; there
is no pass and no draw. Board text: 8 rows of `w b .`, rank 8 first, joined by `/`,
then the colour to move.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from hypothesis import strategies as st

from tests.oracle import Result, sparse_positions, two_player_result

#: Random games the property tests play by default (about a second); the slow
#: variant plays ten times as many.
PLAYOUTS = 60
FILES = "abcdefgh"
PLAYERS = ("w", "b")
STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1))


class Position(NamedTuple):
    board: dict  # (file 0..7, rank 1..8) -> "w", "b" or "."
    to_move: str


def square(file: int, rank: int) -> str:
    return FILES[file] + str(rank)


def start() -> Position:
    """Every square filled, black where file + rank (a1 = 1 + 1) is even."""
    board = {(f, r): "b" if (f + 1 + r) % 2 == 0 else "w" for f in range(8) for r in range(1, 9)}
    return Position(board, "w")


def parse_board(text: str) -> Position:
    rows, side = text.split()
    board = {}
    for line, row in enumerate(rows.split("/")):
        for file, cell in enumerate(row):
            board[(file, 8 - line)] = cell
    return Position(board, side)


def format_board(position: Position) -> str:
    rows = ["".join(position.board[(f, r)] for f in range(8)) for r in range(8, 0, -1)]
    return "/".join(rows) + " " + position.to_move


def opponent(colour: str) -> str:
    return "b" if colour == "w" else "w"


def moves_of(position: Position, colour: str) -> set[str]:
    """Every capture by `colour`: own stone onto an orthogonally adjacent enemy stone."""
    moves = set()
    for (f, r), cell in position.board.items():
        if cell != colour:
            continue
        for df, dr in STEPS:
            if position.board.get((f + df, r + dr)) == opponent(colour):
                moves.add(square(f, r) + square(f + df, r + dr))
    return moves


def legal_moves(position: Position) -> set[str]:
    return moves_of(position, position.to_move)


def play(position: Position, token: str) -> Position:
    origin = (FILES.index(token[0]), int(token[1]))
    target = (FILES.index(token[2]), int(token[3]))
    board = dict(position.board)
    board[target], board[origin] = board[origin], "."
    return Position(board, opponent(position.to_move))


def result(position: Position) -> Result | None:
    """The side to move without a move loses (the referee checks after every move)."""
    if legal_moves(position):
        return None
    return two_player_result(PLAYERS.index(opponent(position.to_move)))


def scattered() -> st.SearchStrategy[str]:
    """Endgames: up to 16 stones a side anywhere."""
    return sparse_positions("wb", 16)


def referee_boards(records: Sequence[dict]) -> list[str]:
    return ["/".join(record["board"]) + " " + record["to_move"] for record in records]


def referee_result(record: dict) -> Result:
    """The winner's colour (`winner`)."""
    return two_player_result(PLAYERS.index(record["winner"]))
