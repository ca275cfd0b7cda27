"""An asyncio client of the engine protocol, over a child process's pipes or TCP, and a
blocking wrapper of it for scripts and notebooks.

    engine = await Engine.popen(["engine"])
    await engine.setgame(game)
    infos = await engine.analyse({"depth": 6}, position=f"startpos moves {move}", multipv=3)
    print([(info.move, info.score) for info in infos])   # best first
    print((await engine.play({"movetime": 100})).move)
    print((await engine.eval()).total)
    await engine.close()

    with SimpleEngine.popen(["engine"]) as engine:        # the same, blocking
        engine.setgame(game)
        print(engine.analyse({"depth": 4})[0].score)

The client knows lines, not games: besides the typed calls it sends raw commands, reads
replies, and offers the waits a client needs (`until` a line prefix, `ready` for the
`isready` barrier, `bestmove`). An `error` line met while waiting raises EngineError at
once, unless the wait is for the error itself; a wait that runs out raises
asyncio.TimeoutError.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import subprocess
import threading
import time
from typing import Any, AsyncIterator, Awaitable, Mapping, Sequence, TypeVar

import attrs

from protocol.info import Info, parse_info

T = TypeVar("T")


class EngineClosed(Exception):
    """The engine closed the connection or exited before the awaited line."""


class EngineError(Exception):
    """The engine refused a command: its `error <code> <command> <message>` line.

    Attributes:
        code: the error code (docs/protocol.md), e.g. `illegal-move` or `busy`.
        command: the command the engine names.
        message: what is wrong.
        line: the whole line.
    """

    def __init__(self, line: str):
        fields = line.split(" ", 3) + ["", "", ""]
        self.code, self.command, self.message = fields[1], fields[2], fields[3]
        self.line = line
        super().__init__(line)


@attrs.frozen
class Bestmove:
    """The answer to a `go`: the move (None for `(none)`), the ponder move, the info
    lines that came before it, and the seconds between `go` and `bestmove`."""

    move: str | None
    ponder: str | None
    infos: tuple[str, ...]
    elapsed: float


@attrs.frozen
class Limit:
    """The limits of a search: `go` with those given (see docs/protocol.md)."""

    depth: int | None = None
    nodes: int | None = None
    movetime: int | None = None
    mate: int | None = None

    def go(self, searchmoves: Sequence[str] | None = None, ponder: bool = False) -> str:
        """The `go` line."""
        words = ["go", *(["ponder"] if ponder else [])]
        for name in ("depth", "nodes", "movetime", "mate"):
            if getattr(self, name) is not None:
                words += [name, str(getattr(self, name))]
        if searchmoves:
            words += ["searchmoves", *searchmoves]
        return " ".join(words)


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
        line before it raises EngineError, unless `prefix` is `error` or `raise_errors`
        is false (the error is then one of the lines returned)."""
        lines = []
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.001)
            line = await self.read_line(remaining)
            lines.append(line)
            if line.startswith(prefix):
                return lines
            if raise_errors and line.startswith("error "):
                raise EngineError(line)

    async def ask(self, line: str, prefix: str, timeout: float | None = 10) -> list[str]:
        """Send `line` and return the replies up to the first line starting with `prefix`."""
        await self.send(line)
        return await self.until(prefix, timeout)

    async def ready(self, timeout: float | None = 10, raise_errors: bool = True) -> list[str]:
        """The `isready` barrier: every line before `readyok` (see `until` for errors)."""
        await self.send("isready")
        return (await self.until("readyok", timeout, raise_errors))[:-1]

    async def bestmove(self, go: str = "go", timeout: float | None = 60) -> Bestmove:
        """Send a `go` command and wait for its `bestmove`."""
        started = time.monotonic()
        lines = await self.ask(go, "bestmove", timeout)
        return parse_bestmove(lines, time.monotonic() - started)

    # ---- typed calls ----------------------------------------------------------------

    async def _settle(self) -> None:
        """Stop a pondering search and read its (unwanted) `bestmove`."""
        if self._pondering is not None:
            self._pondering = None
            await self.ask("stop", "bestmove")

    async def configure(self, options: Mapping[str, object]) -> None:
        """Set options (`setoption`); raises EngineError for one the engine refuses."""
        await self._settle()
        for name, value in options.items():
            await self.send(f"setoption name {name} value {_option_text(value)}")
        await self.ready()

    async def setgame(self, game: str, **params: object) -> None:
        """Choose the game (`setgame`, with its parameters); raises EngineError."""
        await self._settle()
        self._position = "startpos"
        await self.send(" ".join([f"setgame {game}", *(f"{key}={value}" for key, value in params.items())]))
        await self.ready()

    async def position(self, position: str) -> None:
        """Set the position: what follows `position`, such as `startpos moves f5` or
        `board <board text>`; raises EngineError."""
        await self._settle()
        await self.send(f"position {position}")
        await self.ready()
        self._position = " ".join(position.split())

    async def analyse(self, limit: Limit | Mapping[str, int], *, position: str | None = None,
                      multipv: int = 1, searchmoves: Sequence[str] | None = None,
                      timeout: float | None = 600) -> list[Info]:
        """Search the session's position (or `position`, see `position`) to `limit` and
        return the last iteration's lines, best first: one, or `multipv`."""
        if position is not None:
            await self.position(position)
        await self.configure({"MultiPV": multipv})
        answer = await self.bestmove(_limit(limit).go(searchmoves), timeout)
        infos = [info for info in map(parse_info, answer.infos) if info is not None and info.score is not None]
        if not infos:
            return []
        last = max(info.depth or 0 for info in infos)
        lines: dict[int, Info] = {}
        for info in infos:
            if (info.depth or 0) == last:
                lines[info.multipv or 1] = info
        return [lines[rank] for rank in sorted(lines)]

    @contextlib.asynccontextmanager
    async def analysis(self, limit: Limit | Mapping[str, int] | None = None, *, position: str | None = None,
                       multipv: int = 1,
                       searchmoves: Sequence[str] | None = None) -> AsyncIterator["AnalysisStream"]:
        """A search streamed as it goes: iterate the stream for its `Info`s until its
        limit (none: until `stop`) ends it, or call `stop()`. Leaving the block stops
        a search still running and reads its `bestmove`.

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
        try:
            yield stream
        finally:
            if stream.bestmove is None:
                await stream.stop()
                async for _ in stream:
                    pass

    async def play(self, limit: Limit | Mapping[str, int], *, position: str | None = None,
                   ponder: bool = False, timeout: float | None = 600) -> Bestmove:
        """The engine's move (and its ponder move) in the session's position (or
        `position`) after a search to `limit`.

        With `ponder`, the engine goes on thinking on the opponent's time: it searches
        the position after its move and the expected reply (`go ponder`). A `play` of
        exactly that position (as the typed calls wrote it) and limit then answers from
        that search (`ponderhit`); any other call stops it first."""
        limit = _limit(limit)
        go = limit.go()
        target = self._position if position is None else " ".join(position.split())
        if self._pondering == (target, go):
            self._pondering = None
            answer = await self.bestmove("ponderhit", timeout)
        else:
            if position is not None:
                await self.position(position)
            await self._settle()
            answer = await self.bestmove(go, timeout)
        if ponder and answer.move is not None and answer.ponder is not None:
            after = self._position + ("" if " moves " in f" {self._position} " else " moves")
            after += f" {answer.move} {answer.ponder}"
            await self.send(f"position {after}")
            await self.send(limit.go(ponder=True))
            self._position, self._pondering = after, (after, go)
        return answer

    async def eval(self) -> Evaluation:
        """The static evaluation of the session's position (`eval`)."""
        await self._settle()
        lines = await self.ask("eval", "eval total")
        lines += await self.ready()
        terms = {}
        for line in lines[1:]:
            words = line.split()
            if words[:2] == ["eval", "term"]:
                terms[words[2]] = tuple(int(word) for word in words[3:])
        return Evaluation(int(lines[0].split()[2]), terms)

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
    infos = tuple(line for line in lines[:-1] if line.startswith("info"))
    return Bestmove(move, ponder, infos, elapsed)


class AnalysisStream:
    """The `Info`s of one running search (see `Engine.analysis`); `bestmove` is
    its answer once the iteration has ended."""

    def __init__(self, client: Engine):
        self._client = client
        self._stopped = False
        self.bestmove: Bestmove | None = None
        self._started = time.monotonic()

    def __aiter__(self) -> "AnalysisStream":
        return self

    async def __anext__(self) -> Info:
        while self.bestmove is None:
            line = await self._client.read_line()
            if line.startswith("error "):
                raise EngineError(line)
            if line.startswith("bestmove"):
                self.bestmove = parse_bestmove([line], time.monotonic() - self._started)
                break
            info = parse_info(line)
            if info is not None:
                return info
        raise StopAsyncIteration

    async def stop(self) -> None:
        """Ask the search to stop (its last lines and `bestmove` still come)."""
        if not self._stopped and self.bestmove is None:
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
        self.client: Engine = self._wait(client_factory())

    @classmethod
    def popen(cls, command: Sequence[str], env: Mapping[str, str] | None = None) -> "SimpleEngine":
        """Start `command`, an engine on stdio."""
        return cls(lambda: Engine.popen(command, stderr=subprocess.DEVNULL, env=env))

    @classmethod
    def connect(cls, host: str, port: int, token: str | None = None,
                tls: ssl.SSLContext | None = None) -> "SimpleEngine":
        """Open a session with an engine listening on TCP."""
        return cls(lambda: Engine.connect(host, port, token, tls))

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
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
            self._loop.close()

    def __enter__(self) -> "SimpleEngine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.quit()
