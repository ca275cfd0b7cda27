"""Train a game's pattern evaluation (games/<game>/patterns.py, through its `training`
module) on the labelled positions of `scripts/pattern_data`, and measure it against the
game's hand-set evaluation.

    scripts/train_patterns GAME [--data DIR] [--write [FILE]] [--damp 3] [--iterations 300]
                                [--deep-weight 1] [--phases 0-15] [--curve FILE.png] [--limit N]

Every position of DIR/*.npz gets one label, its final margin for the side to move: the
exact margin where the position was solved (`pattern_data solve`); else the score of a
deep search where one was made (`pattern_data search`); else, with at least
the training module's THEORY_EMPTIES empty squares, the theoretical score of the expert
games through it (perfect play from their position at that point); else the real final
score of its games.

For each phase (`patterns.PHASE_OF`) the weights minimise the squared error of the
evaluation, in units of the margin, over the positions of that phase and of `SMOOTH`
empty squares on either side (which blends neighbouring phases), a deep search's label
counting `--deep-weight` times, plus a ridge penalty (`--damp`) that keeps the weights
of rare configurations near zero: a sparse
least-squares problem (a row a position, a column a pattern configuration or scalar
term), solved with scipy's LSQR. A configuration and its mirror image within its pattern
share one column (`patterns.canonical_slots`), so the evaluation keeps the board's
symmetries.

One position in HOLDOUT (by a hash of its boards) is held out. Printed per phase: the
mean absolute error on held-out positions, against their labels, against exact labels
alone (solved, or the theoretical score at exactly THEORY_EMPTIES empty squares) and
against deep searches' labels alone, for the
trained weights and for the hand-set evaluation (its centi-units scaled by a factor fitted
on the training positions, the fairest reading of a hand-set scale).

`--write` saves the weights to the pattern module's WEIGHTS_FILE (int16 centi-units),
`--write FILE` to FILE, the phases not trained as the module's file has them.
`--curve FILE` trains the phases again on 1/32 .. all of their training positions and
plots held-out error against the number of positions (matplotlib): whether more data
would still help.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from types import ModuleType

import numpy as np

from tools.pattern_data import UNSOLVED, default_folder, exact_labels, load, searched_labels, training_module

#: Positions of this many empty squares on either side of a phase train it too.
SMOOTH = 2
#: One position in HOLDOUT is held out.
HOLDOUT = 20


def held_out(boards: np.ndarray) -> np.ndarray:
    """Whether each position (a row of `boards`) is held out: one in HOLDOUT, by a hash
    of its boards, the same in every run."""
    mixed = np.zeros(len(boards), dtype=np.uint64)
    for column in range(boards.shape[1]):
        mixed = (mixed ^ boards[:, column]) * np.uint64(0x9E3779B97F4A7C15)
    return (mixed >> np.uint64(40)) % np.uint64(HOLDOUT) == 0


class Positions:
    """Every labelled position of the data folder, with its features (the game's
    `training.board_features`): `boards`, `empties`, `label`, `exact` (whether the label
    is exact), `deep` (whether a deep search's), `indices` (weight slots), `scalars`, `classic` (the hand-set value) and
    `held` (held out)."""

    def __init__(self, training: ModuleType, folder: Path, limit: int | None):
        parts: dict[str, list[np.ndarray]] = {name: [] for name in ("boards", "empties", "label", "exact", "deep")}
        for path in sorted(folder.glob("*.npz")):
            data = load(path)
            if limit:
                data = {name: values[:limit] for name, values in data.items()}
            exact = exact_labels(path, len(data["boards"]))
            solved = exact != UNSOLVED
            searched = searched_labels(path, len(data["boards"]))
            deep = ~solved & ~np.isnan(searched)
            theory = (data["empties"] >= training.THEORY_EMPTIES) & ~np.isnan(data["theory"])
            label = np.where(solved, exact, np.where(deep, searched, np.where(theory, data["theory"], data["real"])))
            label = label.astype(np.float32)
            known = ~np.isnan(label)
            parts["deep"].append(deep[known])
            parts["boards"].append(data["boards"][known])
            parts["empties"].append(data["empties"][known])
            parts["label"].append(label[known])
            parts["exact"].append((solved | (theory & (data["empties"] == training.THEORY_EMPTIES)))[known])
        if not parts["boards"]:
            raise SystemExit(f"train_patterns: no positions in {folder} (scripts/pattern_data makes them)")
        for name, values in parts.items():
            setattr(self, name, np.concatenate(values))
        patterns = training.patterns
        count = len(self.boards)
        self.indices = np.zeros((count, patterns.INSTANCES), dtype=np.int32)
        self.scalars = np.zeros((count, len(patterns.SCALARS)), dtype=np.int8)
        self.classic = np.zeros(count, dtype=np.int32)
        started = time.perf_counter()
        training.board_features(self.boards, self.indices, self.scalars, self.classic)
        print(f"{count} labelled positions ({int(self.exact.sum())} exactly, {int(self.deep.sum())} by deep "
              f"searches), features in "
              f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
        self.held = held_out(self.boards)


class Trainer:
    """Fits a game's pattern weights, phase by phase."""

    def __init__(self, training: ModuleType, positions: Positions, damp: float, iterations: int,
                 deep_weight: float = 1.0):
        self.patterns = training.patterns
        self.positions = positions
        self.damp = damp
        self.iterations = iterations
        self.deep_weight = deep_weight
        self.slots = self.patterns.canonical_slots()

    def design(self, rows: np.ndarray):
        """The sparse matrix of `rows` over the columns they use: (matrix, the weight
        slot of each column)."""
        from scipy import sparse

        positions, scalars = self.positions, len(self.patterns.SCALARS)
        slots = self.slots[positions.indices[rows]]
        used, inverse = np.unique(slots, return_inverse=True)
        columns = np.concatenate([np.tile(np.arange(scalars), (len(rows), 1)),
                                  scalars + inverse.reshape(slots.shape)], axis=1)
        values = np.concatenate([positions.scalars[rows].astype(np.float64), np.ones(slots.shape)], axis=1)
        width = columns.shape[1]
        matrix = sparse.csr_matrix((values.ravel(), columns.ravel(), np.arange(0, len(rows) * width + 1, width)),
                                   shape=(len(rows), scalars + len(used)))
        matrix.sum_duplicates()
        return matrix, np.concatenate([np.arange(scalars), used])

    def fit(self, rows: np.ndarray) -> np.ndarray:
        """The weights (margin units, float) of every slot of a phase, fitted to `rows`."""
        from scipy.sparse.linalg import lsqr

        from scipy import sparse

        matrix, slots = self.design(rows)
        # A deep search's label counts deep_weight times in the squared error.
        scale = np.where(self.positions.deep[rows], np.sqrt(self.deep_weight), 1.0)
        solution = lsqr(sparse.diags(scale) @ matrix, scale * self.positions.label[rows], damp=self.damp,
                        iter_lim=self.iterations, atol=1e-6, btol=1e-6)[0]
        weights = np.zeros(self.patterns.WEIGHTS_SIZE)
        weights[slots] = solution
        return weights[self.slots]  # a mirror image's slot takes its column's weight too

    def predict(self, weights: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """The evaluation of `rows` with one phase's `weights` (float)."""
        positions, scalars = self.positions, len(self.patterns.SCALARS)
        return positions.scalars[rows] @ weights[:scalars] + weights[positions.indices[rows]].sum(axis=1)

    def phase_rows(self, phase: int) -> tuple[np.ndarray, np.ndarray]:
        """(training rows, held-out rows) of a phase: the positions of its empty squares
        and SMOOTH on either side for training; of its own alone for the held-out ones."""
        empties = self.positions.empties
        mine = np.flatnonzero(self.patterns.PHASE_OF == phase)
        low, high = int(mine.min()), int(mine.max())
        held = self.positions.held
        train = np.flatnonzero((empties >= low - SMOOTH) & (empties <= high + SMOOTH) & ~held)
        return train, np.flatnonzero((empties >= low) & (empties <= high) & held)

    def classic_scale(self) -> float:
        """The margin units a centi-unit of the hand-set evaluation is worth, fitted (least
        squares) on the training positions with 20 or more empty squares."""
        positions = self.positions
        rows = np.flatnonzero(~positions.held & (positions.empties >= 20))
        value = positions.classic[rows].astype(np.float64)
        return float(value @ positions.label[rows] / max(value @ value, 1.0))

    def train(self, phases: list[int]) -> np.ndarray:
        """The weights of `phases` (the others zero), with a table of held-out errors."""
        positions = self.positions
        scale = self.classic_scale()
        weights = np.zeros((self.patterns.PHASES, self.patterns.WEIGHTS_SIZE))
        print(f"hand-set evaluation read at {scale * 100:.3f} units per 100 centi-units", file=sys.stderr)
        print("phase  empties    train    held | held-out MAE: new  hand-set | exact held  MAE: new  hand-set |"
              "  deep held  MAE: new  hand-set     s")
        for phase in phases:
            started = time.perf_counter()
            train_rows, held_rows = self.phase_rows(phase)
            if not len(train_rows):
                continue
            weights[phase] = self.fit(train_rows)
            new = np.abs(self.predict(weights[phase], held_rows) - positions.label[held_rows])
            old = np.abs(positions.classic[held_rows] * scale - positions.label[held_rows])
            exact, deep = positions.exact[held_rows], positions.deep[held_rows]
            span = np.flatnonzero(self.patterns.PHASE_OF == phase)
            print(f"{phase:5d}  {span.min():2d}-{span.max():2d}  {len(train_rows):8d} {len(held_rows):7d} |"
                  f" {_mean(new):16.2f} {_mean(old):9.2f} | {int(exact.sum()):10d} {_mean(new[exact]):9.2f}"
                  f" {_mean(old[exact]):9.2f} | {int(deep.sum()):10d} {_mean(new[deep]):9.2f} {_mean(old[deep]):9.2f}"
                  f" {time.perf_counter() - started:5.0f}", flush=True)
        return weights

    def learning_curve(self, phases: list[int], path: Path) -> None:
        """Plot the held-out error of `phases` against the share of their training
        positions used (1/32 to all)."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rng = np.random.default_rng(0)
        figure, axes = plt.subplots(figsize=(7, 4.5))
        for phase in phases:
            train_rows, held_rows = self.phase_rows(phase)
            sizes, errors = [], []
            for share in (1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 1):
                rows = rng.permutation(train_rows)[:max(1, int(share * len(train_rows)))]
                error = _mean(np.abs(self.predict(self.fit(rows), held_rows) - self.positions.label[held_rows]))
                sizes.append(len(rows))
                errors.append(error)
                print(f"phase {phase}: {len(rows)} positions, held-out MAE {error:.2f}", file=sys.stderr, flush=True)
            span = np.flatnonzero(self.patterns.PHASE_OF == phase)
            axes.plot(sizes, errors, marker="o", label=f"{span.min()}-{span.max()} empty squares")
        axes.set_xscale("log")
        axes.set_xlabel("training positions (distinct)")
        axes.set_ylabel("held-out mean absolute error (margin)")
        axes.set_title("Pattern evaluation: learning curve")
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
        figure.tight_layout()
        figure.savefig(path, dpi=110)
        print(f"learning curve -> {path}", file=sys.stderr)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else float("nan")


def phase_list(text: str) -> list[int]:
    phases: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        phases.extend(range(int(low), int(high or low) + 1))
    return phases


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game")
    parser.add_argument("--data", type=Path, help="the data folder (default .cache/training/GAME)")
    parser.add_argument("--write", nargs="?", const=True, type=Path, metavar="FILE",
                        help="save the weights to the game's weights file (or to FILE)")
    parser.add_argument("--damp", type=float, default=3.0, help="the ridge penalty (LSQR's damp)")
    parser.add_argument("--iterations", type=int, default=300, help="LSQR's iteration limit")
    parser.add_argument("--phases", type=phase_list, help="the phases to train, e.g. 0-15 or 4,7 (default all)")
    parser.add_argument("--curve", type=Path, help="plot the learning curve of --phases to this file")
    parser.add_argument("--limit", type=int, help="at most N positions a file (a quick run)")
    parser.add_argument("--deep-weight", type=float, default=1.0,
                        help="how many times a deep search's label counts in the squared error (default 1)")
    args = parser.parse_args(argv)
    training = training_module(args.game)
    patterns = training.patterns
    phases = args.phases or list(range(patterns.PHASES))
    trainer = Trainer(training, Positions(training, args.data or default_folder(args.game), args.limit),
                      args.damp, args.iterations, args.deep_weight)
    if args.curve:
        trainer.learning_curve(phases, args.curve)
        return
    weights = trainer.train(phases)
    if args.write:
        path = patterns.WEIGHTS_FILE if args.write is True else args.write
        table = patterns.load_pattern_weights()  # the other phases as they are
        table[phases] = np.clip(np.rint(weights[phases] * 100), -32767, 32767).astype(np.int16)
        with path.open("wb") as out:
            np.save(out, table)
        print(f"weights -> {path} ({path.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
