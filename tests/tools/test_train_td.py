"""The temporal-difference training of a multi-player pattern evaluation
(`tools.train_td`): lambda-returns along a game's pairs, and the whole tool run on
games that `engine-arena` plays and records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from scipy import sparse

from games import find_game
from games.isolation import patterns
from tools import train_td
from tests.adapters.test_arena import arena

ROOT = Path(__file__).resolve().parents[2]


def chain(results: list[float]) -> train_td.Pairs:
    """One pair over len(results) open positions of one game, each row stepping to the
    next."""
    n = len(results)
    return train_td.Pairs(sparse.csr_matrix((n, 1)), np.zeros(n, dtype=int), np.zeros(n, dtype=int), np.zeros(n),
                          np.array(results), np.array([*range(1, n), -1]), np.zeros(n, dtype=bool))


def test_lambda_returns_run_from_the_result_back_through_the_predictions() -> None:
    pairs = chain([1.0, 1.0, 1.0])
    z = np.log(np.array([0.2, 0.4, 0.6]) / (1 - np.array([0.2, 0.4, 0.6])))
    assert np.allclose(train_td.td_targets(pairs, z, 1.0), [1.0, 1.0, 1.0])
    assert np.allclose(train_td.td_targets(pairs, z, 0.0), [0.4, 0.6, 1.0])
    half = train_td.td_targets(pairs, z, 0.5)
    assert np.isclose(half[2], 1.0) and np.isclose(half[1], 0.5 * 0.6 + 0.5 * 1.0)
    assert np.isclose(half[0], 0.5 * 0.4 + 0.5 * half[1])


def test_the_fit_recovers_a_logistic_rule() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(4000, 3))
    truth = np.array([1.5, -2.0, 0.5])
    y = (rng.random(4000) < 1 / (1 + np.exp(-x @ truth))).astype(float)
    weights = train_td.fit(sparse.csr_matrix(x), y, 0.01, np.zeros(3))
    assert np.allclose(weights, truth, atol=0.25)


def test_arena_games_train_weights_that_the_evaluation_reads(tmp_path: Path) -> None:
    _, records = arena(tmp_path, "isolation", "--bot", "random", "--bot", "greedy", "--bot", "greedy",
                       "--games", "12", "--jobs", "2", "--seed", "7")
    out = tmp_path / "out"
    # A game recorded twice counts once; a game in which a player timed out is left out.
    (tmp_path / "copy.json").write_text(json.dumps(records[0]))
    timed_out = dict(records[1], events=[*records[1]["events"], {"at": 3, "player": 0, "event": "timeout"}])
    (tmp_path / "timeout.json").write_text(json.dumps(timed_out))
    weights_file = tmp_path / "weights.npy"
    result = subprocess.run([sys.executable, "-m", "tools.train_td", "isolation", str(out), str(tmp_path / "copy.json"),
                             str(tmp_path / "timeout.json"), "--sweeps", "2", "--write", str(weights_file)],
                            cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("12 games, ")
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.split()[:2] == ["phase", "pairs"])
    assert header.split()[2:] == ["coin", "hand-set", "sweep", "1", "sweep", "2"]
    weights = patterns.read_weights(weights_file)
    assert weights.shape == (patterns.PHASES, patterns.WEIGHTS_SIZE) and np.count_nonzero(weights) > 0
    game = find_game("isolation").with_evaluation("patterns")
    assert len(game.evaluate(game.initial_state({"seed": "7"}))) == 3


def test_no_usable_game_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "other.json").write_text(json.dumps({"game": "othello"}))
    (tmp_path / "broken.json").write_text("{")
    result = subprocess.run([sys.executable, "-m", "tools.train_td", "isolation", str(tmp_path)],
                            cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "no usable game" in result.stderr
