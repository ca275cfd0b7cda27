"""Evaluation weights as data: a game's `weights.json`, beside its `evaluation.py`.

A tuned evaluation is a weighted sum of features (`FEATURES`, computed by the game's
`features` kernel) with weights that depend on the game's phase (a small integer the
game defines, such as the empty squares of a board that fills up). The file gives the
weights at a few phases, the *anchors*; every phase between two anchors takes the linear blend of
their weights, and phases beyond the last anchor on either side take that anchor's.

    {
      "features": ["mobility", "corners", ...],
      "phase": "empty squares",
      "phases": 65,
      "anchors": {"60": [40, 600, ...], "20": [30, 600, ...], "0": [0, 0, ...]},
      "source": {...}
    }

`scripts/tune GAME RUN...` writes the file from self-play records; `source` says from
what. The kernels read the table once, at import: numba compiles it in as a constant,
and the compile cache's digest covers this file (`games.kernel.source_digest`), so new
weights mean a fresh compile.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import attrs
import numpy as np

from games.kernel import interpreted_namespace

FILE_NAME = "weights.json"


@attrs.frozen
class Weights:
    """A game's evaluation weights: the feature names, the number of phases, and the
    weights at the anchor phases (feature order)."""

    features: tuple[str, ...]
    phase: str
    phases: int
    anchors: Mapping[int, tuple[int, ...]]
    source: Mapping[str, object] = attrs.field(factory=dict)

    def blend(self, phase: int) -> np.ndarray:
        """blend(p)[a]: the share of anchor a (in `anchor_list` order) in phase p."""
        points = self.anchor_list
        shares = np.zeros(len(points))
        if phase <= points[0]:
            shares[0] = 1.0
        elif phase >= points[-1]:
            shares[-1] = 1.0
        else:
            high = next(index for index, point in enumerate(points) if point > phase)
            low = high - 1
            part = (phase - points[low]) / (points[high] - points[low])
            shares[low], shares[high] = 1 - part, part
        return shares

    @property
    def anchor_list(self) -> list[int]:
        return sorted(self.anchors)

    def table(self) -> np.ndarray:
        """table[phase, feature]: the weights of every phase, rounded to int64."""
        points = self.anchor_list
        rows = []
        for phase in range(self.phases):
            shares = self.blend(phase)
            low = int(np.argmax(shares > 0))
            high = min(low + 1, len(points) - 1)
            part = shares[high] if high != low else 0.0
            rows.append([round(a + (b - a) * part)
                         for a, b in zip(self.anchors[points[low]], self.anchors[points[high]])])
        return np.array(rows, dtype=np.int64)

    def to_json(self) -> str:
        """The file's text: one line per anchor, so that a diff shows what moved."""
        anchors = ",\n".join(f'  "{point}": {json.dumps(list(self.anchors[point]))}'
                              for point in sorted(self.anchors, reverse=True))
        return (f'{{\n "features": {json.dumps(list(self.features))},\n "phase": {json.dumps(self.phase)},\n'
                f' "phases": {self.phases},\n "anchors": {{\n{anchors}\n }},\n'
                f' "source": {json.dumps(dict(self.source), indent=1).replace(chr(10), chr(10) + " ")}\n}}\n')


def read_weights(path: Path, features: Sequence[str]) -> Weights:
    """The weights of a file, checked against the evaluation's feature names."""
    data = json.loads(path.read_text())
    if list(data["features"]) != list(features):
        raise ValueError(f"{path}: features {data['features']} are not the evaluation's {list(features)}")
    anchors = {int(point): tuple(int(value) for value in values) for point, values in data["anchors"].items()}
    if not anchors or any(len(values) != len(features) for values in anchors.values()):
        raise ValueError(f"{path}: every anchor needs one weight per feature")
    if any(not 0 <= point < int(data["phases"]) for point in anchors):
        raise ValueError(f"{path}: an anchor lies outside phases 0..{int(data['phases']) - 1}")
    return Weights(tuple(features), str(data["phase"]), int(data["phases"]), anchors, data.get("source", {}))


def load_weights(evaluation_file: str, features: Sequence[str]) -> Weights:
    """The weights beside a game's evaluation module (pass its `__file__`)."""
    return read_weights(Path(evaluation_file).with_name(FILE_NAME), features)


def weighted_terms(evaluation: object, s: tuple, to_move: int) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The terms of a two-player evaluation that is the weighted sum of its `features`:
    each feature times its weight at the phase of the kernel state `s`, rounded, as
    (name, (player 0's value, player 1's value)): the side to move's value is the term,
    the other's its negation. Empty when the evaluation values the position by a rule
    of its own (`features` gives a negative phase)."""
    phase, terms = interpreted_namespace(evaluation).features(s)
    if phase < 0:
        return ()
    weights = evaluation.WEIGHTS[int(phase)]
    rows = []
    for name, weight, term in zip(evaluation.FEATURES, weights, terms):
        value = int(round(float(weight) * float(term)))
        rows.append((name, (value, -value) if to_move == 0 else (-value, value)))
    return tuple(rows)


#: The fields of one fit of multi-ProbCut (`read_probcut`).
PROBCUT_FIELDS = ("shallow", "a", "b", "sigma")


def read_probcut(path: Path) -> np.ndarray | None:
    """Multi-ProbCut's fit for an evaluation, from `path` (written by `scripts/probcut`),
    as float64 (rows, depths, 4): for each row (a phase the evaluation's `probcut_row`
    kernel names) and search depth, the shallow depth and the linear relation
    deep ≈ a × shallow + b with its deviation sigma (0: no fit). None without the file.

        {"format": 1, "fields": ["shallow", "a", "b", "sigma"], "fit": [[[...], ...], ...],
         "source": {...}}

    Raises ValueError for a file of another shape, or with a non-positive slope where
    there is a fit."""
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    fit = np.array(data["fit"], dtype=np.float64)
    if data.get("format") != 1 or tuple(data.get("fields", ())) != PROBCUT_FIELDS or fit.ndim != 3 \
            or fit.shape[2] != len(PROBCUT_FIELDS):
        raise ValueError(f"{path}: not a multi-ProbCut fit of fields {PROBCUT_FIELDS}")
    if ((fit[..., 3] > 0) & (fit[..., 1] <= 0)).any():
        raise ValueError(f"{path}: a fit with a slope that is not positive")
    return fit
