"""Othello's record formats beside SGF (`records`): GGF, the GGS servers' games, and
plain transcripts; and SGF's number of the game.

Each reader gives `Line`s: a game's headers, its start board text (None: the start of
the game) and its moves as the engine's tokens, each checked by the rules, passes
included; the writers take the same.

GGF writes one game per `(;...;)`, its properties SGF-like: `GM[Othello]`, `PC`, `DT`,
`PB`, `PW`, `RB`, `RW`, `TI`, `TY`, `RE` (black's final margin, `+2.000`) and `BO`, the
start board (`8`, the rows from a1's, `*` black, `O` white, `-` empty, then the side to
move), then the moves in order, `B[f5]` or `B[f5/eval/seconds]`, `PA` a pass. A GGF game
has no variations and no comments; its headers are kept under the same names (others
are left out). Squares are read in either case.

A transcript is the squares run together (`f5d6c3d3c4`), passes left out: they are
played again where the rules call for them as it is read.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from games.base import GameError
from games.othello.game import GAME

#: SGF's number of the game (GM[2]).
SGF_NUMBER = 2
#: GGF's header properties, kept under the same names.
HEADERS = ("PC", "DT", "PB", "PW", "RB", "RW", "TI", "TY", "RE")
#: The most characters of GGF or transcript text read.
MAX_CHARS = 16 * 1024 * 1024
#: The most moves of a game (60 discs and as many passes).
MAX_MOVES = 120
_PROPERTY = re.compile(r"([A-Z]{1,8})\[([^\]]*)\]")
_DISC = {"*": "0", "O": "1", "-": "."}
_BACK = {"0": "*", "1": "O", ".": "-"}


class Line(NamedTuple):
    """A game as a line of moves: headers, start board text (None: the game's start)
    and move tokens."""

    headers: dict[str, str]
    start: str | None
    moves: list[str]


def _start_text() -> str:
    return GAME.format_board(GAME.initial_state({}))


def _board_text(value: str, where: str) -> str:
    """The engine's board text of GGF's `BO[8 rows... side]`."""
    parts = value.split()
    if len(parts) != 10 or parts[0] != "8" or parts[9] not in ("*", "O"):
        raise ValueError(f"{where}: BO[{value[:80]}] is no 8x8 board with its side to move")
    rows = []
    for row in parts[1:9]:
        if len(row) != 8 or any(cell not in _DISC for cell in row):
            raise ValueError(f"{where}: BO row {row[:20]!r} is not 8 of * O -")
        rows.append("".join(_DISC[cell] for cell in row))
    return "/".join(rows) + " " + _DISC[parts[9]]


def _checked(start: str | None, moves: list[str], where: str) -> None:
    """Raise ValueError, naming the move, where `moves` are not legal from `start`."""
    try:
        position = GAME.parse_board(start.split()) if start else GAME.initial_state({})
    except GameError as error:
        raise ValueError(f"{where}: the start board: {error}") from None
    for number, move in enumerate(moves, 1):
        try:
            position = position.play(GAME.parse_move(position, move))
        except GameError as error:
            raise ValueError(f"{where}: move {number} ({move}): {error}") from None


def read_ggf(text: str, where: str = "<ggf>") -> list[Line]:
    """The games of the GGF text `text` (from `where`, named in errors), each checked by
    the rules; raises ValueError naming the game and move of the first fault."""
    if len(text) > MAX_CHARS:
        raise ValueError(f"{where}: {len(text)} characters of GGF, more than the {MAX_CHARS} read")
    lines = []
    for number, match in enumerate(re.finditer(r"\(;(.*?);\)", text, re.S), 1):
        place = f"{where}: game {number}"
        properties = _PROPERTY.findall(match.group(1))
        kinds = [value for name, value in properties if name == "GM"]
        if kinds and kinds[0].strip().lower() != "othello":
            raise ValueError(f"{place}: GM[{kinds[0][:40]}] is not Othello")
        start = None
        moves: list[str] = []
        for name, value in properties:
            if name == "BO":
                start = _board_text(value, place)
            elif name in ("B", "W"):
                square = value.split("/")[0].strip().lower()
                moves.append("pass" if square in ("pa", "pass") else square)
                if len(moves) > MAX_MOVES:
                    raise ValueError(f"{place}: more than {MAX_MOVES} moves")
        start = None if start == _start_text() else start
        _checked(start, moves, place)
        lines.append(Line({name: value for name, value in properties if name in HEADERS}, start, moves))
    if not lines:
        raise ValueError(f"{where}: no GGF game, (;...;), in the text")
    return lines


def write_ggf(lines: list[Line]) -> str:
    """The GGF text of `lines` (each legal: `read_ggf` would give them back)."""
    out = []
    for headers, start, moves in lines:
        position = GAME.parse_board(start.split()) if start else GAME.initial_state({})
        rows, side = (start or _start_text()).split()[:2]
        board = "8 " + " ".join("".join(_BACK[cell] for cell in row) for row in rows.split("/")) + " " + _BACK[side]
        parts = ["(;GM[Othello]"]
        parts.extend(f"{name}[{headers[name]}]" for name in HEADERS if name in headers and "]" not in headers[name])
        parts.append(f"BO[{board}]")
        for move in moves:
            parts.append(f"{'B' if position.to_move == 0 else 'W'}[{'PA' if move == 'pass' else move}]")
            position = position.play(GAME.parse_move(position, move))
        parts.append(";)")
        out.append("".join(parts))
    return "\n".join(out) + "\n"


def read_transcript(text: str, where: str = "<transcript>") -> Line:
    """The game of the transcript `text` (squares run together, any case, white space
    allowed), passes played where the rules call for them; raises ValueError naming
    the first square refused."""
    if len(text) > MAX_CHARS:
        raise ValueError(f"{where}: {len(text)} characters of transcript")
    squares = re.findall(r"[a-hA-H][1-8]", text)
    rest = re.sub(r"[a-hA-H][1-8]|\s", "", text)
    if rest:
        raise ValueError(f"{where}: {rest[:20]!r} is not a square of a transcript")
    if len(squares) > 60:
        raise ValueError(f"{where}: {len(squares)} squares, more than a game's 60")
    position = GAME.initial_state({})
    moves: list[str] = []
    for number, square in enumerate(squares, 1):
        square = square.lower()
        try:
            if [GAME.format_move(position, move) for move in position.legal_moves()] == ["pass"]:
                moves.append("pass")
                position = position.play(GAME.parse_move(position, "pass"))
            position = position.play(GAME.parse_move(position, square))
        except GameError as error:
            raise ValueError(f"{where}: square {number} ({square}): {error}") from None
        moves.append(square)
    return Line({}, None, moves)


def write_transcript(line: Line) -> str:
    """The squares of `line` run together, passes left out (from the game's start)."""
    if line.start is not None:
        raise ValueError("a transcript starts from the game's start: this game starts from another board")
    return "".join(move for move in line.moves if move != "pass")


#: The formats `records.formats` offers for the game: name -> (read, write, many),
#: `many` where a text holds several games.
FORMATS = {"ggf": (read_ggf, write_ggf, True), "transcript": (read_transcript, write_transcript, False)}
