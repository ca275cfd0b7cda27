"""The searches compiled against the same searches interpreted: at a fixed depth, from
the same positions, both return the same scores, lines and node counts, and fill their
tables alike; node budgets end both on the same node; the solver proves the same values;
every compiled search function compiles once."""

from __future__ import annotations

import random

import pytest

from games import all_games
from games.kernel import COMPILING
from search import new_searcher
from search.alphabeta import INTERPRETED_SLOWDOWN
from search.limits import StopSignal
from search.specialised import search_modules, searches, warm
from search.tt import TranspositionTable

pytestmark = pytest.mark.skipif(not COMPILING, reason="numba is not available")

GAMES = list(all_games().values())
IDS = [game.name for game in GAMES]
TWO_PLAYER = [game for game in GAMES if game.num_players == 2]


def table(game) -> TranspositionTable:
    return TranspositionTable(game.name, game.rules.KEY_SCHEME, 1 << 20)


def searched(searcher, position, depth: int | None = None, nodes: int | None = None):
    stop = StopSignal()
    stop.arm(None, nodes, depth)
    return [(r.depth, r.score, r.pv, r.nodes, r.seldepth, r.margin, r.final)
            for r in searcher.search(position, stop)]


def playout(game, plies: int, seed: int):
    """The position after `plies` random moves from the start (earlier if it ends)."""
    rng = random.Random(seed)
    position = game.initial_state({})
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(rng.choice(moves))
    return position


def both(game, position, **limits):
    """The reports of the compiled and the interpreted search, and their tables."""
    tables = table(game), table(game)
    results = [searched(new_searcher(game, tables[0], compiled=True), position, **limits),
               searched(new_searcher(game, tables[1], compiled=False), position, **limits)]
    return results, tables


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_bench_positions_search_identically(game) -> None:
    text = game.fixtures.BENCH_POSITIONS[1]
    (fast, slow), (fast_table, slow_table) = both(game, game.parse_board(text.split()),
                                                  depth=max(2, game.fixtures.BENCH_DEPTH - 1))
    assert fast == slow
    assert sorted(fast_table.pairs()) == sorted(slow_table.pairs())


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("plies", [7, 25])
def test_played_positions_search_identically(game, plies: int) -> None:
    (fast, slow), _ = both(game, playout(game, plies, seed=plies), depth=max(2, game.fixtures.BENCH_DEPTH - 2))
    assert fast == slow


@pytest.mark.parametrize("game", GAMES, ids=IDS)
@pytest.mark.parametrize("budget", [1, 40, 3000])
def test_node_budgets_stop_both_alike(game, budget: int) -> None:
    """`go nodes N`: the budget counts from the first poll and ends both searches on the
    same iteration, with the same partial result."""
    (fast, slow), _ = both(game, playout(game, 9, seed=budget), nodes=budget)
    assert fast == slow


@pytest.mark.parametrize("game", [game for game in TWO_PLAYER if game.name in ("clobber", "othello")],
                         ids=lambda game: game.name)
def test_solver_proves_the_same_values(game) -> None:
    """Positions the game calls solvable, and that its solve-time model (if it has one)
    gives the interpreted solver a fraction of a second: the same proven score, margin
    and line."""
    kernels = searches(game, compiled=True)

    def out_of_reach(position) -> bool:
        if not kernels.solvable(position.s):
            return True
        model = getattr(kernels, "solve_seconds", None)
        return model is not None and model(position.s) * INTERPRETED_SLOWDOWN > 0.05

    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        position = game.initial_state({})
        while position.legal_moves() and out_of_reach(position):
            position = position.play(rng.choice(position.legal_moves()))
        if not position.legal_moves():
            continue
        (fast, slow), _ = both(game, position, depth=64)
        assert fast[-1] == slow[-1]
        if fast[-1][5] is None:
            continue  # the heuristic prelude proved the result: the solver did not run
        checked += 1
        if checked == 2:
            break
    assert checked


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_the_history_index_tells_moves_apart(game) -> None:
    """Over many games' moves, no two distinct moves share a history slot."""
    mask = getattr(game.rules, "HISTORY_MASK", game.rules.MOVE_LIMIT - 1)
    assert mask & (mask + 1) == 0
    owner: dict[int, int] = {}
    for seed in range(20):
        rng = random.Random(seed)
        position = game.initial_state({})
        while position.legal_moves():
            for move in position.legal_moves():
                assert owner.setdefault(move & mask, move) == move
            position = position.play(rng.choice(position.legal_moves()))


@pytest.mark.parametrize("game", GAMES, ids=IDS)
def test_every_compiled_search_function_has_one_signature(game) -> None:
    warm(game)
    kernels = searches(game, compiled=True)
    for module in search_modules(game):
        for template in module.TEMPLATES:
            assert len(getattr(kernels, template.__name__).signatures) <= 1, template.__name__
