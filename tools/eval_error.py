"""The held-out error of each of a game's evaluations against deep searches.

    scripts/eval_error GAME [--data FILE] [--empties 30-45] [--bucket 4] [--per-bucket 300]
                            [--depth 16] [--seed 5]

For each bucket of `--bucket` empty squares in the range `--empties`, `--per-bucket`
held-out positions (`train_patterns.held_out`) are drawn (seeded) from FILE, a
`scripts/pattern_data` file (default `.cache/training/GAME/expert.npz`). Each is searched
to `--depth` by the engine at its defaults (a fresh table each), and every evaluation of
the game (`Game.evaluations`) is scored by its mean absolute error from that search's
score, in the game's units (centi-units / 100). The search evaluates with the game's
default evaluation, which favours it somewhat.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from games import all_games, find_game
from games.base import Position
from search.limits import Limits
from tools.pattern_data import default_folder, training_module
from tools.searching import analyse_board, tool_engine
from tools.train_patterns import held_out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/eval_error", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=sorted(all_games()))
    parser.add_argument("--data", type=Path, help="a scripts/pattern_data file (default .cache/training/GAME/expert.npz)")
    parser.add_argument("--empties", default="30-45", help="the range of empty squares (default 30-45)")
    parser.add_argument("--bucket", type=int, default=4, help="empty squares a bucket (default 4)")
    parser.add_argument("--per-bucket", type=int, default=300, help="positions a bucket (default 300)")
    parser.add_argument("--depth", type=int, default=16, help="the deep search's depth (default 16)")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    low, high = (int(part) for part in args.empties.split("-"))
    game = find_game(args.game)
    training = training_module(game.name)
    with np.load(args.data or default_folder(game.name) / "expert.npz") as stored:
        boards = stored["boards"]
        empties = stored["empties"] if "empties" in stored else training.empty_squares(boards)
    held = held_out(boards)
    engine = tool_engine(game.name)
    rng = np.random.default_rng(args.seed)
    variants = [game.with_evaluation(name) for name in game.evaluations]
    print(f"{'empty squares':>14} {'positions':>9} " + " ".join(f"{name:>9}" for name in game.evaluations))
    for first in range(low, high + 1, args.bucket):
        last = min(first + args.bucket - 1, high)
        chosen = rng.permutation(np.flatnonzero(held & (empties >= first) & (empties <= last)))[:args.per_bucket]
        errors: list[list[float]] = [[] for _ in variants]
        for index in chosen:
            position = Position(game, training.state_of(boards[index]))
            if not position.legal_moves():
                continue
            deep = analyse_board(engine, game.format_board(position), Limits(depth=args.depth))[-1].score
            for variant, error in zip(variants, errors):
                error.append(abs(variant.evaluate(Position(variant, position.s))[position.to_move] - deep) / 100)
        print(f"{f'{first}-{last}':>14} {len(errors[0]):>9} " + " ".join(f"{np.mean(error):9.2f}" for error in errors),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
