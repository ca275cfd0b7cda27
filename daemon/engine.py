"""The engine of one session: its game and position, options (`EngineOptions`) and
transposition tables (`daemon.tables`), the long job under way (perft, hash save or
load), and the hash file's lifecycle; its searches are `daemon.searching`'s.

`daemon.session.Session` turns command lines into calls of a `SessionEngine` (a `go`
into `Limits` and root moves), and the engine tells what a search produces through the
`SearchListener` it is given: reports, the book's move, the answer. It writes no reply
text: the session formats every line. Every time here is a `time.monotonic_ns()` value.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Awaitable, Callable

import attrs

from daemon import cores
from daemon import runner
from daemon.book import load_book
from daemon.hashfiles import HashBudget, HashFiles, default_budget_mib
from daemon.refusals import BadValue, Busy, NoGame, Stopped, Unsupported
from daemon.runner import run_compute, run_table_work
from daemon.searching import ActiveSearch, QuietListener, SearchControl, SearchListener, limit, take_slot
from daemon.tables import SessionTables
from games import all_games, find_game
from games.base import Game, IllegalMoveError, NotationError, Position
from protocol.options import DEFAULT_EVALUATION, EngineOptions, OptionSpec, session_options
from search import AlphaBeta, MultiPlayerSearch
from search.alphabeta import PROBCUT_DEFAULT
from search.base import SearchReport
from search import ALGORITHMS
from search.limits import Limits, StopSignal
from search.perft import halt_flag
from search.tt import TranspositionTable

_MS = 1_000_000


def option_specs() -> tuple[OptionSpec, ...]:
    """Every option of a session (`Core`'s default is the process's), `Threads` up to
    the daemon's thread budget."""
    return session_options(ALGORITHMS, cores.CORES,
                           sorted({name for game in all_games().values() for name in game.evaluations}),
                           PROBCUT_DEFAULT, runner.THREADS.limit)

class Job:
    """A long job of a session (perft, hash save or load) under way: it ends by itself,
    or soon after `halt` (a stop, quit or disconnect)."""

    def __init__(self) -> None:
        #: Set to halt file I/O (polled between chunks).
        self.event = threading.Event()
        #: Set to halt a perft (polled by its kernel, `search.perft.leaves`).
        self.flag = halt_flag()
        self.task: asyncio.Future | None = None

    def halt(self) -> None:
        self.event.set()
        self.flag[0] = 1

    async def wait(self) -> None:
        """Wait until the job has ended and written its reply."""
        if self.task is not None:
            await asyncio.wait({self.task})


class SessionEngine:
    """One session's engine (see the module docstring). Methods raise a Refusal
    (`daemon.refusals`), a GameError or a HashFileError for a request it refuses,
    changing nothing."""

    def __init__(self, listener: SearchListener | None = None, core: str = cores.DEFAULT,
                 files: HashFiles | None = None, budget: HashBudget | None = None):
        #: The session's tables, in the daemon's budget (by default one of half the
        #: machine's memory), and its hash files (by default any path, as for a local
        #: script).
        self.tables = SessionTables(files or HashFiles(None, allow_paths=True),
                                    budget or HashBudget(default_budget_mib() << 20))
        self.slots = runner.SEARCH_SLOTS
        self.search = SearchControl(listener or QuietListener(), self.tables, self.slots, runner.THREADS)
        self.job: Job | None = None
        self.game: Game | None = None
        self.start: Position | None = None
        self.position: Position | None = None
        #: The moves of the last `position` command, each with the position it was
        #: played in: the game as far back as the session knows it.
        self.line: tuple[tuple[Position, int], ...] = ()
        #: The options as `uci` announces them (`Core`'s default the process's), and
        #: their values: the defaults until a `setoption` makes new ones.
        self.specs = tuple(attrs.evolve(spec, default=core) if spec.name == "Core" else spec
                           for spec in option_specs())
        self.options = EngineOptions.defaults(self.specs)
        self.searcher: AlphaBeta | MultiPlayerSearch | None = None

    @property
    def core(self) -> str:
        return self.options.core

    # ---- game and position ---------------------------------------------------------

    def require_game(self) -> Game:
        """The current game; raises NoGame."""
        if self.game is None:
            raise NoGame("no game selected: use setgame <name>")
        return self.game

    def require_position(self) -> tuple[Game, Position]:
        """The current game and position; raises NoGame."""
        game = self.require_game()
        assert self.position is not None
        return game, self.position

    def set_game(self, game_name: str, params: dict[str, str]) -> None:
        game = self._evaluating(find_game(game_name))
        start = game.initial_state(params)
        self.tables.ensure(game, self.options.hash)
        self.game, self.start, self.position, self.line = game, start, start, ()
        self._adopt_tables()
        load_book(game)

    def new_game(self) -> None:
        self.require_game()
        self.position, self.line = self.start, ()

    def set_position(self, board: tuple[str, ...], moves: tuple[str, ...]) -> None:
        """The position of the board text `board` (the start position when empty) after
        `moves`; raises a GameError (an illegal move's names its number), changing
        nothing."""
        game = self.require_game()
        position = game.parse_board(board) if board else self.start
        assert position is not None
        line = []
        for ply, token in enumerate(moves, 1):
            try:
                move = game.parse_move(position, token)
            except (NotationError, IllegalMoveError) as error:
                raise type(error)(f"move {ply}: {error}") from None
            line.append((position, move))
            position = position.play(move)
        self.position, self.line = position, tuple(line)

    def _evaluating(self, game: Game) -> Game:
        """`game` with the evaluation the `Evaluation` option names, where the game has
        it; else with its default one."""
        name = self.options.evaluation
        return game.with_evaluation(name) if name in game.evaluations else game.with_evaluation(game.evaluations[0])

    def _change_evaluation(self) -> None:
        """Empty every table (their scores are another evaluation's), then give the
        current game, its start and position the evaluation of the option, and a
        searcher for them."""
        self.tables.clear()
        if self.game is None:
            return
        game = self._evaluating(self.game)
        assert self.start is not None and self.position is not None
        self.game, self.start, self.position = game, Position(game, self.start.s), Position(game, self.position.s)
        self.line = tuple((Position(game, position.s), move) for position, move in self.line)
        self._adopt_tables()

    def _adopt_tables(self) -> None:
        """Give the current game a searcher over its table (which it has: `set_game`
        made it), and start loading its compiled searches."""
        game = self.game
        if game is None:
            return
        table = self.tables.by_game[game.name]
        self.searcher = cores.new_searcher(self.core, game, table, self.options.multi_player_search)
        self._set_probcut()
        cores.prepare(self.core, game)

    def _set_probcut(self) -> None:
        """Give the searcher the ProbCut option (alpha-beta's searches alone prune so)."""
        if isinstance(self.searcher, AlphaBeta):
            self.searcher.probcut = self.options.probcut

    def _drop_tables(self) -> None:
        """Drop every table, giving their memory back to the budget (and to the system,
        from a thread of its own: `runner.release`)."""
        doomed = [*self.tables.drop_all(), self.searcher]
        self.searcher = None
        runner.release(doomed)

    def close(self) -> None:
        """End the session's work and free its tables at once (the session is over)."""
        self.abandon_search()
        self.abandon_job()
        self._drop_tables()
        self.game = self.start = self.position = None
        self.line = ()

    @property
    def loading(self) -> bool:
        """Whether the current game's compiled searches are still loading."""
        return self.game is not None and cores.loading(self.core, self.game)

    async def wait_loaded(self, timeout: float, give_up: Callable[[], bool] = lambda: False) -> None:
        """Wait while the current game's compiled searches load, and while its opening
        book is read where a `go` may answer from it (OwnBook): up to `timeout` seconds,
        or until `give_up()` is true (on the loop: a wait holds no thread)."""
        deadline_ns = time.monotonic_ns() + int(timeout * 1e9)
        while ((self.loading or (self.game is not None and self.options.own_book
                                 and not load_book(self.game).done()))
               and not give_up() and time.monotonic_ns() < deadline_ns):
            await asyncio.sleep(0.005)

    def start_job(self, work: Callable[[Job], Awaitable[str]], on_done: Callable[[str], None],
                  on_error: Callable[[Exception], None]) -> Job:
        """Run `work(job)` as the session's long job: `on_done(its result)` is called when
        it ends, or `on_error(error)`. Only one runs at a time (the session waits for it
        before any command but stop and quit)."""
        assert self.job is None
        job = Job()

        async def run() -> None:
            try:
                on_done(await work(job))
            except Exception as error:
                on_error(error)
            finally:
                if self.job is job:
                    self.job = None

        self.job = job
        job.task = asyncio.ensure_future(run())
        return job

    async def finish_job(self) -> None:
        """Wait for the session's long job, if one runs, to end by itself."""
        if self.job is not None:
            await self.job.wait()

    async def stop_job(self) -> None:
        """Halt the session's long job, if one runs, and wait for its (error) reply."""
        job = self.job
        if job is not None:
            job.halt()
            await job.wait()

    def abandon_job(self) -> None:
        """Halt the session's long job without waiting (quit, disconnect)."""
        if self.job is not None:
            self.job.halt()

    async def perft(self, depth: int, job: Job | None = None) -> tuple[int, int]:
        """(leaf count, elapsed ms) of perft `depth` from the position, in a compute
        thread holding one of the daemon's search slots; raises Stopped when `job` is
        halted first."""
        _, position = self.require_position()
        job = job or Job()
        take_slot(self.slots)
        started = time.monotonic_ns()
        try:
            nodes = await run_compute(cores.perft, self.core, position, depth, job.flag)
        finally:
            self.slots.give_back()
        elapsed_ms = (time.monotonic_ns() - started) // _MS
        if nodes < 0:
            raise Stopped(f"stopped after {elapsed_ms} ms")
        return int(nodes), elapsed_ms

    async def analyse(self, limits: Limits, multipv: int = 1) -> list[SearchReport]:
        """Every report of a search of the position to `limits` (no clock, no ponder),
        the final one last, each with up to `multipv` root lines, off the loop and
        writing nothing: what the tools (the bench, the solver's reach, the book) measure.
        Refused while a `go` runs."""
        return await self._reports(
            limits, lambda searcher: lambda position, stop: searcher.search(position, stop, None, multipv))

    async def prove(self, limits: Limits) -> list[SearchReport]:
        """As `analyse`, but the exact endgame solver alone, however far the end: a report
        when win, loss or draw is proved, another with the exact margin. Refused for a
        game without one."""
        if not isinstance(self.searcher, AlphaBeta):
            raise Unsupported("this game has no exact endgame solver")
        return await self._reports(limits, lambda searcher: searcher.prove)

    async def _reports(self, limits: Limits, method) -> list[SearchReport]:
        _, position = self.require_position()
        if self.active is not None:
            raise Busy("a search is running")
        assert self.searcher is not None
        run, stop = method(self.searcher), StopSignal()
        limit(stop, limits, position, self.options.move_overhead, time.monotonic_ns())
        threads = self.search.take_threads(self.searcher, self.options)
        try:
            return await run_compute(lambda: list(run(position, stop)))
        finally:
            self.search.thread_budget.give_back(threads)

    # ---- options and hash files ----------------------------------------------------

    async def set_option(self, name: str, value: int | bool | str) -> None:
        """Set the option `name` (one of `specs`, as it names itself) to `value`, of the
        option's type and in its range: a new table for `Hash`, a new searcher for
        `Core` and `MultiPlayerSearch`, the file loaded for `HashFile`, the current game
        evaluating with `Evaluation` and every table emptied when it changes (refused
        where the game has no evaluation of that name), the searcher's multi-ProbCut
        confidence for `ProbCut` (from its next search on). Raises a Refusal or HashFileError, changing nothing."""
        if name == "Hash":
            assert isinstance(value, int)
            await run_table_work(self._resize_tables, value)
        elif name in ("MultiPlayerSearch", "Core"):
            missing = cores.compiled_missing() if value == cores.COMPILED else None
            if name == "Core" and missing:
                raise BadValue(f"Core compiled is not available: {missing}")
            self.options = self.options.set(name, value)
            await run_table_work(self._adopt_tables)
        elif name == "Evaluation":
            game = self.game
            if game is not None and value != DEFAULT_EVALUATION and value not in game.evaluations:
                raise BadValue(f"{game.name} has no evaluation {value}: it has {', '.join(game.evaluations)}")
            if value != self.options.evaluation:
                self.options = self.options.set(name, value)
                await run_table_work(self._change_evaluation)
        elif name == "HashFile":
            if value:
                self.tables.files.path(str(value))  # a name the daemon takes, or HashFileError
                if await self.tables.load_hash_file(str(value), self.options.hash) is not None:
                    await run_table_work(self._adopt_tables)
            self.options = self.options.set(name, value)
        else:
            self.options = self.options.set(name, value)
            if name == "ProbCut":
                self._set_probcut()

    def _resize_tables(self, hash_mib: int) -> None:
        """`setoption name Hash`: drop every table and make the current game's anew at
        the new size, if the daemon's budget has room for it; else change nothing."""
        self.tables.check_resize(hash_mib, self.game is not None)
        self._drop_tables()
        self.options = self.options.set("Hash", hash_mib)
        if self.game is not None:
            self.tables.ensure(self.game, hash_mib)
            self._adopt_tables()

    def table(self) -> TranspositionTable:
        """The current game's table; raises NoGame."""
        game = self.require_game()
        return self.tables.by_game[game.name]

    async def hash_save(self, file_name: str, job: Job | None = None) -> tuple[int, int]:
        """(entries written, elapsed ms) of saving the current game's table to the hash
        file `file_name` (HashFileError(`full`) when the hash directory has no room for
        it)."""
        return await self.tables.save(self.table(), file_name, job.event if job is not None else None)

    async def hash_load(self, file_name: str, job: Job | None = None) -> tuple[int, int]:
        """(entries read, elapsed ms) of loading the hash file `file_name` into the
        current game's table, in a file thread. The entries go to new cells while the
        file is read: they are reserved against the budget until the old ones are freed."""
        game = self.require_game()
        loaded = await self.tables.load_into(self.table(), file_name, job.event if job is not None else None)
        if self.game is game:
            await run_table_work(self._adopt_tables)  # a new searcher: its solver's table starts empty too
        return loaded

    def hash_clear(self) -> tuple[int, int]:
        """(entries dropped, elapsed ms) of emptying every table of the session."""
        started = time.monotonic_ns()
        count = self.tables.clear()
        self._adopt_tables()  # a new searcher: its solver's table starts empty too
        return count, (time.monotonic_ns() - started) // _MS

    async def save_hash_file(self) -> None:
        """Save to the HashFile option's path, if one is set (quit, end of input,
        SIGTERM), the table of the current game, or with no game selected the one the
        file was loaded into; in a worker thread, so that other sessions go on. The save
        keeps to the hash directory's room as `hash save` does; a failure, a refusal
        included, is logged."""
        path = self.options.hash_file
        if path:
            await self.tables.save_hash_file(path, self.game.name if self.game is not None
                                             else self.tables.hash_file_game)

    # ---- searching (`daemon.searching`) ----------------------------------------------

    @property
    def active(self) -> ActiveSearch | None:
        """The search under way, until its answer."""
        return self.search.active

    async def go(self, limits: Limits, root_moves: list[int] | None, received_ns: int) -> None:
        """Start a search of the position to `limits` (`SearchControl.go`); raises
        NoGame, or Busy when the daemon's search slots are all taken."""
        _, position = self.require_position()
        assert self.searcher is not None
        self.searcher.observe(self.line)
        await self.search.go(self.searcher, self.options, position, limits, root_moves, received_ns)

    async def finish_bounded_search(self) -> None:
        """Wait for the running search if its limits will end it by themselves."""
        await self.search.finish_bounded()

    async def stop(self) -> None:
        """End the running search and write its bestmove before the next command."""
        await self.search.stop()

    def ponderhit(self, received_ns: int) -> None:
        """The move pondered on was played (`SearchControl.ponderhit`)."""
        self.search.ponderhit(received_ns)

    def abandon_search(self) -> None:
        """Stop the running search without answering it (quit, disconnect)."""
        self.search.abandon()
