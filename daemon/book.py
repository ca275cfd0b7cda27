"""Opening books: moves chosen in advance for positions keyed by their board text.

A game's book is `games/<game>/book.jsonl` (or `$ENGINE_BOOK_DIR/<game>.jsonl`), JSON
lines: a header `{"format": 2, "game": NAME, "source": {...}}` (how it was built, see
`scripts/book`), then one line per position,
`{"board": TEXT, "depth": D, "moves": [{"move": MOVE, "score": CP}, ...]}`: the position
as the engine prints it (`Game.format_board`), the depth of the searches behind it, and
its moves in the game's notation, each with its value for the side to move (best first;
not every legal move needs to be listed). A format-1 book gives one move a line:
`{"board": TEXT, "move": MOVE, "score": CP, "depth": D}`. A game without a file has an
empty book.

A book answers for a position's images under the board's symmetries too
(`Game.board_images`): a book built from one of four equivalent first moves covers all
four.

An entry is checked the first time it is used: one whose board does not parse or is
not printed as the engine prints it, that lists no move or a move not legal there, is
left out then (a log line quotes it); one that repeats a board, or names none, is left
out as the book is read (a log line says how many). A book is data shipped with the
engine, but it is read as carefully as any input; reading it whole costs little more
than finding each line's board text, not the parsing of a board. At most MAX_ENTRIES
entries and MAX_BYTES bytes are read.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import os
import random
import threading
from pathlib import Path
from typing import Collection

import attrs

from games.base import Game, GameError, Position

LOG = logging.getLogger("engine.book")

BOOK_FORMAT = 2
#: The formats a book may be written in.
READABLE_FORMATS = (1, 2)
FILE_NAME = "book.jsonl"
MAX_ENTRIES = 1_000_000
MAX_BYTES = 256 << 20


@attrs.frozen
class BookMove:
    """One of a book position's moves: the move (the game's encoding), its text, its
    value for the side to move and the depth of the searches behind it."""

    move: int
    text: str
    score: int
    depth: int


class Book:
    """The book of one game: board text to its `BookMove`s, best first. The entries are
    kept as the lines read and checked at their first use (`moves`), or all at once by
    `check`."""

    def __init__(self, game: Game, lines: dict[str, str], source: dict | None = None):
        self.game = game
        self._lines = lines
        #: The entries checked so far: board text to its moves, empty for one left out.
        self._checked: dict[str, tuple[BookMove, ...]] = {}
        #: The header's `source`: how the book was built.
        self.source = source or {}

    def __len__(self) -> int:
        """The entries read, less those found unusable so far (all of them after
        `check`)."""
        return len(self._lines) - sum(1 for moves in self._checked.values() if not moves)

    def moves(self, position: Position) -> tuple[BookMove, ...]:
        """The book's moves of `position`, or of the first of its images the book holds,
        as moves of `position`, best first; empty when the book has none."""
        if not self._lines:
            return ()
        for image, back in self.game.board_images(position):
            found = self._entry(self.game.format_board(image))
            if found:
                if image is position:
                    return found
                return tuple(BookMove(back(entry.move), self.game.format_move(position, back(entry.move)),
                                      entry.score, entry.depth) for entry in found)
        return ()

    def check(self) -> int:
        """Check every entry now (the shipped books' test does); the number left out."""
        return sum(1 for board in self._lines if not self._entry(board))

    def _entry(self, board: str) -> tuple[BookMove, ...]:
        """The moves of the entry of `board` (a board text as the engine prints it),
        checked at the first call; empty where there is none or it is not usable (a
        board that does not parse or is not printed so, no move, a move not legal)."""
        found = self._checked.get(board)
        if found is None:
            line = self._lines.get(board)
            if line is None:
                return ()
            entry = _parse_entry(self.game, line)
            found = self._checked[board] = entry[1] if entry is not None and entry[0] == board else ()
            if not found:
                LOG.warning("a book entry of %s left out (unreadable or illegal): %.120s", self.game.name, line)
        return found

    def probe(self, position: Position, variety: int = 0, rng: random.Random | None = None) -> BookMove | None:
        """The move to play in `position`: the best, or with `variety` above 0 any move
        scoring at most `variety` below the best, drawn by `rng` with equal chances;
        None off the book."""
        moves = self.moves(position)
        if not moves:
            return None
        near = [entry for entry in moves if entry.score >= moves[0].score - variety]
        return rng.choice(near) if rng is not None and len(near) > 1 else moves[0]

    @classmethod
    def read(cls, game: Game, path: Path, only: Collection[str] | None = None) -> "Book":
        """The book in `path` (see the module docstring); empty when there is no file.
        With `only`, board texts as the engine prints them, the entries of those boards
        alone: the other lines are not looked at, a few milliseconds where the whole
        book takes tens. Raises ValueError for a file that is not a book of `game`."""
        if not path.is_file():
            return cls(game, {})
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"{path}: larger than {MAX_BYTES} bytes")
        entries: dict[str, str] = {}
        skipped = 0
        with path.open(encoding="utf-8") as handle:
            header = _header(handle.readline(), game, path)
            for line in handle if only is None else _lines_naming(handle.read(), only):
                if len(entries) >= MAX_ENTRIES:
                    raise ValueError(f"{path}: more than {MAX_ENTRIES} entries")
                board = _board_of(line)
                if board is None or board in entries:
                    skipped += 1
                    continue
                entries[board] = line
        if skipped:
            LOG.warning("%s: %d book entries left out (unreadable or repeated)", path, skipped)
        return cls(game, entries, header.get("source"))


#: How the builder begins an entry line: its board text follows, up to a quote.
BOARD_PREFIX = '{"board": "'


def _board_of(line: str) -> str | None:
    """The board text of an entry line, its spaces made single; None for a line that
    names none. A line that begins as the builder writes them is not parsed as JSON here
    (a board text holds no quote or backslash): parsing every line took four to eight
    times as long, and an entry's first use parses its line anyway."""
    end = line.find('"', len(BOARD_PREFIX)) if line.startswith(BOARD_PREFIX) else -1
    if end >= 0 and "\\" not in line[:end]:
        board = line[len(BOARD_PREFIX):end]
    else:
        try:
            record = json.loads(line)
        except ValueError:
            return None
        board = record.get("board") if isinstance(record, dict) else None
        if not isinstance(board, str):
            return None
    return " ".join(board.split()) or None


def _lines_naming(text: str, boards: Collection[str]) -> list[str]:
    """The lines of `text` that hold one of `boards` in quotes, each once, in the
    order of the file: found by searching the whole text for each board, where testing
    every line for every board took tens of milliseconds in a book of thousands."""
    starts = set()
    for board in boards:
        quoted = f'"{board}"'
        found = text.find(quoted)
        while found >= 0:
            start = text.rfind("\n", 0, found) + 1
            starts.add(start)
            end = text.find("\n", found)
            found = -1 if end < 0 else text.find(quoted, end)
    lines = []
    for start in sorted(starts):
        end = text.find("\n", start)
        lines.append(text[start:] if end < 0 else text[start:end])
    return lines


def _header(line: str, game: Game, path: Path) -> dict:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") not in READABLE_FORMATS:
        raise ValueError(f"{path}: not a book file (a header of format {' or '.join(map(str, READABLE_FORMATS))} expected)")
    if header.get("game") != game.name:
        raise ValueError(f"{path}: a book of {header.get('game')!r}, not of {game.name!r}")
    return header


def _parse_entry(game: Game, line: str) -> tuple[str, tuple[BookMove, ...]] | None:
    """(board text, its moves best first) of one entry line, or None when it is not a
    usable entry."""
    try:
        record = json.loads(line)
        position = game.parse_board(record["board"].split())
        depth = int(record.get("depth", 0))
        listed = record["moves"] if "moves" in record else [record]
        moves = []
        for item in listed:
            move = game.parse_move(position, item["move"])
            moves.append(BookMove(move, game.format_move(position, move), int(item.get("score", 0)), depth))
    except (ValueError, KeyError, TypeError, AttributeError, GameError):
        return None
    if not moves or len({entry.move for entry in moves}) < len(moves):
        return None
    return game.format_board(position), tuple(sorted(moves, key=lambda entry: -entry.score))


def book_path(game: Game) -> Path:
    """Where `game`'s book is read from: `$ENGINE_BOOK_DIR/<game>.jsonl` when that
    variable is set (a book of one's own, see `scripts/book --out`), else the one shipped
    beside the game's rules."""
    folder = os.environ.get("ENGINE_BOOK_DIR")
    if folder:
        return Path(folder) / f"{game.name}.jsonl"
    return Path(game.rules.__file__).resolve().parent / FILE_NAME


def book_moves_at(game: Game, position: Position) -> tuple[BookMove, ...]:
    """The moves `game`'s book (`book_path`) holds for `position` or an image of it, best
    first, read from the file for this position alone (`Book.read`'s `only`): for a
    process that holds no book, such as the CodinGame bot choosing its own move. Empty
    off the book, or where the file cannot be read."""
    boards = {game.format_board(image) for image, _ in game.board_images(position)}
    try:
        return Book.read(game, book_path(game), only=boards).moves(position)
    except (OSError, ValueError):
        return ()


_loads: dict[str, concurrent.futures.Future] = {}
_loads_lock = threading.Lock()


def load_book(game: Game) -> concurrent.futures.Future:
    """The future of `game`'s shipped book, read once per process in a thread of its
    own (started by the first call); empty (with a log line) when it cannot be read."""
    with _loads_lock:
        future = _loads.get(game.name)
        if future is None:
            future = _loads[game.name] = concurrent.futures.Future()
            threading.Thread(target=_read_into, args=(game, future), name=f"book-{game.name}", daemon=True).start()
    return future


def _read_into(game: Game, future: concurrent.futures.Future) -> None:
    path = book_path(game)
    try:
        book = Book.read(game, path)
    except Exception as error:  # whatever goes wrong, the game is played without a book
        LOG.error("the opening book of %s cannot be read, playing without it: %s", game.name, error)
        book = Book(game, {})
    future.set_result(book)
