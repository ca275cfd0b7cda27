"""Fit a game's win/draw/loss model to self-play games: how likely the side to move is to
win, draw or lose, given the search's score.

    scripts/wdl GAME RUN_DIR [RUN_DIR ...] [--write]

The model is ordinal logistic in the score s (centi-units, the side to move's):

    P(win)  = 1 / (1 + exp(-k (s - o - m)))
    P(loss) = 1 / (1 + exp( k (s - o + m)))
    P(draw) = 1 - P(win) - P(loss)

with a scale k > 0, a draw margin m >= 0 (0 where the game has no draws) and an offset o
(0 in a two-player game, whose scores are symmetric). In a game of three players the
outcomes are ranks: first (a win), second (a draw) and last (a loss), from the records'
points 1, 0.5 and 0. Every recorded position with a `cp` score is a sample, labelled by
the game's result for the player to move, except proved results (`mate`, and a ranking a
three-player score proves): those are certain. k, m and o maximise the likelihood
(scipy). With `--write` the fit goes to the game's `wdl.json` (`daemon.wdl`
reads it for `ShowWDL`), with its source; without it, it is printed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


from adapters.arena.selfplay import read_records
from daemon.wdl import FILE_NAME, WdlModel, model_path
from games import find_game
from search.multiplayer import proven_rank_gap


def samples(game_name: str, runs: list[Path]) -> tuple[np.ndarray, np.ndarray, int]:
    """(scores, results: 1 win, 0.5 draw, 0 loss for the player to move, games); in a
    game of three players: 1 first, 0.5 second, 0 last, and no proved ranking."""
    players = find_game(game_name).num_players
    scores, results, games = [], [], 0
    for run in runs:
        for record in read_records(run):
            if record["game"] != game_name:
                raise SystemExit(f"wdl: {run} holds {record['game']} games, not {game_name}")
            games += 1
            points = record["result"]["points"]
            for move in record["moves"]:
                if "cp" in move and not (players > 2 and proven_rank_gap(move["cp"]) is not None):
                    scores.append(move["cp"])
                    results.append(points[move["player"]])
    if not scores:
        raise SystemExit("wdl: no scored positions in the runs")
    return np.array(scores, dtype=float), np.array(results, dtype=float), games


def log_likelihood(model: WdlModel, scores: np.ndarray, results: np.ndarray) -> float:
    """The mean log-likelihood of the results under `model`."""
    win, draw, loss = model.probabilities(scores)
    chosen = np.where(results == 1.0, win, np.where(results == 0.0, loss, draw))
    return float(np.mean(np.log(np.clip(chosen, 1e-12, None))))


def fit(scores: np.ndarray, results: np.ndarray, offset: bool = False) -> WdlModel:
    """The maximum-likelihood model (k and m through their logarithms, so both stay
    positive); the offset o is fitted when `offset`, else 0."""
    from scipy.optimize import minimize

    draws = bool(np.any(results == 0.5))

    def model(theta: np.ndarray) -> WdlModel:
        return WdlModel(float(np.exp(theta[0])), float(np.exp(theta[1])) if draws else 0.0,
                        offset=float(theta[2]) if offset else 0.0)

    start = np.array([np.log(0.005), np.log(50.0), float(np.median(scores)) if offset else 0.0])
    best = minimize(lambda theta: -log_likelihood(model(theta), scores, results), start, method="Nelder-Mead",
                    options={"xatol": 1e-6, "fatol": 1e-9, "maxiter": 8000})
    return model(best.x)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/wdl", description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    parser.add_argument("--write", action="store_true", help=f"write the game's {FILE_NAME}")
    args = parser.parse_args(argv)
    game = find_game(args.game)
    started = time.monotonic()
    scores, results, games = samples(game.name, args.runs)
    model = fit(scores, results, offset=game.num_players > 2)
    source = {"how": "scripts/wdl: ordinal logistic fit of self-play results on the search's scores",
              "runs": [run.name for run in args.runs], "games": games, "positions": int(len(scores)),
              "draws": round(float(np.mean(results == 0.5)), 4),
              "log_likelihood": round(log_likelihood(model, scores, results), 5)}
    model = WdlModel(model.scale, model.draw_margin, source, model.offset)
    print(f"{game.name}: {games} games, {len(scores)} positions, k = {model.scale:.6f} per centi-unit,"
          f" draw margin {model.draw_margin:.1f}, offset {model.offset:.1f},"
          f" mean log-likelihood {source['log_likelihood']}"
          f" ({time.monotonic() - started:.1f} s)")
    for score in (-400, -200, -100, 0, 100, 200, 400):
        print(f"  score {score:+5d}: wdl {' '.join(str(value) for value in model.per_mille(score))}")
    if args.write:
        path = model_path(game)
        path.write_text(json.dumps(model.to_json(), indent=1) + "\n")
        print(f"wrote {path}")
    else:
        print(json.dumps(model.to_json(), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
