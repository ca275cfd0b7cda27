"""Othello's own solver for the last empty squares (`games.othello.endgame`), held against
plain negamax over the rules oracle on scattered near-full boards: the exact margin with
a full window, and a fail-soft bound on the right side of any other window, compiled and
interpreted alike."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import find_game
from games.kernel import interpreted
from games.othello import endgame
from tests.oracle import othello as oracle

OTHELLO = find_game("othello")
FORMS = {"compiled": endgame.solve_ending, "interpreted": interpreted(endgame.solve_ending)}


@functools.lru_cache(maxsize=None)
def exact_margin(text: str) -> int:
    """The final disc margin for the side to move under perfect play, by plain negamax."""
    position = oracle.parse_board(text)
    finished = oracle.result(position)
    if finished is not None:
        return finished.margin[int(position.to_move)]
    return max(-exact_margin(oracle.format_board(oracle.play(position, move)))
               for move in oracle.legal_moves(position))


@st.composite
def near_full_boards(draw, most_empty: int = endgame.ENDING_EMPTIES):
    """A board text with 1 to `most_empty` empty squares, the others' colours drawn, either
    side to move: passes, wipe-outs and ends with empty squares come up often."""
    empty = set(draw(st.lists(st.integers(0, 63), min_size=1, max_size=most_empty, unique=True)))
    black_share = draw(st.sampled_from([0.1, 0.5, 0.9]))
    colours = draw(st.lists(st.floats(0, 1), min_size=64, max_size=64))
    cells = ["." if i in empty else ("0" if colours[i] < black_share else "1") for i in range(64)]
    rows = ["".join(cells[row * 8:row * 8 + 8]) for row in range(8)]
    return f"{'/'.join(rows)} {draw(st.sampled_from('01'))}"


@pytest.mark.parametrize("form", FORMS)
@settings(max_examples=80, deadline=None)
@given(text=near_full_boards(), window=st.tuples(st.integers(-66, 66), st.integers(-66, 66)))
def test_ending_solver_is_exact_and_fail_soft(form: str, text: str, window: tuple[int, int]) -> None:
    solve_ending = FORMS[form]
    state = OTHELLO.parse_board(text.split()).s
    truth = exact_margin(text)
    counter = np.zeros(1, dtype=np.int64)
    assert solve_ending(state, -65, 65, counter) == truth
    assert counter[0] >= 1
    alpha, beta = min(window), max(window)
    if alpha == beta:
        return
    value = solve_ending(state, alpha, beta, counter)
    if truth <= alpha:
        assert truth <= value <= alpha
    elif truth >= beta:
        assert beta <= value <= truth
    else:
        assert value == truth
