"""A CodinGame bot as a child process: lines in, one line out per turn, with a deadline.

Each bot runs in its own session (process group), so that at the end of a game the
bot and anything it started (an engine) go together.
"""

from __future__ import annotations

import asyncio
import collections
import os
import shlex
import signal
import time
from typing import Mapping

#: Lines of a bot's stderr kept for the game record.
STDERR_LINES = 2000
#: How long a bot may take to exit by itself once its input is closed.
EXIT_GRACE = 2.0


class BotProcess:
    """One bot of one game."""

    def __init__(self, command: str, env: Mapping[str, str] | None = None):
        self.command = command
        self.env = dict(os.environ if env is None else env)
        self.process: asyncio.subprocess.Process | None = None
        self.stderr: collections.deque[str] = collections.deque(maxlen=STDERR_LINES)
        self._stderr_task: asyncio.Task | None = None
        #: time.monotonic() when the last turn's input was written and its answer read.
        self.sent_at = 0.0
        self.received_at = 0.0

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            *shlex.split(self.command), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            env=self.env, start_new_session=True, limit=1 << 20,
        )
        self._stderr_task = asyncio.ensure_future(self._drain_stderr())

    async def _drain_stderr(self) -> None:
        # A bot that writes much to stderr must never block on a full pipe.
        assert self.process is not None and self.process.stderr is not None
        while True:
            data = await self.process.stderr.readline()
            if not data:
                return
            self.stderr.append(data.decode(errors="replace").rstrip("\r\n"))

    async def ask(self, lines: list[str], limit: float) -> tuple[str | None, float, str]:
        """Send one turn's lines and wait up to `limit` seconds for one output line.

        Returns (line, seconds from the end of sending to the line, status), the status
        being `ok`, `timeout` (no line in time) or `crashed` (the bot's output ended); the
        line is None unless `ok`.
        """
        assert self.process is not None and self.process.stdin is not None
        assert self.process.stdout is not None
        self.received_at = 0.0
        # The clock starts before the write: the bot may answer before this process runs
        # again.
        sent = self.sent_at = time.monotonic()
        try:
            self.process.stdin.write(("\n".join(lines) + "\n").encode())
            await self.process.stdin.drain()
        except (ConnectionError, OSError):
            return None, 0.0, "crashed"
        read = asyncio.ensure_future(self.process.stdout.readline())
        done, _ = await asyncio.wait({read}, timeout=max(limit - (time.monotonic() - sent), 0))
        if not done:
            # On a busy machine this process may wake after the deadline and handle it
            # before a line that was already there: a line waiting when the deadline is
            # handled counts as in time (the leniency is this process's own lateness).
            await asyncio.sleep(0)
        if not read.done():
            read.cancel()
            try:
                await read
            except asyncio.CancelledError:
                pass
            return None, time.monotonic() - sent, "timeout"
        data = read.result()
        self.received_at = time.monotonic()
        elapsed = self.received_at - sent
        if not data:
            return None, elapsed, "crashed"
        return data.decode(errors="replace").rstrip("\r\n"), elapsed, "ok"

    async def close(self) -> int | None:
        """Close the bot's input, let it exit, else end its process group; its exit code."""
        process = self.process
        if process is None:
            return None
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), EXIT_GRACE)
        except asyncio.TimeoutError:
            self._signal_group(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), EXIT_GRACE)
            except asyncio.TimeoutError:
                self._signal_group(signal.SIGKILL)
                await process.wait()
        # Children that outlived the bot (an engine it started) go with its group.
        self._signal_group(signal.SIGKILL)
        if self._stderr_task is not None:
            try:
                await asyncio.wait_for(self._stderr_task, 1.0)
            except asyncio.TimeoutError:
                self._stderr_task.cancel()
        return process.returncode

    def _signal_group(self, signum: int) -> None:
        assert self.process is not None
        try:
            os.killpg(self.process.pid, signum)
        except (ProcessLookupError, PermissionError):
            pass
