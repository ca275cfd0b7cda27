"""Opening books: moves chosen in advance for positions keyed by their board text.

A game's book is `games/<game>/book.jsonl` (or `$ENGINE_BOOK_DIR/<game>.jsonl`), JSON
lines: a header
`{"format": 1, "game": NAME, "source": {...}}` (how it was built, see `scripts/book`),
then one line per position, `{"board": TEXT, "move": MOVE, "score": CP, "depth": D}`:
the position as the engine prints it (`Game.format_board`), the move in the game's
notation, and the search that chose it (its score for the side to move, its depth). A
game without a file has an empty book.

Entries are checked when the book is read: an entry whose board does not parse, whose
move is not legal there, or that repeats a board, is left out and counted (a log line
says how many). A book is data shipped with the engine, but it is read as carefully as
any input. At most MAX_ENTRIES entries and MAX_BYTES bytes are read.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from pathlib import Path

import attrs

from games.base import Game, GameError, Position

LOG = logging.getLogger("engine.book")

BOOK_FORMAT = 1
FILE_NAME = "book.jsonl"
MAX_ENTRIES = 1_000_000
MAX_BYTES = 256 << 20


@attrs.frozen
class BookMove:
    """A book's choice for one position: the move (the game's encoding), its text, and
    the score and depth of the search that chose it."""

    move: int
    text: str
    score: int
    depth: int


class Book:
    """The book of one game: board text to `BookMove`."""

    def __init__(self, game: Game, entries: dict[str, BookMove], source: dict | None = None):
        self.game = game
        self._entries = entries
        #: The header's `source`: how the book was built.
        self.source = source or {}

    def __len__(self) -> int:
        return len(self._entries)

    def probe(self, position: Position) -> BookMove | None:
        """The book move of `position`, or None."""
        if not self._entries:
            return None
        return self._entries.get(self.game.format_board(position))

    @classmethod
    def read(cls, game: Game, path: Path) -> "Book":
        """The book in `path` (see the module docstring); empty when there is no file.
        Raises ValueError for a file that is not a book of `game`."""
        if not path.is_file():
            return cls(game, {})
        if path.stat().st_size > MAX_BYTES:
            raise ValueError(f"{path}: larger than {MAX_BYTES} bytes")
        entries: dict[str, BookMove] = {}
        skipped = 0
        with path.open(encoding="utf-8") as handle:
            header = _header(handle.readline(), game, path)
            for line in handle:
                if len(entries) >= MAX_ENTRIES:
                    raise ValueError(f"{path}: more than {MAX_ENTRIES} entries")
                entry = _entry(game, line)
                if entry is None or entry[0] in entries:
                    skipped += 1
                    continue
                entries[entry[0]] = entry[1]
        if skipped:
            LOG.warning("%s: %d book entries left out (unreadable, illegal or repeated)", path, skipped)
        return cls(game, entries, header.get("source"))


def _header(line: str, game: Game, path: Path) -> dict:
    try:
        header = json.loads(line)
    except ValueError:
        header = None
    if not isinstance(header, dict) or header.get("format") != BOOK_FORMAT:
        raise ValueError(f"{path}: not a book file (format {BOOK_FORMAT} header expected)")
    if header.get("game") != game.name:
        raise ValueError(f"{path}: a book of {header.get('game')!r}, not of {game.name!r}")
    return header


def _entry(game: Game, line: str) -> tuple[str, BookMove] | None:
    """(board text, move) of one entry line, or None when it is not a usable entry."""
    try:
        record = json.loads(line)
        board, text = record["board"], record["move"]
        score, depth = int(record.get("score", 0)), int(record.get("depth", 0))
        position = game.parse_board(board.split())
        move = game.parse_move(position, text)
    except (ValueError, KeyError, TypeError, AttributeError, GameError):
        return None
    if move not in position.legal_moves():
        return None
    return game.format_board(position), BookMove(move, game.format_move(position, move), score, depth)


def book_path(game: Game) -> Path:
    """Where `game`'s book is read from: `$ENGINE_BOOK_DIR/<game>.jsonl` when that
    variable is set (a book of one's own, see `scripts/book --out`), else the one shipped
    beside the game's rules."""
    folder = os.environ.get("ENGINE_BOOK_DIR")
    if folder:
        return Path(folder) / f"{game.name}.jsonl"
    return Path(game.rules.__file__).resolve().parent / FILE_NAME


@functools.lru_cache(maxsize=None)
def game_book(game: Game) -> Book:
    """`game`'s shipped book, read once per process; empty (with a log line) when it
    cannot be read."""
    path = book_path(game)
    try:
        return Book.read(game, path)
    except (OSError, ValueError) as error:
        LOG.error("the opening book of %s cannot be read, playing without it: %s", game.name, error)
        return Book(game, {})
