"""Endgame solver reach: how many empty squares the exact solver finishes within a time
budget, from fixed Othello positions (seeded random games played down to each count).

Run it as `scripts/solve [--budget 1.0] [--positions 6] [--empties 8,10,12,14]`.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from games import find_game  # noqa: E402
from search.core import MAX_PLY, Aborted  # noqa: E402
from search.limits import StopSignal  # noqa: E402
from search.solver import WINDOW_LIMIT, Solver  # noqa: E402
from search.specialised import ready_searches  # noqa: E402
from search.work import ControlBridge, new_work  # noqa: E402


def position(game, seed: int, empties: int):
    """The position of seeded random game `seed` when `empties` squares are left."""
    rng = random.Random(seed)
    state = game.initial_state({})
    while game.format_board(state).split()[0].count(".") > empties and state.legal_moves():
        state = state.play(rng.choice(state.legal_moves()))
    return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--positions", type=int, default=6, help="positions per count")
    parser.add_argument("--empties", default="8,10,12,14", help="comma-separated counts")
    args = parser.parse_args()
    game = find_game("othello")
    kernels = ready_searches(game, compiled=True)
    moves = np.empty((MAX_PLY + 2, game.rules.MAX_MOVES), dtype=np.int64)
    reach = 0
    for empties in (int(text) for text in args.empties.split(",")):
        times = []
        for seed in range(args.positions):
            state = position(game, seed, empties)
            stop = StopSignal()
            stop.arm(time.monotonic_ns() + int(args.budget * 1e9), None, None)
            bridge = ControlBridge(stop, new_work(game.rules.HISTORY_MASK + 1))
            solver = Solver(kernels, bridge, moves)
            started = time.perf_counter()
            try:
                solver.solve(state, -1, 1)  # win, loss or draw first, as the engine does
                solver.solve(state, -WINDOW_LIMIT, WINDOW_LIMIT)
                times.append(time.perf_counter() - started)
            except Aborted:
                times.append(float("inf"))
        solved = sum(1 for elapsed in times if elapsed <= args.budget)
        shown = " ".join("-" if t == float("inf") else f"{t:.2f}" for t in times)
        print(f"{empties} empties: {solved}/{len(times)} solved within {args.budget:g} s  [{shown}]")
        if solved == len(times):
            reach = max(reach, empties)
    print(f"every position solved within {args.budget:g} s up to {reach} empties")
    return 0


if __name__ == "__main__":
    sys.exit(main())
