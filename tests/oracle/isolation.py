"""Knight Isolation ("Mad Knights"), restated from the rules spec, section "4. Knight
Isolation".

Red `r` (player 0), green `g` (1) and blue `b` (2) move in that order, skipping players
out. A knight jumps to a square that is neither blocked (`#`) nor held by a knight; the
square it left is blocked for good. Each referee turn, in this order: a lone player in
is declared the winner; a player with no move is put out without being asked (its
knight stays); else it moves. Every move, elimination and the declaration uses one of
the 62 global turns ("Limits"); the turns used are the blocked squares plus the players
out. Scores ("Scores and ranking"): the first out 0, the next 1, the survivor the next
value; a player never given a score (the turn cap) keeps 0, and without the
declaration nobody is the winner.
Start squares ("Players and starting squares"): java.util.Random(seed), two nextInt(8)
per knight, rank index then file index, redrawn until both are in 1..6 and the square
is free.
Board text: 8 rows of `. # r g b`, rank 8 first, joined by `/`, the letter to move,
`alive=<letters>` (in r, g, b order) and, when someone is out, `out=<letters>` (first
out first).
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from hypothesis import strategies as st

from tests.oracle import Result, scattered_rows

#: Random games the property tests play by default (about a second); the slow
#: variant plays ten times as many.
PLAYOUTS = 150
FILES = "abcdefgh"
PLAYERS = "rgb"
JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
MAX_TURNS = 62


class Position(NamedTuple):
    board: dict  # (file 0..7, rank 1..8) -> ".", "#", "r", "g" or "b"
    to_move: str
    alive: str  # the players in, in r, g, b order
    out: str  # the players out, first out first


def java_random_start(seed: int) -> dict[str, str]:
    """The start square of each knight as the referee draws it from java.util.Random."""
    mask = (1 << 48) - 1
    state = (seed ^ 0x5DEECE66D) & mask

    def next_int_8() -> int:  # nextInt(bound) for a power-of-two bound: the top 3 bits
        nonlocal state
        state = (state * 0x5DEECE66D + 0xB) & mask
        return state >> 45

    squares: dict[str, str] = {}
    for letter in PLAYERS:
        while True:
            rank_index, file_index = next_int_8(), next_int_8()
            name = FILES[file_index] + str(rank_index + 1)
            if 1 <= rank_index <= 6 and 1 <= file_index <= 6 and name not in squares.values():
                break
        squares[letter] = name
    return squares


def start(seed: int) -> Position:
    board = {(f, r): "." for f in range(8) for r in range(1, 9)}
    for letter, name in java_random_start(seed).items():
        board[(FILES.index(name[0]), int(name[1]))] = letter
    return Position(board, "r", PLAYERS, "")


def parse_board(text: str) -> Position:
    rows, side, *tokens = text.split()
    fields = dict(token.split("=") for token in tokens)
    alive = fields.get("alive", PLAYERS)
    board = {}
    for line, row in enumerate(rows.split("/")):
        for file, cell in enumerate(row):
            board[(file, 8 - line)] = cell
    return settle(Position(board, side, alive, fields.get("out", "")))


def format_board(position: Position) -> str:
    rows = ["".join(position.board[(f, r)] for f in range(8)) for r in range(8, 0, -1)]
    text = "/".join(rows) + f" {position.to_move} alive={position.alive}"
    return text + (f" out={position.out}" if position.out else "")


def turns_used(position: Position) -> int:
    return sum(cell == "#" for cell in position.board.values()) + len(position.out)


def knight_moves(position: Position, letter: str) -> set[str]:
    (f, r), = [sq for sq, cell in position.board.items() if cell == letter]
    return {FILES[f + df] + str(r + dr) for df, dr in JUMPS
            if position.board.get((f + df, r + dr)) == "."}


def next_in(alive: str, letter: str) -> str:
    """The player after `letter` in r, g, b order among `alive` (`letter` may be out)."""
    for step in range(1, 4):
        candidate = PLAYERS[(PLAYERS.index(letter) + step) % 3]
        if candidate in alive:
            return candidate
    return letter


def settle(position: Position) -> Position:
    """Play the referee turns that need no input: players with no move go out."""
    while (turns_used(position) < MAX_TURNS and len(position.alive) > 1
           and not knight_moves(position, position.to_move)):
        letter = position.to_move
        alive = position.alive.replace(letter, "")
        position = Position(position.board, next_in(alive, letter), alive, position.out + letter)
    return position


def legal_moves(position: Position) -> set[str]:
    if result(position) is not None:
        return set()
    return knight_moves(position, position.to_move)


def play(position: Position, token: str) -> Position:
    board = dict(position.board)
    origin, = [sq for sq, cell in board.items() if cell == position.to_move]
    board[origin], board[(FILES.index(token[0]), int(token[1]))] = "#", position.to_move
    return settle(Position(board, next_in(position.alive, position.to_move),
                           position.alive, position.out))


def result(position: Position) -> Result | None:
    """Over at one player left or at the turn cap; scores rank the players. The winner
    is the player the referee declares, the lone survivor, if the cap leaves it a turn
    for the declaration; else there is none."""
    if len(position.alive) > 1 and turns_used(position) < MAX_TURNS:
        return None
    scores = {letter: 0 for letter in PLAYERS}
    for rank, letter in enumerate(position.out):
        scores[letter] = rank
    winner = None
    if len(position.alive) == 1 and turns_used(position) < MAX_TURNS:
        scores[position.alive] = len(position.out)
        winner = PLAYERS.index(position.alive)
    return Result(tuple(scores[letter] for letter in PLAYERS), winner)


@st.composite
def scattered(draw) -> str:
    """A crowded position: many blocked squares, some players out, the global turn cap
    near or reached."""
    blocked = draw(st.integers(40, 61))
    cells = draw(st.permutations(range(64)))
    out = "".join(draw(st.permutations(PLAYERS))[:draw(st.integers(0, 2))])
    alive = "".join(letter for letter in PLAYERS if letter not in out)
    rows = scattered_rows(cells, list(PLAYERS) + ["#"] * blocked)
    side = draw(st.sampled_from(alive))
    return f"{rows} {side} alive={alive}" + (f" out={out}" if out else "")


def referee_boards(records: Sequence[dict]) -> list[str]:
    """A record's status lines tell who is in, not in which order the others left: that
    comes from the events of its game's terminal record (`"25:r eliminated ..."`). A
    terminal record names no status: its winner is put to move, alone in."""
    terminals = {record["game_index"]: record for record in records if record.get("terminal")}
    boards = []
    for record in records:
        eliminated = [(int(event.split(":")[0]), event.split(":")[1][0])
                      for event in terminals[record["game_index"]]["events"] if "eliminated" in event]
        turn = record.get("turn", 10**9)
        out = "".join(letter for at, letter in eliminated if at < turn)
        if record.get("terminal"):
            to_move, alive = record["winner"], record["winner"]
        else:
            to_move = record["to_move"]
            alive = "".join(line[0] for line in record["status_lines"] if line.split()[1] == "1")
        text = "/".join(record["board"]) + f" {to_move} alive={alive}"
        boards.append(text + (f" out={out}" if out else ""))
    return boards


def referee_result(record: dict) -> Result:
    """`scores` per player and the `winner`'s letter."""
    return Result(tuple(record["scores"]), PLAYERS.index(record["winner"]))
