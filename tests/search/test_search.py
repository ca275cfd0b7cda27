"""The alpha-beta search: exact against brute force on small positions, its limits,
stopping, and the transposition table it keeps."""

from __future__ import annotations

import functools
import threading
import time

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from games import find_game
from games.kernel import interpreted_namespace
from search import new_searcher
from search.alphabeta import NEAR_DEPTH, AlphaBeta
from search.mcts import MctsSearch
from search.multiplayer import MultiPlayerSearch
from search.base import MATE, MATE_BOUND
from search.limits import Limits, StopSignal, move_budget_ms
from search.tt import TranspositionTable, entry_depth

CLOBBER = find_game("clobber")


def new_search(memory: int = 1 << 20) -> AlphaBeta:
    return new_searcher(CLOBBER, TranspositionTable("clobber", CLOBBER.rules.KEY_SCHEME, memory))


def run_to_depth(searcher: AlphaBeta, state, depth: int):
    stop = StopSignal()
    stop.arm(None, None, depth)
    return list(searcher.search(state, stop))


@functools.lru_cache(maxsize=None)
def solve(state) -> int:
    """+1 if the side to move wins with perfect play, -1 otherwise (plain minimax)."""
    moves = state.legal_moves()
    if not moves:
        return -1
    return max(-solve(state.play(move)) for move in moves)


@st.composite
def small_positions(draw):
    """Clobber positions on the 4x4 corner a1-d4 with up to 10 stones."""
    squares = draw(st.lists(st.integers(0, 15), min_size=2, max_size=10, unique=True))
    rows = [["."] * 8 for _ in range(8)]
    for square in squares:
        rank, file = divmod(square, 4)
        rows[7 - rank][file] = draw(st.sampled_from("wb"))
    side = draw(st.sampled_from("wb"))
    return CLOBBER.parse_board(["/".join("".join(row) for row in rows), side])


@settings(max_examples=60, deadline=None)
@given(small_positions())
def test_search_proves_the_exact_result_of_small_positions(state) -> None:
    reports = run_to_depth(new_search(), state, 12)
    final = reports[-1]
    assert final.final
    truth = solve(state)
    if not state.legal_moves():
        assert final.pv == () and final.score == -MATE
        return
    assert abs(final.score) > MATE_BOUND, "small positions are solved outright"
    assert (final.score > 0) == (truth > 0)
    best = final.pv[0]
    assert best in state.legal_moves()
    if truth > 0:
        assert solve(state.play(best)) < 0, "the chosen move keeps the win"
        assert final.mate_in is not None and final.mate_in > 0
    else:
        assert final.mate_in is not None and final.mate_in < 0


def test_mate_distance_is_counted_in_own_moves() -> None:
    state = CLOBBER.parse_board(["wb....../......../......../......../......../......../......../........", "w"])
    final = run_to_depth(new_search(), state, 5)[-1]
    assert final.score == MATE - 1 and final.mate_in == 1
    assert CLOBBER.format_move(state, final.pv[0]) in ("a8b8",)


def test_reports_every_iteration_then_a_final_one() -> None:
    reports = run_to_depth(new_search(), CLOBBER.initial_state({}), 3)
    assert [r.depth for r in reports] == [1, 2, 3, 3]
    assert [r.final for r in reports] == [False, False, False, True]
    assert all(r.nodes > 0 and r.pv for r in reports)
    assert reports[-1].pv[0] in CLOBBER.initial_state({}).legal_moves()
    state = CLOBBER.initial_state({})
    for move in reports[-1].pv:
        assert move in state.legal_moves()
        state = state.play(move)


def test_fixed_depth_search_is_deterministic_and_reuses_its_table() -> None:
    first = run_to_depth(new_search(), CLOBBER.initial_state({}), 3)[-1]
    second = run_to_depth(new_search(), CLOBBER.initial_state({}), 3)[-1]
    assert (first.nodes, first.score, first.pv) == (second.nodes, second.score, second.pv)
    searcher = new_search()
    run_to_depth(searcher, CLOBBER.initial_state({}), 3)
    again = run_to_depth(searcher, CLOBBER.initial_state({}), 3)[-1]
    assert again.nodes < first.nodes, "a kept table answers most of the repeat search"
    assert again.score == first.score


def test_each_search_starts_from_an_empty_near_table() -> None:
    other = CLOBBER.initial_state({}).play(CLOBBER.initial_state({}).legal_moves()[0])
    fresh = run_to_depth(new_search(), other, 4)[-1]
    searcher = new_search()
    run_to_depth(searcher, CLOBBER.initial_state({}), 4)
    assert searcher._near.any(), "the nodes next to the leaves stored their entries in the near table"
    searcher.table.clear()
    again = run_to_depth(searcher, other, 4)[-1]
    assert (again.nodes, again.score, again.pv) == (fresh.nodes, fresh.score, fresh.pv)


def test_the_main_table_holds_no_entry_of_the_nodes_next_to_the_leaves() -> None:
    searcher = new_search()
    run_to_depth(searcher, CLOBBER.initial_state({}), 5)
    depths = {entry_depth(np.uint64(data)) for _, data in searcher.table.pairs()}
    assert depths and min(depths) > NEAR_DEPTH
    near = searcher._near[searcher._near[:, 1] != 0]
    assert {entry_depth(data) for data in near[:, 1]} == set(range(1, NEAR_DEPTH + 1))


def test_stop_from_another_thread_ends_the_search_quickly() -> None:
    stop = StopSignal()
    searcher = new_search()
    timer = threading.Timer(0.2, stop.stop)
    started = time.monotonic()
    timer.start()
    reports = list(searcher.search(CLOBBER.initial_state({}), stop))
    elapsed = time.monotonic() - started
    assert reports[-1].final and reports[-1].pv
    assert elapsed < 0.2 + 0.15


def test_node_budget_and_deadline_end_the_search() -> None:
    stop = StopSignal()
    stop.arm(None, 5000, None)
    final = list(new_search().search(CLOBBER.initial_state({}), stop))[-1]
    assert final.nodes <= 5000 + 64
    stop = StopSignal()
    stop.arm(time.monotonic_ns() + 100_000_000, None, None)
    started = time.monotonic()
    final = list(new_search().search(CLOBBER.initial_state({}), stop))[-1]
    assert time.monotonic() - started < 0.25 and final.pv


def test_finished_root_gives_an_empty_final_report() -> None:
    state = CLOBBER.parse_board(["w......./......../......../......../......../......../......../........", "w"])
    (final,) = run_to_depth(new_search(), state, 3)
    assert final.final and final.pv == () and final.score == -MATE


def test_refuses_games_it_cannot_search() -> None:
    class ThreePlayers:
        name, num_players, zero_sum = "three", 3, True

    with pytest.raises(ValueError, match="two-player"):
        AlphaBeta(ThreePlayers(), TranspositionTable("three", 1, 1 << 20), None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="table"):
        new_searcher(CLOBBER, TranspositionTable("othello", 1, 1 << 20))
    with pytest.raises(ValueError, match="3 players"):
        MultiPlayerSearch(CLOBBER, TranspositionTable("clobber", 1, 1 << 20), None)
    with pytest.raises(ValueError, match="3 players"):
        MctsSearch(CLOBBER, TranspositionTable("clobber", 1, 1 << 20), None)
    isolation = find_game("isolation")
    with pytest.raises(ValueError, match="unknown multi-player search"):
        new_searcher(isolation, TranspositionTable("isolation", isolation.rules.KEY_SCHEME, 1 << 16), "minimax")


def test_time_budget_from_movetime_and_clocks() -> None:
    assert move_budget_ms(Limits(movetime=100), 0, 10) == 90
    assert move_budget_ms(Limits(depth=3), 0, 10) is None
    assert move_budget_ms(Limits(clocks=(10000, 5000)), 1, 0) == 200
    assert move_budget_ms(Limits(clocks=(10000, 5000), increments=(0, 100)), 1, 0) == 280
    assert move_budget_ms(Limits(clocks=(1000, 1000), movestogo=1), 0, 0) == 400
    assert move_budget_ms(Limits(movetime=5), 0, 10) == 1


@settings(max_examples=60, deadline=None)
@given(small_positions())
# The heuristic prelude proves a win in 3 plies here, and the entry of the line's last
# node, in the near table, is overwritten by another position's of the same slot.
@example(state=CLOBBER.parse_board(("......../......../......../......../.wb...../wbw...../ww.w..../.bb.....", "w")))
def test_endgame_solver_proves_the_exact_result(state) -> None:
    game = CLOBBER
    assert interpreted_namespace(game.rules).solvable(state.s), "small positions go to the solver"
    searcher = new_searcher(game, TranspositionTable("clobber", game.rules.KEY_SCHEME, 1 << 20))
    final = list(searcher.search(state, StopSignal()))[-1]
    assert final.final
    if not state.legal_moves():
        assert final.pv == ()
        return
    truth = solve(state)
    # The heuristic prelude may prove the result first; otherwise the solver gives the
    # exact value, which without a margin is the game's return.
    assert final.margin in (None, truth)
    assert final.mate_in is not None and (final.mate_in > 0) == (truth > 0)
    assert final.pv[0] in state.legal_moves()
    if truth > 0:
        assert solve(state.play(final.pv[0])) < 0
    line_state = state
    for move in final.pv:
        assert move in line_state.legal_moves()
        line_state = line_state.play(move)
    assert line_state.outcome() is not None, "the solved line reaches the end of the game"


def exact_disc_margin(game, state) -> int:
    """The final disc margin for the side to move under perfect play (plain negamax)."""
    outcome = state.outcome()
    if outcome is not None:
        return outcome.margin[state.to_move]
    return max(-exact_disc_margin(game, state.play(move)) for move in state.legal_moves())


@pytest.mark.parametrize("memory", [1 << 20, 0], ids=["roomy-table", "crowded-table"])
@pytest.mark.parametrize("seed", range(4))
def test_solver_finds_the_exact_othello_disc_margin(seed: int, memory: int) -> None:
    import random

    othello = find_game("othello")
    rng = random.Random(seed)
    state = othello.initial_state({})
    while othello.format_board(state).split()[0].count(".") > 8 and state.legal_moves():
        state = state.play(rng.choice(state.legal_moves()))
    assert interpreted_namespace(othello.rules).solvable(state.s)
    table = TranspositionTable("othello", othello.rules.KEY_SCHEME, memory)
    reports = list(new_searcher(othello, table).search(state, StopSignal()))
    final = reports[-1]
    truth = exact_disc_margin(othello, state)
    assert final.margin == truth
    assert abs(final.score) > MATE_BOUND or truth == 0
    # The line is a perfect game to its end, even when the table has lost some of it.
    line_state = state
    for move in final.pv:
        assert move in line_state.legal_moves()
        line_state = line_state.play(move)
    assert line_state.outcome() is not None
    assert line_state.outcome().margin[state.to_move] == truth


@pytest.mark.parametrize("name", ["othello", "isolation"])
def test_a_search_started_interpreted_moves_to_the_compiled_code_once_loaded(name: str) -> None:
    from search.specialised import searches, upgraded, warm

    game = find_game(name)
    started = searches(game, False)
    assert not started.compiled
    assert upgraded(game, started, False) is started  # asked for the interpreted code
    warm(game)
    assert upgraded(game, started, True) is searches(game, True)
    assert upgraded(game, searches(game, True), True) is searches(game, True)


def test_a_stop_signal_reaches_only_its_own_search() -> None:
    """A signal's slots are its search's work block only while that search runs: a late
    `stop()` of an ended search leaves the searcher's next search alone."""
    searcher = new_search()
    start = CLOBBER.initial_state({})
    first = StopSignal()
    first.arm(None, None, 2)
    assert list(searcher.search(start, first))[-1].depth == 2
    second = StopSignal()
    second.arm(None, None, 5)
    done = threading.Event()

    def stop_the_first() -> None:
        while not done.is_set():
            first.stop()
            time.sleep(0.0005)

    stopper = threading.Thread(target=stop_the_first)
    stopper.start()
    try:
        reports = list(searcher.search(start, second))
    finally:
        done.set()
        stopper.join()
    assert reports[-1].depth == 5
    assert first.stopped and not second.stopped

