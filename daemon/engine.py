"""The engine of one session: its game and position, options and transposition tables
(`daemon.tables`), the search under way with its time budget and watchdog, the long job
under way (perft, hash save or load), and the hash file's lifecycle.

`daemon.session.Session` turns command lines into calls of a `SessionEngine` (a `go`
into `Limits` and root moves), and the engine tells what a search produces through the
`SearchListener` it is given: reports, the book's move, the answer. It writes no reply
text: the session formats every line. Every time here is a `time.monotonic_ns()`
value: a command's arrival, a search's deadline, the watchdog's. A search's deadlines are made once, when
its limits start counting (`deadlines`), and held by its `ActiveSearch`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from typing import Awaitable, Callable, Protocol

import attrs

from daemon import cores
from daemon import runner
from daemon.book import Book, BookMove, load_book
from daemon.hashfiles import HashBudget, HashFiles, default_budget_mib
from daemon.refusals import BadValue, Busy, NoGame, Stopped, Unsupported
from daemon.runner import SearchRun, run_compute, run_table_work
from daemon.tables import SessionTables
from games import all_games, find_game
from games.base import Game, IllegalMoveError, NotationError, Position
from protocol.options import DEFAULT_EVALUATION, OptionSpec, session_options
from search import AlphaBeta, MultiPlayerSearch
from search.alphabeta import PROBCUT_DEFAULT
from search.base import SearchReport
from search.limits import Limits, StopSignal, move_budget_ms
from search import ALGORITHMS
from search.perft import halt_flag
from search.tt import TranspositionTable, unpack_move

LOG = logging.getLogger("engine.session")



def option_specs() -> tuple[OptionSpec, ...]:
    """Every option of a session (`Core`'s default is the process's), `Threads` up to
    the daemon's thread budget."""
    return session_options(ALGORITHMS, cores.CORES,
                           sorted({name for game in all_games().values() for name in game.evaluations}),
                           PROBCUT_DEFAULT, runner.THREADS.limit)

_MS = 1_000_000
#: The loop forces `bestmove` this many ms before a `movetime` runs out, should the
#: search thread not have answered by then.
GUARD_MS = 6
#: The search's own deadline keeps at least this many ms of a budget back, so that it
#: answers before the loop has to force it (GUARD_MS).
SEARCH_MARGIN_MS = 12
#: After `stop`, the loop waits this long for the search's own final report.
STOP_GRACE_MS = 100
#: With clocks (no movetime), the loop forces `bestmove` this long after the budget.
CLOCK_GRACE_MS = 50
#: A timed `go` that finds the opening book still being read waits for it at most this
#: share of the time to its deadline, and then searches.
BOOK_WAIT_SHARE = 0.5


@attrs.frozen
class Deadlines:
    """When a search must stop, and when the loop answers for it should it not.

    Attributes:
        stop_ns: the search's own deadline (its stop signal's), or None.
        answer_ns: the watchdog's: the `bestmove` is written then at the latest, or None.
    """

    stop_ns: int | None
    answer_ns: int | None


def deadlines(limits: Limits, to_move: int, overhead_ms: int, start_ns: int) -> Deadlines:
    """The deadlines of a search whose limits count from `start_ns`: the budget of
    `move_budget_ms` less the overhead (at least SEARCH_MARGIN_MS), and the answer
    GUARD_MS before a `movetime` runs out (CLOCK_GRACE_MS after a clock budget)."""
    budget = move_budget_ms(limits, to_move, max(overhead_ms, SEARCH_MARGIN_MS))
    stop_ns = None if budget is None else start_ns + int(budget * _MS)
    if limits.movetime is not None:
        answer_ns = start_ns + max(limits.movetime - GUARD_MS, 1) * _MS
    elif stop_ns is not None:
        answer_ns = stop_ns + CLOCK_GRACE_MS * _MS
    else:
        answer_ns = None
    return Deadlines(stop_ns, answer_ns)


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


class ActiveSearch:
    """The bookkeeping of one `go` until its `bestmove` is written."""

    def __init__(self, root: Position, limits: Limits, stop: StopSignal):
        self.root = root
        self.limits = limits
        self.stop = stop
        #: No bestmove may be written before stop or ponderhit.
        self.pondering = limits.ponder
        #: No bestmove may be written before stop.
        self.infinite = limits.infinite or not (
            limits.depth or limits.nodes is not None or limits.movetime is not None
            or any(clock is not None for clock in limits.clocks)
        )
        self.deadlines = Deadlines(None, None)
        self.latest: SearchReport | None = None
        self.held: SearchReport | None = None
        self.emitted = False
        self.watchdog: asyncio.TimerHandle | None = None
        self.run: SearchRun | None = None


class SearchListener(Protocol):
    """Where a session engine tells what its searches produce, on the event loop (the
    session formats it: `daemon.session`)."""

    def loading(self, waits_for_deadline: bool) -> None:
        """A search starts while the game's compiled code loads: with a deadline it waits
        for it for most of its time, without one until it is there."""

    def book(self, move: BookMove) -> None:
        """The move about to be answered comes from the opening book."""

    def threads(self, asked: int, granted: int, reason: str) -> None:
        """A search starts with fewer threads (`granted`) than the `Threads` option asks,
        for `reason`."""

    def report(self, root: Position, report: SearchReport) -> None:
        """An iteration of a search of `root` ended (`report.final`: the search did)."""

    def answer(self, root: Position, pv: tuple[int, ...], searched: bool) -> None:
        """The one answer of a search of `root`: its pv (empty when `root` has no move),
        the move to play first; `searched` False when no iteration finished in time and
        the move is the table's or the first legal one."""


class _Quiet:
    """A listener that keeps nothing, for scripts that read the reports themselves."""

    def loading(self, waits_for_deadline: bool) -> None:
        pass

    def book(self, move: BookMove) -> None:
        pass

    def threads(self, asked: int, granted: int, reason: str) -> None:
        pass

    def report(self, root: Position, report: SearchReport) -> None:
        pass

    def answer(self, root: Position, pv: tuple[int, ...], searched: bool) -> None:
        pass


class SessionEngine:
    """One session's engine (see the module docstring). Methods raise a Refusal
    (`daemon.refusals`), a GameError or a HashFileError for a request it refuses,
    changing nothing."""

    def __init__(self, listener: SearchListener | None = None, core: str = cores.PYTHON,
                 files: HashFiles | None = None, budget: HashBudget | None = None):
        self.listener = listener or _Quiet()
        #: The session's tables, in the daemon's budget (by default one of half the
        #: machine's memory), and its hash files (by default any path, as for a local
        #: script).
        self.tables = SessionTables(files or HashFiles(None, allow_paths=True),
                                    budget or HashBudget(default_budget_mib() << 20))
        self.slots = runner.SEARCH_SLOTS
        self.thread_budget = runner.THREADS
        self.job: Job | None = None
        self.game: Game | None = None
        self.start: Position | None = None
        self.position: Position | None = None
        #: The options, and their values before any `setoption`: the specs', but `Core`
        #: the process's.
        self.specs = option_specs()
        self.defaults: dict[str, object] = {spec.name: spec.default for spec in self.specs}
        self.defaults["Core"] = core
        self.options: dict[str, object] = dict(self.defaults)
        self.searcher: AlphaBeta | MultiPlayerSearch | None = None
        self.active: ActiveSearch | None = None
        self._winding_down: SearchRun | None = None
        #: Draws among the book's near-best moves (`BookVariety`).
        self._book_random = random.Random()

    @property
    def core(self) -> str:
        return str(self.options["Core"])

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
        self.tables.ensure(game, int(self.options["Hash"]))
        self.game, self.start, self.position = game, start, start
        self._adopt_tables()
        load_book(game)

    def new_game(self) -> None:
        self.require_game()
        self.position = self.start

    def set_position(self, board: tuple[str, ...], moves: tuple[str, ...]) -> None:
        """The position of the board text `board` (the start position when empty) after
        `moves`; raises a GameError (an illegal move's names its number), changing
        nothing."""
        game = self.require_game()
        position = game.parse_board(board) if board else self.start
        assert position is not None
        for ply, token in enumerate(moves, 1):
            try:
                move = game.parse_move(position, token)
            except (NotationError, IllegalMoveError) as error:
                raise type(error)(f"move {ply}: {error}") from None
            position = position.play(move)
        self.position = position

    def _evaluating(self, game: Game) -> Game:
        """`game` with the evaluation the `Evaluation` option names, where the game has
        it; else with its default one."""
        name = str(self.options["Evaluation"])
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
        self._adopt_tables()

    def _adopt_tables(self) -> None:
        """Give the current game a searcher over its table (which it has: `set_game`
        made it), and start loading its compiled searches."""
        game = self.game
        if game is None:
            return
        table = self.tables.by_game[game.name]
        self.searcher = cores.new_searcher(self.core, game, table, str(self.options["MultiPlayerSearch"]))
        self._set_probcut()
        cores.prepare(self.core, game)

    def _set_probcut(self) -> None:
        """Give the searcher the ProbCut option (alpha-beta's searches alone prune so)."""
        if isinstance(self.searcher, AlphaBeta):
            self.searcher.probcut = int(self.options["ProbCut"])

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

    @property
    def loading(self) -> bool:
        """Whether the current game's compiled searches are still loading."""
        return self.game is not None and cores.loading(self.core, self.game)

    async def wait_loaded(self, timeout: float, give_up: Callable[[], bool] = lambda: False) -> None:
        """Wait while the current game's compiled searches load, and while its opening
        book is read where a `go` may answer from it (OwnBook): up to `timeout` seconds,
        or until `give_up()` is true (on the loop: a wait holds no thread)."""
        deadline = time.monotonic() + timeout
        while ((self.loading or (self.game is not None and self.options["OwnBook"]
                                 and not load_book(self.game).done()))
               and not give_up() and time.monotonic() < deadline):
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
        self._take_slot()
        started = time.monotonic_ns()
        try:
            nodes = await run_compute(cores.perft, self.core, position, depth, job.flag)
        finally:
            self.slots.give_back()
        elapsed_ms = (time.monotonic_ns() - started) // _MS
        if nodes < 0:
            raise Stopped(f"stopped after {elapsed_ms} ms")
        return int(nodes), elapsed_ms

    def _take_slot(self) -> None:
        if not self.slots.take():
            raise Busy(f"{self.slots.limit} searches running, the daemon's limit (--max-searches)")

    async def analyse(self, limits: Limits, multipv: int = 1) -> list[SearchReport]:
        """Every report of a search of the position to `limits` (no clock, no ponder),
        the final one last, each with up to `multipv` root lines, off the loop and
        writing nothing: what scripts (the bench, the solver's reach, the book) measure.
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
        self._limit(stop, limits, position, time.monotonic_ns())
        threads = self._take_threads()
        try:
            return await run_compute(lambda: list(run(position, stop)))
        finally:
            self.thread_budget.give_back(threads)

    def _take_threads(self) -> int:
        """Take the threads of the next search from the daemon's budget and give the
        searcher as many: the `Threads` option's, fewer where the budget has not that
        many free, one on the Python core (whose kernels hold the interpreter lock); the
        listener hears of a cut. The caller gives them back when the search ends."""
        asked = int(self.options["Threads"])
        granted = self.thread_budget.take(asked if self.core == cores.COMPILED else 1)
        if granted < asked:
            reason = ("the python core searches with one thread" if self.core != cores.COMPILED else
                      f"the daemon's thread budget (--threads {self.thread_budget.limit}) has no more free")
            self.listener.threads(asked, granted, reason)
        assert self.searcher is not None
        self.searcher.set_threads(granted)
        return granted

    # ---- options and hash files ----------------------------------------------------

    async def set_option(self, name: str, value: object) -> None:
        """Set the option `name` (one of `specs`, as it names itself) to `value`, of the
        option's type and in its range: a new table for `Hash`, a new searcher for
        `Core` and `MultiPlayerSearch`, the file loaded for `HashFile`, the current game
        evaluating with `Evaluation` and every table emptied when it changes (refused
        where the game has no evaluation of that name), the searcher's multi-ProbCut
        confidence for `ProbCut` (from its next search on). Raises a Refusal or HashFileError, changing nothing."""
        if name == "Hash":
            await run_table_work(self._resize_tables, int(value))
        elif name in ("MultiPlayerSearch", "Core"):
            missing = cores.compiled_missing() if value == cores.COMPILED else None
            if name == "Core" and missing:
                raise BadValue(f"Core compiled is not available: {missing}")
            self.options[name] = value
            await run_table_work(self._adopt_tables)
        elif name == "Evaluation":
            game = self.game
            if game is not None and value != DEFAULT_EVALUATION and value not in game.evaluations:
                raise BadValue(f"{game.name} has no evaluation {value}: it has {', '.join(game.evaluations)}")
            if value != self.options[name]:
                self.options[name] = value
                await run_table_work(self._change_evaluation)
        elif name == "HashFile":
            if value:
                self.tables.files.path(str(value))  # a name the daemon takes, or HashFileError
                if await self.tables.load_hash_file(str(value), int(self.options["Hash"])) is not None:
                    await run_table_work(self._adopt_tables)
            self.options["HashFile"] = value
        else:
            self.options[name] = value
            if name == "ProbCut":
                self._set_probcut()

    def _resize_tables(self, hash_mib: int) -> None:
        """`setoption name Hash`: drop every table and make the current game's anew at
        the new size, if the daemon's budget has room for it; else change nothing."""
        self.tables.check_resize(hash_mib, self.game is not None)
        self._drop_tables()
        self.options["Hash"] = hash_mib
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
        path = self.options["HashFile"]
        if path:
            await self.tables.save_hash_file(str(path), self.game.name if self.game is not None
                                             else self.tables.hash_file_game)

    # ---- searching -----------------------------------------------------------------

    async def go(self, limits: Limits, root_moves: list[int] | None, received_ns: int) -> None:
        """Start a search of the position to `limits`, at the root only `root_moves`
        (legal moves of the position) when given; it answers through the listener (at
        once, with an empty pv, when the position has no move). Its limits count from
        `received_ns` unless it ponders. Raises Busy when the daemon's search slots are
        all taken."""
        _, position = self.require_position()
        assert self.searcher is not None
        if not position.legal_moves():
            self.listener.answer(position, (), True)
            return
        if self._winding_down is not None:
            await self._winding_down.wait()
            self._winding_down = None
        stop = StopSignal()
        active = ActiveSearch(position, limits, stop)
        book = None if root_moves else await self._book(position, limits, received_ns)
        move = None if book is None else book.probe(position, int(self.options["BookVariety"]), self._book_random)
        if move is not None:
            self._answer_from_book(active, book, move)
            return
        self._take_slot()
        threads = self._take_threads()
        if not active.pondering:
            self._arm(active, received_ns)
        if self.loading:
            self.listener.loading(stop.deadline_ns is not None)
        self.active = active

        def ended() -> None:
            self.slots.give_back()
            self.thread_budget.give_back(threads)

        active.run = SearchRun(
            self.searcher.search(position, stop, root_moves, int(self.options["MultiPV"])), stop,
            lambda report: self._on_report(active, report), ended,
        )

    async def _book(self, position: Position, limits: Limits, received_ns: int) -> Book | None:
        """The game's book for a `go` that plays (a time limit, or ponder) rather than
        analyses (depth, nodes, infinite), with OwnBook on; else None. While the book is
        still being read (the first `go` of a process, sent before `isready` says the
        game is ready), a `go` with a deadline waits for it at most BOOK_WAIT_SHARE of
        the time to its deadline, and then searches without it: a book never makes a
        `go` late."""
        if not self.options["OwnBook"]:
            return None
        if not (limits.ponder or limits.movetime is not None
                or any(clock is not None for clock in limits.clocks)):
            return None
        reading = load_book(position.game)
        if reading.done():
            return reading.result()
        stop_ns = None if limits.ponder else deadlines(
            limits, position.to_move, int(self.options["MoveOverhead"]), received_ns).stop_ns
        if stop_ns is None:
            return await asyncio.wrap_future(reading)
        try:
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(reading)),
                                          BOOK_WAIT_SHARE * max(0, stop_ns - time.monotonic_ns()) / 1e9)
        except asyncio.TimeoutError:
            LOG.info("the opening book of %s is still being read: searching instead", position.game.name)
            return None

    def _answer_from_book(self, active: ActiveSearch, book: Book, move: BookMove) -> None:
        """Answer `active` with `move`, from `book`, its ponder move the book's best reply
        if it has one: at once, or at ponderhit or stop for a ponder search."""
        root = active.root
        after = root.play(move.move)
        reply = book.probe(after) if after.legal_moves() else None
        pv = (move.move,) if reply is None else (move.move, reply.move)
        self.listener.book(move)
        report = SearchReport(move.depth, move.depth, move.score, 0, 0, 0, pv, True)
        self.active = active
        if active.pondering:
            active.held = report
        else:
            self._emit(active, report)

    async def finish_bounded_search(self) -> None:
        """Wait for the running search if its limits will end it by themselves."""
        active = self.active
        if active is not None and not active.pondering and not active.infinite and active.run:
            await active.run.wait()

    def _limit(self, stop: StopSignal, limits: Limits, root: Position, start_ns: int) -> Deadlines:
        """Arm `stop` with `limits` counted from `start_ns`; the search's deadlines."""
        bounds = deadlines(limits, root.to_move, int(self.options["MoveOverhead"]), start_ns)
        stop.arm(bounds.stop_ns, limits.nodes, limits.depth)
        return bounds

    def _arm(self, active: ActiveSearch, start_ns: int) -> None:
        """Let the search's limits count from `start_ns`, and set the watchdog."""
        active.deadlines = self._limit(active.stop, active.limits, active.root, start_ns)
        if active.deadlines.answer_ns is not None:
            if active.watchdog is not None:
                active.watchdog.cancel()
            delay = max(active.deadlines.answer_ns - time.monotonic_ns(), 0) / 1e9
            active.watchdog = asyncio.get_running_loop().call_later(delay, self._force, active)

    def _on_report(self, active: ActiveSearch, report: SearchReport | None) -> None:
        if active.emitted:
            return
        if report is None:  # the search failed: answer with what is known
            self._force(active)
            return
        previous, active.latest = active.latest, report
        if not (report.final and previous is not None and previous.nodes == report.nodes):
            self.listener.report(active.root, report)
        if not report.final:
            return
        if active.pondering or active.infinite:
            active.held = report
        else:
            self._emit(active, report)

    def _emit(self, active: ActiveSearch, report: SearchReport | None) -> None:
        """Write the one `bestmove` of this search and free the session for the next."""
        if active.emitted:
            return
        active.emitted = True
        if active.watchdog is not None:
            active.watchdog.cancel()
        root = active.root
        if report is not None and report.pv:
            self.listener.answer(root, report.pv, True)
        else:
            self.listener.answer(root, (self._fallback_move(root),), False)
        active.stop.stop()
        if self.active is active:
            self.active = None
        self._winding_down = active.run

    def _fallback_move(self, root: Position) -> int:
        """The table's move for `root` if it has a legal one, else the first legal move."""
        moves = root.legal_moves()
        entry = self.tables.by_game[root.game.name].probe(root.key)
        remembered = None if entry is None else unpack_move(entry)
        return remembered if remembered in moves else moves[0]

    def _force(self, active: ActiveSearch) -> None:
        """Answer now with the last completed iteration: the search is late or failed."""
        if active.emitted:
            return
        if active.run is not None and not active.run.done.is_set():
            LOG.warning("search late: answering from its last completed iteration")
        self._emit(active, active.held or active.latest)

    async def stop(self) -> None:
        """End the running search and write its bestmove before the next command."""
        active = self.active
        if active is None:
            return
        active.pondering = active.infinite = False
        active.stop.stop()
        if active.held is not None:
            self._emit(active, active.held)
            return
        assert active.run is not None
        try:
            await asyncio.wait_for(active.run.wait(), STOP_GRACE_MS / 1000)
        except asyncio.TimeoutError:
            pass
        self._force(active)

    def ponderhit(self, received_ns: int) -> None:
        active = self.active
        if active is None or not active.pondering:
            return
        active.pondering = False
        self._arm(active, received_ns)
        if active.held is not None and not active.infinite:
            self._emit(active, active.held)
            return
        depth = active.stop.max_depth
        if depth is not None and active.latest is not None and active.latest.depth >= depth:
            # Pondering went past the depth asked for: the iteration under way is not
            # wanted, and the search answers with the deepest one completed.
            active.stop.stop()

    def abandon_search(self) -> None:
        """Stop the running search without answering it (quit, disconnect)."""
        active = self.active
        if active is not None:
            active.emitted = True
            active.stop.stop()
            if active.watchdog is not None:
                active.watchdog.cancel()
            self.active = None
