"""Fit multi-ProbCut for a game's evaluation (search/alphabeta.py prunes with the fit).

    scripts/probcut GAME [--data FILE] [--per-row 100] [--depth 10] [--min-empties 20]
                         [--workers 2] [--seed 0] [--write]

Multi-ProbCut (Buro, 1997) predicts the score of a deep search from that of a shallow
one by a linear relation, deep ≈ a × shallow + b, whose deviation sigma says how far to
trust it. This fits the relation for each row of the evaluation's `probcut_row` (a game
phase) and each depth d from 3 to `--depth`, its shallow depth `shallow_depth(d)`:

- positions: `--per-row` of each row, drawn (seeded) from FILE, a data file of
  `scripts/pattern_data` (default `.cache/training/GAME/expert.npz`), among those with
  at least `--min-empties` empty squares (nearer the end the exact solver decides);
- scores: one search of each position to `--depth`, multi-ProbCut off, a score per
  iteration (each iteration of a deepening search is a full search to its depth);
- fit: least squares of each depth's scores on those of its shallow depth; sigma is the
  deviation of the residuals. A row with fewer than MIN_SAMPLES positions takes the
  fit of the nearest row that has them.

It prints the fit (a, b, sigma by row and depth) and, with `--write`, writes it beside
the evaluation as `probcut.json` (see `games.weights.read_probcut`).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import sys
import time
from pathlib import Path

import numpy as np

from games import all_games, find_game
from games.base import Position
from games.files import atomic_file
from games.weights import PROBCUT_FIELDS
from search.base import MATE_BOUND
from search.limits import Limits
from tools.pattern_data import default_folder, read_boards
from tools.searching import analyse_board, tool_engine

#: A row needs this many positions for a fit of its own.
MIN_SAMPLES = 30
#: Positions drawn for each one a row asks for.
DRAWS = 40
#: The shallowest depth fitted.
FIRST_DEPTH = 3


def shallow_depth(depth: int) -> int:
    """The shallow search of a search to `depth`: about half as deep, of the same
    parity (the score of a game of placing stones swings with the parity of the depth)."""
    shallow = depth // 2
    if (depth - shallow) % 2:
        shallow -= 1
    return max(shallow, depth % 2)


def depth_scores(task: tuple[str, str, int]) -> list[int | None]:
    """The score of each iteration 1..depth of a search of the position `board` of game
    `name`, multi-ProbCut off (None where an iteration proved a result); in a worker."""
    name, board, depth = task
    engine = tool_engine(name, (("ProbCut", 0),))
    scores: list[int | None] = [None] * (depth + 1)
    for report in analyse_board(engine, board, Limits(depth=depth)):
        if not report.final and abs(report.score) < MATE_BOUND:
            scores[report.depth] = report.score
    return scores


def sample(game_name: str, data: Path, per_row: int, min_empties: int, seed: int) -> tuple[list[str], list[int]]:
    """(board texts, rows) of `per_row` positions of each row drawn from `data`."""
    game = find_game(game_name)
    training, boards, empties = read_boards(game.name, data)
    rng = np.random.default_rng(seed)
    order = rng.permutation(np.flatnonzero(empties >= min_empties))
    taken: dict[int, list[str]] = {}
    # Rows rare in the data (the very start) stay short rather than cost a pass over all.
    for index in order[:DRAWS * per_row]:
        position = Position(game, training.state_of(boards[index]))
        row = int(game.evaluation.probcut_row(position.s))
        if len(taken.setdefault(row, [])) < per_row and position.legal_moves():
            taken[row].append(game.format_board(position))
    texts = [board for row in sorted(taken) for board in taken[row]]
    rows = [row for row in sorted(taken) for _ in taken[row]]
    return texts, rows


def fit(scores: np.ndarray, rows: np.ndarray, row_count: int, depth: int) -> tuple[np.ndarray, list[str]]:
    """The fit (row_count, depth + 1, 4) from `scores` (positions, depth + 1; NaN where
    missing), and a line per row and depth that says it."""
    table = np.zeros((row_count, depth + 1, len(PROBCUT_FIELDS)))
    said = []
    fitted = set()
    for row in range(row_count):
        for d in range(FIRST_DEPTH, depth + 1):
            shallow = shallow_depth(d)
            x, y = scores[rows == row, shallow], scores[rows == row, d]
            keep = ~np.isnan(x) & ~np.isnan(y)
            if keep.sum() < MIN_SAMPLES:
                continue
            a, b = np.polyfit(x[keep], y[keep], 1)
            sigma = float(np.std(y[keep] - (a * x[keep] + b)))
            if a <= 0:
                continue
            table[row, d] = (shallow, a, b, sigma)
            fitted.add(row)
            said.append(f"row {row:2d} depth {d:2d}/{shallow}: a {a:.3f} b {b:7.1f} sigma {sigma:6.1f} ({keep.sum()})")
    for row in range(row_count):
        if row not in fitted and fitted:
            table[row] = table[min(fitted, key=lambda other: abs(other - row))]
    return table, said


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/probcut", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(all_games()))
    parser.add_argument("--data", type=Path, help="a scripts/pattern_data file (default .cache/training/GAME/expert.npz)")
    parser.add_argument("--per-row", type=int, default=100, help="positions of each row (default 100)")
    parser.add_argument("--depth", type=int, default=10, help="the deepest search fitted (default 10)")
    parser.add_argument("--min-empties", type=int, default=20, help="empty squares a position needs (default 20)")
    parser.add_argument("--workers", type=int, default=2, help="searches at a time (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true", help="write the fit beside the evaluation")
    args = parser.parse_args(argv)
    if args.depth < FIRST_DEPTH or min(args.per_row, args.workers) < 1:
        parser.error(f"--depth must be {FIRST_DEPTH} or more, --per-row and --workers positive")
    game = find_game(args.game)
    if not hasattr(game.evaluation, "probcut_row"):
        raise SystemExit(f"probcut: the evaluation of {game.name} has no probcut_row")
    data = args.data or default_folder(game.name) / "expert.npz"
    started = time.monotonic()
    boards, rows = sample(game.name, data, args.per_row, args.min_empties, args.seed)
    with concurrent.futures.ProcessPoolExecutor(args.workers) as pool:
        found = list(pool.map(depth_scores, [(game.name, board, args.depth) for board in boards], chunksize=4))
    scores = np.array([[np.nan if score is None else score for score in line] for line in found])
    row_count = int(game.evaluation.PHASES) if hasattr(game.evaluation, "PHASES") else max(rows) + 1
    table, said = fit(scores, np.array(rows), row_count, args.depth)
    print("\n".join(said))
    seconds = round(time.monotonic() - started)
    print(f"{len(boards)} positions searched to depth {args.depth} in {seconds} s")
    if args.write:
        path = Path(game.evaluation.__file__).with_name("probcut.json")
        source = {"data": str(data), "positions": len(boards), "per_row": args.per_row, "depth": args.depth,
                  "min_empties": args.min_empties, "seed": args.seed, "seconds": seconds}
        with atomic_file(path, "w", encoding="utf-8") as out:
            json.dump({"format": 1, "fields": list(PROBCUT_FIELDS), "source": source,
                       "fit": np.round(table, 4).tolist()}, out)
            out.write("\n")
        print(f"written {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
