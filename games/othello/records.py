"""Othello's record formats beside SGF (`records`): GGF, the GGS servers' games, plain
transcripts and the WTHOR database's files; and SGF's number of the game.

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

WTHOR files (`WTH_*.wtb`, the French federation's database of expert games; the layout
in `games.othello.training`) are read, not written: each game with its tournament
(`EV`), players (`PB`, `PW`, where the folder has the name tables `WTH.TRN` and
`WTH.JOU`), year (`DT`) and result (`RE`, SGF's `B+18`, `W+4` or `Draw`, from the
recorded score with the empty squares given to the winner).
"""

from __future__ import annotations

import re
from pathlib import Path
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
    return _played_line({}, [square.lower() for square in squares], where)


def write_transcript(line: Line) -> str:
    """The squares of `line` run together, passes left out (from the game's start)."""
    if line.start is not None:
        raise ValueError("a transcript starts from the game's start: this game starts from another board")
    return "".join(move for move in line.moves if move != "pass")


#: The sizes of a WTHOR file's header, of a game's record and of a name in the
#: players' (WTH.JOU) and the tournaments' (WTH.TRN) tables.
WTHOR_HEADER, WTHOR_GAME, PLAYER_NAME, TOURNAMENT_NAME = 16, 68, 20, 26


def _names(path: Path, size: int) -> list[str]:
    """The names of a WTHOR name table, [] where it is missing or broken."""
    try:
        data = path.read_bytes()
    except OSError:
        return []
    count = int.from_bytes(data[8:10], "little") if len(data) >= WTHOR_HEADER else 0
    if len(data) < WTHOR_HEADER + size * count:
        return []
    return [data[WTHOR_HEADER + size * i:WTHOR_HEADER + size * (i + 1)].split(b"\0")[0].decode("latin-1").strip()
            for i in range(count)]


def read_wthor(path: Path, limit: int | None = None) -> list[Line]:
    """The games of the WTHOR file `path` (the first `limit`), passes played where the
    rules call for them, with the names of the tables beside it where they are there;
    raises ValueError naming the file, the game and the move of a fault."""
    data = path.read_bytes()
    count = int.from_bytes(data[4:8], "little") if len(data) >= WTHOR_HEADER else -1
    if count < 0 or len(data) != WTHOR_HEADER + WTHOR_GAME * count:
        raise ValueError(f"{path}: {len(data)} bytes, not a WTHOR file's 16 + 68 x its {count} games")
    players = _names(path.with_name("WTH.JOU"), PLAYER_NAME)
    tournaments = _names(path.with_name("WTH.TRN"), TOURNAMENT_NAME)
    year = int.from_bytes(data[10:12], "little")
    # A move byte is 10 x row + column, both from 1: 11 is a1, 88 is h8.
    squares = {10 * row + column: chr(ord("a") + column - 1) + str(row) for row in range(1, 9) for column in range(1, 9)}
    lines = []
    for number in range(count if limit is None else min(limit, count)):
        game = data[WTHOR_HEADER + WTHOR_GAME * number:WTHOR_HEADER + WTHOR_GAME * (number + 1)]
        where = f"{path}: game {number + 1}"
        headers = {"DT": str(year)}
        for name, table, index in (("EV", tournaments, int.from_bytes(game[0:2], "little")),
                                   ("PB", players, int.from_bytes(game[2:4], "little")),
                                   ("PW", players, int.from_bytes(game[4:6], "little"))):
            if index < len(table):
                headers[name] = table[index]
        margin = 2 * game[6] - 64
        headers["RE"] = f"B+{margin}" if margin > 0 else f"W+{-margin}" if margin < 0 else "Draw"
        codes = [code for code in game[8:] if code]
        if any(code not in squares for code in codes):
            raise ValueError(f"{where}: a move byte that names no square")
        lines.append(_played_line(headers, [squares[code] for code in codes], where))
    return lines


def _played_line(headers: dict[str, str], squares: list[str], where: str) -> Line:
    """The line of `squares` from the start, passes played where the rules call for them."""
    position = GAME.initial_state({})
    moves: list[str] = []
    for number, square in enumerate(squares, 1):
        try:
            try:
                move = GAME.parse_move(position, square)
            except GameError:
                # The side to move has no square: it passes, and the square is the other's.
                if [GAME.format_move(position, move) for move in position.legal_moves()] != ["pass"]:
                    raise
                moves.append("pass")
                position = position.play(GAME.parse_move(position, "pass"))
                move = GAME.parse_move(position, square)
            position = position.play(move)
        except GameError as error:
            raise ValueError(f"{where}: square {number} ({square}): {error}") from None
        moves.append(square)
    return Line(headers, None, moves)


#: The formats `records.formats` offers for the game: name -> (read, write, many),
#: `many` where a text holds several games.
FORMATS = {"ggf": (read_ggf, write_ggf, True), "transcript": (read_transcript, write_transcript, False)}
