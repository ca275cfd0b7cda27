"""The compiled searches against the reference: at a fixed depth, from the same
positions, with tables of the same slot count, both return the same score, principal
variation and node count; the solver proves the same values; every recursive function
compiles once."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

from compiled.generate import TWO_PLAYER_GAMES, main as generate  # noqa: E402
from compiled.table import ArrayTable  # noqa: E402
from games import find_game  # noqa: E402
from search.alphabeta import AlphaBeta  # noqa: E402
from search.limits import StopSignal  # noqa: E402
from search.tt import TranspositionTable  # noqa: E402

from compiled.driver import LOADED, CompiledAlphaBeta, game_modules  # noqa: E402
from compiled import runtime  # noqa: E402

GAMES = [name for name in TWO_PLAYER_GAMES if runtime.supports(find_game(name))]
SLOTS = 1 << 16


@pytest.fixture(autouse=True, scope="module")
def loaded() -> None:
    for name in GAMES:
        runtime.warm(find_game(name))


def tables(game):
    compiled = ArrayTable(game.name, game.key_scheme, SLOTS * 16)
    reference = TranspositionTable(game.name, game.key_scheme, SLOTS * 96)
    assert compiled.slots == reference.slots == SLOTS
    return compiled, reference


def searched(searcher, state, depth: int):
    stop = StopSignal()
    stop.arm(None, None, depth)
    reports = list(searcher.search(state, stop))
    return [(r.depth, r.score, r.pv, r.nodes, r.seldepth, r.margin) for r in reports]


def playout(game, plies: int, seed: int):
    """The position after `plies` random moves from the start (earlier if it ends)."""
    rng = random.Random(seed)
    state = game.initial_state({})
    for _ in range(plies):
        moves = state.legal_moves()
        if not moves or state.outcome() is not None:
            break
        state = state.play(rng.choice(moves))
    return state


def test_generated_modules_are_up_to_date() -> None:
    assert generate(["--check"]) == 0


@pytest.mark.parametrize("name", GAMES)
def test_bench_positions_search_identically(name: str) -> None:
    """Every bench position at the bench depth, then again on the filled tables."""
    game = find_game(name)
    compiled_table, reference_table = tables(game)
    fast, slow = CompiledAlphaBeta(game, compiled_table), AlphaBeta(game, reference_table)
    for text in game.bench_positions:
        state = game.parse_board(text.split())
        for _ in range(2):
            assert searched(fast, state, game.bench_depth) == searched(slow, state, game.bench_depth)
        assert sorted(compiled_table.pairs()) == sorted(reference_table.pairs())


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("plies", [7, 19, 33])
def test_played_positions_search_identically(name: str, plies: int) -> None:
    game = find_game(name)
    state = playout(game, plies, seed=plies)
    compiled_table, reference_table = tables(game)
    depth = max(2, game.bench_depth - 1)
    assert (searched(CompiledAlphaBeta(game, compiled_table), state, depth)
            == searched(AlphaBeta(game, reference_table), state, depth))


@pytest.mark.parametrize("name", [name for name in GAMES if name in ("clobber", "othello")])
def test_solver_proves_the_same_values(name: str) -> None:
    """Positions the game calls solvable: the same proven score and margin; the line is
    legal (the two solver tables differ, so the lines may)."""
    game = find_game(name)
    checked = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = game.initial_state({})
        while state.outcome() is None and not game.solvable(state):
            state = state.play(rng.choice(state.legal_moves()))
        if state.outcome() is not None:
            continue
        compiled_table, reference_table = tables(game)
        fast = searched(CompiledAlphaBeta(game, compiled_table), state, 64)[-1]
        slow = searched(AlphaBeta(game, reference_table), state, 64)[-1]
        assert (fast[1], fast[5]) == (slow[1], slow[5])
        line = state
        for move in fast[2]:
            assert move in line.legal_moves()
            line = line.play(move)
        checked += 1
        if checked == 3:
            break
    assert checked


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("budget", [1, 40, 5000])
def test_node_budgets_stop_both_cores_alike(name: str, budget: int) -> None:
    """`go nodes N`: the budget counts from the first poll and ends both searches on the
    same iteration, with the same partial result."""
    game = find_game(name)
    state = playout(game, 9, seed=budget)
    results = []
    for searcher in (CompiledAlphaBeta(game, tables(game)[0]), AlphaBeta(game, tables(game)[1])):
        stop = StopSignal()
        stop.arm(None, budget, None)
        results.append([(r.depth, r.score, r.pv, r.nodes, r.final) for r in searcher.search(state, stop)])
    assert results[0] == results[1]


@pytest.mark.parametrize("name", GAMES)
def test_a_search_started_before_loading_goes_on_compiled_identically(name: str) -> None:
    """Iterations on the reference's code until the compiled functions are there, then
    compiled ones from the reference's killers and history: the same search."""
    game = find_game(name)
    state = playout(game, 11, seed=3)
    compiled_table, reference_table = tables(game)
    depth = game.bench_depth + 1
    expected = searched(AlphaBeta(game, reference_table), state, depth)
    searcher = CompiledAlphaBeta(game, compiled_table)
    stop = StopSignal()
    stop.arm(None, None, depth)
    LOADED.discard(name)
    try:
        reports = []
        for report in searcher.search(state, stop):
            reports.append((report.depth, report.score, report.pv, report.nodes, report.seldepth, report.margin))
            if report.depth == 2:
                LOADED.add(name)
    finally:
        LOADED.add(name)
    assert searcher._compiled_iterations
    assert reports == expected


@pytest.mark.parametrize("name", GAMES)
def test_the_history_index_tells_moves_apart(name: str) -> None:
    """Over many games' moves, no two distinct moves share a history slot."""
    game = find_game(name)
    kernels, _ = game_modules(name)
    assert kernels.HISTORY_MASK & (kernels.HISTORY_MASK + 1) == 0
    owner: dict[int, int] = {}
    for seed in range(30):
        rng = random.Random(seed)
        state = game.initial_state({})
        while state.outcome() is None and state.legal_moves():
            for move in state.legal_moves():
                assert owner.setdefault(move & kernels.HISTORY_MASK, move) == move
            state = state.play(rng.choice(state.legal_moves()))


@pytest.mark.parametrize("name", GAMES)
def test_every_compiled_function_has_one_signature(name: str) -> None:
    game = find_game(name)
    runtime.warm(game)
    _, search = game_modules(name)
    for function in (search._perft, search._search, search.root_iteration, search._solve):
        assert len(function.signatures) <= 1, function
