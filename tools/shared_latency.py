"""Latency figures of the shared daemon, as its users meet them (prints them; times
nothing in the tests).

    scripts/shared_latency [--rounds N] [--games G ...] [--only cold|first-answer|first-go] [--settle S]

- cold: `engine daemon stop`, then `engine daemon start` until it listens, and the first
  `setgame G` + `isready` answered after it (the game's compiled code and book loaded):
  seconds, each round from a stopped daemon (at most 10 rounds a game).
- first-answer: with the daemon warm, an `engine-cg G --stats` started anew each round;
  once it has opened its session (and `--settle` seconds more: by default none, so that
  the turn may come while the session's first commands are still read; see the wait's
  comment for how the session is seen), the referee's first turn is written to it. Measured:
  the time to its answer line (the referee's view: from the write to the line read; the
  first turn's search takes the turn's budget, about 0.9 s of 1 s), and the time the
  turn spent outside the engine's round trip (`go` to `bestmove`): reading the turn,
  waiting for the engine to be up, printing (`--stats`: respond_ms - engine_ms). The
  percentiles over the rounds, and how many answers were fallbacks (stderr).
- first-go: `setgame G`, `isready`, then `position startpos` and `go movetime 200` at
  once, through a session of the warm daemon and through a fresh `engine` of its own
  each round (at most 30 rounds); the time from sending `go` to `bestmove`, in ms, which
  must stay within 200.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import statistics
import sys
import time

from adapters.codingame import formats, turn_format
from adapters.arena.process import BotProcess
from protocol import shared
from protocol.client import Engine
from protocol.launch import engine_command

ADAPTER = f"{sys.executable} -m adapters.bot.main"


def percentiles(values: list[float]) -> str:
    ordered = sorted(values)

    def at(share: float) -> float:  # the nearest rank
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]
    return (f"median {statistics.median(ordered):.1f}  p90 {at(0.9):.1f}  p99 {at(0.99):.1f}"
            f"  max {ordered[-1]:.1f}  (n={len(ordered)})")


def cold(rounds: int, game: str) -> None:
    starts, readies = [], []
    for _ in range(rounds):
        shared.stop()
        began = time.perf_counter()
        place = shared.ensure_running()
        starts.append(time.perf_counter() - began)

        async def first_ready() -> None:
            engine = await Engine.connect_unix(place.socket)
            await engine.send(f"setgame {game}")
            await engine.ready(120)
            await engine.close()
        asyncio.run(first_ready())
        readies.append(time.perf_counter() - began)
    print(f"cold start to listening (s):          {percentiles(starts)}")
    print(f"cold start to {game:9} readyok (s): {percentiles(readies)}")


async def first_answer(game: str, rounds: int, settle: float) -> None:
    fmt = turn_format(game)
    state = fmt.GAME.initial_state({})
    turn = fmt.format_turn(state, state.to_move, True, [])
    place = shared.ensure_running()
    latencies, outside, fallbacks = [], [], 0
    for _ in range(rounds):
        before = shared.figures(place.socket).sessions
        bot = BotProcess(f"{ADAPTER} {game} --stats")
        await bot.start()
        # The bot's session is open once the daemon counts one more session on two
        # polls 20 ms apart: the bot's first look for the daemon (`shared.answers`, a
        # connection closed at once) is counted for a moment too, while the bot still
        # loads its code.
        deadline, seen = time.monotonic() + 30, 0
        while seen < 2 and time.monotonic() < deadline:
            seen = seen + 1 if shared.figures(place.socket).sessions > before else 0
            await asyncio.sleep(0.02)
        await asyncio.sleep(settle)
        line, elapsed, status = await bot.ask(turn, 5.0)
        await bot.close()
        latencies.append(elapsed * 1000)
        fallbacks += status != "ok" or any("fallback" in text for text in bot.stderr)
        for text in bot.stderr:
            if text.startswith("engine-cg: stats "):
                report = json.loads(text.split("stats ", 1)[1])
                if report["engine_ms"] is not None:
                    outside.append(report["respond_ms"] - report["engine_ms"])
    print(f"engine-cg {game:9} first answer (ms):        {percentiles(latencies)}, {fallbacks} fallback(s)")
    if outside:
        print(f"engine-cg {game:9} outside the engine (ms): {percentiles(outside)}")


async def first_go(game: str, rounds: int, own: bool) -> None:
    times = []
    for _ in range(rounds):
        engine = await (Engine.popen(engine_command("--log-level", "warning")) if own else Engine.shared())
        await engine.send(f"setgame {game}")
        await engine.ready(120)
        began = time.perf_counter()
        await engine.send_raw(b"position startpos\ngo movetime 200\n")
        await engine.until("bestmove", 10)
        times.append((time.perf_counter() - began) * 1000)
        await engine.close()
    where = "an engine of its own" if own else "the shared daemon   "
    print(f"{game:9} go movetime 200, {where} (ms): {percentiles(times)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--games", nargs="+", default=list(formats()))
    parser.add_argument("--only", choices=("cold", "first-answer", "first-go"))
    parser.add_argument("--settle", type=float, default=0.0, metavar="S",
                        help="first-answer: write the turn S seconds after the bot's session opened (default 0)")
    args = parser.parse_args()
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    print(f"install key {shared.install_key()}, runtime folder {shared.runtime_folder()}")
    for game in args.games:
        if args.only in (None, "cold"):
            cold(min(args.rounds, 10), game)
        if args.only in (None, "first-answer"):
            asyncio.run(first_answer(game, args.rounds, args.settle))
        if args.only in (None, "first-go"):
            asyncio.run(first_go(game, args.rounds, own=False))
            asyncio.run(first_go(game, min(args.rounds, 30), own=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
