"""Clobber positions as sums of independent parts (`games.clobber.rules.live_parts`
and `part_alone`), and the solver that classifies the parts (`search.solver`), held
against plain minimax on boards of several groups, compiled and interpreted alike; the
table of small parts (`games.clobber.parts`): canonical keys, classes against minimax,
the shipped file against its build, and the evaluation's count of them."""

from __future__ import annotations


import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import find_game
from games.clobber import evaluation, parts
from games.kernel import interpreted_namespace
from games.symmetry import symmetric_image
from search.proving import Solver
from search.solver import new_solver_table
from search.specialised import searches
from search.work import move_rows, new_work
from tests.search.test_search import solve
from tools import parts_table

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


# ---- the table of small parts (`games.clobber.parts`) ------------------------------

PARTS = interpreted_namespace(parts)
EVALUATION = interpreted_namespace(evaluation)


@st.composite
def small_parts(draw, most: int = parts.TABLE_STONES):
    """(white, black): one orthogonally connected group of 2 to `most` stones holding both
    colours, grown square by square from a random square."""
    squares = [draw(st.integers(0, 63))]
    for _ in range(draw(st.integers(1, most - 1))):
        rank, file = divmod(draw(st.sampled_from(squares)), 8)
        near_rank, near_file = draw(st.sampled_from(((rank + 1, file), (rank - 1, file), (rank, file + 1), (rank, file - 1))))
        near = 8 * near_rank + near_file
        if 0 <= near_rank < 8 and 0 <= near_file < 8 and near not in squares:
            squares.append(near)
    colours = draw(st.lists(st.booleans(), min_size=len(squares), max_size=len(squares)).filter(
        lambda chosen: any(chosen) and not all(chosen)))
    white = sum(1 << square for square, is_white in zip(squares, colours) if is_white)
    black = sum(1 << square for square, is_white in zip(squares, colours) if not is_white)
    return white, black


def brute_force_class(white: int, black: int) -> int:
    """The part's class by plain minimax, each side moving first."""
    found = 0
    for side, bit in (("w", parts.WHITE_FIRST_WINS), ("b", parts.BLACK_FIRST_WINS)):
        rows = ["".join("w" if white >> (8 * rank + file) & 1 else "b" if black >> (8 * rank + file) & 1 else "."
                        for file in range(8)) for rank in range(7, -1, -1)]
        if solve(CLOBBER.parse_board(["/".join(rows), side])) > 0:
            found |= bit
    return found


def translated(white: int, black: int, rank_step: int, file_step: int) -> tuple[int, int] | None:
    """The part moved by the steps, or None if it leaves the board."""
    moved = []
    for board in (white, black):
        out = 0
        for square in squares_of(board):
            rank, file = divmod(square, 8)
            if not (0 <= rank + rank_step < 8 and 0 <= file + file_step < 8):
                return None
            out |= 1 << (8 * (rank + rank_step) + file + file_step)
        moved.append(out)
    return moved[0], moved[1]


@settings(max_examples=150, deadline=None)
@given(part=small_parts(), symmetry=st.integers(0, 7), rank_step=st.integers(-7, 7), file_step=st.integers(-7, 7))
def test_images_of_a_part_share_its_key_and_its_class(part, symmetry, rank_step, file_step) -> None:
    white, black = part
    key, swapped = PARTS.part_key(np.uint64(white), np.uint64(black))
    image = (int(symmetric_image(np.uint64(white), symmetry)), int(symmetric_image(np.uint64(black), symmetry)))
    moved = translated(*image, rank_step, file_step) or image
    assert PARTS.part_key(np.uint64(moved[0]), np.uint64(moved[1]))[0] == key
    # The colours swapped: the same key, and the class with White's and Black's bits swapped.
    assert PARTS.part_key(np.uint64(black), np.uint64(white))[0] == key
    found = PARTS.part_class(np.uint64(white), np.uint64(black))
    swapped_class = PARTS.part_class(np.uint64(black), np.uint64(white))
    assert swapped_class == ((found & 1) << 1) | (found >> 1)
    assert PARTS.part_class(np.uint64(moved[0]), np.uint64(moved[1])) == found


@settings(max_examples=150, deadline=None)
@given(part=small_parts())
def test_the_table_holds_each_small_parts_class(part) -> None:
    white, black = part
    assert PARTS.part_class(np.uint64(white), np.uint64(black)) == brute_force_class(white, black)


def test_the_shipped_table_is_the_build_of_every_part() -> None:
    table = parts.load_table()
    assert len(parts.canonical_parts(parts.TABLE_STONES)) == len(table)
    smallest = parts_table.classify("clobber", parts, parts.canonical_parts(5))
    assert len(smallest) == 166 and np.isin(smallest, table).all()


def test_a_part_above_the_table_is_unknown() -> None:
    row = (1 << (parts.TABLE_STONES + 1)) - 1  # a line of TABLE_STONES + 1 stones on rank 1
    assert PARTS.part_class(np.uint64(row & 0x55), np.uint64(row & ~0x55)) == parts.UNKNOWN


@settings(max_examples=100, deadline=None)
@given(state=scattered_positions(most=30))
def test_the_evaluation_counts_the_small_parts_by_their_classes(state) -> None:
    own, opp = (state.s[0], state.s[1]) if state.to_move == 0 else (state.s[1], state.s[0])
    row = np.zeros(64, dtype=np.int64)
    won = fuzzy = 0
    for value in row[:RULES.live_parts(state.s, row)]:
        squares = int(np.uint64(value))
        if len(squares_of(squares)) <= parts.TABLE_STONES:
            found = brute_force_class(int(own) & squares, int(opp) & squares)  # own in White's place
            won += {parts.WHITE_FIRST_WINS: 1, parts.BLACK_FIRST_WINS: -1}.get(found, 0)
            fuzzy += found == parts.WHITE_FIRST_WINS | parts.BLACK_FIRST_WINS
    assert EVALUATION.terms(own, opp)[5:] == (won, fuzzy % 2)
