"""`scripts/proofs GAME label`: exact labels of recorded positions, as `scripts/tune
--solved` reads them, held against the solver."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from games import find_game
from search.proving import Solver
from search.solver import new_solver_table
from search.specialised import searches
from search.work import move_rows, new_work


def test_labels_are_the_solved_results_of_the_recorded_positions(tmp_path: Path) -> None:
    game = find_game("clobber")
    rng = random.Random(0)
    position = game.initial_state({})
    start = game.format_board(position)
    moves = []
    while position.outcome() is None:
        move = rng.choice(position.legal_moves())
        moves.append({"move": game.format_move(position, move)})
        position = position.play(move)
    run = tmp_path / "run"
    run.mkdir()
    (run / "game-0000.json").write_text(json.dumps({"game": "clobber", "start": start, "moves": moves}))
    out = tmp_path / "labels.jsonl"
    for _ in range(2):  # the second run finds every board done
        result = subprocess.run([sys.executable, "-m", "tools.proofs", "clobber", "label", str(run),
                                 "--out", str(out), "--stones", "24-32", "--limit", "5"],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
    assert "0 positions to prove" in result.stdout
    labels = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(labels) == 9  # 32 stones down to 24: the game ends at 22
    kernels = searches(game)
    for label in labels:
        board = game.parse_board(label["board"].split())
        assert 24 <= bin(int(board.s[0]) | int(board.s[1])).count("1") <= 32
        solver = Solver(kernels, new_work(kernels.HISTORY_MASK + 1), move_rows(kernels.MAX_MOVES),
                        new_solver_table(1 << 20))
        assert label["result"] == (1.0 if solver.solve(board, -1, 1) > 0 else 0.0)
