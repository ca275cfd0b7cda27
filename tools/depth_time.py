"""Time to depth of a game's search over many positions of its data, with each thread
count and multi-ProbCut setting asked for: the measure of a change to the search's
speed where the node counts move with the tree, and of what threads give.

    scripts/depth_time GAME [--data FILE] [--positions 20] [--empties 26-44] [--depth 16]
                            [--threads 1,2] [--probcut N] [--hash 16] [--seed 7]

Draws `--positions` positions (seeded) with `--empties` empty squares from FILE, a data
file of `scripts/pattern_data` (default `.cache/training/GAME/expert.npz`), and searches
each to `--depth` through the engine a session drives (compiled, its book off, a fresh
table of `--hash` MiB for each search, multi-ProbCut at `--probcut` hundredths, default
the engine's own), once per thread count. Prints, per thread count, the total and the
geometric mean of the times, the nodes and the nodes per second, and the speedup of each
count over the first (total, and the geometric mean, least and most of the positions').
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from pathlib import Path

import numpy as np

from daemon import cores
from games import all_games, find_game
from games.base import Position
from tools.pattern_data import default_folder, read_boards
from tools.searching import timed_searches


def draw(game_name: str, data: Path, count: int, low: int, high: int, seed: int = 7) -> list[str]:
    """The board texts of `count` positions with moves, `low` to `high` empty squares,
    drawn from `data` (seeded)."""
    game = find_game(game_name)
    training, boards, empties = read_boards(game.name, data)
    rng = np.random.default_rng(seed)
    texts: list[str] = []
    for index in rng.permutation(np.flatnonzero((empties >= low) & (empties <= high))):
        position = Position(game, training.state_of(boards[index]))
        if position.legal_moves():
            texts.append(game.format_board(position))
        if len(texts) == count:
            break
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/depth_time", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(all_games()))
    parser.add_argument("--data", type=Path, help="a scripts/pattern_data file (default .cache/training/GAME/expert.npz)")
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--empties", default="26-44", help="the range of empty squares (default 26-44)")
    parser.add_argument("--depth", type=int, default=16)
    parser.add_argument("--threads", default="1,2", help="thread counts, the first the reference (default 1,2)")
    parser.add_argument("--probcut", type=int, help="multi-ProbCut's confidence (default: the engine's)")
    parser.add_argument("--hash", type=int, default=16, help="the table's MiB (default 16)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if cores.compiled_missing() is not None:
        raise SystemExit(f"depth_time: no compiled core here: {cores.compiled_missing()}")
    data = args.data or default_folder(args.game) / "expert.npz"
    if not data.exists():
        raise SystemExit(f"depth_time: no {data}: make it with scripts/pattern_data positions")
    low, _, high = args.empties.partition("-")
    texts = draw(args.game, data, args.positions, int(low), int(high or low), args.seed)
    counts = [int(count) for count in args.threads.split(",")]
    print(f"{args.game}: {len(texts)} positions of {args.empties} empty squares from {data}, depth {args.depth}, "
          f"ProbCut {'default' if args.probcut is None else args.probcut}, {args.hash} MiB", flush=True)
    # The book off: a search waits for a book still loading, and `analyse` never answers from it.
    options = [("OwnBook", False)] + ([] if args.probcut is None else [("ProbCut", args.probcut)])
    results = {}
    for count in counts:
        searched = asyncio.run(timed_searches(args.game, cores.COMPILED, args.depth, positions=texts, threads=count,
                                              hash_mib=args.hash, options=options))
        seconds, nodes = [run[0] for run in searched], [run[1] for run in searched]
        results[count] = seconds
        print(f"  threads {count}: {sum(seconds):.2f} s in all, geometric mean {statistics.geometric_mean(seconds):.3f} s,"
              f" {sum(nodes):,} nodes, {sum(nodes) / sum(seconds):,.0f} nodes/s", flush=True)
    reference = results[counts[0]]
    for count in counts[1:]:
        ratios = [base / other for base, other in zip(reference, results[count])]
        print(f"  speedup of {count} threads over {counts[0]}: {sum(reference) / sum(results[count]):.2f}x in all,"
              f" geometric mean {statistics.geometric_mean(ratios):.2f}x (least {min(ratios):.2f}x,"
              f" most {max(ratios):.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
