"""Endgame solver reach: how many empty squares the engine solves exactly (its search
reports the exact final margin) within a time budget, in a game that fills its board,
from fixed positions (seeded random games played down to each count).

Run it as `scripts/solve GAME [--budget 1.0] [--positions 6] [--empties 8,10,12,14]`.
It drives the engine a session drives (`daemon.engine.SessionEngine`) with `go movetime`.
With `--times` it proves each position outright instead (`SessionEngine.prove`, no budget) and
prints the solve times per count (the data of a game's solve-time model) and the nodes
of all the proofs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys


from games import find_game
from games.base import Game, Position
from search.limits import Limits
from tools.searching import loaded_engine, percentiles


def empties(game: Game, position: Position) -> int:
    """The empty cells of the position's board text."""
    return game.format_board(position).split()[0].count(".")


def position(game: Game, seed: int, count: int) -> Position:
    """The position of seeded random game `seed` once `count` cells are left empty."""
    rng = random.Random(seed)
    state = game.initial_state({})
    while empties(game, state) > count and state.legal_moves():
        state = state.play(rng.choice(state.legal_moves()))
    return state


async def reach(game: Game, budget: float, positions: int, counts: list[int]) -> None:
    engine = await loaded_engine(game.name)
    best = 0
    for count in counts:
        times: list[float | None] = []
        for seed in range(positions):
            engine.hash_clear()
            board = game.format_board(position(game, seed, count))
            engine.set_position(tuple(board.split()), ())
            final = (await engine.analyse(Limits(movetime=int(budget * 1000))))[-1]
            times.append(final.elapsed_ms / 1000 if final.margin is not None else None)
        solved = sum(1 for elapsed in times if elapsed is not None)
        shown = " ".join("-" if elapsed is None else f"{elapsed:.2f}" for elapsed in times)
        print(f"{count} empties: {solved}/{len(times)} solved exactly within {budget:g} s  [{shown}]")
        if solved == len(times):
            best = max(best, count)
    print(f"every position solved exactly within {budget:g} s up to {best} empties")


async def solve_times(game: Game, positions: int, counts: list[int]) -> None:
    engine = await loaded_engine(game.name)
    for count in counts:
        proofs, margins, nodes = [], [], []
        for seed in range(positions):
            engine.hash_clear()
            board = game.format_board(position(game, seed, count))
            engine.set_position(tuple(board.split()), ())
            reports = await engine.prove(Limits())
            proofs.append(reports[0].elapsed_ms)
            margins.append(reports[-1].elapsed_ms)
            nodes.append(reports[-1].nodes)
        print(f"{count} empties: win/loss/draw {percentiles([ms / 1000 for ms in proofs])}; "
              f"exact margin {percentiles([ms / 1000 for ms in margins])}; "
              f"{sum(nodes):,} nodes in all", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", help="a game that fills its board")
    parser.add_argument("--budget", type=float, default=1.0, help="seconds per position")
    parser.add_argument("--positions", type=int, default=6, help="positions per count")
    parser.add_argument("--empties", default="8,10,12,14", help="comma-separated counts")
    parser.add_argument("--times", action="store_true", help="print solve times, no budget")
    args = parser.parse_args()
    counts = [int(text) for text in args.empties.split(",")]
    if args.times:
        asyncio.run(solve_times(find_game(args.game), args.positions, counts))
    else:
        asyncio.run(reach(find_game(args.game), args.budget, args.positions, counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
