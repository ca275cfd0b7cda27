"""Abalone, restated from the rules spec, section "5. Abalone" and its closing section
"Abalone: the convention this project uses" (no referee source is public).

Cells: (x, y), y the printed line from the top (5, 6, 7, 8, 9, 8, 7, 6, 5 cells), x the
index inside the line; here held as axial (q, r) = (x - 4 + max(0, 4 - y), y - 4).
Directions 0..5 are, on screen, E, NE, NW, W, SW, SE. White `1` (player 1) starts on
the two top lines and the middle three cells of the third, black `2` (player 0) the
same at the bottom; black moves first.
Moves (the standard rules): 1 to 3 own marbles in a straight contiguous line move one
cell. In-line (along the line; a single marble always): the cell ahead of the front
marble must be on the board, and empty or the start of an enemy column shorter than
the line, with an empty or off-board cell behind it (the enemy marble pushed off scores
for the mover). Broadside (2 or 3 marbles sideways): every destination on the board
and empty.
End: a side that pushed off 6 wins; after 350 plies more pushed off wins, equal draws;
a side to move without a move loses. Margin: black's pushed off minus white's, from each
player's view.
Move token `x1,y1,x2,y2,d`: in-line, the rear end then the front end; broadside, the
end first in reading order first; a single marble names its cell twice.
Board text: the 9 lines of `0 1 2` joined by `/`, the side to move (`2` or `1`), then
`score1=` (pushed off by white), `score2=` (by black), `turn=` (plies played).
"""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import strategies as st

from tests.oracle import Result, two_player_result

#: Random games the property tests play by default (about a second); the slow
#: variant plays ten times as many.
PLAYOUTS = 8
LINE_LENGTHS = (5, 6, 7, 8, 9, 8, 7, 6, 5)
DIRECTIONS = {0: (1, 0), 1: (1, -1), 2: (0, -1), 3: (-1, 0), 4: (-1, 1), 5: (0, 1)}
PLAYERS = ("2", "1")
PLY_LIMIT = 350
WINNING_SCORE = 6


class Position(NamedTuple):
    board: dict  # axial (q, r) -> "0", "1" or "2"
    to_move: str
    pushed_off: dict  # colour -> the enemy marbles it pushed off
    turn: int  # plies played


def axial(x: int, y: int) -> tuple[int, int]:
    return x - 4 + max(0, 4 - y), y - 4


def printed(cell: tuple[int, int]) -> tuple[int, int]:
    q, r = cell
    y = r + 4
    return q + 4 - max(0, 4 - y), y


def start() -> Position:
    lines = ["11111", "111111", "0011100", "00000000", "000000000",
             "00000000", "0022200", "222222", "22222"]
    return parse_board("/".join(lines) + " 2 score1=0 score2=0 turn=0")


def parse_board(text: str) -> Position:
    lines, side, *tokens = text.split()
    fields = {key: int(value) for key, value in (token.split("=") for token in tokens)}
    board = {axial(x, y): cell for y, line in enumerate(lines.split("/")) for x, cell in enumerate(line)}
    pushed_off = {"1": fields.get("score1", 0), "2": fields.get("score2", 0)}
    return Position(board, side, pushed_off, fields.get("turn", 0))


def format_board(position: Position) -> str:
    lines = ["".join(position.board[axial(x, y)] for x in range(length))
             for y, length in enumerate(LINE_LENGTHS)]
    pushed_off = position.pushed_off
    return ("/".join(lines) + f" {position.to_move} score1={pushed_off['1']}"
            f" score2={pushed_off['2']} turn={position.turn}")


def opponent(colour: str) -> str:
    return "1" if colour == "2" else "2"


def step(cell: tuple[int, int], direction: int, times: int = 1) -> tuple[int, int]:
    dq, dr = DIRECTIONS[direction]
    return cell[0] + times * dq, cell[1] + times * dr


def lines_of(position: Position, colour: str) -> list[list[tuple[int, int]]]:
    """Every straight contiguous line of 1 to 3 marbles of `colour`, each once."""
    lines = []
    for cell, content in position.board.items():
        if content != colour:
            continue
        lines.append([cell])
        for axis in (0, 1, 2):  # E, NE, NW: the other three are their reverses
            line = [cell]
            while len(line) < 3 and position.board.get(step(line[-1], axis)) == colour:
                line.append(step(line[-1], axis))
                lines.append(list(line))
    return lines


def rear_and_front(line: list, direction: int) -> tuple:
    """The ends of `line` moving in-line towards `direction`: the rear, then the front."""
    front = next(cell for cell in line if step(cell, direction) not in line)
    rear = next(cell for cell in line if step(cell, (direction + 3) % 6) not in line)
    return rear, front


def token(ends: list[tuple[int, int]], direction: int) -> str:
    return ",".join(f"{x},{y}" for x, y in map(printed, ends)) + f",{direction}"


def pushed(position: Position, line: list, direction: int) -> list | None:
    """The enemy marbles an in-line move of `line` pushes, or None when it is illegal."""
    board, colour = position.board, position.board[line[0]]
    column, ahead = [], step(rear_and_front(line, direction)[1], direction)
    while board.get(ahead) == opponent(colour):
        column.append(ahead)
        ahead = step(ahead, direction)
    if not column:
        return [] if board.get(ahead) == "0" else None
    if len(column) >= len(line) or board.get(ahead) == colour:
        return None
    return column


def moves(position: Position) -> set[str]:
    """Every legal move's token."""
    found = set()
    for line in lines_of(position, position.to_move):
        axis = None if len(line) == 1 else next(d for d in DIRECTIONS if step(line[0], d) == line[1])
        for direction in DIRECTIONS:
            inline = axis is None or direction in (axis, (axis + 3) % 6)
            if inline:
                column = pushed(position, line, direction)
                if column is not None:
                    found.add(token(rear_and_front(line, direction), direction))
            elif all(position.board.get(step(cell, direction)) == "0" for cell in line):
                ends = sorted([line[0], line[-1]], key=lambda cell: printed(cell)[::-1])
                found.add(token(ends, direction))
    return found


def legal_moves(position: Position) -> set[str]:
    if decided(position) is not None:
        return set()
    return set(moves(position))  # none: the side to move has lost


def play(position: Position, move_token: str) -> Position:
    x1, y1, x2, y2, direction = map(int, move_token.split(","))
    first, last = axial(x1, y1), axial(x2, y2)
    length = max(abs(last[0] - first[0]), abs(last[1] - first[1]), abs(sum(last) - sum(first))) + 1
    along = next((d for d in DIRECTIONS if step(first, d, length - 1) == last), 0)
    line = [step(first, along, k) for k in range(length)]
    inline = length == 1 or direction in (along, (along + 3) % 6)
    column = pushed(position, line, direction) if inline else []
    board, pushed_off = dict(position.board), dict(position.pushed_off)
    mover = position.to_move
    for cell in line + column:
        board[cell] = "0"
    for cell in column:
        if step(cell, direction) in board:
            board[step(cell, direction)] = opponent(mover)
        else:
            pushed_off[mover] += 1
    for cell in line:
        board[step(cell, direction)] = mover
    return Position(board, opponent(mover), pushed_off, position.turn + 1)


def decided(position: Position) -> Result | None:
    """The end by pushed-off marbles or by the ply limit, whatever the moves."""
    black, white = position.pushed_off["2"], position.pushed_off["1"]
    margin = (black - white, white - black)
    if WINNING_SCORE in (black, white):
        return two_player_result(0 if black == WINNING_SCORE else 1, margin)
    if position.turn >= PLY_LIMIT:
        return two_player_result(None if black == white else (0 if black > white else 1), margin)
    return None


def result(position: Position) -> Result | None:
    """Six pushed off, then the ply limit, then a side to move without a move."""
    if decided(position) is not None:
        return decided(position)
    if not moves(position):
        black, white = position.pushed_off["2"], position.pushed_off["1"]
        return two_player_result(1 - PLAYERS.index(position.to_move), (black - white, white - black))
    return None


@st.composite
def scattered(draw) -> str:
    """9 to 14 marbles a side on random cells, the missing ones counted as pushed off,
    either side to move at any ply (often near the ply limit)."""
    black, white = draw(st.integers(9, 14)), draw(st.integers(9, 14))
    cells = draw(st.permutations(range(sum(LINE_LENGTHS))))
    content = ["0"] * sum(LINE_LENGTHS)
    for cell in cells[:black]:
        content[cell] = "2"
    for cell in cells[black:black + white]:
        content[cell] = "1"
    lines, first = [], 0
    for length in LINE_LENGTHS:
        lines.append("".join(content[first:first + length]))
        first += length
    side = draw(st.sampled_from(PLAYERS))
    turn = draw(st.one_of(st.integers(0, PLY_LIMIT - 1), st.integers(PLY_LIMIT - 20, PLY_LIMIT - 1)))
    return f"{'/'.join(lines)} {side} score1={14 - black} score2={14 - white} turn={turn}"
