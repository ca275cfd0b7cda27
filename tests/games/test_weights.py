"""Evaluation weights as data (`games.weights`) and their fit to self-play games
(`tools.tune`)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games import all_games
from games.weights import Weights, read_weights
from tests.conftest import EVALUATION_ROUNDING
from tools import tune


def test_the_table_blends_neighbouring_anchors() -> None:
    weights = Weights(("a", "b"), "empties", 11, {10: (100, 0), 5: (50, 10), 0: (0, 20)})
    table = weights.table()
    assert table.shape == (11, 2) and table.dtype == np.int64
    assert table[10].tolist() == [100, 0] and table[5].tolist() == [50, 10] and table[0].tolist() == [0, 20]
    assert table[7].tolist() == [70, 6] and table[2].tolist() == [20, 16]
    assert weights.blend(7).tolist() == pytest.approx([0, 0.6, 0.4])
    # Beyond the outer anchors, their weights.
    edge = Weights(("a",), "phase", 6, {2: (10,), 4: (30,)})
    assert edge.table()[:, 0].tolist() == [10, 10, 10, 20, 30, 30]


def test_a_weights_file_round_trips_and_bad_files_are_refused(tmp_path: Path) -> None:
    weights = Weights(("a", "b"), "empties", 11, {10: (1, 2), 0: (3, 4)}, {"how": "by hand"})
    path = tmp_path / "weights.json"
    path.write_text(weights.to_json())
    assert read_weights(path, ("a", "b")) == weights
    with pytest.raises(ValueError, match="features"):
        read_weights(path, ("a", "c"))
    data = json.loads(path.read_text())
    data["anchors"]["11"] = [1, 2]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="outside"):
        read_weights(path, ("a", "b"))
    data["anchors"] = {"3": [1]}
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="one weight per feature"):
        read_weights(path, ("a", "b"))


def test_the_fit_recovers_known_phase_weights() -> None:
    rng = np.random.default_rng(1)
    shape = Weights(("x", "y"), "phase", 11, {0: (0, 0), 10: (0, 0)})
    count = 60_000
    phases = rng.integers(0, 11, count)
    features = rng.integers(-5, 6, (count, 2)).astype(float)
    true = np.array([[0.4, -0.1], [0.05, 0.3]])  # logits per unit at phases 0 and 10
    design = tune.blended(shape, phases, features)
    labels = (rng.random(count) < 1 / (1 + np.exp(-design @ true.ravel()))).astype(float)
    theta = tune.fit_weights(design, labels, np.zeros(4), 0.0)
    assert theta == pytest.approx(true.ravel(), abs=0.03)
    assert tune.fit_scale(design @ true.ravel() * 100, labels) == pytest.approx(0.01, rel=0.05)


def test_tune_fits_a_selfplay_run_end_to_end(tmp_path: Path) -> None:
    run = tmp_path / "run"
    subprocess.run([sys.executable, "-m", "adapters.arena.selfplay", "clobber", "--games", "20",
                    "--nodes", "500", "--jobs", "2", "--out", str(run), "--quiet"],
                   check=True, capture_output=True, timeout=600)
    result = subprocess.run([sys.executable, "-m", "tools.tune", "clobber", str(run)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "clobber: 20 games" in result.stdout and "cross-entropy held_out" in result.stdout
    fitted = json.loads(result.stdout[result.stdout.index("{"):])
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(fitted))
    from games.clobber.evaluation import FEATURES, WEIGHTS_DATA

    weights = read_weights(path, FEATURES)
    assert weights.anchor_list == WEIGHTS_DATA.anchor_list
    assert weights.source["games"] == 20 and weights.source["positions"] > 300
    losses = weights.source["cross_entropy"]["train"]
    assert losses["after"] <= losses["before"] + 1e-4


def test_tune_fits_exact_labels_keeping_anchors(tmp_path: Path) -> None:
    from games import find_game
    from games.clobber.evaluation import FEATURES, WEIGHTS_DATA
    from search.proving import Solver
    from search.solver import new_solver_table
    from search.specialised import searches
    from search.work import move_rows, new_work

    game = find_game("clobber")
    kernels = searches(game)
    rng = np.random.default_rng(3)
    lines = []
    for _ in range(300):
        position = game.initial_state({})
        while bin(int(position.s[0]) | int(position.s[1])).count("1") > rng.integers(22, 31):
            position = position.play(int(rng.choice(position.legal_moves())))
            if position.outcome() is not None:
                break
        if position.outcome() is None:
            solver = Solver(kernels, new_work(kernels.HISTORY_MASK + 1), move_rows(kernels.MAX_MOVES),
                            new_solver_table(1 << 20))
            won = solver.solve(position, -1, 1) > 0
            lines.append(json.dumps({"board": game.format_board(position), "result": 1.0 if won else 0.0}))
    labels = tmp_path / "solved.jsonl"
    labels.write_text("\n".join(lines) + "\n")
    kept = WEIGHTS_DATA.anchor_list[-1]
    result = subprocess.run([sys.executable, "-m", "tools.tune", "clobber", "--solved", str(labels),
                             "--anchors", "30,22", "--keep", str(kept)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    fitted = json.loads(result.stdout[result.stdout.index("{"):])
    path = tmp_path / "weights.json"
    path.write_text(json.dumps(fitted))
    weights = read_weights(path, FEATURES)
    assert weights.anchor_list == [22, 30, kept]
    assert weights.anchors[kept] == WEIGHTS_DATA.anchors[kept]
    assert weights.source["positions"] == len(lines) and weights.source["solved"] == ["solved.jsonl"]
    losses = weights.source["cross_entropy"]["train"]
    assert losses["after"] < losses["before"]


#: The games whose hand-set evaluation is the weighted sum of its `features` (those that
#: give them).
TUNABLE = [name for name, game in all_games().items() if hasattr(game.with_evaluation("classic").evaluation, "features")]


def test_every_game_states_its_evaluations_rounding() -> None:
    assert set(EVALUATION_ROUNDING) == set(all_games())


@pytest.mark.parametrize("game_name", TUNABLE)
def test_features_times_weights_is_the_evaluation(game_name: str) -> None:
    """What `scripts/tune` fits is what the search uses: on positions of random games,
    the features times the weights of their phase give the evaluation's value, up to
    the evaluation's rounding. Random games of some games last long: each is followed for
    its first 150 plies."""
    import random

    game = all_games()[game_name].with_evaluation("classic")
    evaluation = game.evaluation
    table = evaluation.WEIGHTS_DATA.table()
    rng = random.Random(5)
    checked = 0
    for _ in range(6):
        state = game.initial_state({})
        for _ in range(150):
            if state.outcome() is not None:
                break
            phase, terms = evaluation.features(state.s)
            if phase >= 0:
                value = float(np.dot(table[phase], np.array(terms, dtype=float)))
                assert abs(value - evaluation.evaluate(state.s)) <= EVALUATION_ROUNDING[game_name] + 1e-9, (
                    game.format_board(state))
                checked += 1
            state = state.play(rng.choice(state.legal_moves()))
    assert checked > 100


def test_every_game_keeps_its_weights_as_data() -> None:
    """Each game's weights file names its hand-set evaluation's features and covers its
    phases."""
    for game in all_games().values():
        evaluation = game.with_evaluation("classic").evaluation
        weights = evaluation.WEIGHTS_DATA
        assert weights.features == tuple(evaluation.FEATURES)
        assert evaluation.WEIGHTS.shape == (weights.phases, len(weights.features))
