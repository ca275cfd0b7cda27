"""The adapter's session with the engine: every line read in the background, searches
told apart, and waits that never outlast a deadline.

Each `go` the link sends is one search, numbered from 1, and the engine answers each
with exactly one `bestmove` (or one `error ... go ...` when it refuses it), in order.
So the answer to search n is the n-th answer, and the `info` lines before it are that
search's. A caller that gave up on a search (it was late) simply asks for a later one;
the stale answer is read and dropped on the way.
"""

from __future__ import annotations

import asyncio
import time
from typing import Sequence

import attrs

from protocol.client import Engine, EngineClosed

#: Seconds a write to the engine may wait for room in its input (see `send`).
SEND_TIMEOUT = 0.01


@attrs.define
class Answer:
    """What the engine said about one search: its `bestmove` line's move and ponder move
    (None when it had none, refused the search, or the position was refused), the last
    `info ... pv` moves, the last `info` time in ms, an error line, and when the answer
    was read (time.monotonic)."""

    move: str | None = None
    ponder: str | None = None
    pv: tuple[str, ...] = ()
    info_ms: int | None = None
    error: str | None = None
    received: float | None = None


class EngineLink:
    """One protocol session, read by a background task."""

    def __init__(self, client: Engine):
        self.client = client
        self.closed = False
        self._lines: asyncio.Queue[tuple[str, float] | None] = asyncio.Queue()
        self._sent = 0
        self._answered = 0
        #: The answer being collected for search `_answered + 1`.
        self._current = Answer()
        self._answers: dict[int, Answer] = {}
        #: Searches whose position the engine refused: their answers are not trusted.
        self._bad_position: set[int] = set()
        #: `isready` lines sent, and `readyok` lines read, so far.
        self._ready_asked = 0
        self._readies = 0
        #: Whether the engine answered an `isready` sent with no search running: it has
        #: loaded the game's compiled code (or given up on it).
        self.loaded = False
        self._pump = asyncio.ensure_future(self._read_all())

    async def _read_all(self) -> None:
        try:
            while True:
                line = await self.client.read_line()
                self._lines.put_nowait((line, time.monotonic()))
        except (EngineClosed, ConnectionError, OSError, ValueError, asyncio.IncompleteReadError):
            pass
        finally:
            self.closed = True
            self._lines.put_nowait(None)

    async def send(self, lines: Sequence[str]) -> bool:
        """Send command lines in one write; False when the engine is gone.

        The write is buffered at once; only an engine that has stopped reading its input
        makes it wait, and then not past SEND_TIMEOUT: such an engine counts as gone.
        """
        if self.closed:
            return False
        try:
            await asyncio.wait_for(
                self.client.send_raw("".join(line + "\n" for line in lines).encode()), SEND_TIMEOUT)
        except (ConnectionError, OSError, RuntimeError, asyncio.TimeoutError):
            self.closed = True
            return False
        return True

    async def search(self, lines: Sequence[str]) -> int | None:
        """Send lines ending with one `go ...`; the new search's number, or None."""
        number = self._sent + 1
        if not await self.send(lines):
            return None
        self._sent = number
        return number

    @property
    def pending(self) -> bool:
        """Whether some search has not been answered yet."""
        return self._answered < self._sent

    async def answer(self, number: int, deadline: float) -> Answer | None:
        """The answer to search `number`, or None if it has not come by `deadline`
        (time.monotonic) or the engine is gone; an answer read before the call counts
        even when the deadline has passed. Partial results (the latest pv) stay readable
        through `progress`."""
        self._take_waiting()
        while number not in self._answers:
            if number <= self._answered or not await self._read_one(deadline):
                return None  # answered and dropped for a later one, late, or gone
        return self._answers.pop(number)

    async def ready(self, deadline: float) -> bool:
        """Send `isready` and wait for its `readyok` until `deadline` (time.monotonic):
        whether it came. With no search running, the engine answers once the game's
        compiled code has loaded (see `loaded`). Lines read on the way count as usual."""
        idle = not self.pending
        if not await self.send(["isready"]):
            return False
        self._ready_asked += 1
        self._take_waiting()
        while self._readies < self._ready_asked:
            if not await self._read_one(deadline):
                return False
        self.loaded = self.loaded or idle
        return True

    async def _read_one(self, deadline: float) -> bool:
        """Read and take one more line, waiting until `deadline` at most; False when
        none came by then or the engine is gone."""
        remaining = deadline - time.monotonic()
        if remaining <= 0 or (self.closed and self._lines.empty()):
            return False
        try:
            item = await asyncio.wait_for(self._lines.get(), remaining)
        except asyncio.TimeoutError:
            return False
        if item is None:
            return False
        self._take(*item)
        return True

    def progress(self, number: int) -> Answer | None:
        """What search `number` has said so far, while it runs: its last pv."""
        self._take_waiting()
        if self._answered + 1 == number:
            return self._current
        return None

    def _take_waiting(self) -> None:
        while not self._lines.empty():
            item = self._lines.get_nowait()
            if item is None:
                return
            self._take(*item)

    def _take(self, line: str, received: float) -> None:
        tokens = line.split()
        if not tokens:
            return
        head = tokens[0]
        if head == "readyok":
            self._readies += 1
        elif head == "info":
            if "pv" in tokens:
                self._current.pv = tuple(tokens[tokens.index("pv") + 1:])
            if "time" in tokens[:-1]:
                value = tokens[tokens.index("time") + 1]
                if value.isdigit():
                    self._current.info_ms = int(value)
        elif head == "bestmove":
            answer = self._current
            if len(tokens) > 1 and tokens[1] != "(none)":
                answer.move = tokens[1]
            if len(tokens) > 3 and tokens[2] == "ponder":
                answer.ponder = tokens[3]
            self._finish(answer, received)
        elif head == "error" and len(tokens) > 2:
            if tokens[2] == "go":
                self._current.error = line
                self._finish(self._current, received)
            elif tokens[2] == "position":
                # The next search would run on the previous position: distrust it.
                self._bad_position.add(self._answered + 1)
                self._current.error = line

    def _finish(self, answer: Answer, received: float) -> None:
        self._answered += 1
        answer.received = received
        if self._answered in self._bad_position:
            self._bad_position.discard(self._answered)
            answer.move = answer.ponder = None
            answer.pv = ()
        if answer.error is not None:
            answer.move = None
        self._answers[self._answered] = answer
        # Answers nobody will ask for again (older searches) are dropped.
        for stale in [key for key in self._answers if key < self._answered]:
            del self._answers[stale]
        self._current = Answer()

    async def close(self) -> None:
        self._pump.cancel()
        try:
            await asyncio.wait_for(self.client.close(), 2)
        except (asyncio.TimeoutError, ConnectionError, OSError, RuntimeError):
            if self.client.process is not None and self.client.process.returncode is None:
                self.client.process.kill()
