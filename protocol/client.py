"""An asyncio client of the engine protocol, over a child process's pipes or TCP.

    client = await EngineClient.spawn(["engine"])
    await client.send(f"setgame {game}")
    move = await client.bestmove("go movetime 100")
    await client.close()

The client knows lines, not games: it sends commands, reads replies, and offers the few
waits a client needs (`until` a line prefix, `ready` for the `isready` barrier,
`bestmove`). An `error` line met while waiting raises EngineError at once, unless the
wait is for the error itself.
"""

from __future__ import annotations

import asyncio
import ssl
import subprocess
import time
from typing import Mapping, Sequence

import attrs


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


class EngineClient:
    """One protocol session with an engine."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 process: asyncio.subprocess.Process | None = None):
        self._reader = reader
        self._writer = writer
        self.process = process

    @classmethod
    async def spawn(cls, command: Sequence[str], stderr: int | None = None,
                    env: Mapping[str, str] | None = None) -> "EngineClient":
        """Start `command` (an engine on stdio; in environment `env`, by default this
        process's) and talk to it over its pipes."""
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=stderr, env=env, limit=1 << 20,
        )
        assert process.stdout is not None and process.stdin is not None
        return cls(process.stdout, process.stdin, process)  # type: ignore[arg-type]

    @classmethod
    async def attach(cls, process: "subprocess.Popen[bytes]") -> "EngineClient":
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
                      tls: ssl.SSLContext | None = None) -> "EngineClient":
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
