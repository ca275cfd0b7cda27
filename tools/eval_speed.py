"""How fast a game's pattern evaluation reads its instances: again at every leaf, or
carried down the tree move by move (incremental).

    scripts/eval_speed GAME [--positions 2000] [--plies 8-52] [--repeats 5] [--seed 1]

Plays `--positions` random games to a random ply in `--plies` (seeded), then evaluates
every position two plies below each, both ways (the game's
`training.leaf_pattern_sums`), and prints the nanoseconds a leaf of each, the best of
`--repeats` timed runs (compiled, after a warm-up run). Exits non-zero when the two ways
disagree.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from games import all_games, find_game
from tools.pattern_data import training_module


def random_rows(game_name: str, training, count: int, low: int, high: int, seed: int) -> np.ndarray:
    """The rows (`training.row_of`) of `count` positions of random games, each after a
    random number of plies in [low, high] (fewer where the game ends first)."""
    game = find_game(game_name)
    rng = random.Random(seed)
    rows = []
    while len(rows) < count:
        position = game.initial_state({})
        for _ in range(rng.randint(low, high)):
            if position.outcome() is not None:
                break
            position = position.play(rng.choice(position.legal_moves()))
        if position.outcome() is None:
            rows.append(training.row_of(position.s))
    return np.array(rows, dtype=np.uint64)


def best_time(function, repeats: int) -> tuple[float, tuple]:
    """(the fewest seconds of `repeats` calls, the last result)."""
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/eval_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(all_games()))
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--plies", default="8-52", help="the range of random plies (default 8-52)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    training = training_module(args.game)
    if not hasattr(training, "leaf_pattern_sums"):
        raise SystemExit(f"eval_speed: {args.game} has no leaf_pattern_sums in its training module")
    low, high = (int(part) for part in args.plies.split("-"))
    rows = random_rows(args.game, training, args.positions, low, high, args.seed)
    results = {}
    for name, incremental in (("recomputed", False), ("incremental", True)):
        training.leaf_pattern_sums(rows[:10], incremental)  # compiled (or loaded) before the clock
        seconds, (checksum, leaves) = best_time(lambda: training.leaf_pattern_sums(rows, incremental), args.repeats)
        results[name] = checksum
        print(f"{name:>12}: {leaves} leaves in {seconds * 1000:.1f} ms, {seconds / leaves * 1e9:.1f} ns a leaf "
              f"(checksum {checksum})", flush=True)
    if len(set(results.values())) != 1:
        print("eval_speed: the two ways disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
