"""Runs searches and other long jobs off the event loop: the one place where threads
meet asyncio.

A search runs in a worker thread and hands each report to the loop with
`call_soon_threadsafe`; the loop formats and writes. Stopping is cooperative: the
session sets the search's StopSignal, the worker notices within a few dozen nodes.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
from typing import Callable, Iterator

from search.base import SearchReport
from search.limits import StopSignal

LOG = logging.getLogger("engine.runner")

#: Worker threads shared by every session: one per running search, perft or file job.
EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=64, thread_name_prefix="worker")


class SearchRun:
    """One search in a worker thread, feeding its reports to the event loop.

    `on_report(report)` is called on the loop for every report, in order; the last one
    has `final` set. If the search raises, `on_report` receives None instead of a final
    report, and the error is logged.
    """

    def __init__(
        self,
        reports: Iterator[SearchReport],
        stop: StopSignal,
        on_report: Callable[[SearchReport | None], None],
    ):
        self.stop = stop
        self._reports = reports
        self._on_report = on_report
        self._loop = asyncio.get_running_loop()
        self.done = asyncio.Event()
        self.future = self._loop.run_in_executor(EXECUTOR, self._drive)

    def _drive(self) -> None:
        final_seen = False
        try:
            for report in self._reports:
                final_seen = final_seen or report.final
                if not self._call(self._on_report, report):
                    self.stop.stop()  # the loop is gone: nobody wants the answer
                    return
        except Exception:
            LOG.exception("search failed")
        finally:
            if not final_seen:
                self._call(self._on_report, None)
            self._call(self.done.set)

    def _call(self, function: Callable[..., None], *arguments: object) -> bool:
        """Schedule `function` on the loop; False when the loop is closed (exiting)."""
        try:
            self._loop.call_soon_threadsafe(function, *arguments)
        except RuntimeError:
            return False
        return True

    async def wait(self) -> None:
        """Wait until the worker has finished (after its last report was scheduled)."""
        await self.done.wait()


async def run_blocking(function: Callable[..., object], *arguments: object) -> object:
    """Run a blocking job (perft, hash file I/O) in a worker thread and await it."""
    return await asyncio.get_running_loop().run_in_executor(EXECUTOR, function, *arguments)

