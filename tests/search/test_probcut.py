"""Multi-ProbCut: its fit (`tools.probcut`, `games.weights.read_probcut`) and its cuts
in the alpha-beta search, with the option that sets their confidence."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from games import find_game
from games.weights import PROBCUT_FIELDS, read_probcut
from search import new_searcher
from search.alphabeta import probcut_binds
from search.limits import StopSignal
from search.tt import TranspositionTable
from tools import probcut

OTHELLO = find_game("othello")


def test_a_shallow_depth_is_about_half_and_of_the_same_parity() -> None:
    shallow_depth = probcut.shallow_depth
    for depth in range(3, 30):
        shallow = shallow_depth(depth)
        assert 1 <= shallow < depth and (depth - shallow) % 2 == 0 and shallow >= depth // 2 - 1


def test_the_fit_finds_the_linear_relation_and_its_deviation() -> None:
    rng = np.random.default_rng(3)
    depth, count = 6, 4000
    scores = np.full((count, depth + 1), np.nan)
    rows = np.zeros(count, dtype=np.int64)
    rows[count // 2:] = 2
    for d in range(1, depth + 1):
        scores[:, d] = rng.normal(0, 400, count)
    for d in range(probcut.FIRST_DEPTH, depth + 1):
        scores[:, d] = 1.2 * scores[:, probcut.shallow_depth(d)] - 30 + rng.normal(0, 80, count)
    table, said = probcut.fit(scores, rows, 4, depth)
    assert table.shape == (4, depth + 1, len(PROBCUT_FIELDS))
    shallow, a, b, sigma = table[2, 6]
    assert shallow == probcut.shallow_depth(6)
    assert a == pytest.approx(1.2, abs=0.02) and b == pytest.approx(-30, abs=5) and sigma == pytest.approx(80, rel=0.05)
    assert (table[1] == table[0]).all() and (table[3] == table[2]).all(), "a row without data takes its neighbour's"
    assert not table[:, :probcut.FIRST_DEPTH].any()
    assert any("row  2 depth  6/2" in line for line in said)


def write_fit(path: Path, fit, fields=PROBCUT_FIELDS, fmt: int = 1) -> Path:
    path.write_text(json.dumps({"format": fmt, "fields": list(fields), "fit": fit}))
    return path


def test_a_fit_file_is_read_or_refused(tmp_path: Path) -> None:
    assert read_probcut(tmp_path / "missing.json") is None
    fit = read_probcut(write_fit(tmp_path / "good.json", [[[0, 0, 0, 0], [1, 1.1, 5, 90.5]]]))
    assert fit.shape == (1, 2, 4) and fit[0, 1, 3] == 90.5
    with pytest.raises(ValueError, match="not a multi-ProbCut fit"):
        read_probcut(write_fit(tmp_path / "flat.json", [[0, 1, 2, 3]]))
    with pytest.raises(ValueError, match="not a multi-ProbCut fit"):
        read_probcut(write_fit(tmp_path / "fields.json", [[[0, 1, 2, 3]]], fields=("a", "b", "c", "d")))
    with pytest.raises(ValueError, match="slope"):
        read_probcut(write_fit(tmp_path / "slope.json", [[[2, -1.0, 0, 50]]]))


def test_an_evaluation_without_a_fit_is_never_cut() -> None:
    binds = probcut_binds(find_game("clobber").evaluation)
    assert binds["HAS_PROBCUT"] is False and not binds["PROBCUT"].any()


def searched_nodes(probcut: int, position) -> tuple[int, int]:
    searcher = new_searcher(OTHELLO, TranspositionTable("othello", OTHELLO.rules.KEY_SCHEME, 1 << 22))
    searcher.probcut = probcut
    stop = StopSignal()
    stop.arm(None, None, 9)
    final = list(searcher.search(position, stop))[-1]
    return final.nodes, final.pv[0]


@pytest.mark.skipif(OTHELLO.evaluation.PROBCUT is None, reason="Othello's evaluation has no multi-ProbCut fit")
def test_multi_probcut_cuts_where_its_option_lets_it() -> None:
    """Othello's pattern evaluation has a fit: its cuts save nodes, the more so the
    lower their confidence, and ProbCut 0 searches the whole tree."""
    position = OTHELLO.parse_board(OTHELLO.fixtures.BENCH_POSITIONS[1].split())
    whole, _ = searched_nodes(0, position)
    sure, _ = searched_nodes(300, position)
    bold, move = searched_nodes(100, position)
    assert bold < sure < whole
    assert move in position.legal_moves()
