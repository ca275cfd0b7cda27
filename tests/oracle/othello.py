"""Othello, restated from the rules spec, section "2. Othello".

Black (`0`, player 0) moves first, white (`1`, player 1) second; the start has d4 and e5
white, e4 and d5 black, with row 1 the TOP line of the board text. A disc goes on an
empty square from which some straight line (8 directions) runs over one or more enemy
discs to a disc of the mover; all such enemy runs flip. A player without such a square
is skipped ("Passes and the end of the game"), which the engine's notation writes as the
move `pass`. When neither side can place a disc (a full board, 60 placements, and a
side without discs are cases of this) the game ends: more discs wins, equal is a draw.
The margin is the disc difference from each player's view.
Board text: 8 rows of `0 1 .`, row 1 first, joined by `/`, then the player to move.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from hypothesis import strategies as st

from tests.oracle import Result, sparse_positions, two_player_result

#: Random games the property tests play by default (about a second); the slow
#: variant plays ten times as many.
PLAYOUTS = 50
FILES = "abcdefgh"
DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if (df, dr) != (0, 0)]


class Position(NamedTuple):
    board: dict  # (file 0..7, row 1..8; row 1 is the top line) -> "0", "1" or "."
    to_move: str


def start() -> Position:
    board = {(f, r): "." for f in range(8) for r in range(1, 9)}
    board[(3, 4)] = board[(4, 5)] = "1"  # d4, e5 white
    board[(4, 4)] = board[(3, 5)] = "0"  # e4, d5 black
    return Position(board, "0")


def parse_board(text: str) -> Position:
    rows, side = text.split()
    board = {}
    for line, row in enumerate(rows.split("/")):
        for file, cell in enumerate(row):
            board[(file, line + 1)] = cell
    return Position(board, side)


def format_board(position: Position) -> str:
    rows = ["".join(position.board[(f, r)] for f in range(8)) for r in range(1, 9)]
    return "/".join(rows) + " " + position.to_move


def opponent(colour: str) -> str:
    return "1" if colour == "0" else "0"


def flips(board: dict, square: tuple[int, int], colour: str) -> list[tuple[int, int]]:
    """The enemy discs a disc of `colour` on the empty `square` would flip."""
    flipped = []
    for df, dr in DIRECTIONS:
        run = []
        f, r = square[0] + df, square[1] + dr
        while board.get((f, r)) == opponent(colour):
            run.append((f, r))
            f, r = f + df, r + dr
        if run and board.get((f, r)) == colour:
            flipped += run
    return flipped


def placements(position: Position, colour: str) -> set[str]:
    return {FILES[f] + str(r) for (f, r), cell in position.board.items()
            if cell == "." and flips(position.board, (f, r), colour)}


def legal_moves(position: Position) -> set[str]:
    if result(position) is not None:
        return set()
    return placements(position, position.to_move) or {"pass"}


def play(position: Position, token: str) -> Position:
    board = dict(position.board)
    if token != "pass":
        square = (FILES.index(token[0]), int(token[1]))
        for flipped in flips(board, square, position.to_move) + [square]:
            board[flipped] = position.to_move
    return Position(board, opponent(position.to_move))


def result(position: Position) -> Result | None:
    if placements(position, "0") or placements(position, "1"):
        return None
    black = sum(cell == "0" for cell in position.board.values())
    white = sum(cell == "1" for cell in position.board.values())
    winner = None if black == white else (0 if black > white else 1)
    return two_player_result(winner, (black - white, white - black))


def scattered() -> st.SearchStrategy[str]:
    """Wipe-outs and passes: up to 12 discs a side anywhere."""
    return sparse_positions("01", 12)


def referee_boards(records: Sequence[dict]) -> list[str]:
    """A terminal record names no player to move: black is put there (nobody can move)."""
    return ["/".join(record["board"]) + " " + record.get("to_move", "0") for record in records]


def referee_result(record: dict) -> Result:
    """`result` (the winner's id, or `draw`) and the margin from the disc counts."""
    winner = None if record["result"] == "draw" else int(record["result"])
    margin = record["discs_0"] - record["discs_1"]
    return two_player_result(winner, (margin, -margin))
