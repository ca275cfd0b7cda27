"""The exact solver against the FFO endgame suite (tests/data/othello-endgame/, see its
README), through the engine a session drives: win, loss or draw always as the file says,
and the margin as the file's once its scoring rule is allowed for (the file gives the
empty squares left at the end to the winner; CodinGame, and the engine, count discs
only: `games.othello.fixtures.agrees`). #1-#25 (up to 19 empties) by default; #26-#39
(up to 26 empties) are slow."""

from __future__ import annotations

import pytest

from daemon import cores
from daemon.engine import SessionEngine
from games import find_game
from search.limits import Limits
from tests.conftest import DATA, run

FIXTURES = find_game("othello").fixtures
SUITE = DATA / FIXTURES.SOLVE_SUITE_FOLDER


def ffo(path: str, first: int) -> list[tuple[int, str, int]]:
    """(number, board text, best score in the file) of each position of an FFO file."""
    return FIXTURES.read_suite((SUITE / path).read_text(), first)


def solved(board: str) -> int:
    """The exact disc margin for the side to move of `board`, as the engine's solver
    proves it."""
    async def prove() -> int:
        engine = SessionEngine(core=cores.default_core())
        engine.set_game("othello", {})
        engine.set_position(tuple(board.split()), ())
        reports = await engine.prove(Limits())
        assert reports[-1].final and reports[-1].margin is not None
        return reports[-1].margin

    return run(prove())


def check(board: str, best: int) -> None:
    margin = solved(board)
    assert FIXTURES.agrees(board, margin, best), (board, margin, best)


FIRST = ffo("fforum-1-19.obf", 1)
LATER = ffo("fforum-20-39.obf", 20)
#: Of #20-#39, those of at most 19 empty squares are checked by default.
SAMPLE = [position for position in LATER if position[1].count(".") <= 19]
REST = [position for position in LATER if position not in SAMPLE]


@pytest.mark.parametrize("number, board, best", FIRST + SAMPLE,
                         ids=[f"ffo{number}" for number, _, _ in FIRST + SAMPLE])
def test_ffo_suite(number: int, board: str, best: int) -> None:
    check(board, best)


@pytest.mark.slow
@pytest.mark.parametrize("number, board, best", REST, ids=[f"ffo{number}" for number, _, _ in REST])
def test_ffo_suite_to_26_empties(number: int, board: str, best: int) -> None:
    check(board, best)


@pytest.mark.parametrize("sign_first", [False, True])
@pytest.mark.parametrize("guess", [-6400, -900, 0, 250, 6400])
def test_null_windows_close_in_on_the_margin_from_any_first_guess(guess: int, sign_first: bool) -> None:
    from search.proving import Solver, close_in
    from search.solver import new_solver_table
    from search.specialised import searches
    from search.work import accumulator_rows, move_rows, new_work

    game = find_game("othello")
    kernels = searches(game)
    for number, board, _ in FIRST[:6]:
        root = game.parse_board(board.split())
        moves = move_rows(kernels.MAX_MOVES)
        exact = int(kernels.solve(root.s, -65, 65, new_solver_table(1 << 22), new_work(kernels.HISTORY_MASK + 1), moves,
                                  accumulator_rows(kernels.ACCUMULATOR)))
        solver = Solver(kernels, new_work(kernels.HISTORY_MASK + 1), moves, new_solver_table(1 << 22))
        reports = list(close_in(solver, root, kernels.MARGIN_LIMIT, guess, sign_first,
                                           lambda value, alpha, beta, complete: (value, alpha < value < beta)))
        # The sign first (a bound), then the margin, exact; a draw's at once.
        assert reports[-1] == (exact, True), number
        assert len(reports) == (1 if exact == 0 else 2)
        assert (reports[0][0] > 0) == (exact > 0) and (reports[0][0] < 0) == (exact < 0)


def test_the_time_left_and_the_solve_time_model_choose_the_prelude() -> None:
    import time

    from search import new_searcher
    from search.alphabeta import (LONG_SOLVE_SECONDS, PROVE_GUESS_DEPTH, SOLVE_SHARE, SOLVER_PRELUDE_DEPTH,
                                  INTERPRETED_SLOWDOWN)
    from search.limits import StopSignal
    from search.tt import TranspositionTable

    game = find_game("othello")
    searcher = new_searcher(game, TranspositionTable("othello", game.rules.KEY_SCHEME, 1 << 20))
    kernels = searcher._kernels = searcher.searches.ready(StopSignal())

    def prelude(board: str, seconds_left: float | None) -> int | None:
        stop = StopSignal()
        stop.arm(None if seconds_left is None else time.monotonic_ns() + int(seconds_left * 1e9), None, None)
        return searcher._prelude(game.parse_board(board.split()), stop)

    for _, board, _ in LATER[:3] + ffo("fforum-40-59.obf", 40)[5:10]:
        modelled = float(kernels.solve_seconds(game.parse_board(board.split()).s))
        modelled *= 1 if kernels.compiled else INTERPRETED_SLOWDOWN
        # A long deadline: the deep prelude where the proof fits the time left, else none.
        long = max(LONG_SOLVE_SECONDS, 1.0) * 4
        assert prelude(board, max(long, 2 * modelled)) == (
            SOLVER_PRELUDE_DEPTH if modelled <= SOLVE_SHARE * max(long, 2 * modelled) * 0.99 else PROVE_GUESS_DEPTH)
        if modelled > long:
            assert prelude(board, long) is None
        # A short one: the short prelude where the proof fits its share of it, else none.
        short = LONG_SOLVE_SECONDS / 2
        assert prelude(board, short) == (SOLVER_PRELUDE_DEPTH if modelled <= SOLVE_SHARE * short * 0.99 else None)
        # None: where the game calls the position solvable.
        assert prelude(board, None) == (SOLVER_PRELUDE_DEPTH if kernels.solvable(game.parse_board(board.split()).s)
                                        else None)
