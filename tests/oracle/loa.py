"""Lines of Action, restated from the rules spec, section "3. Lines of Action".

Black (`b`, player 0) starts on b1-g1 and b8-g8 and moves first; white (`w`, player 1)
on a2-a7 and h2-h7. A checker moves along its row, column or a diagonal exactly N
squares, N being the number of checkers on that whole line; it may pass over its own
checkers but not over enemy ones, and lands on an empty square or captures an enemy
checker ("Move rule as coded"). A side with no move passes, and only then.
End ("End of the game"), checked after every move: the mover wins when its checkers
are one 8-connected group (one checker counts), else the other side wins when its
are; else the game is drawn after 150 plies. No margin.
Board text: 8 rows of `b w .`, rank 8 first, joined by `/`, the colour to move, then
`ply=<n>`, the plies played.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from hypothesis import strategies as st

from tests.oracle import Result, scattered_rows, two_player_result

#: Random games the property tests play by default (about a second); the slow
#: variant plays ten times as many.
PLAYOUTS = 50
FILES = "abcdefgh"
PLAYERS = ("b", "w")
AXES = ((1, 0), (0, 1), (1, 1), (1, -1))
PLY_LIMIT = 150


class Position(NamedTuple):
    board: dict  # (file 0..7, rank 1..8) -> "b", "w" or "."
    to_move: str
    ply: int


def square(file: int, rank: int) -> str:
    return FILES[file] + str(rank)


def start() -> Position:
    board = {(f, r): "." for f in range(8) for r in range(1, 9)}
    for i in range(1, 7):
        board[(i, 1)] = board[(i, 8)] = "b"
        board[(0, i + 1)] = board[(7, i + 1)] = "w"
    return Position(board, "b", 0)


def parse_board(text: str) -> Position:
    rows, side, *fields = text.split()
    ply = int(fields[0].removeprefix("ply=")) if fields else 0
    board = {}
    for line, row in enumerate(rows.split("/")):
        for file, cell in enumerate(row):
            board[(file, 8 - line)] = cell
    return Position(board, side, ply)


def format_board(position: Position) -> str:
    rows = ["".join(position.board[(f, r)] for f in range(8)) for r in range(8, 0, -1)]
    return "/".join(rows) + f" {position.to_move} ply={position.ply}"


def opponent(colour: str) -> str:
    return "w" if colour == "b" else "b"


def line_count(board: dict, origin: tuple[int, int], axis: tuple[int, int]) -> int:
    """The checkers of both colours on the whole line through `origin` along `axis`."""
    count = 0
    for sign in (1, -1):
        f, r = origin
        while (f, r) in board:
            count += board[(f, r)] != "."
            f, r = f + sign * axis[0], r + sign * axis[1]
    return count - (board[origin] != ".")  # the origin was counted twice


def moves_of(position: Position, colour: str) -> set[str]:
    board, moves = position.board, set()
    for origin, cell in board.items():
        if cell != colour:
            continue
        for axis in AXES:
            distance = line_count(board, origin, axis)
            for sign in (1, -1):
                df, dr = sign * axis[0], sign * axis[1]
                path = [(origin[0] + k * df, origin[1] + k * dr) for k in range(1, distance + 1)]
                if path[-1] not in board or board[path[-1]] == colour:
                    continue
                if any(board[between] == opponent(colour) for between in path[:-1]):
                    continue
                moves.add(square(*origin) + square(*path[-1]))
    return moves


def legal_moves(position: Position) -> set[str]:
    if result(position) is not None:
        return set()
    return moves_of(position, position.to_move) or {"pass"}


def play(position: Position, token: str) -> Position:
    board = dict(position.board)
    if token != "pass":
        origin = (FILES.index(token[0]), int(token[1]))
        target = (FILES.index(token[2]), int(token[3]))
        board[target], board[origin] = board[origin], "."
    return Position(board, opponent(position.to_move), position.ply + 1)


def connected(board: dict, colour: str) -> bool:
    """Whether the checkers of `colour` form one group under 8-neighbour adjacency."""
    checkers = {sq for sq, cell in board.items() if cell == colour}
    if not checkers:
        return True
    seen, frontier = set(), [next(iter(checkers))]
    while frontier:
        f, r = frontier.pop()
        if (f, r) in seen:
            continue
        seen.add((f, r))
        frontier += [(f + df, r + dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)
                     if (f + df, r + dr) in checkers]
    return seen == checkers


def result(position: Position) -> Result | None:
    """The last mover (the side not to move) first, then the side to move, then the
    ply limit."""
    mover = opponent(position.to_move)
    if connected(position.board, mover):
        return two_player_result(PLAYERS.index(mover))
    if connected(position.board, position.to_move):
        return two_player_result(PLAYERS.index(position.to_move))
    if position.ply >= PLY_LIMIT:
        return two_player_result(None)
    return None


@st.composite
def scattered(draw) -> str:
    """A sparse position (1 to 6 checkers a side), where connection, captures that
    connect the victim and single checkers come up at once."""
    black, white = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cells = draw(st.permutations(range(64)))
    rows = scattered_rows(cells, ["b"] * black + ["w"] * white)
    return f"{rows} {draw(st.sampled_from('bw'))} ply={draw(st.integers(0, PLY_LIMIT - 1))}"


def referee_boards(records: Sequence[dict]) -> list[str]:
    return ["/".join(record["board"]) + f" {record['to_move']} ply={record['ply']}" for record in records]


def referee_result(record: dict) -> Result:
    """Every game of the vectors ends in the 150-ply draw (`result` is `draw`): the only
    result read here."""
    assert record["result"] == "draw", record
    return two_player_result(None)
