"""The opening explorer of engine-gui: the moves the expert games played from the
position shown, how often, black's average result, and the opening book's value of
each, for a game whose `games.<name>.explorer` module (`games.explorer`) indexes expert
games.

The user names one folder of expert games (`--expert-games DIR`; None: every answer
says that none was named). A game's index is built from the files of that folder its
explorer module names, on the first request for the game, in a thread (the event loop
never waits for it), and saved in the cache folder (by default the user's data folder,
platformdirs' `user_data_dir("engine")/explorer`) as `<game>-<digest>.npz`: the digest
covers the index's format and the files' names, sizes and modification times, so a
changed folder is indexed again and an unchanged one is read back in a fraction of a
second. The file is written whole or not at all (a temporary file renamed over it);
one that does not read back as a whole, consistent index of the format (corrupt,
truncated, foreign: the game's module checks every array, no pickle is ever loaded) is
built again and replaced. A game's other cache files are removed once its new one is in
place, so the folder holds one index a game.

A request is `{"seq": ..., "game": NAME, "board": TEXT}`, the board text as the engine
prints it (at most MAX_BOARD characters, one line); a malformed one raises ValueError
saying what is wrong. Its answer (`Explorer.answer`) is the page's message

    {"type": "explorer", "seq": ..., "game": NAME, "board": TEXT,
     "ply": N or None, "last_ply": N or None,
     "games": G,          the expert games that reached the position
     "ended": E,          those whose record stops there
     "moves": [{"move": TEXT, "games": G, "share": G / games,
                "black_average": black's average final disc margin,
                "black_score": black's score from 0 to 1 (a draw a half),
                "book": the book's value of the move or None}, ...],   most played first
     "book": [{"move": TEXT, "value": V, "depth": D}, ...] or None,    best first
     "note": words for the page or None}

where a book value is the game's opening book's (`daemon.book`), for the side to move,
in the engine's centi-units, searched to `depth` (None: the book has no entry for the
position or an image of it). `note` says why there are no games to show: no folder named,
no explorer for the game, no expert games of it in the folder, the index being built
(`building the index from N files…`: `Explorer.answers` follows that message with the
answer once it is built), the files unreadable, a position past the index's last ply,
or one no expert game reached.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import hashlib
import logging
import re
import threading
import zipfile
import zlib
from pathlib import Path
from typing import AsyncIterator, Callable

import numpy as np
import platformdirs

from daemon.book import Book, load_book
from games import find_game
from games.base import Game, GameError, Position
from games.explorer import Exploration, game_explorer
from games.files import atomic_file, remove_stale_temporaries

LOG = logging.getLogger("engine.gui")

#: The longest board text a request may carry, in characters.
MAX_BOARD = 4096
#: The longest game name a request may carry.
MAX_GAME_NAME = 64
#: A cache file larger than this, or holding more than this once inflated, is not read.
MAX_CACHE_BYTES = 256 << 20
#: How long an answer waits for an index being read or built before it says that it is
#: being built: reading a saved one takes less.
READ_WAIT_S = 1.0


def default_cache_folder() -> Path:
    """Where indexes are kept by default: the user's data folder (platformdirs)."""
    return Path(platformdirs.user_data_dir("engine", appauthor=False)) / "explorer"


def folder_digest(files: list[Path], index_format: str) -> str:
    """A digest (16 hexadecimal digits) of an index's format and of `files`' names,
    sizes and modification times: what a saved index was built from."""
    digest = hashlib.sha256(index_format.encode())
    for path in files:
        status = path.stat()
        digest.update(f"\0{path.name}\0{status.st_size}\0{status.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


class _Job:
    """A game's index as it is read or built: how many files, and the future of the
    index (or of the error that stopped it)."""

    def __init__(self) -> None:
        self.files: int | None = None
        self.future: concurrent.futures.Future = concurrent.futures.Future()
        #: The task that runs the thread (held: the loop keeps only weak references).
        self.task: asyncio.Future | None = None


class Explorer:
    """The opening explorer of the expert games in `folder` (None: none named), its
    indexes cached in `cache_folder` (None: `default_cache_folder()`), the book of a
    game read by `books` (`daemon.book.load_book`: a future of the game's `Book`). One
    serves every tab: each game's index is read or built once, and an index that could
    not be built is not tried again while the explorer lives (its error is the answer)."""

    def __init__(self, folder: Path | None, cache_folder: Path | None = None,
                 books: Callable[[Game], concurrent.futures.Future] = load_book):
        self.folder = None if folder is None else Path(folder)
        self.cache_folder = cache_folder if cache_folder is not None else default_cache_folder()
        self._books = books
        self._jobs: dict[str, _Job] = {}
        self._lock = threading.Lock()
        #: How many indexes were built from the games (not read from the cache).
        self.builds = 0

    async def answer(self, request: object) -> dict:
        """The page's message for `request` (see the module docstring); raises
        ValueError for a malformed request. It waits for an index being built at most
        READ_WAIT_S; past that it says that the index is being built."""
        game, position, board, seq = checked_request(request)
        message = {"type": "explorer", "seq": seq, "game": game.name, "board": board, "ply": None,
                   "last_ply": None, "games": 0, "ended": 0, "moves": [], "book": None, "note": None}
        # Shielded: the futures are shared by every tab, and a request replaced by a
        # newer one is cancelled, which must not cancel them.
        book = await asyncio.shield(asyncio.wrap_future(self._books(game)))
        index, note = await self._index(game.name)
        exploration, book_moves = await asyncio.to_thread(_look_up, index, board, book, position)
        return explorer_message(message, exploration, book_moves, note)

    async def answers(self, request: object) -> AsyncIterator[dict]:
        """`answer`'s message, followed, where that one says the index is being built,
        by the answer once it is built."""
        message = await self.answer(request)
        yield message
        job = self._jobs.get(message["game"])
        if job is not None and not job.future.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(asyncio.wrap_future(job.future))
            yield await self.answer(request)

    async def _index(self, game: str) -> tuple[object | None, str | None]:
        """(the index of `game`, None) or (None, why there is none to read now)."""
        module = game_explorer(game)
        if module is None:
            return None, f"no expert games for {game}"
        if self.folder is None:
            return None, "no folder of expert games named (engine-gui --expert-games DIR)"
        with self._lock:
            job = self._jobs.get(game)
            started = job is None
            if started:
                job = self._jobs[game] = _Job()
        if started:
            job.task = asyncio.ensure_future(asyncio.to_thread(self._read_or_build, module, game, job))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(job.future)), READ_WAIT_S)
        if not job.future.done():
            files = "" if job.files is None else f" from {job.files} files"
            return None, f"building the index{files}…"
        error = job.future.exception()
        if error is not None:
            return None, f"the expert games of {game} cannot be read: {error}"
        return job.future.result(), None

    def _read_or_build(self, module, game: str, job: _Job) -> None:
        """Read `game`'s index from the cache, or build it and save it there; into
        `job`'s future (its error where there is no index)."""
        try:
            files = module.source_files(self.folder)
            job.files = len(files)
            if not files:
                raise ValueError(f"no {module.FILES} file in {self.folder}")
            path = self.cache_folder / f"{game}-{folder_digest(files, module.INDEX_FORMAT)}.npz"
            index = read_cache(module, path)
            if index is None:
                index = module.build_index(self.folder)
                with self._lock:
                    self.builds += 1
                save_cache(index, path, game)
        except Exception as error:  # noqa: BLE001 - whatever it is, the page says it
            LOG.warning("the expert games of %s cannot be indexed: %s", game, error)
            job.future.set_exception(error)
            return
        job.future.set_result(index)


def checked_request(request: object) -> tuple[Game, Position, str, object]:
    """(game, position, its board text, seq) of an explorer request; raises ValueError
    saying what is wrong."""
    if not isinstance(request, dict):
        raise ValueError("an explorer request is an object")
    name, board = request.get("game"), request.get("board")
    if not isinstance(name, str) or not name or len(name) > MAX_GAME_NAME or not name.isidentifier():
        raise ValueError("an explorer request names its game")
    if not isinstance(board, str) or not board.strip() or len(board) > MAX_BOARD or not board.isprintable():
        raise ValueError(f"an explorer request's board is a board text of one line of at most {MAX_BOARD}"
                         f" characters")
    game = find_game(name)
    try:
        position = game.parse_board(board.split())
    except GameError as error:
        raise ValueError(f"not a board of {name}: {error}") from None
    return game, position, game.format_board(position), request.get("seq")


def explorer_message(message: dict, exploration: Exploration | None, book: list[dict] | None,
                     note: str | None) -> dict:
    """`message` (the request's part) with `exploration`'s games and moves, the book's
    moves and the note (see the module docstring)."""
    values = {entry["move"]: entry["value"] for entry in book or ()}
    message = dict(message, book=book, note=note)
    if exploration is None:
        return message
    message.update(ply=exploration.ply, last_ply=exploration.last_ply, games=exploration.games,
                   ended=exploration.ended)
    message["moves"] = [{"move": entry.move, "games": entry.games, "share": round(entry.games / exploration.games, 4),
                         "black_average": round(entry.black_average, 2), "black_score": round(entry.black_score, 4),
                         "book": values.get(entry.move)} for entry in exploration.moves]
    if exploration.past:
        message["note"] = f"past ply {exploration.last_ply}, the index's last"
    elif not exploration.games:
        message["note"] = "no expert game reached this position"
    elif not exploration.moves:
        message["note"] = "every expert game that reached this position ends here"
    return message


def _look_up(index, board: str, book: Book, position: Position) -> tuple[Exploration | None, list[dict] | None]:
    """(`index`'s exploration of `board`, None without an index; the book's moves of
    `position`, best first, for the page, None off the book): off the event loop, as a
    book entry is parsed at its first use."""
    moves = [{"move": entry.text, "value": entry.score, "depth": entry.depth} for entry in book.moves(position)]
    return (None if index is None else index.explore(board)), moves or None


#: A cache file's name: `<game>-<digest>.npz`.
CACHE_NAME = re.compile(r"^(?P<game>[A-Za-z_][A-Za-z0-9_]*)-[0-9a-f]{16}\.npz$")


def read_cache(module, path: Path):
    """The index saved in `path` by `save_cache`, checked by the game's `module`
    (`index_of`); None where there is no file, or it is not a whole index (it is then
    built again: the log says why)."""
    if not path.is_file():
        return None
    try:
        if path.stat().st_size > MAX_CACHE_BYTES:
            raise ValueError(f"larger than {MAX_CACHE_BYTES} bytes")
        with zipfile.ZipFile(path) as archive:
            if sum(info.file_size for info in archive.infolist()) > MAX_CACHE_BYTES:
                raise ValueError(f"holds more than {MAX_CACHE_BYTES} bytes")
        with np.load(path, allow_pickle=False) as saved:
            arrays = {name: saved[name] for name in saved.files}
        return module.index_of(arrays)
    except (OSError, ValueError, EOFError, KeyError, MemoryError, zipfile.BadZipFile, zlib.error) as error:
        LOG.warning("the explorer's index %s is built again: %s", path, error)
        return None


def save_cache(index, path: Path, game: str) -> None:
    """Write `index` to `path` whole or not at all, then remove `game`'s other cache
    files of the folder; a folder that cannot be written leaves the index unsaved (the
    log says why)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        remove_stale_temporaries(path.parent)
        with atomic_file(path) as handle:
            np.savez_compressed(handle, **index.arrays())
    except OSError as error:
        LOG.warning("the explorer's index cannot be saved in %s: %s", path, error)
        return
    for other in path.parent.iterdir():
        match = CACHE_NAME.match(other.name)
        if match and match["game"] == game and other.name != path.name:
            with contextlib.suppress(OSError):
                other.unlink()
