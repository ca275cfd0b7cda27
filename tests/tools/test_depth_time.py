"""scripts/depth_time: positions drawn from a data file by their empty squares, searched
to a depth with each thread count through the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games import find_game
from games.kernel import COMPILING
from tools import depth_time

OTHELLO = find_game("othello")


def data_file(tmp_path, plies=(10, 20, 30, 40, 58)):
    """A data file of `scripts/pattern_data`'s form: a random game's positions after
    `plies` plies, with their empty squares."""
    training = OTHELLO.training
    rng = random.Random(3)
    position, rows = OTHELLO.initial_state({}), []
    for ply in range(max(plies) + 1):
        if ply in plies:
            rows.append(training.row_of(position.s))
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(rng.choice(moves))
    boards = np.array(rows, dtype=np.uint64)
    path = tmp_path / "positions.npz"
    np.savez(path, boards=boards, empties=training.empty_squares(boards))
    return path


def test_positions_are_drawn_by_their_empty_squares(tmp_path) -> None:
    path = data_file(tmp_path)
    texts = depth_time.draw("othello", path, 10, 20, 54)
    assert sorted(text.split()[0].count(".") for text in texts) == [20, 30, 40, 50]
    two = depth_time.draw("othello", path, 2, 20, 54, seed=1)
    assert len(two) == 2 and set(two) <= set(texts) and two == depth_time.draw("othello", path, 2, 20, 54, seed=1)


@pytest.mark.skipif(not COMPILING, reason="the tool times the compiled searches")
def test_prints_times_and_speedups_per_thread_count(tmp_path, capsys) -> None:
    path = data_file(tmp_path)
    assert depth_time.main(["othello", "--data", str(path), "--positions", "2", "--empties", "30-50",
                            "--depth", "4", "--threads", "1,2", "--probcut", "0"]) == 0
    out = capsys.readouterr().out
    assert "2 positions of 30-50 empty squares" in out and "ProbCut 0" in out
    assert "threads 1:" in out and "threads 2:" in out and "speedup of 2 threads over 1" in out
