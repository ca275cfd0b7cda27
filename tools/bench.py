"""Engine benchmark: perft and search speed per game, interpreted and compiled side by side, the
pinned bench node count, time to depth, the exact solves of a game's solve suites beside a
reference program's times, protocol latencies of the real engine while it searches, the
throughput of two sessions searching at once, and what more threads in one search give
(time to depth, nodes per second, exact solves).

Run it as `scripts/bench [--games NAME,...] [--samples N] [--core compiled|python]
[--no-solve] [--no-protocol] [--threads 1,2,...] [--only-threads]`. It prints figures
and exits non-zero when a game's bench node count differs from the pinned one on either
core, or a solve disagrees with its suite.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import time
from pathlib import Path

from daemon import cores, runner
from games import all_games, find_game
from protocol import client as protocol_client
from tools.searching import bench, loaded_engine, percentiles, solve_suite

ROOT = Path(__file__).resolve().parent.parent
COMPILED = cores.compiled_missing() is None
#: Where the solve suites are read from: the shared data beside the project, else the
#: copy in the test data.
DATA_FOLDERS = (ROOT.parent / "shared" / "data", ROOT / "tests" / "data")
#: The most a suite position may take.
SOLVE_LIMIT_S = 60.0
#: Time to depth with threads: the depth of a position is the first at which one thread
#: takes this long, and each time is the median of THREAD_SAMPLES searches.
THREAD_DEPTH_S = 0.5
THREAD_SAMPLES = 5
#: The solves with threads: the suite positions with this many empty squares.
THREAD_SOLVE_EMPTIES = range(20, 25)


async def perft_rate(name: str, core: str, depth: int) -> tuple[int, float]:
    """(leaves, seconds) of perft `depth` from the game's start, on `core`, its
    compiled searches loaded before the clock starts."""
    engine = await loaded_engine(name, core)
    nodes, _ = await engine.perft(1)  # the perft kernels loaded too
    started = time.perf_counter()
    nodes, _ = await engine.perft(depth)
    return nodes, time.perf_counter() - started


async def bench_speed(name: str) -> bool:
    """Print perft and search speed on the Python and compiled cores side by side;
    returns whether the bench node count is as pinned on both."""
    game = find_game(name)
    depth = game.fixtures.BENCH_PERFT_DEPTH
    nodes, seconds = await perft_rate(name, cores.PYTHON, depth)
    line = f"{name}: perft {depth}: {nodes} leaves; interpreted {nodes / seconds:,.0f} leaves/s"
    if COMPILED:
        same, fast = await perft_rate(name, cores.COMPILED, depth)
        line += (f", compiled {nodes / fast:,.0f} leaves/s ({seconds / fast:.0f}x)"
                 f"{'' if same == nodes else ' MISMATCH'}")
    print(line)
    if COMPILED:
        # A short perft times the call around it; a deeper one the move generator.
        while fast < 0.1 and depth < game.fixtures.BENCH_PERFT_DEPTH + 6:
            depth += 1
            nodes, fast = await perft_rate(name, cores.COMPILED, depth)
        print(f"{name}: compiled perft {depth}: {nodes} leaves in {fast:.2f} s, {nodes / fast:,.0f} leaves/s")
    result = await bench(name, cores.PYTHON)
    fixtures = game.fixtures
    pinned = result.nodes == fixtures.BENCH_NODES
    line = (f"{name}: bench depth {fixtures.BENCH_DEPTH} x {len(fixtures.BENCH_POSITIONS)} positions: "
            f"{result.nodes} nodes ({'as pinned' if pinned else f'PINNED {fixtures.BENCH_NODES}'});"
            f" interpreted {result.nps:,.0f} nodes/s")
    if COMPILED:
        compiled = await bench(name, cores.COMPILED)
        same = compiled.nodes == result.nodes
        pinned &= same
        line += (f", compiled {compiled.nps:,.0f} nodes/s ({compiled.nps / result.nps:.0f}x)"
                 f"{'' if same else f' NODES {compiled.nodes}'}")
    print(line)
    depth = fixtures.BENCH_DEPTH
    if COMPILED:
        # Short searches are dominated by the per-iteration Python work around the
        # compiled code; deeper ones show the compiled search's own rate.
        deep = compiled
        while deep.seconds < 1.0 and depth < fixtures.BENCH_DEPTH + 8:
            depth += 1
            deep = await bench(name, cores.COMPILED, depth)
        print(f"{name}: compiled bench at depth {depth}: {deep.nodes} nodes in {deep.seconds:.2f} s,"
              f" {deep.nps:,.0f} nodes/s")
    for evaluation, expected in getattr(fixtures, "OTHER_BENCH_NODES", {}).items():
        # The game's other evaluations, on the core asked for, to the same depths.
        core = cores.COMPILED if COMPILED else cores.PYTHON
        other = await bench(name, core, evaluation=evaluation)
        pinned &= other.nodes == expected
        deep = await bench(name, core, depth, evaluation=evaluation)
        print(f"{name} with evaluation {evaluation}: bench {other.nodes} nodes "
              f"({'as pinned' if other.nodes == expected else f'PINNED {expected}'}), {other.nps:,.0f} nodes/s; "
              f"at depth {depth}: {deep.nodes} nodes in {deep.seconds:.2f} s, {deep.nps:,.0f} nodes/s")
    return pinned


async def bench_solving(name: str) -> bool:
    """Time the exact solves of the game's solve suites, compiled, beside the reference
    program's times; returns whether every proved margin agrees with its suite."""
    fixtures = find_game(name).fixtures
    suites = getattr(fixtures, "SOLVE_SUITES", ())
    if not suites or not COMPILED:
        return True
    folder = next(folder / fixtures.SOLVE_SUITE_FOLDER for folder in DATA_FOLDERS
                  if (folder / fixtures.SOLVE_SUITE_FOLDER).is_dir())
    agree = True
    for label, file, first, numbers, reference in suites:
        positions = [position for position in fixtures.read_suite((folder / file).read_text(), first)
                     if position[0] in numbers]
        solves = await solve_suite(name, cores.COMPILED, positions, SOLVE_LIMIT_S)
        seconds = sum(solve.seconds for solve in solves)
        nodes = sum(solve.nodes for solve in solves)
        empties = sorted(board.split()[0].count(".") for _, board, _ in positions)
        unproved = [f"#{solve.number}" for solve in solves if solve.margin is None]
        wrong = [f"#{solve.number}" for solve in solves if solve.margin is not None and not solve.agrees]
        agree &= not wrong
        print(f"{name}: solve {label} ({empties[0]}-{empties[-1]} empty): {seconds:.2f} s, "
              f"{nodes:,} nodes, {nodes / seconds:,.0f} nodes/s; reference {reference:g} s "
              f"({seconds / reference:.1f}x)"
              + (f"; not proved within {SOLVE_LIMIT_S:g} s: {' '.join(unproved)}" if unproved else "")
              + (f"; DISAGREE {' '.join(wrong)}" if wrong else ""), flush=True)
    return agree


async def bench_protocol(name: str, samples: int, core: str) -> None:
    """Time to depth, isready/stop latency during search and movetime accuracy."""
    engine = await protocol_client.Engine.popen([sys.executable, "-m", "daemon.main", "--core", core])
    try:
        await engine.send(f"setgame {name}")
        await engine.ready()
        answer = await engine.bestmove("go depth 64 movetime 3000")
        times = [(info.depth, info.time) for info in answer.infos[:-1]]
        print(f"{name}: {core} core: time to depth from the start: "
              + ", ".join(f"d{depth} {ms} ms" for depth, ms in times))

        await engine.send("go infinite")
        await engine.until("info depth 1")
        delays = []
        for _ in range(samples):
            started = time.monotonic()
            await engine.ask("isready", "readyok")
            delays.append(time.monotonic() - started)
            await asyncio.sleep(0.005)
        await engine.bestmove("stop")
        print(f"{name}: isready during search: {percentiles(delays)}")

        stops = []
        for index in range(max(samples // 10, 5)):
            await engine.send("go infinite")
            await engine.until("info depth 1")
            await asyncio.sleep(0.05 + 0.01 * (index % 10))
            started = time.monotonic()
            await engine.bestmove("stop")
            stops.append(time.monotonic() - started)
        print(f"{name}: stop to bestmove:        {percentiles(stops)}")

        for movetime in (75, 150):
            late = []
            for _ in range(max(samples // 20, 5)):
                answer = await engine.bestmove(f"go movetime {movetime}")
                late.append(answer.elapsed)
            print(f"{name}: go movetime {movetime} answered: {percentiles(late)}")
    finally:
        await engine.close()


async def bench_sessions(name: str, core: str, seconds: float = 3.0) -> None:
    """Nodes per second of one session, then of two sessions of one daemon searching at
    once (over TCP), from the start position."""
    server = subprocess.Popen([sys.executable, "-m", "daemon.main", "--core", core, "--tcp", "0",
                               "--log-level", "info"], stderr=subprocess.PIPE, text=True)
    try:
        port = None
        while port is None:
            line = server.stderr.readline()
            if not line:
                raise RuntimeError("the engine did not start")
            if "listening on" in line:
                port = int(line.rsplit(":", 1)[1])
        clients = [await protocol_client.Engine.connect("127.0.0.1", port) for _ in range(2)]
        for client in clients:
            await client.send(f"setgame {name}")
            await client.ready(timeout=120)

        async def searched(client: protocol_client.Engine) -> int:
            answer = await client.bestmove(f"go movetime {int(seconds * 1000)}")
            return answer.infos[-1].nodes

        for client in clients:  # fill both sessions' tables' pages before measuring
            await searched(client)
        one = await searched(clients[0]) / seconds
        both = sum(await asyncio.gather(*(searched(client) for client in clients))) / seconds
        print(f"{name}: {core} core: one session {one:,.0f} nodes/s, two at once {both:,.0f}"
              f" nodes/s ({both / one:.2f}x)")
        for client in clients:
            await client.close()
    finally:
        server.terminate()
        server.wait()


async def bench_multipv(name: str, core: str, lines: int = 4) -> None:
    """Print what MultiPV costs: the time to a depth over the bench positions with `lines`
    lines against one (fresh tables each), through the engine process; the depth is the
    first from the bench's at which one line takes a second or more."""
    game = find_game(name)
    fixtures = game.fixtures
    client = await protocol_client.Engine.popen([sys.executable, "-m", "daemon.main", "--core", core],
                                      stderr=subprocess.DEVNULL)

    async def seconds(depth: int, count: int) -> float:
        total = 0.0
        for board in fixtures.BENCH_POSITIONS:
            await client.send("hash clear")
            started = time.monotonic()
            await client.analyse({"depth": depth}, position=f"board {board}", multipv=count)
            total += time.monotonic() - started
        return total

    try:
        await client.setgame(name)
        await client.ready(timeout=120)
        depth = fixtures.BENCH_DEPTH
        one = await seconds(depth, 1)
        while one < 1.0 and depth < fixtures.BENCH_DEPTH + 6:
            depth += 1
            one = await seconds(depth, 1)
        several = await seconds(depth, lines)
        print(f"{name}: MultiPV {lines} to depth {depth} x {len(fixtures.BENCH_POSITIONS)} positions:"
              f" {several:.2f} s against {one:.2f} s with one line ({several / one:.1f}x)")
    finally:
        await client.close()


async def bench_threads(name: str, counts: list[int]) -> None:
    """Print the time to a fixed depth and the nodes per second with each thread count
    of `counts`, for each of the game's first three bench positions (fresh tables of
    64 MiB; the median of THREAD_SAMPLES searches), and the speedups over the first
    count."""
    fixtures = find_game(name).fixtures
    speedups: dict[int, list[float]] = {count: [] for count in counts}
    for number, board in enumerate(fixtures.BENCH_POSITIONS[:3], 1):
        depth = fixtures.BENCH_DEPTH
        while (await bench(name, cores.COMPILED, depth, positions=[board], hash_mib=64)).seconds < THREAD_DEPTH_S:
            depth += 1
        times, rates = {}, {}
        for count in counts:
            runs = [await bench(name, cores.COMPILED, depth, positions=[board], threads=count, hash_mib=64)
                    for _ in range(THREAD_SAMPLES)]
            times[count] = statistics.median(run.seconds for run in runs)
            rates[count] = statistics.median(run.nps for run in runs)
            speedups[count].append(times[counts[0]] / times[count])
        print(f"{name}: threads, position {number} to depth {depth}: "
              + "; ".join(f"{count}: {times[count]:.3f} s, {rates[count]:,.0f} nodes/s"
                          f" ({times[counts[0]] / times[count]:.2f}x)" for count in counts), flush=True)
    print(f"{name}: threads, time-to-depth speedup (geometric mean of 3 positions): "
          + ", ".join(f"{count}: {statistics.geometric_mean(speedups[count]):.2f}x" for count in counts[1:]))


async def bench_solving_threads(name: str, counts: list[int]) -> None:
    """Print the time of the exact solves of the game's suite positions with 20-24 empty
    squares (THREAD_SOLVE_EMPTIES) with each thread count of `counts`."""
    fixtures = find_game(name).fixtures
    suites = getattr(fixtures, "SOLVE_SUITES", ())
    if not suites:
        return
    folder = next(folder / fixtures.SOLVE_SUITE_FOLDER for folder in DATA_FOLDERS
                  if (folder / fixtures.SOLVE_SUITE_FOLDER).is_dir())
    positions = {}
    for _, file, first, _, _ in suites:
        for number, board, best in fixtures.read_suite((folder / file).read_text(), first):
            if board.split()[0].count(".") in THREAD_SOLVE_EMPTIES:
                positions[number] = (number, board, best)
    chosen = sorted(positions.values())
    seconds = {}
    for count in counts:
        solves = await solve_suite(name, cores.COMPILED, chosen, SOLVE_LIMIT_S, count)
        wrong = [f"#{solve.number}" for solve in solves if not solve.agrees]
        seconds[count] = sum(solve.seconds for solve in solves)
        print(f"{name}: threads {count}, solve {len(chosen)} positions of {THREAD_SOLVE_EMPTIES[0]}-"
              f"{THREAD_SOLVE_EMPTIES[-1]} empty squares: {seconds[count]:.2f} s"
              f" ({seconds[counts[0]] / seconds[count]:.2f}x)"
              + (f"; NOT PROVED OR DISAGREE {' '.join(wrong)}" if wrong else ""), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(all_games()),
                        help="comma-separated games (default: all)")
    parser.add_argument("--samples", type=int, default=200, help="isready samples per game")
    parser.add_argument("--no-protocol", action="store_true", help="skip the engine process part")
    parser.add_argument("--no-solve", action="store_true", help="skip the solve suites")
    parser.add_argument("--core", choices=cores.CORES, default=cores.default_core(),
                        help="the engine's core in the protocol part (default: %(default)s)")
    parser.add_argument("--threads", default="1,2",
                        help="the thread counts of the threads part, the first the baseline (default: %(default)s;"
                             " empty: skip it)")
    parser.add_argument("--only-threads", action="store_true", help="the threads part alone")
    args = parser.parse_args()
    counts = [int(count) for count in args.threads.split(",") if count]
    runner.THREADS.limit = max(counts, default=1)
    pinned = True
    for name in args.games.split(","):
        if COMPILED and len(counts) > 1:
            asyncio.run(bench_threads(name, counts))
            if not args.no_solve:
                asyncio.run(bench_solving_threads(name, counts))
        if args.only_threads:
            continue
        pinned &= asyncio.run(bench_speed(name))
        if not args.no_solve:
            pinned &= asyncio.run(bench_solving(name))
        if not args.no_protocol:
            asyncio.run(bench_protocol(name, args.samples, args.core))
            asyncio.run(bench_sessions(name, args.core))
            asyncio.run(bench_multipv(name, args.core))
    return 0 if pinned else 1


if __name__ == "__main__":
    sys.exit(main())
