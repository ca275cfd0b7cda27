"""Runs searches and other long jobs off the event loop: the one place where threads
meet asyncio.

Two pools keep kinds of work apart:
- compute (searches, perft): a thread per running job, up to `max_searches`; a job
  takes one of the daemon's search slots first (`SEARCH_SLOTS`), and past the limit the
  command is refused (`error busy`) rather than queued behind work that may never end.
  A search of several threads (`Threads`) runs its helpers in threads of its searcher's
  own, within the daemon's thread budget (`THREADS`).
  Within the limit every job runs at once, and the system's scheduler shares the cores
  among them: a new session's search starts at once, whatever the others do;
- files (hash save and load): a few threads of their own, so that slow file I/O never
  holds a search thread, nor a search a file job.

A search runs in a worker thread and hands each report to the loop with
`call_soon_threadsafe`; the loop formats and writes. Stopping is cooperative: the
session sets the search's StopSignal (a job's halt event), the worker notices within a
few dozen nodes (a chunk of a file).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import threading
from typing import Callable, Iterator, TypeVar

from search.base import SearchReport
from search.limits import StopSignal

LOG = logging.getLogger("engine.runner")
T = TypeVar("T")

#: Threads for hash file I/O, shared by every session.
FILE_WORKERS = 4


def machine_cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class SearchSlots:
    """The daemon's bound on searches and perfts running at once. Thread-safe."""

    def __init__(self, limit: int):
        self.limit = limit
        self.running = 0
        self._guard = threading.Lock()

    def take(self) -> bool:
        """Take a slot if one is free; whether one was."""
        with self._guard:
            if self.running >= self.limit:
                return False
            self.running += 1
            return True

    def give_back(self) -> None:
        with self._guard:
            self.running = max(0, self.running - 1)


class ThreadBudget:
    """The daemon's bound on search threads running at once (`--threads`): each
    search takes the threads it runs (its `Threads` option) when it starts and gives them
    back when it ends. A search always gets its first thread (the search slots bound how
    many run); beyond that it gets what is free. Thread-safe."""

    def __init__(self, limit: int):
        self.limit = limit
        self.running = 0
        self._guard = threading.Lock()

    def take(self, asked: int) -> int:
        """Take up to `asked` threads, at least one: the number taken."""
        with self._guard:
            granted = max(1, min(asked, self.limit - self.running))
            self.running += granted
            return granted

    def give_back(self, count: int) -> None:
        with self._guard:
            self.running = max(0, self.running - count)


def default_max_searches() -> int:
    """Four searches a core: more than the cores, so that sessions share them (the
    system's scheduler gives each running search its turn), but bounded."""
    return 4 * machine_cores()


#: The daemon's search slots, thread budget and pools, sized to the machine until
#: `configure` says otherwise.
SEARCH_SLOTS = SearchSlots(default_max_searches())
THREADS = ThreadBudget(machine_cores())
COMPUTE = concurrent.futures.ThreadPoolExecutor(max_workers=SEARCH_SLOTS.limit + 2, thread_name_prefix="search")
FILES = concurrent.futures.ThreadPoolExecutor(max_workers=FILE_WORKERS, thread_name_prefix="files")


def configure(max_searches: int, search_niceness: int = 0, threads: int | None = None) -> None:
    """Size the search slots, the thread budget (by default the machine's cores) and the
    compute pool (before any session starts). Two threads more than slots: a search that
    answered may still be winding down when its session's next one starts. With
    `search_niceness`, compute threads run at that much lower a priority than the event
    loop's thread, so that the loop answers every session at once however many searches
    share the cores (a search's helper threads start from a compute thread and share its
    priority)."""
    global COMPUTE
    SEARCH_SLOTS.limit = max_searches
    THREADS.limit = threads or machine_cores()
    COMPUTE = concurrent.futures.ThreadPoolExecutor(
        max_workers=max_searches + 2, thread_name_prefix="search",
        initializer=_lower_priority if search_niceness else None,
        initargs=(search_niceness,) if search_niceness else ())


def _lower_priority(niceness: int) -> None:
    """Lower the calling thread's priority by `niceness` (Linux: a thread has its own)."""
    try:
        thread = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + niceness)
    except (AttributeError, OSError) as error:
        LOG.debug("search threads keep their priority: %s", error)


class SearchRun:
    """One search in a compute thread, feeding its reports to the event loop.

    `on_report(report)` is called on the loop for every report, in order; the last one
    has `final` set. If the search raises, `on_report` receives None instead of a final
    report, and the error is logged. `on_end`, if given, is called in the thread once
    the search has its final report, before that report goes to the loop, or has ended
    without one (a search slot given back).
    """

    def __init__(
        self,
        reports: Iterator[SearchReport],
        stop: StopSignal,
        on_report: Callable[[SearchReport | None], None],
        on_end: Callable[[], None] | None = None,
    ):
        self.stop = stop
        self._reports = reports
        self._on_report = on_report
        self._on_end = on_end
        self._loop = asyncio.get_running_loop()
        self.done = asyncio.Event()
        self.future = self._loop.run_in_executor(COMPUTE, self._drive)

    def _drive(self) -> None:
        final_seen = False
        try:
            for report in self._reports:
                if report.final and not final_seen:
                    # Its slot is free before its answer is written: a client that reads
                    # the `bestmove` and starts another search at once finds it free.
                    self._end()
                final_seen = final_seen or report.final
                if not self._call(self._on_report, report):
                    self.stop.stop()  # the loop is gone: nobody wants the answer
                    return
        except Exception:
            LOG.exception("search failed")
        finally:
            self._end()
            if not final_seen:
                self._call(self._on_report, None)
            self._call(self.done.set)

    def _end(self) -> None:
        """Call `on_end` (once)."""
        on_end, self._on_end = self._on_end, None
        if on_end is not None:
            on_end()

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


#: The thread that drops closed sessions' tables (a file thread could be waiting its
#: turn to save a file, and memory would wait with it).
RELEASE = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="release")


def release(objects: list) -> None:
    """Drop `objects` (tables and searchers), which the caller holds no other reference
    to, in a thread of their own: unmapping their memory takes milliseconds that the
    event loop must not spend."""
    RELEASE.submit(objects.clear)


#: The threads that make, clear and adopt a session's tables (`setgame`, `setoption
#: name Hash`, `hash clear`): mapping or touching hundreds of MiB waits on the process's
#: memory map lock, which other threads' faults and unmaps hold, and the event loop
#: must not wait with them.
TABLES = concurrent.futures.ThreadPoolExecutor(max_workers=2, thread_name_prefix="tables")


async def run_table_work(function: Callable[..., T], *arguments: object) -> T:
    """Run `function` (work on one session's tables and searcher) in a table thread and
    await it. The session's engine belongs to that thread until it returns: a
    cancelled caller still waits for it before the cancellation goes on."""
    future = asyncio.get_running_loop().run_in_executor(TABLES, function, *arguments)
    try:
        return await asyncio.shield(future)
    except asyncio.CancelledError:
        await asyncio.wait({future})
        raise


async def run_compute(function: Callable[..., object], *arguments: object) -> object:
    """Run a computation (perft, an analysis) in a compute thread and await it."""
    return await asyncio.get_running_loop().run_in_executor(COMPUTE, function, *arguments)


async def run_file_job(function: Callable[..., object], *arguments: object) -> object:
    """Run hash file I/O in a file thread and await it."""
    return await asyncio.get_running_loop().run_in_executor(FILES, function, *arguments)
