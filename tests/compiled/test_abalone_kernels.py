"""Abalone's compiled kernels against the reference rules and evaluation.

No referee vectors exist for Abalone, so the positions are the start, the bench
positions, the hand-made positions of `tests/test_abalone.py` (with either side to move)
and their children, seeded random games (uniform, and greedy ones that push marbles off
until a side has six) and random boards from hypothesis, dense ones included (pushes
everywhere, sides boxed in). Every kernel must give exactly the reference's answer: the
moves in the same order, the state and key after every move, the result, the margin,
the evaluation.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from compiled.abalone import kernels, search as compiled_search  # noqa: E402
from compiled.core import ONGOING  # noqa: E402
from games.abalone.fixtures import BENCH_POSITIONS  # noqa: E402
from games.abalone.hexboard import CELLS, MARBLES, MAX_PLIES, WIDTH, WINNING_SCORE  # noqa: E402
from games.abalone.rules import GAME, make_state  # noqa: E402
from search.perft import perft as reference_perft  # noqa: E402
from tests.test_abalone import board, corner, neighbour  # noqa: E402


def compiled_perft(state, depth: int) -> int:
    return int(compiled_search.perft(kernels.pack(state), np.int64(depth)))


def sign(value: int) -> int:
    return (value > 0) - (value < 0)


_OUT = np.zeros(kernels.MAX_MOVES, dtype=np.int64)


KERNELS = (kernels.legal_moves, kernels.play, kernels.key, kernels.to_move, kernels.result,
           kernels.margin, kernels.evaluate, kernels.solvable)
#: Called by the kernels only: compiled with them, or not at all when they come from the
#: cache.
HELPERS = (kernels.generate_moves, kernels.has_move, kernels._pushes, kernels._triple_moves,
           kernels._pair_moves, kernels._emit_call)


def check(state, children: bool = True) -> list[int]:
    """Every kernel on `state` (and `play` on each of its moves) against the reference;
    returns the reference's moves."""
    s = kernels.pack(state)
    assert kernels.unpack(s) == state
    text = GAME.format_board(state)
    moves = state.legal_moves()
    n = kernels.legal_moves(s, _OUT)
    assert _OUT[:n].tolist() == moves, text
    assert n <= kernels.MAX_MOVES and all(0 <= move < kernels.MOVE_LIMIT for move in moves)
    assert int(kernels.key(s)) == state.key
    assert kernels.to_move(s) == state.to_move
    outcome = state.outcome()
    if outcome is None:
        assert kernels.result(s) == ONGOING, text
    else:
        assert kernels.result(s) == sign(outcome.returns[state.to_move]), text
        assert kernels.margin(s) == outcome.margin[state.to_move], text
    assert kernels.evaluate(s) == GAME.evaluate(state)[state.to_move], text
    assert kernels.solvable(s) == GAME.solvable(state)
    if children:
        for move in moves:
            # Returned to Python, the tuple's fields are Python ints: unpack, never pass
            # it back (it would compile a second signature).
            child = kernels.unpack(kernels.play(s, np.int64(move)))
            assert child == state.play(move), (text, move)
    return moves


def state_of(text: str, side: str | None = None):
    tokens = text.split()
    if side is not None:
        tokens[1] = side
    return GAME.parse_board(tokens)


def cell_names(cells) -> str:
    return " ".join(f"{x},{y}" for x, y in cells)


def hand_made_positions() -> list[str]:
    """The positions of `tests/test_abalone.py`: every kind of move, blocked pushes,
    pushes off every edge, the ends of the game."""
    texts = [
        board(black="4,4", white="0,0"),
        board(black="2,2", white="0,0"),
        board(black="2,6", white="0,0"),
        board(black="3,4 4,4", white="0,0"),
        board(black="2,3 3,4 3,5", white="0,0"),
        board(black="3,4 4,4 4,3", white="3,5"),
        board(black="2,4 3,4", white="4,4 6,4"),
        board(black="0,0 1,0 2,0", white="4,8"),
        board(black="1,4 2,4 3,4 4,4", white="5,4 6,4 7,4"),
        board(black="1,4 2,4 3,4 4,4", white="5,4 6,4"),
        board(black="1,4 2,4 3,4 4,4", white="0,0"),
        board(black="2,4 3,4", white="4,4", score2=5),
        board(black="6,4 7,4", white="8,4 0,0", score2=5),
        board(black="0,0", white="1,0 0,1 1,1", score1=1),
        board(black="1,1 2,2", white="0,0 1,0 0,1 2,1 1,2 3,2 2,3 3,3 3,1"),
        board(black="0,4 4,4", white="1,4 2,4"),
    ]
    for black, white in [
        ("2,4 3,4", "4,4"), ("4,4 5,4 6,4", "3,4"), ("4,4 5,4 6,4", "2,4 3,4"),
        ("2,2 3,3 4,4", "4,5 4,6"), ("2,4 3,4", "4,4 5,4"), ("1,4 2,4 3,4", "4,4 5,4 6,4"),
        ("2,4 3,4", "4,4 5,4 6,4"), ("1,4 2,4 3,4", "4,4 5,4 6,4 7,4"), ("3,4", "4,4"),
        ("2,4 3,4 5,4", "4,4"), ("1,4 2,4 3,4 6,4", "4,4 5,4"),
    ]:
        texts.append(board(black=black, white=white))
    for direction in range(6):
        edge = corner(direction)
        back = (direction + 3) % 6
        pushers = [neighbour(edge, back, k) for k in (1, 2)]
        texts.append(board(black=cell_names(pushers), white=cell_names([edge, (4, 4)])))
        column = [edge, neighbour(edge, back)]
        pushers = [neighbour(edge, back, k) for k in (2, 3, 4)]
        texts.append(board(black=cell_names(column), white=cell_names(pushers), side="1",
                           score1=5))
    for score1, score2 in ((1, 2), (3, 0), (2, 2)):
        texts.append(board(black="4,4", white="0,0", side="1", score1=score1, score2=score2,
                           turn=349))
    return texts


def random_game(seed: int, greedy: float = 0.0, plies: int = MAX_PLIES) -> list:
    """A game from the start: each ply the first move (the reference orders pushes off
    first) with probability `greedy`, else a uniform choice."""
    rng = random.Random(seed)
    state = GAME.initial_state({})
    states = [state]
    for _ in range(plies):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(moves[0] if rng.random() < greedy else rng.choice(moves))
        states.append(state)
    return states


# ---- perft -----------------------------------------------------------------------------


def test_perft_from_the_start() -> None:
    start = GAME.initial_state({})
    assert [compiled_perft(start, depth) for depth in (1, 2, 3, 4)] == [44, 1936, 98912, 5045110]
    assert compiled_perft(start, 3) == reference_perft(start, 3)


@pytest.mark.parametrize("text", BENCH_POSITIONS[1:])
def test_perft_from_the_bench_positions(text: str) -> None:
    state = state_of(text)
    assert compiled_perft(state, 3) == reference_perft(state, 3)


def test_perft_from_hand_made_and_random_positions() -> None:
    states = [state_of(text, side) for text in hand_made_positions() for side in "21"]
    for seed in range(4):
        states += random_game(seed, greedy=0.3)[::40]
    for state in states:
        assert compiled_perft(state, 2) == reference_perft(state, 2), GAME.format_board(state)


@pytest.mark.slow
@pytest.mark.parametrize("text", BENCH_POSITIONS[1:])
def test_perft_4_from_the_bench_positions(text: str) -> None:
    state = state_of(text)
    assert compiled_perft(state, 4) == reference_perft(state, 4)


# ---- every kernel on positions -----------------------------------------------------------


def test_the_start_position() -> None:
    start = GAME.initial_state({})
    assert len(check(start)) == 44
    for text in BENCH_POSITIONS:
        check(state_of(text))


@pytest.mark.parametrize("text", hand_made_positions())
def test_hand_made_positions_and_their_children(text: str) -> None:
    for side in "21":
        state = state_of(text, side)
        for move in check(state):
            check(state.play(move), children=False)


def test_the_ends_of_the_game() -> None:
    # Boxed in: no move, a loss with the margin of the scores (here in the loser's favour).
    boxed = state_of(board(black="0,0", white="1,0 0,1 1,1", score1=1, score2=3))
    assert check(boxed) == [] and kernels.result(kernels.pack(boxed)) == -1
    assert kernels.margin(kernels.pack(boxed)) == 2
    # Six off, in the middle of the board: over whoever is to move.
    for side in "21":
        won = state_of(board(black="4,4", white="0,0", side=side, score2=6))
        check(won)
        assert kernels.result(kernels.pack(won)) == (1 if side == "2" else -1)
    # The ply limit.
    for score1, score2 in ((1, 2), (3, 0), (2, 2)):
        state = state_of(board(black="4,4", white="0,0", side="2", score1=score1,
                               score2=score2, turn=350))
        check(state)
        assert kernels.result(kernels.pack(state)) == sign(score2 - score1)


@pytest.mark.parametrize("seed", range(3))
def test_random_games(seed: int) -> None:
    for state in random_game(seed):
        check(state)


@pytest.mark.parametrize("seed", range(3))
def test_greedy_games_that_end_with_six_off(seed: int) -> None:
    states = random_game(100 + seed, greedy=0.6)
    assert states[-1].outcome() is not None
    for state in states:
        check(state)


# ---- random boards -------------------------------------------------------------------------


def _distance(a: int, b: int) -> int:
    """The hex distance between two cells (bit indices)."""
    dq, dr = a % WIDTH - b % WIDTH, a // WIDTH - b // WIDTH
    return max(abs(dq), abs(dr), abs(dq + dr))


@st.composite
def _fields(draw, black: list[int], white: list[int], to_move: int | None = None):
    """The state of these marbles with any side to move (unless given), scores and turn
    as the notation allows them, mostly in a game that goes on."""
    limits = (min(WINNING_SCORE, MARBLES - len(white)), min(WINNING_SCORE, MARBLES - len(black)))
    if draw(st.integers(0, 3)):
        limits = tuple(min(limit, WINNING_SCORE - 1) for limit in limits)
    black_score = draw(st.integers(0, limits[0]))
    white_score = draw(st.integers(0, limits[1]))
    if black_score == white_score == WINNING_SCORE:
        white_score -= 1
    turn = draw(st.sampled_from([0, 1, 77, 200, MAX_PLIES - 1, MAX_PLIES]))
    if to_move is None:
        to_move = draw(st.integers(0, 1))
    return make_state(sum(1 << cell for cell in black), sum(1 << cell for cell in white),
                      to_move, black_score, white_score, turn)


@st.composite
def boards(draw, dense: bool = False):
    """Marbles on random cells (dense: packed within two cells of a random centre)."""
    if dense:
        centre = draw(st.sampled_from(CELLS))
        pool = [cell for cell in CELLS if _distance(cell, centre) <= 2]
    else:
        pool = list(CELLS)
    cells = draw(st.lists(st.sampled_from(pool), unique=True, min_size=min(6, len(pool)),
                          max_size=28))
    colours = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
    black = [cell for cell, colour in zip(cells, colours) if colour][:MARBLES]
    white = [cell for cell, colour in zip(cells, colours) if not colour][:MARBLES]
    return draw(_fields(black, white))


@st.composite
def crowds(draw):
    """The side to move's marbles on the cells nearest a random centre, the enemy's on
    the next ones around them: often boxed in, sometimes with a push left."""
    centre = draw(st.sampled_from(CELLS))
    rank = {cell: draw(st.integers(0, 9)) for cell in CELLS}
    cells = sorted(CELLS, key=lambda cell: (_distance(cell, centre), rank[cell]))
    own = draw(st.integers(1, 7))
    enemy = draw(st.integers(6, MARBLES))
    to_move = draw(st.integers(0, 1))
    mine, theirs = cells[:own], cells[own:own + enemy]
    black, white = (mine, theirs) if to_move == 0 else (theirs, mine)
    return draw(_fields(black, white, to_move))


@settings(max_examples=150, deadline=None)
@given(state=boards())
def test_random_boards(state) -> None:
    check(state)


@settings(max_examples=150, deadline=None)
@given(state=boards(dense=True))
def test_dense_random_boards(state) -> None:
    check(state)


@settings(max_examples=150, deadline=None)
@given(state=crowds())
def test_crowded_boards(state) -> None:
    check(state)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(state=st.one_of(boards(), boards(dense=True), crowds()))
def test_many_random_boards(state) -> None:
    check(state)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3, 40))
def test_many_random_games(seed: int) -> None:
    for state in random_game(seed, greedy=(seed % 4) / 4):
        check(state)


def test_every_kernel_compiles_once() -> None:
    start = GAME.initial_state({})
    check(start)
    check(state_of(board(black="0,0", white="1,0 0,1 1,1")))
    compiled_perft(start, 2)
    for kernel in KERNELS:
        assert len(kernel.signatures) == 1, kernel
    for helper in HELPERS:
        assert len(helper.signatures) <= 1, helper
