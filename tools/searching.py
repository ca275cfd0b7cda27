"""The engine's searches as the tools run them, each through the engine a session drives
(`daemon.engine.SessionEngine`): the bench, fixed-depth searches of a game's bench
positions, each with an empty table; the exact solves of a game's solve suites
(`Game.fixtures.SOLVE_SUITES`, where it has them); and a tool's own engine, loaded, with
the searches of board texts it runs.

Its node count is a signature of search and evaluation behaviour, pinned per game
(`Game.fixtures.BENCH_NODES`, with the game's default evaluation, and
`OTHER_BENCH_NODES`, by name, with its others): a change of it is a change of what the
engine plays.
"""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Sequence

import attrs

from daemon import cores
from daemon.engine import SessionEngine
from protocol.options import DEFAULT_EVALUATION
from search.base import SearchReport
from search.limits import Limits

#: The table size of the bench, in MiB (131,072 entries): large enough that replacement
#: hardly depends on it. The pinned node counts were measured with it.
BENCH_HASH_MIB = 2
#: How long the bench waits for the compiled searches to load (a first compile).
LOAD_TIMEOUT_S = 600
#: The table size of the solve suites, in MiB (the solver's table is half of it).
SOLVE_HASH_MIB = 256


@attrs.frozen
class BenchResult:
    """The bench's total nodes over its positions, and the seconds they took."""

    nodes: int
    seconds: float

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


async def timed_searches(game_name: str, core: str, depth: int | None = None,
                         evaluation: str = DEFAULT_EVALUATION, positions: Sequence[str] | None = None,
                         threads: int = 1, hash_mib: int = BENCH_HASH_MIB,
                         options: Sequence[tuple[str, object]] = ()) -> list[tuple[float, int]]:
    """(seconds, nodes) of a search of each bench position of the game (or each board
    text of `positions`) to `depth` (default: its bench depth) on `core` with the
    game's evaluation `evaluation`, `threads` threads and the engine options `options`
    (name, value) besides, each with a fresh table of `hash_mib` MiB; compiled searches
    are loaded before the clock starts."""
    engine = SessionEngine(core=core)
    await engine.set_option("Hash", hash_mib)
    await engine.set_option("Evaluation", evaluation)
    await engine.set_option("Threads", threads)
    for name, value in options:
        await engine.set_option(name, value)
    engine.set_game(game_name, {})
    await engine.wait_loaded(LOAD_TIMEOUT_S)
    assert engine.game is not None
    await engine.analyse(Limits(depth=1))  # the first call's one-time costs, untimed
    searched = []
    for text in engine.game.fixtures.BENCH_POSITIONS if positions is None else positions:
        engine.hash_clear()
        engine.table().wait_mapped(5.0)  # time searching, not the page faults
        engine.set_position(tuple(text.split()), ())
        started = time.perf_counter()
        reports = await engine.analyse(Limits(depth=depth or engine.game.fixtures.BENCH_DEPTH))
        searched.append((time.perf_counter() - started, reports[-1].nodes))
    return searched


async def bench(game_name: str, core: str, depth: int | None = None, evaluation: str = DEFAULT_EVALUATION,
                positions: Sequence[str] | None = None, threads: int = 1, hash_mib: int = BENCH_HASH_MIB) -> BenchResult:
    """The nodes and seconds of `timed_searches` together."""
    searched = await timed_searches(game_name, core, depth, evaluation, positions, threads, hash_mib)
    return BenchResult(sum(nodes for _, nodes in searched), sum(seconds for seconds, _ in searched))


def run_bench(game_name: str, core: str, depth: int | None = None,
              evaluation: str = DEFAULT_EVALUATION) -> BenchResult:
    """`bench` from outside an event loop."""
    return asyncio.run(bench(game_name, core, depth, evaluation))


def percentiles(samples: list[float]) -> str:
    """The median, 90th and 99th percentiles and maximum of `samples` (seconds), in ms."""
    ordered = sorted(samples)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    return (f"p50 {at(0.5) * 1000:.2f} ms  p90 {at(0.9) * 1000:.2f} ms  "
            f"p99 {at(0.99) * 1000:.2f} ms  max {ordered[-1] * 1000:.2f} ms  (n={len(ordered)})")


async def loaded_engine(name: str, core: str | None = None) -> SessionEngine:
    """A session engine playing game `name` on `core` (the default core), its compiled
    searches loaded."""
    engine = SessionEngine(core=core or cores.default_core())
    engine.set_game(name, {})
    await engine.wait_loaded(LOAD_TIMEOUT_S)
    return engine


@functools.lru_cache(maxsize=None)
def tool_engine(game_name: str, options: tuple[tuple[str, object], ...] = ()) -> SessionEngine:
    """This process's engine for `game_name` on the default core, `options` set and its
    compiled searches loaded: what a tool (or each of its worker processes) searches
    with, made at its first call."""
    engine = SessionEngine(core=cores.default_core())
    for name, value in options:
        asyncio.run(engine.set_option(name, value))
    engine.set_game(game_name, {})
    asyncio.run(engine.wait_loaded(LOAD_TIMEOUT_S))
    return engine


def analyse_board(engine: SessionEngine, board: str, limits: Limits, multipv: int = 1) -> list[SearchReport]:
    """Every report of `engine`'s search of the board text `board` to `limits` (up to
    `multipv` root lines each) with an emptied table, so that each result stands on its
    own; from outside an event loop."""
    engine.hash_clear()
    engine.set_position(tuple(board.split()), ())
    return asyncio.run(engine.analyse(limits, multipv))


@attrs.frozen
class Solve:
    """One exact solve of a suite position: its margin (None: not proved in time), the
    file's best score and whether they agree, nodes and seconds."""

    number: int
    margin: int | None
    best: int
    agrees: bool
    nodes: int
    seconds: float


async def solve_suite(game_name: str, core: str, positions: list[tuple[int, str, int]],
                      seconds_each: float, threads: int = 1) -> list[Solve]:
    """Prove each (number, board text, file score) position exactly (`SessionEngine.prove`), in
    at most `seconds_each` with `threads` threads, one after the other in one session:
    its tables are kept from one position to the next, as in a game (their entries of
    other positions are of no use to it)."""
    engine = SessionEngine(core=core)
    await engine.set_option("Hash", SOLVE_HASH_MIB)
    await engine.set_option("Threads", threads)
    engine.set_game(game_name, {})
    await engine.wait_loaded(LOAD_TIMEOUT_S)
    fixtures = engine.game.fixtures
    solves = []
    engine.table().wait_mapped(5.0)  # time solving, not the page faults
    for number, board, best in positions:
        engine.set_position(tuple(board.split()), ())
        started = time.perf_counter()
        final = (await engine.prove(Limits(movetime=int(seconds_each * 1000))))[-1]
        seconds = time.perf_counter() - started
        agrees = final.margin is not None and fixtures.agrees(board, final.margin, best)
        solves.append(Solve(number, final.margin, best, agrees, final.nodes, seconds))
    return solves
