"""A real `daemon.session.Session` in the test's own process, fed its lines by the test:
what a session does with its lines, shown without a process, a transport or a sleep."""

from __future__ import annotations

import asyncio

from daemon.session import Session

#: How long an awaited reply may take before the test calls it a hang.
HANG_S = 120


class InProcess:
    """A real `Session` in this process: the test feeds its lines (`feed`), knows when
    the session has read them all (`read`), and awaits its replies (`until`)."""

    def __init__(self) -> None:
        self.closed = False
        self._input: asyncio.Queue[str | None] = asyncio.Queue()
        self._replies: asyncio.Queue[str] = asyncio.Queue()
        self.session = Session(self)
        self.task = asyncio.ensure_future(self.session.run(self._lines(), finish_on_eof=True))

    def write(self, line: str) -> None:
        self._replies.put_nowait(line)

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    async def _lines(self):
        while (line := await self._input.get()) is not None:
            self._input.task_done()
            yield line

    def feed(self, *lines: str) -> None:
        for line in lines:
            self._input.put_nowait(line)

    async def read(self) -> None:
        """Wait until the session has read every line fed (it reads each as it comes,
        queueing it or dropping it, before it asks for the next)."""
        await asyncio.wait_for(self._input.join(), HANG_S)

    async def until(self, prefix: str) -> list[str]:
        """The replies up to and including the first that starts with `prefix`."""
        lines: list[str] = []
        while not lines or not lines[-1].startswith(prefix):
            lines.append(await asyncio.wait_for(self._replies.get(), HANG_S))
        return lines

    async def quit(self) -> None:
        self.feed("quit")
        assert await asyncio.wait_for(self.task, HANG_S)
