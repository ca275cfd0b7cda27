"""Clobber positions as sums of independent parts (`games.clobber.rules.live_parts`
and `part_alone`), and the solver that classifies the parts (`search.solver`), held
against plain minimax on boards of several groups, compiled and interpreted alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import find_game
from games.kernel import interpreted_namespace
from search.solver import Solver, new_solver_table
from search.specialised import searches
from search.work import move_rows, new_work
from tests.search.test_search import solve

CLOBBER = find_game("clobber")
RULES = interpreted_namespace(CLOBBER.rules)


@st.composite
def scattered_positions(draw, most: int = 13):
    """Clobber positions of up to `most` stones in two to four small clusters."""
    rows = [["."] * 8 for _ in range(8)]
    stones = 0
    for _ in range(draw(st.integers(2, 4))):
        corner_rank, corner_file = draw(st.integers(0, 6)), draw(st.integers(0, 6))
        for square in draw(st.lists(st.integers(0, 5), min_size=1, max_size=5, unique=True)):
            rank, file = corner_rank + square // 3, corner_file + square % 3
            if rank < 8 and file < 8 and rows[7 - rank][file] == "." and stones < most:
                rows[7 - rank][file] = draw(st.sampled_from("wb"))
                stones += 1
    return CLOBBER.parse_board(["/".join("".join(row) for row in rows), draw(st.sampled_from("wb"))])


def squares_of(pattern: int) -> set[int]:
    return {square for square in range(64) if pattern >> square & 1}


def connected(squares: set[int]) -> bool:
    seen, frontier = set(), [min(squares)]
    while frontier:
        square = frontier.pop()
        if square in seen:
            continue
        seen.add(square)
        rank, file = divmod(square, 8)
        for near_rank, near_file in ((rank + 1, file), (rank - 1, file), (rank, file + 1), (rank, file - 1)):
            near = near_rank * 8 + near_file
            if 0 <= near_rank < 8 and 0 <= near_file < 8 and near in squares:
                frontier.append(near)
    return seen == squares


@settings(max_examples=200, deadline=None)
@given(scattered_positions(most=40))
def test_the_parts_are_the_live_groups_and_recombine_to_the_position(state) -> None:
    white, black = int(state.s[0]), int(state.s[1])
    row = np.zeros(64, dtype=np.int64)
    n = RULES.live_parts(state.s, row)
    parts = [squares_of(int(np.uint64(value))) for value in row[:n]]
    assert squares_of(int(np.uint64(row[n]))) == squares_of(white | black)
    covered: set[int] = set()
    for squares in parts:
        assert connected(squares)
        assert squares & squares_of(white) and squares & squares_of(black), "a part holds both colours"
        assert not covered & squares
        covered |= squares
    assert squares_of(int(RULES.live_stones(state.s[0], state.s[1]))) == covered
    # What is left out is dead: no stone there has an enemy neighbour, and no part
    # touches a stone outside it.
    for square in squares_of(white | black) - covered:
        rank, file = divmod(square, 8)
        mine = squares_of(white) if square in squares_of(white) else squares_of(black)
        for near_rank, near_file in ((rank + 1, file), (rank - 1, file), (rank, file + 1), (rank, file - 1)):
            near = near_rank * 8 + near_file
            if 0 <= near_rank < 8 and 0 <= near_file < 8 and near in squares_of(white | black):
                assert near in mine and near not in covered
    # The parts' moves are the position's moves.
    legal = set(state.legal_moves())
    from_parts = set()
    for value in row[:n]:
        sub = RULES.part_alone(state.s, value, 0)
        out = np.zeros(CLOBBER.rules.MAX_MOVES, dtype=np.int64)
        from_parts |= set(int(move) for move in out[:RULES.legal_moves(sub, out)])
    assert from_parts == legal


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "interpreted"])
@settings(max_examples=80, deadline=None)
@given(state=scattered_positions())
def test_the_solver_of_parts_agrees_with_minimax(compiled: bool, state) -> None:
    kernels = searches(CLOBBER, compiled)
    solver = Solver(kernels, new_work(kernels.HISTORY_MASK + 1), move_rows(kernels.MAX_MOVES),
                    new_solver_table(1 << 16))
    value = solver.solve(state, -1, 1)
    assert value == solve(state)
    # The line: every move of the winner keeps the win, to the end of the game.
    line = solver.best_line(state, -1, 1)
    for move in line:
        assert move in state.legal_moves()
        after = state.play(move)
        if solve(state) > 0:
            assert solve(after) < 0
        state = after
    assert state.outcome() is not None
