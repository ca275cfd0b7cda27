"""The bench node count of every game is pinned: a change is a change of behaviour."""

from __future__ import annotations

import pytest

from games import all_games, find_game
from daemon import cores
from tools.searching import run_bench


@pytest.mark.parametrize("name", sorted(all_games()))
def test_bench_node_count_is_pinned(name: str) -> None:
    game = find_game(name)
    for text in game.fixtures.BENCH_POSITIONS:
        assert game.parse_board(text.split()).legal_moves()
    assert run_bench(name, cores.default_core()).nodes == game.fixtures.BENCH_NODES


OTHER_EVALUATIONS = [(name, evaluation) for name, game in sorted(all_games().items())
                     for evaluation in getattr(game.fixtures, "OTHER_BENCH_NODES", {})]


@pytest.mark.parametrize("name, evaluation", OTHER_EVALUATIONS)
def test_bench_node_count_with_another_evaluation_is_pinned(name: str, evaluation: str) -> None:
    game = find_game(name)
    assert evaluation in game.evaluations[1:]
    assert run_bench(name, cores.default_core(), evaluation=evaluation).nodes == game.fixtures.OTHER_BENCH_NODES[evaluation]
