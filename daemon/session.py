"""One protocol session: a connection's command dispatch.

A reader task takes the connection's lines as they come, into a bounded queue; the
session applies them one at a time, in order, turning each into a call of its `SessionEngine`
(`daemon.engine`: game, position, options, tables, searches, jobs) and writing the
replies through its sink. A command that fails writes one error line and changes
nothing. While a search runs, only `isready`, `stop`, `ponderhit`, `uci` and `quit` are
taken. A long job (perft, hash save or load) runs while the session goes on reading:
every later command waits for it to end, so replies keep their order, but a `stop` or
`quit` halts it the moment it is read (even one still waiting its turn to start), and
so does the client's disconnecting.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import AsyncIterator, Protocol

import attrs

from daemon import cores
from daemon.engine import OPTIONS, SessionEngine
from daemon.hashfiles import HashBudget, HashFiles
from daemon.runner import run_table_work
from daemon.transport import TooLong
from games import all_games
from games.base import (
    BadParameterError,
    BoardTextError,
    GameError,
    IllegalMoveError,
    NotationError,
    UnknownGameError,
)
from protocol import commands as c
from protocol.errors import COMMAND_FIELD_LIMIT, Code, ProtocolError
from protocol.format import (
    READYOK,
    UCIOK,
    format_display,
    format_eval,
    format_games,
    format_hash_cleared,
    format_hash_loaded,
    format_hash_saved,
    format_id,
    format_moves,
    format_perft,
)
from protocol.parse import parse_line, split_tokens
from search.tt import HashFileError

LOG = logging.getLogger("engine.session")

ENGINE_NAME = "engine 0.1.0"
ENGINE_AUTHOR = "the engine developers"

#: `isready` waits at most this long (seconds) for the game's compiled code to load (a
#: cold cache compiles a game in up to a minute).
LOAD_WAIT_S = 120.0
#: Lines read ahead of the one being applied; past this, further lines are refused
#: (`error busy`) until the session catches up.
QUEUED_LINES = 256
#: Dropped lines (past QUEUED_LINES) whose own `error busy` waits its turn; past this
#: many waiting, further dropped lines are only counted, in one line.
DROPPED_NAMED = 1024
#: Commands that halt the session's long job as soon as they are read.
_HALTING = ("stop", "quit")

_WHILE_SEARCHING = (c.IsReady, c.Stop, c.PonderHit, c.Uci, c.Quit)

_GAME_ERROR_CODES = (
    (UnknownGameError, Code.BAD_VALUE),
    (BadParameterError, Code.BAD_VALUE),
    (BoardTextError, Code.BAD_POSITION),
    (NotationError, Code.ILLEGAL_MOVE),
    (IllegalMoveError, Code.ILLEGAL_MOVE),
)

_HASH_FILE_ERROR_CODES = {"io": Code.IO, "missing": Code.IO, "format": Code.BAD_VALUE,
                          "name": Code.BAD_VALUE, "stopped": Code.STOPPED}


@attrs.define
class Dropped:
    """A run of lines read while QUEUED_LINES were waiting: their `error busy` replies,
    written in their turn so that replies keep the order of the lines. Lines past
    DROPPED_NAMED waiting are counted in `more`, their command names forgotten."""

    names: list[str] = attrs.field(factory=list)
    more: int = 0
    #: The session has taken it from the queue: later drops start a new run.
    taken: bool = False

    def replies(self) -> list[str]:
        reason = f"more than {QUEUED_LINES} commands waiting: line dropped"
        lines = [ProtocolError(Code.BUSY, name, reason).line() for name in self.names]
        if self.more:
            lines.append(ProtocolError(Code.BUSY, "-", f"{self.more} more lines dropped, more than"
                                                       f" {QUEUED_LINES} commands waiting").line())
        return lines


class Sink(Protocol):
    closed: bool

    def write(self, line: str) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


class Session:
    """The state and command handlers of one connection."""

    def __init__(self, sink: Sink, core: str = cores.PYTHON, files: HashFiles | None = None,
                 budget: HashBudget | None = None):
        self.sink = sink
        self.engine = SessionEngine(self.write, core, files, budget)
        #: The client is gone (a TCP connection closed): its work is abandoned.
        self.vanished = False
        #: Lines are numbered as they are read; `stop` and `quit` halt the long jobs of
        #: every line read before them, including those not started yet.
        self._lines_read = 0
        self._halt_read = 0
        self._applying = 0
        #: When the last `readyok` was written (monotonic ns).
        self._ready_ns = 0
        #: Dropped lines whose refusal waits in the queue, by name (see `Dropped`).
        self._dropped_named = 0

    # ---- the line loop -------------------------------------------------------------

    async def run(self, lines: AsyncIterator[str | TooLong], finish_on_eof: bool,
                  script: bool = False) -> bool:
        """Serve lines until `quit` (returns True) or end of input (returns False).

        At end of input the lines read are applied, and a search with limits or a long
        job is finished first, when `finish_on_eof` (stdio); otherwise the client has
        vanished (TCP): its search and job are stopped unanswered at once, and of the
        lines it left only a `quit` still counts. In `script` mode (stdin is a plain
        file) a search with limits or a job ends before the next line is applied, so a
        file of commands runs like a script.
        """
        queue: asyncio.Queue[tuple[str | TooLong | Dropped, int, int] | None] = asyncio.Queue()
        reader = asyncio.ensure_future(self._read(lines, queue, finish_on_eof))
        try:
            while (entry := await queue.get()) is not None:
                item, received_ns, self._applying = entry
                if isinstance(item, Dropped):
                    item.taken = True
                    self._dropped_named -= len(item.names)
                if self.vanished:
                    if isinstance(item, str) and isinstance(_parse_quietly(item), c.Quit):
                        return True
                    continue
                if isinstance(item, Dropped):
                    self._write_all(item.replies())
                    continue
                if isinstance(item, TooLong):
                    name = (split_tokens(item.head) or [""])[0]
                    self.write(ProtocolError(Code.SYNTAX, name, "line too long").line())
                    continue
                # A command read while an earlier `isready` waited counts its time from
                # the `readyok`, as if the client had waited for it; in a script, from
                # when its turn comes (the file was read at once).
                if script:
                    received_ns = time.monotonic_ns()
                if not await self.handle(item, max(received_ns, self._ready_ns)):
                    return True
                if script:
                    await self.engine.finish_bounded_search()
                    await self.engine.finish_job()
                # Backpressure on a peer that does not read, and a turn for other sessions.
                await self.sink.drain()
                await asyncio.sleep(0)
        finally:
            reader.cancel()
        if finish_on_eof:
            await self.engine.finish_bounded_search()
            await self.engine.finish_job()
        self.engine.abandon_search()
        self.engine.abandon_job()
        return False

    async def _read(self, lines: AsyncIterator[str | TooLong],
                    queue: asyncio.Queue[tuple[str | TooLong | Dropped, int, int] | None],
                    finish_on_eof: bool) -> None:
        """Queue the lines as they come, with their arrival times; None at the end.

        Reading goes on while a command is applied, so that a `stop` or `quit` halts a
        long job at once, whether it runs or waits in the queue to start (`halted`), and
        a disconnect is seen at once. Past QUEUED_LINES lines waiting, a line is refused
        instead of queued (its refusal queued in its turn, see `Dropped`), and reading
        waits while the client leaves its replies unread (a connection lost ends that
        wait): memory stays bounded."""
        dropped: Dropped | None = None
        try:
            async for item in lines:
                await self.sink.drain()
                received_ns = time.monotonic_ns()
                self._lines_read += 1
                first = (split_tokens(item.head if isinstance(item, TooLong) else item) or [""])[0]
                if first in _HALTING and isinstance(item, str):
                    self._halt_read = self._lines_read
                    self.engine.abandon_job()
                if queue.qsize() >= QUEUED_LINES:
                    if dropped is None or dropped.taken:
                        dropped = Dropped()
                        queue.put_nowait((dropped, received_ns, self._lines_read))
                    if self._dropped_named < DROPPED_NAMED:
                        dropped.names.append(first[:COMMAND_FIELD_LIMIT])
                        self._dropped_named += 1
                    else:
                        dropped.more += 1
                    continue
                queue.put_nowait((item, received_ns, self._lines_read))
        finally:
            if not finish_on_eof:
                self.vanished = True
                self.engine.abandon_search()
                self.engine.abandon_job()
            queue.put_nowait(None)

    def write(self, line: str) -> None:
        self.sink.write(line)

    @property
    def halted(self) -> bool:
        """Whether a `stop` or `quit` was read after the line being applied: its long
        job (or wait) is to end at once."""
        return self._halt_read > self._applying

    async def handle(self, line: str, received_ns: int) -> bool:
        """Apply one line; returns False when the session must end (`quit`)."""
        name = (split_tokens(line) or [""])[0]
        try:
            command = parse_line(line)
            if command is None:
                return True
            if self.engine.job is not None and not isinstance(command, (c.Stop, c.Quit)):
                await self.engine.finish_job()
                if self.vanished:
                    return True
            if self.engine.active is not None and not isinstance(command, _WHILE_SEARCHING):
                raise ProtocolError(Code.BUSY, name, "search running")
            return await self._dispatch(command, name, received_ns)
        except Exception as error:
            self._report(error, name, line)
        return True

    def _report(self, error: Exception, name: str, line: str) -> None:
        """Write the error line of a command that failed."""
        if isinstance(error, ProtocolError):
            self.write(error.line())
        elif isinstance(error, GameError):
            code = next(code for kind, code in _GAME_ERROR_CODES if isinstance(error, kind))
            self.write(ProtocolError(code, name, str(error)).line())
        elif isinstance(error, HashFileError):
            self.write(ProtocolError(_HASH_FILE_ERROR_CODES[error.kind], name, str(error)).line())
        else:  # a bug: report it, keep the session and the daemon
            LOG.error("internal error on %r", line, exc_info=error)
            self.write(ProtocolError(Code.INTERNAL, name, f"{type(error).__name__}: {error}").line())

    def _job(self, name: str, line: str, work) -> None:
        """Start `work(job)` (a coroutine function returning the reply line) as the
        session's long job."""
        job = self.engine.start_job(work, lambda error: self._report(error, name, line))
        if self.halted:
            job.halt()

    async def _dispatch(self, command: c.Command, name: str, received_ns: int) -> bool:
        engine = self.engine
        match command:
            case c.Uci():
                self._write_all(format_id(ENGINE_NAME, ENGINE_AUTHOR))
                for spec in OPTIONS:
                    self.write(attrs.evolve(spec, default=engine.defaults[spec.name]).announce())
                self.write(UCIOK)
            case c.IsReady():
                if engine.active is None:
                    # Ready means searching at full speed: the game's compiled code is
                    # there (or its load failed), unless a stop or quit came meanwhile.
                    await engine.wait_loaded(LOAD_WAIT_S, give_up=lambda: self.halted or self.vanished)
                self.write(READYOK)
                self._ready_ns = time.monotonic_ns()
            case c.Games():
                self.write(format_games(all_games()))
            case c.SetGame(game_name, params):
                await run_table_work(engine.set_game, game_name, dict(params), name)
            case c.NewGame():
                engine.new_game(name)
            case c.Position(board, moves):
                engine.set_position(board, moves, name)
            case c.ListMoves():
                game, position = engine.require_position(name)
                tokens = sorted(game.format_move(position, move) for move in position.legal_moves())
                self.write(format_moves(tokens))
            case c.Display():
                self._display(name)
            case c.Eval():
                self._eval(name)
            case c.Perft(depth):
                engine.require_position(name)

                async def perft(job) -> str:
                    return format_perft(depth, *await engine.perft(name, depth, job))

                self._job(name, f"perft {depth}", perft)
            case c.Go():
                await engine.go(command, name, received_ns)
            case c.Stop():
                await engine.stop_job()
                await engine.stop()
            case c.PonderHit():
                engine.ponderhit(received_ns)
            case c.SetOption(option, value):
                await engine.set_option(option, value)
            case c.HashSave(path):
                engine.table(name)

                async def save(job) -> str:
                    count, elapsed_ms = await engine.hash_save(name, path, job)
                    return format_hash_saved(count, path, elapsed_ms)

                self._job(name, f"hash save {path}", save)
            case c.HashLoad(path):
                engine.table(name)

                async def load(job) -> str:
                    count, elapsed_ms = await engine.hash_load(name, path, job)
                    return format_hash_loaded(count, path, elapsed_ms)

                self._job(name, f"hash load {path}", load)
            case c.HashClear():
                count, elapsed_ms = await run_table_work(engine.hash_clear)
                self.write(format_hash_cleared(count, elapsed_ms))
            case c.Quit():
                return False
        return True

    def _write_all(self, lines: list[str]) -> None:
        for line in lines:
            self.write(line)

    def _eval(self, name: str) -> None:
        """The static evaluation: its total as the search's leaves score it (the side to
        move's), and each term per player."""
        game, position = self.engine.require_position(name)
        assert self.engine.searcher is not None
        self._write_all(format_eval(self.engine.searcher.static_score(position), game.evaluation_terms(position)))

    def _display(self, name: str) -> None:
        game, position = self.engine.require_position(name)
        outcome = position.outcome()
        result = None if outcome is None else (
            "draw" if outcome.winner is None else game.player_names[outcome.winner], outcome.reason)
        self._write_all(format_display(game.picture(position), game.format_board(position), result))


def _parse_quietly(line: str) -> c.Command | None:
    """The command of a line, or None when it has none or is malformed."""
    try:
        return parse_line(line)
    except ProtocolError:
        return None
