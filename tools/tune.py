"""Fit a game's evaluation weights to self-play games: Texel-style logistic regression of
each game's result on the evaluation's features, with weights by game phase.

    scripts/tune GAME [RUN_DIR ...] [--solved LABELS.jsonl ...] [--anchors 60,40,20,10,0] [--write]

RUN_DIR is an `engine-selfplay` run. Every recorded position (after the opening, and
not already proved: no `mate` score) is one sample: its features (the game's
`features` kernel) and the result for the player to move (1 win, 0.5 draw, 0 loss).
A position whose `features` phase is negative is left out: the evaluation values it by a
rule of its own (Lines of Action's win in one move), not by its weights.
`--solved` adds exact labels instead of game results: positions proved by
`scripts/proofs GAME label`, each labelled with its proved result for the side to move;
one position in HOLDOUT of them is held out.
The weights at each anchor phase are fitted together, a phase between two anchors using
the linear blend of their weights as the evaluation does; the model is
P(win) = 1 / (1 + exp(-K * value)) with the value in the evaluation's own units:

1. K is fitted first, to the current weights: the evaluation keeps its scale, so the
   search's margins and bounds keep their meaning.
2. The weights then minimise the cross-entropy of the results (L-BFGS, a light L2
   penalty), on the games whose index does not end in 0; those that do are held out,
   and the held-out loss of the current and the fitted weights is printed.

With `--write` the fitted weights replace the game's `weights.json`, with their source
(runs, games, positions, losses); without it they are printed. Accept them only when a
match shows they gain (`engine-arena ... --sprt`): a lower loss is not always more wins.
Two-player games with a `features` kernel only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np


from adapters.arena.selfplay import read_records
from games import find_game
from games.base import CLASSIC
from games.weights import FILE_NAME, Weights

#: One game in HOLDOUT is held out (its index modulo HOLDOUT is 0).
HOLDOUT = 10


class Samples:
    """The positions of self-play runs and of exact labels: phase, features, result for
    the player to move, and whether the sample is held out."""

    def __init__(self, game_name: str, runs: list[Path], solved: list[Path]):
        game = find_game(game_name)
        evaluation = game.with_evaluation(CLASSIC).evaluation
        phases, rows, labels, held, games = [], [], [], [], set()

        def add(board: str, label: float, held_out: bool) -> None:
            phase, terms = evaluation.features(game.parse_board(board.split()).s)
            if phase < 0:  # valued by a rule of the evaluation, not by its weights
                return
            phases.append(int(phase))
            rows.append([float(term) for term in terms])
            labels.append(label)
            held.append(held_out)

        for path in solved:
            for number, line in enumerate(path.read_text().splitlines()):
                sample = json.loads(line)
                add(sample["board"], float(sample["result"]), number % HOLDOUT == 0)
        for run in runs:
            for record in read_records(run):
                if record["game"] != game_name:
                    raise SystemExit(f"tune: {run} holds {record['game']} games, not {game_name}")
                games.add((str(run), record["index"]))
                points = record["result"]["points"]
                for move in record["moves"]:
                    if "board" not in move or "mate" in move or "error" in move:
                        continue
                    add(move["board"], points[move["player"]], record["index"] % HOLDOUT == 0)
        if not rows:
            raise SystemExit("tune: no positions in the runs or labels")
        self.weights: Weights = evaluation.WEIGHTS_DATA
        self.phases = np.array(phases)
        self.features = np.array(rows, dtype=float)
        self.labels = np.array(labels, dtype=float)
        self.held = np.array(held)
        self.games = len(games)


def cross_entropy(values: np.ndarray, labels: np.ndarray) -> float:
    """The mean cross-entropy of results `labels` under P(win) = sigmoid(values)."""
    return float(np.mean(np.logaddexp(0, values) - labels * values))


def blended(weights: Weights, phases: np.ndarray, features: np.ndarray) -> np.ndarray:
    """The design matrix: column (a, f) is feature f times anchor a's share of the phase."""
    shares = np.array([weights.blend(phase) for phase in range(weights.phases)])[phases]
    return (shares[:, :, None] * features[:, None, :]).reshape(len(phases), -1)


def fit_scale(values: np.ndarray, labels: np.ndarray) -> float:
    """K minimising the cross-entropy of sigmoid(K * values)."""
    from scipy.optimize import minimize_scalar

    result = minimize_scalar(lambda k: cross_entropy(k * values, labels), bounds=(1e-6, 1.0),
                             method="bounded", options={"xatol": 1e-9})
    return float(result.x)


def fit_weights(design: np.ndarray, labels: np.ndarray, start: np.ndarray, l2: float,
                offset: np.ndarray | None = None) -> np.ndarray:
    """Logistic-regression coefficients (in logits per unit of each column), from `start`,
    each sample's logit `offset` (default 0) added to the columns' part."""
    from scipy.optimize import minimize

    scale = design.std(axis=0)
    scale[scale == 0] = 1.0
    standard = design / scale
    offset = np.zeros(len(labels)) if offset is None else offset

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        values = standard @ theta + offset
        probability = 0.5 * (1 + np.tanh(values / 2))
        loss = cross_entropy(values, labels) + l2 * float(theta @ theta)
        gradient = standard.T @ (probability - labels) / len(labels) + 2 * l2 * theta
        return loss, gradient

    result = minimize(objective, start * scale, jac=True, method="L-BFGS-B",
                      options={"maxiter": 5000, "gtol": 1e-10, "ftol": 1e-14})
    return result.x / scale


def run_summary(run: Path) -> dict:
    """What made a self-play run: its name and the parameters in its run.json."""
    parameters = json.loads((run / "run.json").read_text())
    return {"name": run.name, **{key: parameters[key] for key in ("go", "seed", "random_plies")
                                 if key in parameters}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/tune", description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("runs", nargs="*", type=Path, metavar="RUN_DIR")
    parser.add_argument("--solved", action="append", type=Path, default=[], metavar="LABELS",
                        help="exact labels (scripts/proofs GAME label)")
    parser.add_argument("--anchors", default=None,
                        help="the anchor phases, comma-separated (default: those of weights.json)")
    parser.add_argument("--keep", default=None,
                        help="anchor phases, comma-separated, that keep their current weights (where no sample is)")
    parser.add_argument("--l2", type=float, default=1e-5, help="L2 penalty on standardised weights")
    parser.add_argument("--write", action="store_true", help="replace the game's weights.json")
    args = parser.parse_args(argv)

    started = time.monotonic()
    samples = Samples(args.game, args.runs, args.solved)
    current = samples.weights
    train, held = ~samples.held, samples.held
    values = np.einsum("nf,nf->n", current.table()[samples.phases].astype(float), samples.features)
    scale = fit_scale(values[train], samples.labels[train])
    kept = [int(text) for text in args.keep.split(",")] if args.keep else []
    anchors = ([int(text) for text in args.anchors.split(",")] if args.anchors else current.anchor_list)
    anchors = [point for point in anchors if point not in kept]
    missing = [point for point in kept if point not in current.anchors]
    if missing:
        raise SystemExit(f"tune: --keep {missing}: not anchors of the current weights")
    shape = Weights(current.features, current.phase, current.phases,
                    {point: (0,) * len(current.features) for point in [*anchors, *kept]})
    design = blended(shape, samples.phases, samples.features).reshape(len(samples.labels), len(shape.anchor_list), -1)
    free = [index for index, point in enumerate(shape.anchor_list) if point not in kept]
    fixed = [index for index, point in enumerate(shape.anchor_list) if point in kept]
    # The kept anchors' part of each value, in logits, is an offset of the fit.
    kept_weights = np.array([current.anchors[shape.anchor_list[index]] for index in fixed], dtype=float)
    offset = scale * np.einsum("naf,af->n", design[:, fixed], kept_weights.reshape(len(fixed), design.shape[2]))
    free_design = design[:, free].reshape(len(samples.labels), -1)
    # The problem is convex: starting from zero makes the fit a function of the data alone.
    theta = fit_weights(free_design[train], samples.labels[train], np.zeros(free_design.shape[1]), args.l2,
                        offset[train])
    fitted = dict(zip([shape.anchor_list[index] for index in free], theta.reshape(len(free), -1) / scale))
    new = Weights(current.features, current.phase, current.phases,
                  {point: tuple(int(round(value)) for value in fitted[point]) if point in fitted
                   else tuple(current.anchors[point]) for point in shape.anchor_list})
    new_values = np.einsum("nf,nf->n", new.table()[samples.phases].astype(float), samples.features)
    losses = {name: {"before": round(cross_entropy(scale * values[part], samples.labels[part]), 5),
                     "after": round(cross_entropy(scale * new_values[part], samples.labels[part]), 5)}
              for name, part in (("train", train), ("held_out", held))}
    how = " and ".join(kind for kind, used in (("self-play results", args.runs), ("exact labels", args.solved)) if used)
    source = {"how": f"scripts/tune: logistic regression of {how}", "runs": [run_summary(run) for run in args.runs],
              **({"solved": [path.name for path in args.solved]} if args.solved else {}),
              "games": samples.games, "positions": int(len(samples.labels)),
              "held_out_positions": int(held.sum()), "scale_per_unit": round(scale, 8),
              "cross_entropy": losses, "l2": args.l2, **({"kept": kept} if kept else {})}
    new = Weights(new.features, new.phase, new.phases, new.anchors, source)

    print(f"{args.game}: {samples.games} games, {len(samples.labels)} positions "
          f"({held.sum()} held out), K = {scale:.6f} per unit, {time.monotonic() - started:.1f} s")
    for name, loss in losses.items():
        print(f"  cross-entropy {name:<9} current {loss['before']:.5f}  fitted {loss['after']:.5f}")
    width = max(len(name) for name in current.features)
    print(f"  {'feature':<{width}} " + " ".join(f"{point:>7}" for point in new.anchor_list))
    for index, name in enumerate(current.features):
        print(f"  {name:<{width}} " + " ".join(f"{new.anchors[point][index]:>7}" for point in new.anchor_list))
    path = Path(find_game(args.game).with_evaluation(CLASSIC).evaluation.__file__).with_name(FILE_NAME)
    if args.write:
        path.write_text(new.to_json())
        print(f"wrote {path}")
    else:
        print(new.to_json(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
