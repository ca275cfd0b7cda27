"""The bench node count of every game is pinned: a change is a change of behaviour."""

from __future__ import annotations

import pytest

from games import all_games, find_game
from daemon import cores
from daemon.bench import run_bench


@pytest.mark.parametrize("name", sorted(all_games()))
def test_bench_node_count_is_pinned(name: str) -> None:
    game = find_game(name)
    for text in game.fixtures.BENCH_POSITIONS:
        assert game.parse_board(text.split()).legal_moves()
    assert run_bench(name, cores.default_core()).nodes == game.fixtures.BENCH_NODES
