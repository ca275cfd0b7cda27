"""Build a game's table of small parts (`games/GAME/parts.py`): the outcome class of every
live part of up to the table's size, each under its canonical key.

    scripts/parts_table GAME [--stones N] [--out FILE]

The game's `canonical_parts` lists one part for each canonical key; each is solved
exactly (`search.solver`) with either side moving first (`positions_to_solve`). Prints
the counts and the time; writes the sorted table (key << 2 | class) to the game's
TABLE_FILE or FILE.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from games import find_game
from games.kernel import interpreted_namespace
from search.solver import new_solver_table
from search.specialised import searches
from search.work import accumulator_rows, move_rows, new_work


def classify(game_name: str, parts: ModuleType, found: dict[int, tuple[int, int]]) -> np.ndarray:
    """The sorted table entries (key << 2 | class) of the parts `found`, each solved."""
    game = find_game(game_name)
    kernels = searches(game)
    work = new_work(kernels.HISTORY_MASK + 1)
    moves = move_rows(kernels.MAX_MOVES)
    accumulators = accumulator_rows(kernels.ACCUMULATOR)
    table = new_solver_table(64 << 20)
    classes = dict.fromkeys(found, 0)
    for key, state, bit in parts.positions_to_solve(found, interpreted_namespace(game.rules).make_state):
        if kernels.solve(state, -1, 1, table, work, moves, accumulators) > 0:
            classes[key] |= bit
    return np.array(sorted(key << 2 | found_class for key, found_class in classes.items()), dtype=np.int64)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--stones", type=int, default=None, help="the largest parts (default: the table's size)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    parts = find_game(args.game).parts
    if parts is None:
        parser.error(f"{args.game} has no table of small parts")
    stones = args.stones or parts.TABLE_STONES
    if not 2 <= stones <= parts.TABLE_STONES:
        parser.error(f"--stones must be 2 to {parts.TABLE_STONES}")
    start = time.perf_counter()
    found = parts.canonical_parts(stones)
    print(f"{len(found)} parts up to {stones} stones ({time.perf_counter() - start:.1f} s)")
    entries = classify(args.game, parts, found)
    classes = np.bincount(entries & 3, minlength=4)
    print(f"second player wins {classes[0]}, first colour wins {classes[1]}, second colour wins "
          f"{classes[2]}, first player wins {classes[3]} ({time.perf_counter() - start:.1f} s)")
    out = args.out or parts.TABLE_FILE
    np.save(out, entries)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
