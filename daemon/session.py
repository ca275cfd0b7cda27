"""One protocol session: a connection's command dispatch.

A reader task takes the connection's lines as they come, into a bounded queue; the
session applies them one at a time, in order, turning each into a call of its `SessionEngine`
(`daemon.engine`: game, position, options, tables, jobs; searches, `daemon.searching`) and writing the
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
from typing import AsyncIterator, Callable, Protocol

import attrs

from daemon import cores
from daemon.book import BookMove
from daemon.engine import SessionEngine
from daemon.refusals import BadValue, Busy, NoGame, Refusal, Stopped, Unsupported
from daemon.wdl import wdl
from daemon.hashfiles import HashBudget, HashFiles
from daemon.runner import run_table_work
from daemon.transport import TooLong
from games import all_games
from games.base import (
    BadParameterError,
    BoardTextError,
    Game,
    GameError,
    IllegalMoveError,
    NotationError,
    Position,
    UnknownGameError,
)
from games.text import quote
from protocol import commands as c
from protocol.errors import COMMAND_FIELD_LIMIT, Code, ProtocolError
from protocol.format import (
    LOADING_NOW,
    LOADING_WAIT,
    READYOK,
    UCIOK,
    format_bestmove,
    format_book,
    format_display,
    format_eval,
    DaemonFigures,
    format_games,
    format_hash_cleared,
    format_hash_loaded,
    format_hash_saved,
    format_id,
    format_info,
    format_margin,
    format_moves,
    format_perft,
    format_threads,
    format_unsearched,
)
from protocol.options import find_option
from protocol.parse import parse_line, split_tokens
from search.base import MATE_BOUND, MAX_PLY, SearchReport
from search.limits import Limits
from search.perft import MAX_DEPTH as MAX_PERFT_DEPTH
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

_WHILE_SEARCHING = (c.IsReady, c.Stop, c.PonderHit, c.Uci, c.Quit, c.EndOfInput)

#: The error code of each refusal of the engine and of a game.
_ERROR_CODES = (
    (NoGame, Code.NO_GAME),
    (Busy, Code.BUSY),
    (Stopped, Code.STOPPED),
    (Unsupported, Code.UNSUPPORTED),
    (BadValue, Code.BAD_VALUE),
    (UnknownGameError, Code.BAD_VALUE),
    (BadParameterError, Code.BAD_VALUE),
    (BoardTextError, Code.BAD_POSITION),
    (NotationError, Code.ILLEGAL_MOVE),
    (IllegalMoveError, Code.ILLEGAL_MOVE),
)

_HASH_FILE_ERROR_CODES = {"io": Code.IO, "missing": Code.IO, "format": Code.BAD_VALUE,
                          "name": Code.BAD_VALUE, "stopped": Code.STOPPED, "full": Code.BUSY}


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

    def __init__(self, sink: Sink, core: str = cores.DEFAULT, files: HashFiles | None = None,
                 budget: HashBudget | None = None, figures: Callable[[], DaemonFigures] | None = None,
                 local: bool = True):
        self.sink = sink
        #: The client is the user's own (stdio, a Unix socket), not a stranger: it may
        #: ask for its end of input to finish its work (`eof finish`).
        self.local = local
        #: Whether the end of input finishes a search with limits or a long job (stdio,
        #: `eof finish`) rather than abandoning them (a vanished client); set by `run`.
        self.finish_on_eof = False
        #: What `daemon` answers: the serving process's figures (None: this session's
        #: process serves no other, e.g. a test's).
        self._figures = figures
        self.engine = SessionEngine(SearchReplies(self), core, files, budget)
        #: The client is gone (a TCP connection closed): its work is abandoned.
        self.vanished = False
        #: Lines are numbered as they are read; `stop` and `quit` halt the long jobs of
        #: every line read before them, including those not started yet.
        self._lines_read = 0
        self._halt_read = 0
        self._applying = 0
        #: Dropped lines whose refusal waits in the queue, by name (see `Dropped`).
        self._dropped_named = 0
        #: When the client's last line was read (time.monotonic()).
        self.last_line_at = time.monotonic()

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
        self.finish_on_eof = finish_on_eof
        queue: asyncio.Queue[tuple[str | TooLong | Dropped, int, int] | None] = asyncio.Queue()
        reader = asyncio.ensure_future(self._read(lines, queue))
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
                # In a script a line is read when its turn comes: the file was read at
                # once, and a `go`'s time counts from its turn.
                if script:
                    received_ns = time.monotonic_ns()
                if not await self.handle(item, received_ns):
                    return True
                if script:
                    await self.engine.finish_bounded_search()
                    await self.engine.finish_job()
                # Backpressure on a peer that does not read, and a turn for other sessions.
                await self.sink.drain()
                await asyncio.sleep(0)
        finally:
            reader.cancel()
        if self.finish_on_eof:
            await self.engine.finish_bounded_search()
            await self.engine.finish_job()
        self.engine.abandon_search()
        self.engine.abandon_job()
        return False

    async def _read(self, lines: AsyncIterator[str | TooLong],
                    queue: asyncio.Queue[tuple[str | TooLong | Dropped, int, int] | None]) -> None:
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
                self.last_line_at = received_ns / 1e9
                self._lines_read += 1
                first = (split_tokens(item.head if isinstance(item, TooLong) else item) or [""])[0]
                if first in _HALTING and isinstance(item, str):
                    self._halt_read = self._lines_read
                    self.engine.abandon_job()
                if first == "eof" and self.local and isinstance(item, str):
                    # Taken as it is read: the input may end before the line is applied.
                    asked = _parse_quietly(item)
                    if isinstance(asked, c.EndOfInput):
                        self.finish_on_eof = asked.finish
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
            if not self.finish_on_eof:
                self.vanished = True
                self.engine.abandon_search()
                self.engine.abandon_job()
            queue.put_nowait(None)

    def write(self, line: str) -> None:
        self.sink.write(line)

    def idle_for(self) -> float | None:
        """Seconds since the client's last line, where the session does nothing (no
        search, no long job); None where it works."""
        if self.engine.active is not None or self.engine.job is not None:
            return None
        return time.monotonic() - self.last_line_at

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
        elif isinstance(error, (Refusal, GameError)):
            code = next(code for kind, code in _ERROR_CODES if isinstance(error, kind))
            self.write(ProtocolError(code, name, str(error)).line())
        elif isinstance(error, HashFileError):
            self.write(ProtocolError(_HASH_FILE_ERROR_CODES[error.kind], name, str(error)).line())
        else:  # a bug: report it, keep the session and the daemon
            LOG.error("internal error on %r", line, exc_info=error)
            self.write(ProtocolError(Code.INTERNAL, name, f"{type(error).__name__}: {error}").line())

    def _job(self, name: str, line: str, work) -> None:
        """Start `work(job)` (a coroutine function returning the reply line) as the
        session's long job."""
        job = self.engine.start_job(work, self.write, lambda error: self._report(error, name, line))
        if self.halted:
            job.halt()

    async def _dispatch(self, command: c.Command, name: str, received_ns: int) -> bool:
        engine = self.engine
        match command:
            case c.Uci():
                self._write_all(format_id(ENGINE_NAME, ENGINE_AUTHOR))
                for spec in engine.specs:
                    self.write(spec.announce())
                self.write(UCIOK)
            case c.IsReady():
                if engine.active is None:
                    # Ready means searching at full speed: the game's compiled code is
                    # there (or its load failed), unless a stop or quit came meanwhile.
                    await engine.wait_loaded(LOAD_WAIT_S, give_up=lambda: self.halted or self.vanished)
                self.write(READYOK)
            case c.Games():
                self.write(format_games(all_games()))
            case c.EndOfInput():
                if not self.local:  # else taken as it was read (`_read`)
                    raise ProtocolError(Code.UNSUPPORTED, name, "eof finish and eof abandon are for stdio and"
                                                                " Unix-socket sessions")
            case c.DaemonStatus():
                if self._figures is None:
                    raise ProtocolError(Code.UNSUPPORTED, name, "this session is served by no daemon")
                self.write(self._figures().line())
            case c.SetGame(game_name, params):
                await run_table_work(engine.set_game, game_name, dict(params))
            case c.NewGame():
                engine.new_game()
            case c.Position(board, moves):
                engine.set_position(board, moves)
            case c.ListMoves():
                game, position = engine.require_position()
                tokens = sorted(game.format_move(position, move) for move in position.legal_moves())
                self.write(format_moves(tokens))
            case c.Display():
                self._display()
            case c.Eval():
                self._eval()
            case c.Perft(depth):
                if depth > MAX_PERFT_DEPTH:
                    raise ProtocolError(Code.BAD_VALUE, name,
                                        f"depth must be at most {MAX_PERFT_DEPTH}, got {quote(str(depth))}")
                engine.require_position()

                async def perft(job) -> str:
                    return format_perft(depth, *await engine.perft(depth, job))

                self._job(name, f"perft {depth}", perft)
            case c.Go():
                game, position = engine.require_position()
                limits = go_limits(command, game, position, name)
                await engine.go(limits, _search_moves(command, position, name), received_ns)
            case c.Stop():
                await engine.stop_job()
                await engine.stop()
            case c.PonderHit():
                engine.ponderhit(received_ns)
            case c.SetOption(option, value):
                spec = find_option(engine.specs, option)
                await engine.set_option(spec.name, spec.parse(value))
            case c.HashSave(path):
                engine.table()

                async def save(job) -> str:
                    count, elapsed_ms = await engine.hash_save(path, job)
                    return format_hash_saved(count, path, elapsed_ms)

                self._job(name, f"hash save {path}", save)
            case c.HashLoad(path):
                engine.table()

                async def load(job) -> str:
                    count, elapsed_ms = await engine.hash_load(path, job)
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

    def _eval(self) -> None:
        """The static evaluation: its total as the search's leaves score it (the side to
        move's), and each term per player."""
        game, position = self.engine.require_position()
        assert self.engine.searcher is not None
        self._write_all(format_eval(self.engine.searcher.static_score(position), game.evaluation_terms(position)))

    def _display(self) -> None:
        game, position = self.engine.require_position()
        outcome = position.outcome()
        result = None if outcome is None else (
            "draw" if outcome.winner is None else game.player_names[outcome.winner], outcome.reason)
        self._write_all(format_display(game.picture(position), game.format_board(position), result))


class SteadyScores:
    """The steadied scores of one search's lines: a fixed depth's score swings with the
    parity of the depth (by several of the game's units in a middle game, see
    docs/protocol.md), so a line's `steady` score is the mean of its score in this
    iteration and that of the same first move in the iteration before, where both are
    plain scores (no proven result, no exact margin)."""

    def __init__(self) -> None:
        #: Each iteration's plain scores, by depth, then by first move.
        self._scores: dict[int, dict[int, int]] = {}

    def steady(self, line: SearchReport) -> int | None:
        """`line`'s steadied score (None: no plain score of its first move one iteration
        before, or a proven one now), recording its score for the next iteration's."""
        if not line.pv or abs(line.score) > MATE_BOUND or line.margin is not None:
            return None
        before = self._scores.get(line.depth - 1, {}).get(line.pv[0])
        self._scores.setdefault(line.depth, {})[line.pv[0]] = line.score
        return None if before is None else round((line.score + before) / 2)


class SearchReplies:
    """The lines of what a session's searches produce (`daemon.searching.SearchListener`):
    `info` lines, with win chances under ShowWDL, ranks under MultiPV and scores
    steadied over two iterations under ShowSteady (`SteadyScores`), the notes of a core
    still loading and of the book, and `bestmove`."""

    def __init__(self, session: "Session"):
        self._session = session
        self._pv_root: Position | None = None
        self._format_pv: PvFormatter | None = None
        self._steady = SteadyScores()

    def loading(self, waits_for_deadline: bool) -> None:
        self._session.write(LOADING_NOW if waits_for_deadline else LOADING_WAIT)

    def book(self, move: BookMove) -> None:
        self._session.write(format_book(move.text, move.score, move.depth))

    def threads(self, asked: int, granted: int, reason: str) -> None:
        self._session.write(format_threads(asked, granted, reason))

    def report(self, root: Position, report: SearchReport) -> None:
        if self._format_pv is None or self._pv_root is not root:
            self._pv_root, self._format_pv = root, PvFormatter(root)
            self._steady = SteadyScores()
        options = self._session.engine.options
        ranked = options.multi_pv > 1
        lines = [report, *(attrs.evolve(report, score=score, pv=pv, others=(), margin=None)
                           for score, pv in report.others)]
        steady = [self._steady.steady(line) if options.show_steady else None for line in lines]
        for rank, line in enumerate(lines, 1):
            chances = wdl(root.game, line.score, line.mate_in) if options.show_wdl else None
            self._session.write(format_info(line, self._format_pv, rank if ranked else None, chances,
                                            steady[rank - 1]))
        margin = format_margin(report)
        if margin is not None:
            self._session.write(margin)

    def answer(self, root: Position, pv: tuple[int, ...], searched: bool) -> None:
        self._steady = SteadyScores()
        if not pv:
            self._session.write(format_bestmove(None))
            return
        game = root.game
        move = game.format_move(root, pv[0])
        if not searched:
            self._session.write(format_unsearched(move))
        ponder = game.format_move(root.play(pv[0]), pv[1]) if len(pv) > 1 else None
        self._session.write(format_bestmove(move, ponder))


class PvFormatter:
    """The moves of a search's principal variations as the game writes them.

    Playing out a pv in Python costs more than the search's iterations when they are
    cheap (a decided endgame runs a hundred of them in a few milliseconds), so the lines
    already written are kept, one per first move (MultiPV lines differ there): a pv
    that shares a prefix with an earlier one plays out only the rest."""

    def __init__(self, root: Position):
        self.root = root
        #: By first move: the moves written, their tokens, and the positions before
        #: each move and after the last.
        self._lines: dict[int, tuple[list[int], list[str], list[Position]]] = {}

    def __call__(self, pv: tuple[int, ...]) -> list[str]:
        if not pv:
            return []
        moves, tokens, positions = self._lines.setdefault(pv[0], ([], [], [self.root]))
        shared = 0
        while shared < min(len(pv), len(moves)) and pv[shared] == moves[shared]:
            shared += 1
        del moves[shared:], tokens[shared:], positions[shared + 1:]
        game = self.root.game
        for move in pv[shared:]:
            tokens.append(game.format_move(positions[-1], move))
            moves.append(move)
            positions.append(positions[-1].play(move))
        return list(tokens)


def go_limits(command: c.Go, game: Game, position: Position, name: str) -> Limits:
    """The limits of a `go` in `position`, each clock by player index (the UCI colours
    mapped to the game's players); raises ProtocolError(bad-value) for clocks the game
    has no player for, clocks without one for the side to move, and `mate` in a game of
    more than two players."""
    clocks = [command.p1time, command.p2time, command.p3time]
    increments = [command.p1inc, command.p2inc, command.p3inc]
    for player in range(game.num_players, 3):
        if clocks[player] is not None or increments[player] is not None:
            raise ProtocolError(Code.BAD_VALUE, name,
                                f"{game.name} has {game.num_players} players, no p{player + 1}time")
    coloured = (command.wtime, command.btime, command.winc, command.binc)
    if any(value is not None for value in coloured):
        if game.num_players != 2 or game.white_player is None:
            raise ProtocolError(Code.BAD_VALUE, name,
                                "wtime/btime/winc/binc are for two-player games, use p1time...")
        white, black = game.white_player, 1 - game.white_player
        for index, value in ((white, command.wtime), (black, command.btime)):
            if value is not None and clocks[index] is None:
                clocks[index] = value
        for index, value in ((white, command.winc), (black, command.binc)):
            if value is not None and increments[index] is None:
                increments[index] = value
    to_move = position.to_move
    if any(clock is not None for clock in clocks) and clocks[to_move] is None:
        raise ProtocolError(Code.BAD_VALUE, name,
                            f"no clock for the side to move (p{to_move + 1}time)")
    depth = command.depth
    if command.mate is not None:
        if game.num_players != 2:
            raise ProtocolError(Code.BAD_VALUE, name, f"{game.name} has no mate scores: go mate is for"
                                                      f" two-player games")
        # A win in n moves of the side to move ends at ply 2n - 1.
        depth = min(depth or MAX_PLY, 2 * command.mate - 1)
    return Limits(
        depth=depth,
        nodes=command.nodes,
        movetime=command.movetime,
        clocks=tuple(clocks[: game.num_players]),
        increments=tuple(increments[: game.num_players]),
        movestogo=command.movestogo,
        infinite=command.infinite,
        ponder=command.ponder,
    )


def _search_moves(command: c.Go, position: Position, name: str) -> list[int] | None:
    """The root moves of `go searchmoves`, or None for all; raises
    ProtocolError(illegal-move) naming the first that is not a legal move here."""
    if not command.searchmoves:
        return None
    moves = []
    for index, token in enumerate(command.searchmoves, 1):
        try:
            moves.append(position.game.parse_move(position, token))
        except (NotationError, IllegalMoveError) as error:
            raise ProtocolError(Code.ILLEGAL_MOVE, name, f"searchmoves {index}: {error}") from None
    return moves


def _parse_quietly(line: str) -> c.Command | None:
    """The command of a line, or None when it has none or is malformed."""
    try:
        return parse_line(line)
    except ProtocolError:
        return None
