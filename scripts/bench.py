"""Engine benchmark: perft and search speed per game, the pinned bench node count,
time to depth, and protocol latencies of the real engine while it searches.

Run it as `scripts/bench [--games clobber,...] [--samples N]`. It prints figures and
exits non-zero when a game's bench node count differs from the pinned one.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import all_games, find_game  # noqa: E402
from protocol.client import EngineClient  # noqa: E402
from search.bench import run_bench  # noqa: E402
from search.perft import perft  # noqa: E402

def percentiles(samples: list[float]) -> str:
    ordered = sorted(samples)

    def at(fraction: float) -> float:
        return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]

    return (f"p50 {at(0.5) * 1000:.2f} ms  p90 {at(0.9) * 1000:.2f} ms  "
            f"p99 {at(0.99) * 1000:.2f} ms  max {ordered[-1] * 1000:.2f} ms  (n={len(ordered)})")


def bench_speed(name: str) -> bool:
    """Print perft and search speed; returns whether the bench node count is as pinned."""
    game = find_game(name)
    depth = game.bench_perft_depth
    start = game.initial_state({})
    started = time.perf_counter()
    nodes = perft(start, depth)
    seconds = time.perf_counter() - started
    print(f"{name}: perft {depth}: {nodes} nodes in {seconds:.2f} s, {nodes / seconds:,.0f} nodes/s")
    result = run_bench(game)
    pinned = "as pinned" if result.nodes == game.bench_nodes else f"PINNED {game.bench_nodes}"
    print(f"{name}: bench depth {game.bench_depth} over {len(game.bench_positions)} positions:"
          f" {result.nodes} nodes ({pinned}) in {result.seconds:.2f} s, {result.nps:,.0f} nodes/s")
    return result.nodes == game.bench_nodes


async def bench_protocol(name: str, samples: int) -> None:
    """Time to depth, isready/stop latency during search and movetime accuracy."""
    engine = await EngineClient.spawn([sys.executable, "-m", "daemon.main"])
    try:
        await engine.send(f"setgame {name}")
        await engine.ready()
        answer = await engine.bestmove("go depth 64 movetime 3000")
        times = [(int(info.split(" depth ")[1].split()[0]), int(info.split(" time ")[1].split()[0]))
                 for info in answer.infos[:-1]]
        print(f"{name}: time to depth from the start: "
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default=",".join(all_games()),
                        help="comma-separated games (default: all)")
    parser.add_argument("--samples", type=int, default=200, help="isready samples per game")
    parser.add_argument("--no-protocol", action="store_true", help="skip the engine process part")
    args = parser.parse_args()
    pinned = True
    for name in args.games.split(","):
        pinned &= bench_speed(name)
        if not args.no_protocol:
            asyncio.run(bench_protocol(name, args.samples))
    return 0 if pinned else 1


if __name__ == "__main__":
    sys.exit(main())
