"""stdio and TCP reduced to one pair: an async source of lines and a line sink.

Lines are split here, once, for every transport: a `\\r` before the `\\n` is dropped,
bytes are decoded as UTF-8 (undecodable bytes become U+FFFD), and a line longer than
MAX_LINE_BYTES is delivered as a `TooLong` marker carrying its first bytes, the rest of
it discarded up to its end.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from typing import AsyncIterator

import attrs

from protocol.parse import MAX_LINE_BYTES

#: Above this many bytes waiting in a TCP send buffer, `info` lines are dropped: a
#: client that does not read cannot make the daemon hold unbounded output.
MAX_PENDING_OUTPUT = 1 << 20


@attrs.frozen
class TooLong:
    """A line over the length limit; `head` is its start, for the error's command field."""

    head: str


class LineSplitter:
    """Turns a stream of byte chunks into lines, enforcing the length limit."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._discarding = False

    def feed(self, chunk: bytes) -> list[str | TooLong]:
        items: list[str | TooLong] = []
        self._buffer += chunk
        while True:
            end = self._buffer.find(b"\n")
            if end < 0:
                if not self._discarding and len(self._buffer) > MAX_LINE_BYTES:
                    items.append(TooLong(_decode(self._buffer[:64])))
                    self._discarding = True
                if self._discarding:
                    self._buffer.clear()
                return items
            line = bytes(self._buffer[:end])
            del self._buffer[: end + 1]
            if self._discarding:
                self._discarding = False
                continue
            if line.endswith(b"\r"):
                line = line[:-1]
            if len(line) > MAX_LINE_BYTES:
                items.append(TooLong(_decode(line[:64])))
            else:
                items.append(_decode(line))

    def finish(self) -> list[str | TooLong]:
        """The last line when the stream ended without a line end."""
        if self._discarding or not self._buffer:
            return []
        rest = self.feed(b"\n")
        return rest


def _decode(data: bytes | bytearray) -> str:
    return bytes(data).decode("utf-8", "replace")


async def stdin_lines() -> AsyncIterator[str | TooLong]:
    """Lines of standard input, whatever it is: a pipe, a terminal or a plain file.

    A thread does the blocking reads (plain files cannot be watched by the event loop)
    and hands chunks to the loop; the iteration ends at end of input.
    """
    loop = asyncio.get_running_loop()
    chunks: asyncio.Queue[bytes | None] = asyncio.Queue()

    def pump() -> None:
        fd = sys.stdin.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                chunk = b""
            try:
                loop.call_soon_threadsafe(chunks.put_nowait, chunk or None)
            except RuntimeError:
                return  # the loop is closed: the process is ending
            if not chunk:
                return

    threading.Thread(target=pump, name="stdin", daemon=True).start()
    splitter = LineSplitter()
    while True:
        chunk = await chunks.get()
        if chunk is None:
            for item in splitter.finish():
                yield item
            return
        for item in splitter.feed(chunk):
            yield item


async def stream_lines(reader: asyncio.StreamReader) -> AsyncIterator[str | TooLong]:
    """Lines of a TCP connection; ends when the peer closes or resets it."""
    splitter = LineSplitter()
    while True:
        try:
            chunk = await reader.read(65536)
        except (ConnectionError, OSError):
            chunk = b""
        if not chunk:
            for item in splitter.finish():
                yield item
            return
        for item in splitter.feed(chunk):
            yield item


class StdoutSink:
    """Writes reply lines to standard output, each flushed at once."""

    def __init__(self) -> None:
        self.closed = False

    def write(self, line: str) -> None:
        if self.closed:
            return
        try:
            sys.stdout.buffer.write(line.encode() + b"\n")
            sys.stdout.buffer.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.closed = True

    async def drain(self) -> None:
        """Lines are written synchronously: nothing is ever pending."""

    def close(self) -> None:
        self.closed = True


class StreamSink:
    """Writes reply lines to a TCP connection without ever blocking the loop.

    `info` lines are dropped while the peer leaves more than MAX_PENDING_OUTPUT bytes
    unread; every other line is always queued, and `drain` makes the session stop
    reading that peer's commands until it reads its replies.
    """

    def __init__(self, writer: asyncio.StreamWriter):
        self._writer = writer
        self.closed = False

    def write(self, line: str) -> None:
        if self.closed or self._writer.is_closing():
            self.closed = True
            return
        transport = self._writer.transport
        if line.startswith("info ") and transport.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            return
        try:
            self._writer.write(line.encode() + b"\n")
        except (ConnectionError, OSError, RuntimeError):
            self.closed = True

    async def drain(self) -> None:
        """Wait while the peer leaves more than MAX_PENDING_OUTPUT bytes unread."""
        if self.closed:
            return
        if self._writer.transport.get_write_buffer_size() > MAX_PENDING_OUTPUT:
            try:
                await self._writer.drain()
            except (ConnectionError, OSError):
                self.closed = True

    def close(self) -> None:
        self.closed = True
        self._writer.close()
