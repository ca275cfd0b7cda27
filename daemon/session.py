"""One protocol session: a connection's command dispatch.

The session consumes lines one at a time, turns each into a call of its `Engine`
(`daemon.engine`: game, position, options, tables, searches) and writes the replies
through its sink. Commands are applied in order; a command that fails writes one error
line and changes nothing. While a search runs, only `isready`, `stop`, `ponderhit`,
`uci` and `quit` are taken.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import AsyncIterator, Protocol

import attrs

from daemon import cores
from daemon.engine import OPTIONS, Engine
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
from protocol.errors import Code, ProtocolError
from protocol.format import format_perft
from protocol.parse import parse_line, split_tokens
from search.tt import HashFileError

LOG = logging.getLogger("engine.session")

ENGINE_NAME = "engine 0.1.0"
ENGINE_AUTHOR = "the engine developers"

#: `isready` waits at most this long (seconds) for the game's compiled code to load.
LOAD_WAIT_S = 2.0

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


class Session:
    """The state and command handlers of one connection."""

    def __init__(self, sink: Sink, core: str = cores.PYTHON):
        self.sink = sink
        self.engine = Engine(self.write, core)

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
            received_ns = time.monotonic_ns()
            if isinstance(item, TooLong):
                name = (split_tokens(item.head) or [""])[0]
                self.write(ProtocolError(Code.SYNTAX, name, "line too long").line())
                continue
            if not await self.handle(item, received_ns):
                return True
            if script:
                await self.engine.finish_bounded_search()
            # Backpressure on a peer that does not read, and a turn for other sessions.
            await self.sink.drain()
            await asyncio.sleep(0)
        if finish_on_eof:
            await self.engine.finish_bounded_search()
        self.engine.abandon_search()
        return False

    def write(self, line: str) -> None:
        self.sink.write(line)

    async def handle(self, line: str, received_ns: int) -> bool:
        """Apply one line; returns False when the session must end (`quit`)."""
        name = (split_tokens(line) or [""])[0]
        try:
            command = parse_line(line)
            if command is None:
                return True
            if self.engine.active is not None and not isinstance(command, _WHILE_SEARCHING):
                raise ProtocolError(Code.BUSY, name, "search running")
            return await self._dispatch(command, name, received_ns)
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

    async def _dispatch(self, command: c.Command, name: str, received_ns: int) -> bool:
        engine = self.engine
        match command:
            case c.Uci():
                self.write(f"id name {ENGINE_NAME}")
                self.write(f"id author {ENGINE_AUTHOR}")
                for spec in OPTIONS:
                    self.write(attrs.evolve(spec, default=engine.defaults[spec.name]).announce())
                self.write("uciok")
            case c.IsReady():
                if engine.active is None and engine.loading:
                    # Ready means searching at full speed, unless loading takes long (a
                    # cold cache compiles for seconds: searches run interpreted then).
                    await engine.wait_loaded(LOAD_WAIT_S)
                self.write("readyok")
            case c.Games():
                self.write("games " + " ".join(all_games()))
            case c.SetGame(game_name, params):
                engine.set_game(game_name, dict(params))
            case c.NewGame():
                engine.new_game(name)
            case c.Position(board, moves):
                engine.set_position(board, moves, name)
            case c.ListMoves():
                game, position = engine.require_position(name)
                tokens = sorted(game.format_move(position, move) for move in position.legal_moves())
                self.write(" ".join(["moves", *tokens]))
            case c.Display():
                self._display(name)
            case c.Perft(depth):
                nodes, elapsed_ms = await engine.perft(name, depth)
                self.write(format_perft(depth, nodes, elapsed_ms))
            case c.Go():
                await engine.go(command, name, received_ns)
            case c.Stop():
                await engine.stop()
            case c.PonderHit():
                engine.ponderhit(received_ns)
            case c.SetOption(option, value):
                await engine.set_option(option, value)
            case c.HashSave(path):
                count, elapsed_ms = await engine.hash_save(name, path)
                self.write(f"info string hash saved {count} entries to {path} in {elapsed_ms} ms")
            case c.HashLoad(path):
                count, elapsed_ms = await engine.hash_load(name, path)
                self.write(f"info string hash loaded {count} entries from {path} in {elapsed_ms} ms")
            case c.HashClear():
                count, elapsed_ms = engine.hash_clear()
                self.write(f"info string hash cleared {count} entries in {elapsed_ms} ms")
            case c.Quit():
                return False
        return True

    def _display(self, name: str) -> None:
        game, position = self.engine.require_position(name)
        for line in game.picture(position):
            self.write(f"board {line}")
        self.write(f"board-text {game.format_board(position)}")
        outcome = position.outcome()
        if outcome is not None:
            winner = "draw" if outcome.winner is None else game.player_names[outcome.winner]
            self.write(f"result {winner} {outcome.reason}")
