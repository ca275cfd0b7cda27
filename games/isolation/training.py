"""What the temporal-difference training (`scripts/train_td`) needs to know of Knight
Isolation: the features of its pattern evaluation (`patterns`) for each player of a
position, and the hand-set evaluation's values to compare with.

A position is open while at least two players are in and their knights can still meet;
the training predicts, for each two players still in at an open position, the chance that
the first finishes ahead of the second, as the logistic function of the difference of
their values over `patterns.VALUE_SCALE`. A decided position (`evaluation.decided`) has
its ranking already, and is not trained on.
"""

from __future__ import annotations

import numpy as np

from games.isolation import evaluation, patterns
from games.isolation.rules import PLAYERS
from games.kernel import interpreted_namespace

PHASES = patterns.PHASES
WEIGHTS_SIZE = patterns.WEIGHTS_SIZE
WEIGHTS_FILE = patterns.WEIGHTS_FILE
VALUE_SCALE = patterns.VALUE_SCALE


def open_rows(s: tuple) -> tuple[int, list[tuple[int, np.ndarray, np.ndarray]]] | None:
    """(phase, [(player, slots, values), ...] for each player still in) of kernel state
    `s` (`patterns.open_features`); None when the position is not open (decided or
    finished)."""
    slots = np.zeros((PLAYERS, patterns.MAX_FEATURES), dtype=np.int64)
    values = np.zeros((PLAYERS, patterns.MAX_FEATURES), dtype=np.float64)
    counts = np.zeros(PLAYERS, dtype=np.int64)
    phase = patterns.open_features(s, slots, values, counts)
    if phase < 0:
        return None
    return int(phase), [(player, slots[player, :counts[player]], values[player, :counts[player]])
                        for player in range(PLAYERS) if counts[player]]


def classic_values(s: tuple) -> np.ndarray:
    """The hand-set evaluation's values of state `s` (`evaluation.evaluate`)."""
    values = np.zeros(PLAYERS, dtype=np.int64)
    interpreted_namespace(evaluation).evaluate(s, values)
    return values
