"""Othello's opening explorer (`games.explorer`): the moves the WTHOR expert games
(`training`) played from each position of their first LAST_PLY + 1 moves, how often,
and black's results, from an index built in a few seconds.

The index is two tables of sorted numpy arrays, searched by bisection:

- positions, one a row, sorted by (black's discs, white's discs, side to move): the key
  is the whole position, so positions never collide, and a position that two move
  orders reach is one row (transpositions merge); `first` (one longer) says where its
  entries begin among
- entries, one per move played from a position: the square (or END, the games whose
  record stops there), the games, the sum of black's final disc margins in them and
  black's half points (2 a win, 1 a draw).

Black's final margin is 2 x real - 64, the real score being black's discs as the file
records it (the empty squares given to the winner).

The bound is the ply: the index holds the positions with at most LAST_PLY moves played
(the ply is the discs on the board less four: a pass adds none), and says of a later
one only that it is past its last ply. The database's positions a ply grow towards one
a game (by ply 25 nearly every game has left the others' lines), so each ply costs
more than the one before. LAST_PLY = 23 covers moves 1 to 24, the opening book's span:
the 137,548 games of 1977-2025 then give 0.91 million positions and 1.03 million
entries, 33 MB of arrays, 9 MB saved compressed (each ply more: about 4 MB and 1 MB);
see docs/gui.md, "Opening explorer".

The files record every game as though it began f5 (each game is turned by the symmetry
of the start position that takes its first move there): a position is looked up as
itself and as each of its images under those symmetries, the games of all of them
summed (a game reaches one of them at most) and their moves turned back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import numpy as np

from games.explorer import Exploration, ExploredMove
from games.othello import notation, patterns
from games.othello.game import GAME
from games.othello.rules import BLACK_START, PASS, WHITE, WHITE_START
from games.othello.training import EXPERT_FILES, read_games, replay_games

FILES = EXPERT_FILES
#: The last ply whose positions the index holds.
LAST_PLY = 23
#: The layout of the index's arrays; a saved index of another is not read.
INDEX_FORMAT = f"othello-wthor-explorer 1 last_ply={LAST_PLY}"
#: An entry's move for the games whose record stops at its position.
END = 255
#: Games replayed at once: bounds the memory of a build (about 28 bytes a row, LAST_PLY
#: + 2 rows a game).
CHUNK_GAMES = 32768
#: The names and dtypes of the index's arrays, as `Index.arrays` gives them.
ARRAYS = {"format": np.uint8, "black": np.uint64, "white": np.uint64, "white_to_move": np.bool_,
          "first": np.uint32, "move": np.uint8, "games": np.uint32, "margin_sum": np.int32,
          "half_points": np.uint32, "counts": np.int64}


def _start_symmetries() -> tuple[int, ...]:
    """The symmetries (`patterns.symmetric_square`) that leave the start position as it
    is: those that turn each game's first move into f5."""
    def image(board: int, g: int) -> int:
        return sum(1 << patterns.symmetric_square(g, square) for square in range(64) if board >> square & 1)
    return tuple(g for g in range(patterns.SYMMETRIES)
                 if image(int(BLACK_START), g) == int(BLACK_START) and image(int(WHITE_START), g) == int(WHITE_START))


START_SYMMETRIES = _start_symmetries()
#: _IMAGE[g, square]: where symmetry g takes a square; _BACK[g, square]: which square it
#: takes there.
_IMAGE = np.array([[patterns.symmetric_square(g, square) for square in range(64)] for g in range(patterns.SYMMETRIES)])
_BACK = np.argsort(_IMAGE, axis=1)


def source_files(folder: Path) -> list[Path]:
    """The WTHOR files of `folder` an index is built from, sorted."""
    return sorted(Path(folder).glob(FILES))


class Index:
    """The index of a folder's expert games (see the module docstring); built by
    `build_index`, read back by `index_of`."""

    def __init__(self, arrays: Mapping[str, np.ndarray]):
        self._arrays = dict(arrays)
        self._black, self._white = arrays["black"], arrays["white"]
        self._white_to_move, self._first = arrays["white_to_move"], arrays["first"]
        self._move, self._games = arrays["move"], arrays["games"]
        self._margin_sum, self._half_points = arrays["margin_sum"], arrays["half_points"]
        #: The games indexed, the files read and the last ply held.
        self.games, self.files, self.last_ply = (int(value) for value in arrays["counts"])

    def arrays(self) -> dict[str, np.ndarray]:
        """The index as named arrays, for `numpy.savez` and `index_of`."""
        return dict(self._arrays)

    def explore(self, board: str) -> Exploration:
        """What the games played from the position of board text `board` (as the engine
        prints it); raises GameError for a text that is no Othello board. A position
        whose side to move must pass has the one move `pass`, played by every game that
        reached the position after it."""
        position = GAME.parse_board(board.split())
        black, white = GAME.discs(position)
        ply = (black | white).bit_count() - 4
        if ply > self.last_ply:
            return Exploration(ply, self.last_ply)
        if position.legal_moves() == [PASS]:
            after = self.explore(GAME.format_board(position.play(PASS)))
            passed = ExploredMove(notation.format_move(PASS), after.games,
                                  sum(move.black_margin_sum for move in after.moves),
                                  sum(move.black_half_points for move in after.moves))
            return Exploration(ply, self.last_ply, after.games, (passed,) if after.games else ())
        return self._summed(ply, black, white, position.to_move == WHITE)

    def _summed(self, ply: int, black: int, white: int, white_to_move: bool) -> Exploration:
        """The entries of the position and of its distinct images under START_SYMMETRIES,
        summed by move (turned back to the position's squares)."""
        found: dict[int, list[int]] = {}
        seen = set()
        for g in START_SYMMETRIES:
            image = (_image(black, g), _image(white, g))
            if image in seen:
                continue
            seen.add(image)
            low, high = self._entries(*image, white_to_move)
            for row in range(low, high):
                move = int(self._move[row])
                move = move if move == END else int(_BACK[g, move])
                total = found.setdefault(move, [0, 0, 0])
                total[0] += int(self._games[row])
                total[1] += int(self._margin_sum[row])
                total[2] += int(self._half_points[row])
        ended = found.pop(END, [0])[0]
        moves = sorted((ExploredMove(notation.format_move(move), *total) for move, total in found.items()),
                       key=lambda entry: (-entry.games, entry.move))
        return Exploration(ply, self.last_ply, ended + sum(entry.games for entry in moves), tuple(moves), ended)

    def _entries(self, black: int, white: int, white_to_move: bool) -> tuple[int, int]:
        """The range of the entries of the position (empty where the index has none)."""
        low, high = _equal_range(self._black, np.uint64(black), 0, len(self._black))
        low, high = _equal_range(self._white, np.uint64(white), low, high)
        low, high = _equal_range(self._white_to_move, np.bool_(white_to_move), low, high)
        if low == high:
            return 0, 0
        return int(self._first[low]), int(self._first[low + 1])


def _popcount(boards: np.ndarray) -> np.ndarray:
    """The discs of each bitboard (int64), counted in parallel within each word (numpy
    before 2.0 has no bitwise_count)."""
    x = boards - ((boards >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return ((x * np.uint64(0x0101010101010101)) >> np.uint64(56)).astype(np.int64)


def _equal_range(column: np.ndarray, value, low: int, high: int) -> tuple[int, int]:
    """The rows of column[low:high] (sorted) that hold `value`."""
    part = column[low:high]
    return low + int(np.searchsorted(part, value, "left")), low + int(np.searchsorted(part, value, "right"))


def _image(board: int, g: int) -> int:
    """The bitboard `board` under symmetry g."""
    if g == 0:
        return board
    image = 0
    while board:
        low = board & -board
        image |= 1 << int(_IMAGE[g, low.bit_length() - 1])
        board ^= low
    return image


def build_index(folder: Path) -> Index:
    """The index of the WTHOR games of `folder` (see the module docstring); raises
    ValueError where there is no file or one is not a WTHOR file, OSError where one
    cannot be read."""
    files = source_files(folder)
    moves, _, real = read_games(Path(folder))
    margin = (2 * real.astype(np.int16) - 64).astype(np.int8)
    half_points = np.where(margin > 0, 2, np.where(margin == 0, 1, 0)).astype(np.uint8)
    parts = [_replayed(moves[start:start + CHUNK_GAMES], margin[start:start + CHUNK_GAMES],
                       half_points[start:start + CHUNK_GAMES]) for start in range(0, len(moves), CHUNK_GAMES)]
    columns = [np.concatenate(column) for column in zip(*parts)]
    del parts  # each column is held once at a time from here: the build's peak is the rows' twice
    order = np.lexsort(columns[3::-1])
    for number in range(len(columns)):
        columns[number] = columns[number][order]
    del order
    black, white, white_to_move, move, margin_row, points_row = columns
    new_position = np.ones(len(black), dtype=np.bool_)
    new_position[1:] = (black[1:] != black[:-1]) | (white[1:] != white[:-1]) | (white_to_move[1:] != white_to_move[:-1])
    new_entry = new_position.copy()
    new_entry[1:] |= move[1:] != move[:-1]
    entry_starts = np.flatnonzero(new_entry)
    position_starts = np.flatnonzero(new_position)
    first = np.append(np.searchsorted(entry_starts, position_starts), len(entry_starts)).astype(np.uint32)
    arrays = {
        "format": np.frombuffer(INDEX_FORMAT.encode(), dtype=np.uint8).copy(),
        "black": black[position_starts], "white": white[position_starts],
        "white_to_move": white_to_move[position_starts], "first": first,
        "move": move[entry_starts], "games": np.diff(np.append(entry_starts, len(black))).astype(np.uint32),
        "margin_sum": np.add.reduceat(margin_row, entry_starts, dtype=np.int32),
        "half_points": np.add.reduceat(points_row, entry_starts, dtype=np.uint32),
        "counts": np.array([len(moves), len(files), LAST_PLY], dtype=np.int64),
    }
    return Index(arrays)


def _replayed(moves: np.ndarray, margin: np.ndarray, half_points: np.ndarray) -> tuple[np.ndarray, ...]:
    """(black, white, white to move, move, black's margin, black's half points) of every
    position of `moves`' games up to LAST_PLY, one row each: the move played there, or
    END where the game's record stops."""
    moves = moves.copy()
    moves[:, LAST_PLY + 1:] = 0  # the replay reads all 60 columns: it stops at the first 0
    rows = moves.shape[0] * (LAST_PLY + 2)
    boards = np.zeros((rows, 2), dtype=np.uint64)
    game = np.zeros(rows, dtype=np.int64)
    black_to_move = np.zeros(rows, dtype=np.bool_)
    count, played = replay_games(moves, boards, game, black_to_move)
    boards, game, black_to_move = boards[:count], game[:count], black_to_move[:count]
    starts = np.concatenate(([0], np.cumsum(np.where(played >= 0, played + 1, 0))[:-1]))
    ply = np.arange(count) - starts[game]
    keep = ply <= LAST_PLY
    boards, game, black_to_move, ply = boards[keep], game[keep], black_to_move[keep], ply[keep]
    move = np.full(len(game), END, dtype=np.uint8)
    going = ply < played[game]
    codes = moves[game[going], ply[going]].astype(np.int64)
    move[going] = 8 * (codes // 10 - 1) + codes % 10 - 1
    black = np.where(black_to_move, boards[:, 0], boards[:, 1])
    white = np.where(black_to_move, boards[:, 1], boards[:, 0])
    return black, white, ~black_to_move, move, margin[game], half_points[game]


def index_of(arrays: Mapping[str, np.ndarray]) -> Index:
    """The index saved as `arrays` (`Index.arrays`); raises ValueError where they are
    not a whole index of INDEX_FORMAT, consistent with itself."""
    if set(arrays) != set(ARRAYS):
        raise ValueError(f"not an index: arrays {sorted(arrays)}, not {sorted(ARRAYS)}")
    got = {name: np.asarray(arrays[name]) for name in ARRAYS}
    for name, dtype in ARRAYS.items():
        if got[name].dtype != dtype or got[name].ndim != 1:
            raise ValueError(f"not an index: {name} is {got[name].dtype} {got[name].shape}, not 1-D {np.dtype(dtype)}")
    if got["format"].tobytes() != INDEX_FORMAT.encode():
        raise ValueError(f"an index of another format, not {INDEX_FORMAT!r}")
    _check_tables(got)
    return Index(got)


def _check_tables(got: dict[str, np.ndarray]) -> None:
    """Raise ValueError where the tables of `got` (of the right dtypes) do not hold
    together: lengths, the positions sorted, each position's entries, moves and sums."""
    positions, entries = len(got["black"]), len(got["move"])
    first = got["first"].astype(np.int64)
    if (len(got["white"]) != positions or len(got["white_to_move"]) != positions or len(first) != positions + 1
            or any(len(got[name]) != entries for name in ("games", "margin_sum", "half_points"))
            or len(got["counts"]) != 3):
        raise ValueError("not an index: its arrays' lengths disagree")
    if first[0] != 0 or first[-1] != entries or np.any(np.diff(first) < 1):
        raise ValueError("not an index: the positions' entries are not in order")
    black, white, side = got["black"], got["white"], got["white_to_move"]
    later = ((black[1:] > black[:-1]) | ((black[1:] == black[:-1])
             & ((white[1:] > white[:-1]) | ((white[1:] == white[:-1]) & (side[1:] > side[:-1])))))
    if not np.all(later):
        raise ValueError("not an index: its positions are not sorted, or repeat")
    ply = _popcount(black | white) - 4
    if np.any(black & white) or np.any(ply < 0) or np.any(ply > LAST_PLY) or got["counts"][2] != LAST_PLY:
        raise ValueError("not an index: a position is not an Othello position of its plies")
    move, games = got["move"], got["games"].astype(np.int64)
    if (np.any((move > 63) & (move != END)) or np.any(games < 1)
            or np.any(np.abs(got["margin_sum"].astype(np.int64)) > 64 * games)
            or np.any(got["half_points"] > 2 * games)):
        raise ValueError("not an index: an entry's move, games or sums are out of range")
