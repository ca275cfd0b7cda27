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
