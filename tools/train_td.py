"""Train a multi-player game's pattern evaluation by temporal differences on recorded
games, and measure it against the game's hand-set evaluation.

    scripts/train_td GAME RECORDS... [--lam 0.7] [--sweeps 3] [--damp 1.0] [--write [FILE]]
                                     [--curve FILE.png] [--limit N]

RECORDS are `engine-arena` output folders (their `*.json` game records) or record files;
a game recorded twice (the same start and moves) counts once, and a game in which a
player timed out, crashed or sent an invalid action is left out.

The evaluation (the game's `training` module) values each player still in; for two such
players p and q at an open position, the chance that p finishes ahead of q is the
logistic function of (value p - value q) / VALUE_SCALE. The weights of each phase
minimise the cross-entropy of those chances against targets, plus a ridge penalty
(`--damp`, per position) that keeps rare configurations near zero, by L-BFGS (scipy).

The targets are TD(lambda) returns, swept `--sweeps` times: the first sweep learns from
the games' results alone (lambda = 1, Monte Carlo); each later one from the lambda-return
of the previous weights' own predictions along the game, G(t) = (1 - lambda) P(t + 1) +
lambda G(t + 1), which ends in the result where one of the two is out or the position
is decided.

One game in HOLDOUT (by a hash of its moves) is held out. Printed per phase: the held-out
cross-entropy (nats; a coin is 0.693) against the real results, of the trained weights
after each sweep and of the hand-set evaluation (its values over a scale fitted on the
training positions of the phase, the fairest reading of a hand-set scale).

`--write` saves the last sweep's weights, in value units (float32), to the game's
WEIGHTS_FILE (`--write FILE`: to FILE). `--curve FILE` trains again on 1/16 .. all of the
training games and plots held-out cross-entropy against the number of games
(matplotlib): whether more games would still help.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import numpy as np
from scipy import optimize, sparse

from games import all_games, find_game
from games.base import Game

#: One game in HOLDOUT is held out.
HOLDOUT = 10
#: Players' departures that end a record's use.
LEAVING = ("timeout", "crashed", "invalid")


@dataclass
class Pairs:
    """Every ordered pair (p, q) of players still in at every open position of the
    games, p < q: its game, position (index within the game's open positions, counted
    from 0) and phase, its features (row of `design`: p's features less q's, at the
    phase's offset), the hand-set evaluation's value difference, and the result (1 if p
    finished ahead, 0.5 level, 0 behind). `step[i]` is the row of the same pair at the
    next open position of its game, -1 where its episode ends there."""

    design: sparse.csr_matrix
    game: np.ndarray
    phase: np.ndarray
    classic: np.ndarray
    result: np.ndarray
    step: np.ndarray
    held: np.ndarray


def _record_files(paths: list[Path]) -> list[Path]:
    files = []
    for path in paths:
        files.extend(sorted(path.glob("*.json")) if path.is_dir() else [path])
    return files


def read_games(game: Game, paths: list[Path], limit: int | None) -> list[tuple[list[tuple], tuple[int, ...]]]:
    """(states, final scores) of every usable game of `paths` (see the module
    docstring), states from the start to the last position."""
    games, seen = [], set()
    for path in _record_files(paths):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("game") != game.name or "result" not in record:
            continue
        if any(event.get("event") in LEAVING for event in record.get("events", ())):
            continue
        moves = tuple(move["move"] for move in record["moves"])
        if (record["start"], moves) in seen:
            continue
        seen.add((record["start"], moves))
        position = game.parse_board(record["start"].split())
        states = [position.s]
        for text in moves:
            position = position.play(game.parse_move(position, text))
            states.append(position.s)
        games.append((states, tuple(record["result"]["scores"])))
        if limit and len(games) >= limit:
            break
    return games


def _held(states: list[tuple]) -> bool:
    return zlib.crc32(repr([int(s[-1]) for s in states]).encode()) % HOLDOUT == 0


def build_pairs(training: ModuleType, games: list[tuple[list[tuple], tuple[int, ...]]]) -> Pairs:
    """The pairs of every open position of `games` (see `Pairs`)."""
    size = training.WEIGHTS_SIZE
    rows, cols, vals = [], [], []
    game_of, phase_of, classic, result, step, held = [], [], [], [], [], []
    for index, (states, scores) in enumerate(games):
        is_held = _held(states)
        last: dict[tuple[int, int], int] = {}
        for s in states:
            found = training.open_rows(s)
            if found is None:
                continue
            phase, players = found
            values = training.classic_values(s)
            current = {}
            for a in range(len(players)):
                for b in range(a + 1, len(players)):
                    p, slots_p, values_p = players[a]
                    q, slots_q, values_q = players[b]
                    row = len(result)
                    offset = phase * size
                    rows.extend([row] * (len(slots_p) + len(slots_q)))
                    cols.extend((slots_p + offset).tolist() + (slots_q + offset).tolist())
                    vals.extend(values_p.tolist() + (-values_q).tolist())
                    game_of.append(index)
                    phase_of.append(phase)
                    classic.append(float(values[p] - values[q]))
                    result.append(1.0 if scores[p] > scores[q] else 0.5 if scores[p] == scores[q] else 0.0)
                    held.append(is_held)
                    step.append(-1)
                    if (p, q) in last:
                        step[last[(p, q)]] = row
                    current[(p, q)] = row
            last = current
    design = sparse.csr_matrix((vals, (rows, cols)), shape=(len(result), training.PHASES * size))
    return Pairs(design, np.array(game_of), np.array(phase_of), np.array(classic), np.array(result),
                 np.array(step), np.array(held, dtype=bool))


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def cross_entropy(z: np.ndarray, target: np.ndarray) -> float:
    """The mean cross-entropy (nats) of chances sigmoid(z) against `target`."""
    p = np.clip(_sigmoid(z), 1e-9, 1 - 1e-9)
    return float(np.mean(-(target * np.log(p) + (1 - target) * np.log(1 - p))))


def fit(design: sparse.csr_matrix, target: np.ndarray, damp: float, start: np.ndarray) -> np.ndarray:
    """Weights (in logistic units) minimising the summed cross-entropy of
    sigmoid(design @ w) against `target` plus damp x |w|^2, from `start`."""
    n = design.shape[0]
    transposed = design.T.tocsr()

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ w
        p = _sigmoid(z)
        pc = np.clip(p, 1e-12, 1 - 1e-12)
        value = -np.sum(target * np.log(pc) + (1 - target) * np.log(1 - pc)) + damp * (w @ w)
        gradient = transposed @ (p - target) + 2 * damp * w
        return value / n, gradient / n

    return optimize.minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": 400}).x


def td_targets(pairs: Pairs, z: np.ndarray, lam: float) -> np.ndarray:
    """The lambda-returns of every pair under predictions sigmoid(z), from the end of
    each episode back (rows of one game are in order, so a reverse pass suffices)."""
    predicted = _sigmoid(z)
    targets = pairs.result.copy()
    for row in range(len(targets) - 1, -1, -1):
        following = pairs.step[row]
        if following >= 0:
            targets[row] = (1 - lam) * predicted[following] + lam * targets[following]
    return targets


def classic_scale(pairs: Pairs, rows: np.ndarray) -> float:
    """The scale that best reads the hand-set value differences of `rows` as chances."""
    diff, result = pairs.classic[rows], pairs.result[rows]
    best = optimize.minimize_scalar(lambda log_scale: cross_entropy(diff / np.exp(log_scale), result),
                                    bounds=(np.log(20), np.log(1e5)), method="bounded")
    return float(np.exp(best.x))


def train(pairs: Pairs, train_rows: np.ndarray, lam: float, sweeps: int, damp: float,
          report=None) -> list[np.ndarray]:
    """The weights after each sweep (logistic units), trained on `train_rows`."""
    design = pairs.design[train_rows]
    weights = np.zeros(pairs.design.shape[1])
    targets = pairs.result[train_rows]
    history = []
    for sweep in range(sweeps):
        weights = fit(design, targets, damp, weights)
        history.append(weights)
        if report:
            report(sweep, weights)
        full = td_targets(pairs, pairs.design @ weights, lam)
        targets = full[train_rows]
    return history


def main(argv: list[str] | None = None) -> int:
    multi = sorted(name for name, game in all_games().items() if game.num_players > 2 and game.training is not None)
    parser = argparse.ArgumentParser(prog="scripts/train_td", description=__doc__.split("\n\n")[0])
    parser.add_argument("game", choices=multi)
    parser.add_argument("records", nargs="+", type=Path, help="engine-arena output folders or record files")
    parser.add_argument("--lam", type=float, default=0.7, help="TD lambda of the sweeps after the first (default 0.7)")
    parser.add_argument("--sweeps", type=int, default=3, help="training sweeps (default 3)")
    parser.add_argument("--damp", type=float, default=1.0, help="ridge penalty (default 1.0)")
    parser.add_argument("--write", nargs="?", const="", default=None, metavar="FILE",
                        help="save the weights (to the game's weights file, or FILE)")
    parser.add_argument("--curve", type=Path, help="plot held-out error against training games to this file")
    parser.add_argument("--limit", type=int, help="read at most this many games")
    args = parser.parse_args(argv)
    game = find_game(args.game)
    training = game.training
    started = time.perf_counter()
    games = read_games(game, args.records, args.limit)
    if not games:
        print("no usable game in the records", file=sys.stderr)
        return 1
    pairs = build_pairs(training, games)
    train_rows = np.flatnonzero(~pairs.held)
    test_rows = np.flatnonzero(pairs.held)
    print(f"{len(games)} games, {len(pairs.result)} pairs ({len(test_rows)} held out) "
          f"in {time.perf_counter() - started:.1f} s")
    phases = sorted(set(pairs.phase.tolist()), reverse=True)
    columns = {"pairs": {}, "coin": {}, "hand-set": {}}
    for phase in phases:
        train_phase = train_rows[pairs.phase[train_rows] == phase]
        test_phase = test_rows[pairs.phase[test_rows] == phase]
        scale = classic_scale(pairs, train_phase)
        columns["pairs"][phase] = len(test_phase)
        columns["coin"][phase] = cross_entropy(np.zeros(len(test_phase)), pairs.result[test_phase])
        columns["hand-set"][phase] = cross_entropy(pairs.classic[test_phase] / scale, pairs.result[test_phase])

    def report(sweep: int, weights: np.ndarray) -> None:
        z = pairs.design @ weights
        columns[f"sweep {sweep + 1}"] = {
            phase: cross_entropy(z[rows], pairs.result[rows])
            for phase in phases for rows in [test_rows[pairs.phase[test_rows] == phase]]}

    history = train(pairs, train_rows, args.lam, args.sweeps, args.damp, report)
    _print_table(training, phases, columns)
    if args.curve:
        _plot_curve(args, pairs, train_rows, test_rows, len(games))
    if args.write is not None:
        path = Path(args.write) if args.write else training.WEIGHTS_FILE
        weights = (history[-1] * training.VALUE_SCALE).reshape(training.PHASES, training.WEIGHTS_SIZE)
        np.save(path, weights.astype(np.float32))
        print(f"wrote {path}")
    return 0


def _print_table(training: ModuleType, phases: list[int], columns: dict[str, dict[int, float]]) -> None:
    names = list(columns)
    print("held-out cross-entropy (nats) by phase (free squares):")
    print("  ".join(f"{name:>10}" for name in ["phase", *names]))
    for phase in phases:
        low = phase * (64 // training.PHASES)
        cells = [f"{low}-{low + 64 // training.PHASES - 1}"]
        for name in names:
            value = columns[name][phase]
            cells.append(f"{value:d}" if isinstance(value, int) else f"{value:.4f}")
        print("  ".join(f"{cell:>10}" for cell in cells))


def _plot_curve(args: argparse.Namespace, pairs: Pairs, train_rows: np.ndarray, test_rows: np.ndarray,
                count: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    train_games = np.unique(pairs.game[train_rows])
    sizes, errors = [], []
    for fraction in (1 / 16, 1 / 8, 1 / 4, 1 / 2, 1):
        chosen = train_games[: max(1, int(len(train_games) * fraction))]
        rows = train_rows[np.isin(pairs.game[train_rows], chosen)]
        weights = train(pairs, rows, args.lam, args.sweeps, args.damp)[-1]
        sizes.append(len(chosen))
        errors.append(cross_entropy(pairs.design[test_rows] @ weights, pairs.result[test_rows]))
        print(f"  {len(chosen)} training games: held-out cross-entropy {errors[-1]:.4f}")
    figure, axes = pyplot.subplots(figsize=(6, 4))
    axes.plot(sizes, errors, marker="o")
    axes.set_xscale("log")
    axes.set_xlabel("training games")
    axes.set_ylabel("held-out cross-entropy (nats)")
    axes.set_title(f"{args.game}: TD(lambda={args.lam}) pattern evaluation, {count} games")
    figure.tight_layout()
    figure.savefig(args.curve)
    print(f"wrote {args.curve}")


if __name__ == "__main__":
    sys.exit(main())
