"""One protocol session: a connection's game, position, options, table and search.

The session consumes lines one at a time and writes replies through its sink. Commands
are applied in order; a command that fails writes one error line and changes nothing.
While a search runs, only `isready`, `stop`, `ponderhit`, `uci` and `quit` are taken.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import AsyncIterator, Callable, Protocol

import attrs

from daemon import cores
from daemon.runner import SearchRun, run_blocking
from daemon.transport import TooLong
from games import all_games, find_game
from games.base import (
    BadParameterError,
    BoardTextError,
    Game,
    GameError,
    IllegalMoveError,
    NotationError,
    State,
    UnknownGameError,
)
from protocol import commands as c
from protocol.errors import Code, ProtocolError
from protocol.format import format_bestmove, format_info, format_margin, format_perft
from protocol.options import OPTIONS, find_option
from protocol.parse import split_tokens, parse_line
from search.alphabeta import AlphaBeta
from search.core import SearchReport
from search.limits import Limits, StopSignal, move_budget_ms
from search.multiplayer import MultiPlayerSearch
from search.tt import HashFileError, TranspositionTable, peek_game, unpack_move

LOG = logging.getLogger("engine.session")

ENGINE_NAME = "engine 0.1.0"
ENGINE_AUTHOR = "the engine developers"

#: The loop forces `bestmove` this many ms before a `movetime` runs out, should the
#: search thread not have answered by then.
GUARD_MS = 6
#: The search's own deadline keeps at least this many ms of a budget back, so that it
#: answers before the loop has to force it (GUARD_MS).
SEARCH_MARGIN_MS = 12
#: After `stop`, the loop waits this long for the search's own final report.
STOP_GRACE_MS = 100
#: `isready` waits at most this long (seconds) for the game's compiled code to load.
LOAD_WAIT_S = 2.0
#: With clocks (no movetime), the loop forces `bestmove` this long after the budget.
CLOCK_GRACE_MS = 50

_WHILE_SEARCHING = (c.IsReady, c.Stop, c.PonderHit, c.Uci, c.Quit)

_GAME_ERROR_CODES = (
    (UnknownGameError, Code.BAD_VALUE),
    (BadParameterError, Code.BAD_VALUE),
    (BoardTextError, Code.BAD_POSITION),
    (NotationError, Code.ILLEGAL_MOVE),
    (IllegalMoveError, Code.ILLEGAL_MOVE),
)


class Sink(Protocol):
    closed: bool

    def write(self, line: str) -> None: ...

    async def drain(self) -> None: ...

    def close(self) -> None: ...


class ActiveSearch:
    """The bookkeeping of one `go` until its `bestmove` is written."""

    def __init__(self, root: State, limits: Limits, stop: StopSignal):
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
        self.latest: SearchReport | None = None
        self.held: SearchReport | None = None
        self.emitted = False
        self.watchdog: object | None = None
        self.run: SearchRun | None = None


class Session:
    """The state and command handlers of one connection."""

    def __init__(self, sink: Sink, core: str = cores.PYTHON):
        self.sink = sink
        self.game: Game | None = None
        self.start: State | None = None
        self.state: State | None = None
        #: The option values before any `setoption`: the specs', but `Core` the process's.
        self.defaults: dict[str, object] = {spec.name: spec.default for spec in OPTIONS}
        self.defaults["Core"] = core
        self.options: dict[str, object] = dict(self.defaults)
        #: One transposition table per game the session has played, kept until `hash
        #: clear` or `setoption name Hash`; of the session's core (see daemon.cores).
        self.tables: dict[str, TranspositionTable] = {}
        self.searcher: AlphaBeta | MultiPlayerSearch | None = None
        self.active: ActiveSearch | None = None
        self._hash_file_game: str | None = None
        self._winding_down: SearchRun | None = None

    # ---- the line loop -------------------------------------------------------------

    async def run(self, lines: AsyncIterator[str | TooLong], finish_on_eof: bool,
                  script: bool = False) -> bool:
        """Serve lines until `quit` (returns True) or end of input (returns False).

        At end of input a search with limits is finished first when `finish_on_eof`
        (stdio), otherwise stopped unanswered (a vanished TCP client). In `script` mode
        (stdin is a plain file) a search with limits ends before the next line is read,
        so a file of commands runs like a script.
        """
        async for item in lines:
            received = time.monotonic()
            if isinstance(item, TooLong):
                name = (split_tokens(item.head) or [""])[0]
                self.write(ProtocolError(Code.SYNTAX, name, "line too long").line())
                continue
            if not await self.handle(item, received):
                return True
            if script:
                await self._finish_bounded_search()
            # Backpressure on a peer that does not read, and a turn for other sessions.
            await self.sink.drain()
            await asyncio.sleep(0)
        if finish_on_eof:
            await self._finish_bounded_search()
        self.abandon_search()
        return False

    async def _finish_bounded_search(self) -> None:
        """Wait for the running search if its limits will end it by themselves."""
        active = self.active
        if active is not None and not active.pondering and not active.infinite and active.run:
            await active.run.wait()

    def write(self, line: str) -> None:
        self.sink.write(line)

    async def handle(self, line: str, received: float) -> bool:
        """Apply one line; returns False when the session must end (`quit`)."""
        name = (split_tokens(line) or [""])[0]
        try:
            command = parse_line(line)
            if command is None:
                return True
            if self.active is not None and not isinstance(command, _WHILE_SEARCHING):
                raise ProtocolError(Code.BUSY, name, "search running")
            return await self._dispatch(command, name, received)
        except ProtocolError as error:
            self.write(error.line())
        except GameError as error:
            code = next(code for kind, code in _GAME_ERROR_CODES if isinstance(error, kind))
            self.write(ProtocolError(code, name, str(error)).line())
        except HashFileError as error:
            code = Code.IO if error.kind == "io" else Code.BAD_VALUE
            self.write(ProtocolError(code, name, str(error)).line())
        except Exception as error:  # a bug: report it, keep the session and the daemon
            LOG.exception("internal error on %r", line)
            self.write(ProtocolError(Code.INTERNAL, name, f"{type(error).__name__}: {error}").line())
        return True

    async def _dispatch(self, command: c.Command, name: str, received: float) -> bool:
        match command:
            case c.Uci():
                self.write(f"id name {ENGINE_NAME}")
                self.write(f"id author {ENGINE_AUTHOR}")
                for spec in OPTIONS:
                    self.write(attrs.evolve(spec, default=self.defaults[spec.name]).announce())
                self.write("uciok")
            case c.IsReady():
                if self.active is None and self.game is not None and cores.loading(self._core, self.game):
                    # Ready means searching at full speed, unless loading takes long (a
                    # cold cache compiles for seconds: searches start on Python then).
                    await run_blocking(cores.wait_loaded, self._core, self.game, LOAD_WAIT_S)
                self.write("readyok")
            case c.Games():
                self.write("games " + " ".join(all_games()))
            case c.SetGame(game_name, params):
                self._set_game(game_name, dict(params))
            case c.NewGame():
                self._require_game(name)
                self.state = self.start
            case c.Position(board, moves):
                self._set_position(board, moves, name)
            case c.ListMoves():
                game, state = self._require_position(name)
                tokens = sorted(game.format_move(state, move) for move in state.legal_moves())
                self.write(" ".join(["moves", *tokens]))
            case c.Display():
                self._display(name)
            case c.Perft(depth):
                game, state = self._require_position(name)
                started = time.monotonic()
                nodes = await run_blocking(cores.perft, self._core, game, state, depth)
                self.write(format_perft(depth, nodes, int((time.monotonic() - started) * 1000)))
            case c.Go():
                await self._go(command, name, received)
            case c.Stop():
                await self._stop()
            case c.PonderHit():
                self._ponderhit(received)
            case c.SetOption(option, value):
                await self._set_option(option, value)
            case c.HashSave(path):
                table = self._table(name)
                started = time.monotonic()
                count = await run_blocking(table.save, path)
                self.write(f"info string hash saved {count} entries to {path} in "
                           f"{int((time.monotonic() - started) * 1000)} ms")
            case c.HashLoad(path):
                table = self._table(name)
                started = time.monotonic()
                count = await run_blocking(table.load, path)
                self.write(f"info string hash loaded {count} entries from {path} in "
                           f"{int((time.monotonic() - started) * 1000)} ms")
            case c.HashClear():
                started = time.monotonic()
                count = sum(table.entries() for table in self.tables.values())
                for table in self.tables.values():
                    table.clear()
                self.write(f"info string hash cleared {count} entries in "
                           f"{int((time.monotonic() - started) * 1000)} ms")
            case c.Quit():
                return False
        return True

    # ---- game and position ---------------------------------------------------------

    def _require_game(self, name: str) -> Game:
        if self.game is None:
            raise ProtocolError(Code.NO_GAME, name, "no game selected: use setgame <name>")
        return self.game

    def _require_position(self, name: str) -> tuple[Game, State]:
        game = self._require_game(name)
        assert self.state is not None
        return game, self.state

    def _table(self, name: str) -> TranspositionTable:
        """The current game's table."""
        game = self._require_game(name)
        return self.tables[game.name]

    def _set_game(self, game_name: str, params: dict[str, str]) -> None:
        game = find_game(game_name)
        start = game.initial_state(params)
        self.game, self.start, self.state = game, start, start
        self._adopt_tables()

    def _adopt_tables(self) -> None:
        """Give the current game a table (a kept one if any) and a searcher over it."""
        game = self.game
        if game is None:
            return
        table = self.tables.get(game.name)
        if table is None:
            table = self._new_table(game)
        table = self.tables[game.name] = cores.adapt_table(self._core, game, table)
        self.searcher = cores.new_searcher(self._core, game, table, str(self.options["MultiPlayerSearch"]))
        cores.prepare(self._core, game)

    @property
    def _core(self) -> str:
        return str(self.options["Core"])


    def _new_table(self, game: Game) -> TranspositionTable:
        return cores.new_table(self._core, game, int(self.options["Hash"]) << 20)

    def _set_position(self, board: tuple[str, ...], moves: tuple[str, ...], name: str) -> None:
        game = self._require_game(name)
        state = game.parse_board(board) if board else self.start
        assert state is not None
        for ply, token in enumerate(moves, 1):
            try:
                move = game.parse_move(state, token)
            except (NotationError, IllegalMoveError) as error:
                raise ProtocolError(Code.ILLEGAL_MOVE, name, f"move {ply}: {error}") from None
            state = state.play(move)
        self.state = state

    def _display(self, name: str) -> None:
        game, state = self._require_position(name)
        for line in game.picture(state):
            self.write(f"board {line}")
        self.write(f"board-text {game.format_board(state)}")
        outcome = state.outcome()
        if outcome is not None:
            winner = "draw" if outcome.winner is None else game.player_names[outcome.winner]
            self.write(f"result {winner} {outcome.reason}")

    # ---- options and hash files ----------------------------------------------------

    async def _set_option(self, option: str, value: str | None) -> None:
        spec = find_option(option)
        parsed = spec.parse(value)
        if spec.name == "Hash":
            self.options["Hash"] = parsed
            self.tables.clear()
            self._adopt_tables()
        elif spec.name == "MultiPlayerSearch":
            self.options[spec.name] = parsed
            self._adopt_tables()
        elif spec.name == "Core":
            missing = cores.compiled_missing() if parsed == cores.COMPILED else None
            if missing:
                raise ProtocolError(Code.BAD_VALUE, "setoption", f"Core compiled is not available: {missing}")
            self.options[spec.name] = parsed
            self._adopt_tables()
        elif spec.name == "HashFile":
            if parsed and os.path.exists(str(parsed)):
                await self._load_hash_file(str(parsed))
            self.options["HashFile"] = parsed
        else:
            self.options[spec.name] = parsed

    async def _load_hash_file(self, path: str) -> None:
        """Load a hash file as its game's table; raises on any problem, changing nothing."""
        game = find_game(await run_blocking(peek_game, path))
        table = self._new_table(game)
        count = await run_blocking(table.load, path)
        self.tables[game.name] = table
        self._hash_file_game = game.name
        self._adopt_tables()
        LOG.info("hash loaded %d entries from %s", count, path)

    def save_hash_file(self) -> None:
        """Save to the HashFile option's path, if one is set (quit, SIGTERM), the table of
        the current game, or with no game selected the one the file was loaded into."""
        path = self.options["HashFile"]
        game = self.game.name if self.game is not None else self._hash_file_game
        table = self.tables.get(game) if game else None
        if not path or table is None:
            return
        try:
            count = table.save(str(path))
            LOG.info("hash saved %d entries to %s", count, path)
        except HashFileError as error:
            LOG.error("hash file not saved: %s", error)

    # ---- searching -----------------------------------------------------------------

    def _limits(self, command: c.Go, game: Game, name: str) -> Limits:
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
        to_move = self.state.to_move if self.state is not None else 0
        if any(clock is not None for clock in clocks) and clocks[to_move] is None:
            raise ProtocolError(Code.BAD_VALUE, name,
                                f"no clock for the side to move (p{to_move + 1}time)")
        return Limits(
            depth=command.depth,
            nodes=command.nodes,
            movetime=command.movetime,
            clocks=tuple(clocks[: game.num_players]),
            increments=tuple(increments[: game.num_players]),
            movestogo=command.movestogo,
            infinite=command.infinite,
            ponder=command.ponder,
        )

    async def _go(self, command: c.Go, name: str, received: float) -> None:
        game, state = self._require_position(name)
        limits = self._limits(command, game, name)
        assert self.searcher is not None
        if state.outcome() is not None or not state.legal_moves():
            self.write(format_bestmove(None))
            return
        if self._winding_down is not None:
            await self._winding_down.wait()
            self._winding_down = None
        if cores.loading(self._core, game):
            self.write("info string compiled core still loading: searching on the Python core until it is ready")
        stop = StopSignal()
        active = ActiveSearch(state, limits, stop)
        if not active.pondering:
            self._arm(active, received)
        self.active = active
        active.run = SearchRun(
            self.searcher.search(state, stop), stop, lambda report: self._on_report(active, report)
        )

    def _arm(self, active: ActiveSearch, start: float) -> None:
        """Let the search's limits count from `start`, and set the watchdog."""
        limits = active.limits
        overhead = max(int(self.options["MoveOverhead"]), SEARCH_MARGIN_MS)
        budget = move_budget_ms(limits, active.root.to_move, overhead)
        deadline = None if budget is None else start + budget / 1000
        active.stop.arm(deadline, limits.nodes, limits.depth)
        if limits.movetime is not None:
            hard = start + max(limits.movetime - GUARD_MS, 1) / 1000
        elif deadline is not None:
            hard = deadline + CLOCK_GRACE_MS / 1000
        else:
            return
        self._set_watchdog(active, hard)

    def _set_watchdog(self, active: ActiveSearch, when: float) -> None:
        loop = asyncio.get_running_loop()
        if active.watchdog is not None:
            active.watchdog.cancel()  # type: ignore[attr-defined]
        delay = max(when - time.monotonic(), 0)
        active.watchdog = loop.call_later(delay, self._force, active)

    def _on_report(self, active: ActiveSearch, report: SearchReport | None) -> None:
        if active.emitted:
            return
        if report is None:  # the search failed: answer with what is known
            self._force(active)
            return
        previous, active.latest = active.latest, report
        if not (report.final and previous is not None and previous.nodes == report.nodes):
            self.write(format_info(report, self._pv_formatter(active.root)))
            margin = format_margin(report)
            if margin is not None:
                self.write(margin)
        if not report.final:
            return
        if active.pondering or active.infinite:
            active.held = report
        else:
            self._emit(active, report)

    def _pv_formatter(self, root: State) -> Callable[[tuple[int, ...]], list[str]]:
        game = self.game
        assert game is not None

        def format_pv(pv: tuple[int, ...]) -> list[str]:
            tokens, state = [], root
            for move in pv:
                tokens.append(game.format_move(state, move))
                state = state.play(move)
            return tokens

        return format_pv

    def _emit(self, active: ActiveSearch, report: SearchReport | None) -> None:
        """Write the one `bestmove` of this search and free the session for the next."""
        if active.emitted:
            return
        active.emitted = True
        if active.watchdog is not None:
            active.watchdog.cancel()  # type: ignore[attr-defined]
        game = self.game
        assert game is not None
        root = active.root
        if report is not None and report.pv:
            pv = report.pv
        else:
            pv = (self._fallback_move(root),)
            self.write(f"info string no search iteration finished in time, playing"
                       f" {game.format_move(root, pv[0])}")
        move = game.format_move(root, pv[0])
        ponder = game.format_move(root.play(pv[0]), pv[1]) if len(pv) > 1 else None
        self.write(format_bestmove(move, ponder))
        active.stop.stop()
        if self.active is active:
            self.active = None
        self._winding_down = active.run

    def _fallback_move(self, root: State) -> int:
        """The table's move for `root` if it has a legal one, else the first legal move."""
        moves = root.legal_moves()
        assert self.game is not None
        entry = self.tables[self.game.name].probe(root.key)
        remembered = None if entry is None else unpack_move(entry)
        return remembered if remembered in moves else moves[0]

    def _force(self, active: ActiveSearch) -> None:
        """Answer now with the last completed iteration: the search is late or failed."""
        if active.emitted:
            return
        if active.run is not None and not active.run.done.is_set():
            LOG.warning("search late: answering from its last completed iteration")
        self._emit(active, active.held or active.latest)

    async def _stop(self) -> None:
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

    def _ponderhit(self, received: float) -> None:
        active = self.active
        if active is None or not active.pondering:
            return
        active.pondering = False
        self._arm(active, received)
        if active.held is not None and not active.infinite:
            self._emit(active, active.held)

    def abandon_search(self) -> None:
        """Stop the running search without answering it (quit, disconnect)."""
        active = self.active
        if active is not None:
            active.emitted = True
            active.stop.stop()
            if active.watchdog is not None:
                active.watchdog.cancel()  # type: ignore[attr-defined]
            self.active = None
