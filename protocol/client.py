"""An asyncio client of the engine protocol, over a child process's pipes, TCP or the
user's shared daemon, and a blocking wrapper of it for scripts and notebooks.

    engine = await Engine.shared()      # or Engine.popen(["engine"]), Engine.connect(host, port)
    await engine.setgame(game)
    infos = await engine.analyse({"depth": 6}, position=f"startpos moves {move}", multipv=3)
    print([(info.move, info.score) for info in infos])   # best first
    print((await engine.play({"movetime": 100})).move)
    print((await engine.eval()).total)
    await engine.close()

    with SimpleEngine.shared() as engine:        # the same, blocking
        engine.setgame(game)
        print(engine.analyse({"depth": 4})[0].score)

The client knows lines, not games: besides the typed calls it sends raw commands, reads
replies, and offers the waits a client needs (`until` a line prefix, `ready` for the
`isready` barrier, `bestmove`). `until` and `bestmove` raise EngineError at the first
`error` line they meet (a refused `go` gets no `bestmove`); `ready` reads through its
`readyok` first. A wait that runs out raises asyncio.TimeoutError.

Each typed call reads every reply to what it sent before it returns or raises, so the
session stays in step: after an EngineError (or a search's timeout), the next call's
replies are its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Mapping, Sequence, TypeVar

import attrs

from protocol import shared as shared_daemon
from protocol.commands import Go
from protocol.info import Info, LineSets, parse_info

T = TypeVar("T")

#: How long `ready` waits for `readyok` unless told otherwise, and so every typed call:
#: after `setgame` (or a `Core` or `Hash` option) it waits for the game's compiled code,
#: which a cold cache compiles for up to a minute or two, and a process just started
#: answers it only once it has loaded, which a busy machine makes slow.
READY_TIMEOUT_S = 180.0


class EngineClosed(Exception):
    """The engine closed the connection or exited before the awaited line. `lines`: what
    the wait that met the end had read (a daemon that refuses a session says why, e.g.
    `error busy ...`, and closes)."""

    def __init__(self, message: str, lines: Sequence[str] = ()):
        super().__init__(message)
        self.lines = tuple(lines)


class EngineError(Exception):
    """The engine refused a command: its `error <code> <command> <message>` line.

    Attributes:
        code: the error code (docs/protocol.md), e.g. `illegal-move` or `busy`.
        command: the command the engine names.
        message: what is wrong.
        line: the whole line.
        others: the errors of the same call's later commands, in order (a `configure`
            whose options the engine refuses raises the first, the others here).
    """

    def __init__(self, line: str, others: Sequence["EngineError"] = ()):
        fields = line.split(" ", 3) + ["", "", ""]
        self.code, self.command, self.message = fields[1], fields[2], fields[3]
        self.line = line
        self.others = tuple(others)
        super().__init__(line)


def _raise_errors(lines: Sequence[str]) -> None:
    """Raise the first `error` line of `lines` as EngineError, the later ones as its
    `others`; return when there is none."""
    errors = [line for line in lines if line.startswith("error ")]
    if errors:
        raise EngineError(errors[0], [EngineError(line) for line in errors[1:]])


@attrs.frozen
class Bestmove:
    """The answer to a `go`.

    Attributes:
        move: the move, None for `bestmove (none)`.
        ponder: the expected reply, or None.
        infos: the search's reports before the `bestmove`, in order, as `Info` values
            (empty when the opening book answered).
        info_lines: every `info` line before the `bestmove`, as the engine wrote it,
            `info string` lines included (the book's move, the solver's margin...).
        elapsed: the seconds between sending the `go` (or `ponderhit`) and reading the
            `bestmove`.
    """

    move: str | None
    ponder: str | None
    infos: tuple[Info, ...]
    info_lines: tuple[str, ...]
    elapsed: float


@attrs.frozen
class Limit(Go):
    """The limits of a search: `go` with those given (docs/protocol.md, "go and its
    limits"), the fields of `protocol.commands.Go`; times are in milliseconds. The first
    limit reached ends the search.

    Attributes:
        depth, nodes, movetime, mate: as `go` takes them.
        wtime, btime, winc, binc: the clocks and increments of white and black, in
            two-player games.
        p1time, p2time, p3time, p1inc, p2inc, p3inc: each player's clock and increment,
            by turn order (`p1` moves first in the start position); any game.
        movestogo: the moves left to the next time control.
        infinite: no `bestmove` before `stop`, even once another limit is reached: for
            `Engine.analysis`, whose stream can be stopped.
    """

    def go(self, searchmoves: Sequence[str] | None = None, ponder: bool = False) -> str:
        """The `go` line of these limits (`Go.line`), pondering or cut to `searchmoves`
        when asked."""
        return attrs.evolve(self, searchmoves=tuple(searchmoves or self.searchmoves),
                            ponder=ponder or self.ponder).line()


@attrs.frozen
class Evaluation:
    """`eval`: the side to move's static value, and each term's value per player."""

    total: int
    terms: Mapping[str, tuple[int, ...]]


def _limit(limit: Limit | Mapping[str, int]) -> Limit:
    return limit if isinstance(limit, Limit) else Limit(**limit)


def _option_text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "<empty>" if value == "" else str(value)


class Engine:
    """One protocol session with an engine."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 process: asyncio.subprocess.Process | None = None):
        self._reader = reader
        self._writer = writer
        self.process = process
        #: The session's position as the typed calls set it (what follows `position`).
        self._position = "startpos"
        #: While a `play(..., ponder=True)` search runs: (its position, the `go` line
        #: that a `play` of that position would send).
        self._pondering: tuple[str, str] | None = None

    @classmethod
    async def popen(cls, command: Sequence[str], stderr: int | None = None,
                    env: Mapping[str, str] | None = None) -> "Engine":
        """Start `command` (an engine on stdio; in environment `env`, by default this
        process's) and talk to it over its pipes."""
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=stderr, env=env, limit=1 << 20,
        )
        assert process.stdout is not None and process.stdin is not None
        return cls(process.stdout, process.stdin, process)  # type: ignore[arg-type]

    @classmethod
    async def attach(cls, process: "subprocess.Popen[bytes]") -> "Engine":
        """Talk to an engine already started with `subprocess.Popen` (stdin and stdout
        pipes), e.g. one launched before the event loop ran."""
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=1 << 20)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), process.stdout)
        # A StreamReaderProtocol gives the write side its flow control (drain).
        transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.StreamReaderProtocol(asyncio.StreamReader()), process.stdin)
        return cls(reader, asyncio.StreamWriter(transport, protocol, reader, loop))

    @classmethod
    async def connect(cls, host: str, port: int, token: str | None = None,
                      tls: ssl.SSLContext | None = None) -> "Engine":
        """Open a session with an engine listening on TCP (over TLS with `tls`), sending
        `auth <token>` first when a token is given."""
        reader, writer = await asyncio.open_connection(host, port, limit=1 << 20, ssl=tls)
        client = cls(reader, writer)
        if token is not None:
            await client.send(f"auth {token}")
        return client

    @classmethod
    async def connect_unix(cls, path: str | Path | None = None, sock: socket.socket | None = None) -> "Engine":
        """Open a session with an engine listening on a Unix-domain socket at `path`
        (`engine --socket PATH`: no token there, the socket's folder is the user's), or
        over `sock`, a connected one."""
        reader, writer = await asyncio.open_unix_connection(None if sock else str(path), sock=sock, limit=1 << 20)
        return cls(reader, writer)

    @classmethod
    async def shared(cls, idle_exit: int = shared_daemon.DEFAULT_IDLE_EXIT_S,
                     wait: float = shared_daemon.CONNECT_WAIT_S) -> "Engine":
        """Open a session with this install's shared daemon (`protocol.shared`), starting
        it first where none runs (it then ends after `idle_exit` seconds without a
        session). Raises `protocol.shared.Unusable` (an OSError) saying why where it
        cannot be used: unsafe, foreign, stuck, stopped, not an engine or full, each
        found within `wait` seconds (`shared.open_session`)."""
        channel = await asyncio.to_thread(shared_daemon.open_session, None, idle_exit, wait)
        try:
            return await cls.connect_unix(sock=channel)
        except BaseException:
            channel.close()
            raise

    async def send(self, line: str) -> None:
        self._writer.write(line.encode() + b"\n")
        await self._writer.drain()

    async def send_raw(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def read_line(self, timeout: float | None = None) -> str:
        """The next line from the engine; raises EngineClosed at end of output."""
        data = await asyncio.wait_for(self._reader.readline(), timeout)
        if not data:
            raise EngineClosed("the engine closed its output")
        return data.decode().rstrip("\r\n")

    async def until(self, prefix: str, timeout: float | None = 10, raise_errors: bool = True) -> list[str]:
        """Every line up to and including the first starting with `prefix`. An `error`
        line before it raises EngineError at once, unless `prefix` is `error` or
        `raise_errors` is false (the error is then one of the lines returned)."""
        lines = []
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            try:
                line = await self.read_line(remaining)
            except EngineClosed as closed:
                raise EngineClosed(str(closed), lines) from None
            lines.append(line)
            if line.startswith(prefix):
                return lines
            if raise_errors and line.startswith("error "):
                raise EngineError(line)

    async def ask(self, line: str, prefix: str, timeout: float | None = 10) -> list[str]:
        """Send `line` and return the replies up to the first line starting with `prefix`."""
        await self.send(line)
        return await self.until(prefix, timeout)

    async def ready(self, timeout: float | None = READY_TIMEOUT_S, raise_errors: bool = True) -> list[str]:
        """The `isready` barrier: every line before `readyok`. It reads through the
        `readyok` in any case; then, with `raise_errors`, an `error` line among those
        raises EngineError (the first, the later ones as its `others`)."""
        await self.send("isready")
        lines = (await self.until("readyok", timeout, raise_errors=False))[:-1]
        if raise_errors:
            _raise_errors(lines)
        return lines

    async def bestmove(self, go: str = "go", timeout: float | None = 60,
                       stop: asyncio.Event | None = None) -> Bestmove:
        """Send a `go` command (or `ponderhit`, `stop`) and wait for its `bestmove`; with
        `stop`, send `stop` once that event is set (at once if it already is), so that a
        caller can end the search whenever it wants, even before its `go` was written. A
        `go` the engine refuses raises EngineError: its error line is its only reply."""
        started = time.monotonic()
        await self.send(go)
        reading = asyncio.ensure_future(self.until("bestmove", timeout))
        try:
            if stop is not None:
                stopping = asyncio.ensure_future(stop.wait())
                try:
                    await asyncio.wait((reading, stopping), return_when=asyncio.FIRST_COMPLETED)
                finally:
                    stopping.cancel()
                if not reading.done():
                    await self.send("stop")
            lines = await reading
        finally:
            reading.cancel()  # this call was cancelled: read no further
        return parse_bestmove(lines, time.monotonic() - started)

    # ---- typed calls ----------------------------------------------------------------

    async def _settle(self) -> None:
        """Stop a pondering search and read all it wrote: its infos and `bestmove`, or
        the error of a `go ponder` the engine refused."""
        if self._pondering is not None:
            self._pondering = None
            await self._stop_search()

    async def _stop_search(self) -> None:
        """Stop the search under way, if any, and read all it wrote (its infos and
        `bestmove`, or the error of a refused `go`) up to the `readyok` of an `isready`."""
        await self.send("stop")
        await self.ready(raise_errors=False)

    async def _search(self, go: str, timeout: float | None, stop: asyncio.Event | None = None) -> Bestmove:
        """The `bestmove` of `go` (or `ponderhit`), stopped once `stop` is set. A search
        that outlasts `timeout` is stopped, and all it wrote read, before
        asyncio.TimeoutError is raised."""
        try:
            return await self.bestmove(go, timeout, stop)
        except asyncio.TimeoutError:
            await self._stop_search()
            raise

    async def configure(self, options: Mapping[str, object]) -> None:
        """Set options (`setoption`). Raises EngineError for the first option the engine
        refuses, with the errors of the later ones as its `others`; it takes every
        option it does not refuse."""
        await self._settle()
        for name, value in options.items():
            await self.send(f"setoption name {name} value {_option_text(value)}")
        await self.ready()

    async def setgame(self, game: str, **params: object) -> None:
        """Choose the game (`setgame`, with its parameters) at its start position;
        raises EngineError, the game and position unchanged."""
        await self._settle()
        await self.send(" ".join([f"setgame {game}", *(f"{key}={value}" for key, value in params.items())]))
        await self.ready()
        self._position = "startpos"

    async def position(self, position: str) -> None:
        """Set the position: what follows `position`, such as `startpos moves f5` or
        `board <board text>`; raises EngineError, the position unchanged."""
        await self._settle()
        await self.send(f"position {position}")
        await self.ready()
        self._position = " ".join(position.split())

    async def analyse(self, limit: Limit | Mapping[str, int], *, position: str | None = None,
                      multipv: int = 1, searchmoves: Sequence[str] | None = None,
                      timeout: float | None = 600, stop: asyncio.Event | None = None) -> list[Info]:
        """Search the session's position (or `position`, see `position`) to `limit` and
        return the last whole set of lines, best first: one, or `multipv` (`LineSets`:
        every line of one completed iteration, at one depth, each `Info` saying it).
        `stop` set stops the search (see `bestmove`). Raises EngineError for a position,
        option or `go` the engine refuses, and asyncio.TimeoutError (the search stopped)
        after `timeout` seconds."""
        if position is not None:
            await self.position(position)
        await self.configure({"MultiPV": multipv})
        answer = await self._search(_limit(limit).go(searchmoves), timeout, stop)
        lines = LineSets()
        for info in answer.infos:
            if info.score is not None:
                lines.add(info)
        lines.close()
        return list(lines.complete)

    @contextlib.asynccontextmanager
    async def analysis(self, limit: Limit | Mapping[str, int] | None = None, *, position: str | None = None,
                       multipv: int = 1, searchmoves: Sequence[str] | None = None,
                       stop: asyncio.Event | None = None) -> AsyncIterator["AnalysisStream"]:
        """A search streamed as it goes: iterate the stream for its `Info`s until its
        limit (none: until `stop`) ends it, or call `stop()`, or set the event `stop`
        (at any time, before the `go` is written too). Leaving the block stops a search
        still running and reads its `bestmove`. A position or option the engine refuses
        raises EngineError here, a `go` it refuses from the stream. `LineSets` keeps
        MultiPV lines as the whole sets to compare.

            async with engine.analysis() as stream:
                async for info in stream:
                    if info.depth and info.depth >= 12:
                        await stream.stop()
        """
        if position is not None:
            await self.position(position)
        await self.configure({"MultiPV": multipv})
        await self.send((_limit(limit) if limit is not None else Limit()).go(searchmoves))
        stream = AnalysisStream(self)
        watch = None if stop is None else asyncio.ensure_future(self._stop_when(stop, stream))
        try:
            yield stream
        finally:
            if watch is not None:
                watch.cancel()
            await stream.stop()
            async for _ in stream:  # the search's last lines, up to its bestmove
                pass

    @staticmethod
    async def _stop_when(stop: asyncio.Event, stream: "AnalysisStream") -> None:
        await stop.wait()
        await stream.stop()

    async def play(self, limit: Limit | Mapping[str, int], *, position: str | None = None,
                   ponder: bool = False, timeout: float | None = 600,
                   stop: asyncio.Event | None = None) -> Bestmove:
        """The engine's move (and its ponder move) in the session's position (or
        `position`) after a search to `limit`, or once `stop` is set (see `bestmove`).
        Raises EngineError for a position or `go` the engine refuses, and
        asyncio.TimeoutError (the search stopped) after `timeout` seconds.

        With `ponder`, the engine goes on thinking on the opponent's time: it searches
        the position after its move and the expected reply (`go ponder`). A `play` of
        exactly that position (as the typed calls wrote it) and limit then answers from
        that search (`ponderhit`); any other call stops it first. Pondering is
        best-effort: a `go ponder` the engine refuses (say, for lack of a clock for the
        player to move there) only means that such a `play` searches afresh."""
        limit = _limit(limit)
        go = limit.go()
        target = self._position if position is None else " ".join(position.split())
        if self._pondering == (target, go):
            self._pondering = None
            try:
                answer = await self._search("ponderhit", timeout, stop)
            except EngineError:  # the `go ponder` was refused: no search to hit
                answer = await self._search(go, timeout, stop)
        else:
            if position is not None:
                await self.position(position)
            await self._settle()
            answer = await self._search(go, timeout, stop)
        if ponder and answer.move is not None and answer.ponder is not None:
            after = self._position + ("" if " moves " in f" {self._position} " else " moves")
            await self.ponder(limit, position=f"{after} {answer.move} {answer.ponder}")
        return answer

    async def ponder(self, limit: Limit | Mapping[str, int], *, position: str) -> None:
        """Think on the opponent's time: search `position` (what follows `position`, the
        one expected after the opponent's move) in pondering mode (`go ponder`), so that
        a `play` of exactly that position and `limit` answers from this search
        (`ponderhit`). Any other call stops it first. Returns at once; the `go ponder`
        is not checked (see `play`)."""
        await self._settle()
        position = " ".join(position.split())
        limit = _limit(limit)
        await self.send(f"position {position}")
        await self.send(limit.go(ponder=True))
        self._position, self._pondering = position, (position, limit.go())

    async def eval(self) -> Evaluation:
        """The static evaluation of the session's position (`eval`); raises
        EngineError (say, before `setgame`)."""
        await self._settle()
        await self.send("eval")
        words = [line.split() for line in await self.ready()]
        terms = {fields[2]: tuple(int(value) for value in fields[3:])
                 for fields in words[1:] if fields[:2] == ["eval", "term"]}
        return Evaluation(int(words[0][2]), terms)

    async def close(self) -> None:
        """Say `quit` and close; waits for a child process to exit."""
        try:
            await self.send("quit")
        except (ConnectionError, OSError):
            pass
        self._writer.close()
        if self.process is not None:
            try:
                await asyncio.wait_for(self.process.wait(), 10)
            except asyncio.TimeoutError:
                self.process.kill()
                await self.process.wait()


def parse_bestmove(lines: Sequence[str], elapsed: float) -> Bestmove:
    """A Bestmove from the lines of a `go`, the last being `bestmove ...`."""
    tokens = lines[-1].split()
    move = None if tokens[1] == "(none)" else tokens[1]
    ponder = tokens[3] if len(tokens) >= 4 and tokens[2] == "ponder" else None
    info_lines = tuple(line for line in lines[:-1] if line.startswith("info"))
    infos = tuple(info for info in map(parse_info, info_lines) if info is not None)
    return Bestmove(move, ponder, infos, info_lines, elapsed)


class AnalysisStream:
    """The `Info`s of one running search (see `Engine.analysis`); `bestmove` is
    its answer once the iteration has ended. A `go` the engine refused raises
    EngineError from the iteration, which then ends (no search runs)."""

    def __init__(self, client: Engine):
        self._client = client
        self._stopped = False
        #: The search's `bestmove`, or its `go`'s error, has been read.
        self._ended = False
        self.bestmove: Bestmove | None = None
        self._started = time.monotonic()

    def __aiter__(self) -> "AnalysisStream":
        return self

    async def __anext__(self) -> Info:
        while not self._ended:
            line = await self._client.read_line()
            if line.startswith("error "):
                self._ended = True
                raise EngineError(line)
            if line.startswith("bestmove"):
                self._ended = True
                self.bestmove = parse_bestmove([line], time.monotonic() - self._started)
                break
            info = parse_info(line)
            if info is not None:
                return info
        raise StopAsyncIteration

    async def stop(self) -> None:
        """Ask the search to stop (its last lines and `bestmove` still come); nothing
        once it has ended."""
        if not self._stopped and not self._ended:
            self._stopped = True
            await self._client.send("stop")


class SimpleEngine:
    """A blocking Engine, for scripts and notebooks: its own event loop runs in a
    thread, and each method waits for the call it makes there.

        with SimpleEngine.popen(["engine"]) as engine:
            engine.setgame(game)
            best = engine.analyse({"depth": 8}, multipv=2)
    """

    def __init__(self, client_factory: Any):
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="engine-client", daemon=True)
        self._thread.start()
        try:
            self.client: Engine = self._wait(client_factory())
        except BaseException:
            self._end_loop()  # a failed start leaves no thread behind
            raise

    @classmethod
    def popen(cls, command: Sequence[str], env: Mapping[str, str] | None = None) -> "SimpleEngine":
        """Start `command`, an engine on stdio."""
        return cls(lambda: Engine.popen(command, stderr=subprocess.DEVNULL, env=env))

    @classmethod
    def connect(cls, host: str, port: int, token: str | None = None,
                tls: ssl.SSLContext | None = None) -> "SimpleEngine":
        """Open a session with an engine listening on TCP."""
        return cls(lambda: Engine.connect(host, port, token, tls))

    @classmethod
    def connect_unix(cls, path: str | Path) -> "SimpleEngine":
        """Open a session with an engine listening on a Unix-domain socket."""
        return cls(lambda: Engine.connect_unix(path))

    @classmethod
    def shared(cls) -> "SimpleEngine":
        """Open a session with this install's shared daemon, started where none runs."""
        return cls(Engine.shared)

    def _wait(self, coroutine: Awaitable[T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result()  # type: ignore[arg-type]

    def configure(self, options: Mapping[str, object]) -> None:
        self._wait(self.client.configure(options))

    def setgame(self, game: str, **params: object) -> None:
        self._wait(self.client.setgame(game, **params))

    def position(self, position: str) -> None:
        self._wait(self.client.position(position))

    def analyse(self, limit: Limit | Mapping[str, int], **options: Any) -> list[Info]:
        return self._wait(self.client.analyse(limit, **options))

    def play(self, limit: Limit | Mapping[str, int], **options: Any) -> Bestmove:
        return self._wait(self.client.play(limit, **options))

    def eval(self) -> Evaluation:
        return self._wait(self.client.eval())

    def quit(self) -> None:
        """Close the session (and end a child engine) and the client's loop."""
        try:
            self._wait(self.client.close())
        finally:
            self._end_loop()

    def _end_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def __enter__(self) -> "SimpleEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()
