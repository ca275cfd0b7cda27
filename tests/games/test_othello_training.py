"""Othello's pattern training: the expert games read and replayed from their file format,
and the whole pipeline (`tools.pattern_data`, `tools.train_patterns`) run on a few
games written in that format."""

from __future__ import annotations

import random
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from games import find_game
from games.othello import training

OTHELLO = find_game("othello")


def random_game(seed: int) -> tuple[list[int], int, list]:
    """(the moves' codes as the files record them, black's final discs, the positions
    before each move and the final one) of a random game, passes left out (each
    position is the next player's to move)."""
    rng = random.Random(seed)
    position = OTHELLO.initial_state({})
    codes, positions = [], []
    while position.outcome() is None:
        move = rng.choice(position.legal_moves())
        if move != OTHELLO.rules.PASS:
            positions.append(position)
            codes.append(10 * (move // 8 + 1) + move % 8 + 1)
        position = position.play(move)
    positions.append(position)
    black, white = OTHELLO.discs(position)
    return codes, black.bit_count(), positions


def write_games(folder: Path, games: list[tuple[list[int], int, int]]) -> None:
    """A yearly file of `games` (moves' codes, real score, theoretical score)."""
    header = bytes([20, 25, 1, 1]) + struct.pack("<IHHBBBB", len(games), 0, 2025, 8, 0, 24, 0)
    records = b"".join(struct.pack("<HHHBB", 0, 0, 0, real, theory) + bytes(codes + [0] * (60 - len(codes)))
                       for codes, real, theory in games)
    (folder / "WTH_2025.wtb").write_bytes(header + records)


def test_expert_positions_replay_the_games_with_their_passes_and_signed_labels(tmp_path: Path) -> None:
    played = [random_game(seed) for seed in range(6)]
    # Three of these games pass (a position's mover is then the one who moved before):
    # the files leave passes out, and the replay finds them.
    assert sum(first.to_move == second.to_move for _, _, game in played
               for first, second in zip(game[:-1], game[1:])) == 3
    illegal = list(played[0][0])
    illegal[10] = illegal[9]  # a square already taken
    write_games(tmp_path, [(codes, real, 40) for codes, real, _ in played]
                + [(illegal, 32, 32), (played[1][0][:30], 32, 32)])
    positions, said = training.expert_positions(tmp_path)
    assert "8 games read: 1 replay illegally, 1 stop before move 36" in said
    expected = [position for _, _, game in played for position in game]
    assert positions["boards"].tolist() == [[int(p.s[0]), int(p.s[1])] for p in expected]
    sides = np.array([1.0 if p.to_move == 0 else -1.0 for p in expected])
    assert np.array_equal(positions["theory"], sides * 16.0)
    reals = np.concatenate([np.full(len(game), 2.0 * real - 64) for _, real, game in played])
    assert np.array_equal(positions["real"], sides * reals)
    assert training.empty_squares(positions["boards"]).tolist() == [
        64 - int(p.s[0]).bit_count() - int(p.s[1]).bit_count() for p in expected]


def test_a_file_of_the_wrong_size_is_refused(tmp_path: Path) -> None:
    write_games(tmp_path, [(random_game(1)[0], 40, 40)])
    path = tmp_path / "WTH_2025.wtb"
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(ValueError, match="bytes, not 16"):
        training.expert_positions(tmp_path)


def test_the_pipeline_makes_labels_and_weights_from_games_in_the_file_format(tmp_path: Path) -> None:
    games_folder, data = tmp_path / "games", tmp_path / "data"
    games_folder.mkdir()
    played = [random_game(seed) for seed in range(40)]
    write_games(games_folder, [(codes, real, real) for codes, real, _ in played])

    def script(name: str, *arguments: str) -> str:
        done = subprocess.run([sys.executable, "-m", f"tools.{name}", *arguments], capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    script("pattern_data", "positions", "othello", str(games_folder), "--out", str(data))
    script("pattern_data", "solve", "othello", "--out", str(data), "--max-empties", "6", "--workers", "1")
    stored = np.load(data / "expert.npz")
    exact = np.load(data / "expert.exact.npy")
    # Every position of 6 or fewer empty squares is solved; the finished ones to their
    # disc margin.
    assert ((stored["empties"] <= 6) == (exact != -128)).all()
    for row, margin in zip(stored["boards"], exact):
        position = OTHELLO._position(int(row[0]), int(row[1]), 0)
        outcome = position.outcome()
        if outcome is not None:
            assert margin == outcome.margin[0]
    # Deep-search labels for two positions of each of 40-42 empty squares, then none
    # more on a second run: it resumes.
    searching = ("pattern_data", "search", "othello", "--out", str(data), "--depth", "3", "--min-empties", "40",
                 "--max-empties", "42", "--per-empties", "2", "--workers", "1")
    script(*searching)
    searched = np.load(data / "expert.search.npy")
    labelled = ~np.isnan(searched)
    assert sorted(stored["empties"][labelled].tolist()) == [40, 40, 41, 41, 42, 42]
    assert (np.abs(searched[labelled]) <= 64).all() and len(set(searched[labelled].tolist())) > 1
    assert "searched to depth" not in script(*searching)
    # Near the end (past its 4-ply prelude) the search solves: its label is the exact
    # margin, as the solver finds it after.
    script("pattern_data", "search", "othello", "--out", str(data), "--depth", "5", "--min-empties", "7",
           "--max-empties", "8", "--per-empties", "3", "--workers", "1")
    script("pattern_data", "solve", "othello", "--out", str(data), "--max-empties", "8", "--workers", "1")
    searched, exact = np.load(data / "expert.search.npy"), np.load(data / "expert.exact.npy")
    near = ~np.isnan(searched) & (stored["empties"] <= 8)
    assert near.sum() == 6 and (searched[near] == exact[near]).all()
    labelled = ~np.isnan(searched)
    summary = script("pattern_data", "summary", "othello", "--out", str(data))
    assert "solved exactly, 12 searched deep" in summary
    table = script("train_patterns", "othello", "--data", str(data), "--phases", "0-1", "--iterations", "30")
    assert "exact held" in table and "6 by deep searches" in table  # the exact margins win
    errors = script("eval_error", "othello", "--data", str(data / "expert.npz"), "--empties", "20-39",
                    "--bucket", "10", "--per-bucket", "3", "--depth", "2").splitlines()
    assert errors[0].split() == ["empty", "squares", "positions", "patterns", "classic"]
    assert [line.split()[:2] for line in errors[1:3]] == [["20-29", "3"], ["30-39", "3"]]
    curve = tmp_path / "curve.png"
    script("train_patterns", "othello", "--data", str(data), "--phases", "1", "--iterations", "10", "--curve", str(curve))
    assert curve.read_bytes().startswith(b"\x89PNG")
