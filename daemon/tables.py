"""One session's transposition tables and their hash files.

A session keeps a table per game it has played (`SessionTables.by_game`), each at the
`Hash` size it had when made, and reserves what each costs against the daemon's table
memory budget (`HashBudget`, `--max-hash-mib`): the table and half as much again for the
exact solver's (`table_cost`). Tables are saved to and loaded from the hash directory
(`HashFiles`) in file threads, so that file I/O never holds the event loop or a search
thread. Requests that do not fit are refused with a Refusal (`daemon.refusals`: Busy,
BadValue), files that cannot be read or written with HashFileError, changing nothing.
"""

from __future__ import annotations

import logging
import time

from daemon.hashfiles import HashBudget, HashFiles
from daemon.runner import run_file_job, run_table_work
from games import find_game
from games.base import Game
from daemon.refusals import BadValue, Busy
from protocol.errors import NO_ROOM
from search.tt import HashFileError, TranspositionTable, peek_game

LOG = logging.getLogger("engine.session")

_MS = 1_000_000


def table_cost(hash_mib: int) -> int:
    """The bytes a game's tables may take with `Hash` at `hash_mib`: the transposition
    table, and half as much again for the exact solver's table."""
    return (hash_mib << 20) * 3 // 2


class SessionTables:
    """The tables of one session, by game, reserved against the daemon's budget, and
    the hash files they go to and come from (see the module docstring)."""

    def __init__(self, files: HashFiles, budget: HashBudget):
        self.files = files
        self.budget = budget
        #: One table per game the session has played, kept until dropped.
        self.by_game: dict[str, TranspositionTable] = {}
        #: The bytes reserved against the budget, by game.
        self._reserved: dict[str, int] = {}
        #: The game whose table the last hash file set as `HashFile` was loaded into.
        self.hash_file_game: str | None = None

    def no_room(self, what: str) -> Busy:
        """The refusal of a request whose memory the daemon's budget has no room for."""
        return Busy(f"{NO_ROOM} {what}: {self.budget.describe()} (--max-hash-mib)")

    def _reserve(self, hash_mib: int) -> int:
        """Reserve the cost of one game's tables at `hash_mib`; the bytes reserved.
        Raises Busy when they do not fit."""
        cost = table_cost(hash_mib)
        if not self.budget.reserve(cost):
            raise self.no_room(f"a {hash_mib} MiB table")
        return cost

    def ensure(self, game: Game, hash_mib: int) -> TranspositionTable:
        """`game`'s table, made at `hash_mib` (and reserved) if the session has none;
        raises Busy when the budget has no room for it."""
        if game.name not in self.by_game:
            self._reserved[game.name] = self._reserve(hash_mib)
            self.by_game[game.name] = TranspositionTable(game.name, game.rules.KEY_SCHEME, hash_mib << 20)
        return self.by_game[game.name]

    def check_resize(self, hash_mib: int, keeps_one: bool) -> None:
        """Raise unless the budget has room for every table dropped and (`keeps_one`: a
        game is selected) one made anew at `hash_mib`: BadValue for a size that could
        never fit, Busy for one that does not fit now."""
        cost = table_cost(hash_mib)
        if cost > self.budget.limit:
            raise BadValue(f"Hash {hash_mib} needs {cost >> 20} MiB with the solver's table, more than the"
                           f" daemon's hash budget of {self.budget.limit >> 20} MiB (--max-hash-mib)")
        held = sum(self._reserved.values())
        if keeps_one and self.budget.used - held + cost > self.budget.limit:
            raise self.no_room(f"a {hash_mib} MiB table")

    def drop_all(self) -> list[TranspositionTable]:
        """Forget every table, giving its reservation back; the tables, for the caller
        to free (`runner.release`)."""
        doomed = list(self.by_game.values())
        self.by_game.clear()
        for cost in self._reserved.values():
            self.budget.release(cost)
        self._reserved.clear()
        return doomed

    def clear(self) -> int:
        """Empty every table; the entries dropped."""
        count = sum(table.entries() for table in self.by_game.values())
        for table in self.by_game.values():
            table.clear()
        return count

    async def save(self, table: TranspositionTable, file_name: str, halt=None) -> tuple[int, int]:
        """(entries written, elapsed ms) of saving `table` to the hash file `file_name`,
        in a file thread, until `halt` (a threading.Event) is set; saves of one file run
        one at a time, each within the hash directory's room (`HashFiles.room`:
        HashFileError(`full`) writes nothing)."""
        path = self.files.path(file_name)

        def save() -> int:
            with self.files.lock(path):
                return table.save(path, halt, file_name, lambda size: self.files.room(path, size, file_name))

        started = time.monotonic_ns()
        try:
            count = await run_file_job(save)
        except HashFileError as error:
            raise self.files.describe(error, file_name) from None
        return int(count), (time.monotonic_ns() - started) // _MS

    async def load_into(self, table: TranspositionTable, file_name: str, halt=None) -> tuple[int, int]:
        """(entries read, elapsed ms) of loading the hash file `file_name` into `table`,
        in a file thread, until `halt` is set. The entries go to new cells while the file
        is read: a second table's memory is reserved against the budget until the old
        cells are freed (Busy when it does not fit)."""
        path = self.files.path(file_name)
        if not self.budget.reserve(table.memory_bytes):
            raise self.no_room(f"loading into a {table.memory_bytes >> 20} MiB table")
        started = time.monotonic_ns()
        try:
            count = await run_file_job(table.load, path, halt, self.budget.limit // 16, self.files.follow_links,
                                       file_name)
        except HashFileError as error:
            raise self.files.describe(error, file_name) from None
        finally:
            self.budget.release(table.memory_bytes)
        return int(count), (time.monotonic_ns() - started) // _MS

    async def load_hash_file(self, file_name: str, hash_mib: int) -> str | None:
        """Load the hash file `file_name`, if there is one, as its game's table at
        `hash_mib`, replacing any table of that game; the game's name, or None when
        there is no such file (it is made on quit). Raises on any other problem,
        changing nothing."""
        path = self.files.path(file_name)
        try:
            game = find_game(await run_file_job(peek_game, path, self.files.follow_links, file_name))
        except HashFileError as error:
            if error.kind == "missing":
                return None
            raise self.files.describe(error, file_name) from None
        cost = self._reserve(hash_mib)
        table = await run_table_work(TranspositionTable, game.name, game.rules.KEY_SCHEME, hash_mib << 20)
        try:
            count = await run_file_job(table.load, path, None, self.budget.limit // 16,
                                       self.files.follow_links, file_name)
        except HashFileError as error:
            self.budget.release(cost)
            raise self.files.describe(error, file_name) from None
        self.budget.release(self._reserved.get(game.name, 0))
        self._reserved[game.name] = cost
        self.by_game[game.name] = table
        self.hash_file_game = game.name
        LOG.info("hash loaded %d entries from %s", count, path)
        return game.name

    async def save_hash_file(self, file_name: str, game: str | None) -> None:
        """Save `game`'s table, if the session has one, to the hash file `file_name`
        (quit, end of input, SIGTERM); within the hash directory's room as `hash save`;
        a failure, a refusal included, is logged."""
        table = self.by_game.get(game) if game else None
        if table is None:
            return
        try:
            count, _ = await self.save(table, file_name)
            LOG.info("hash saved %d entries to %s", count, file_name)
        except HashFileError as error:
            LOG.error("hash file not saved: %s", error)
