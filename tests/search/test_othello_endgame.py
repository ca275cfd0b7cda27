"""The exact solver against the FFO endgame suite (tests/data/othello-endgame/, see its
README), through the engine a session drives: win, loss or draw always as the file says,
and the margin as the file's once its scoring rule is allowed for (the file gives the
empty squares left at the end to the winner; CodinGame, and the engine, count discs
only). #1-#19 (14-16 empties) by default; #20-#37 (up to 22 empties) are slow."""

from __future__ import annotations

import pytest

from daemon import cores
from daemon.engine import Engine
from search.limits import Limits
from tests.conftest import DATA, run

SUITE = DATA / "othello-endgame"
PIECES = {"X": "0", "O": "1", "-": "."}


def ffo(path: str, first: int) -> list[tuple[int, str, int]]:
    """(number, board text, best score in the file) of each position of an FFO file."""
    positions = []
    for number, line in enumerate((SUITE / path).read_text().splitlines(), start=first):
        squares, side, *scores = line.replace(";", " ").split()
        rows = ["".join(PIECES[square] for square in squares[row * 8:row * 8 + 8]) for row in range(8)]
        positions.append((number, f"{'/'.join(rows)} {PIECES[side]}", int(scores[0].split(":")[1])))
    return positions


def solved(board: str) -> tuple[int, int]:
    """(exact disc margin for the side to move, empty squares) of `board`, as the
    engine's solver proves it."""
    async def prove() -> int:
        engine = Engine(lambda line: None, cores.default_core())
        engine.set_game("othello", {})
        engine.set_position(tuple(board.split()), (), "prove")
        reports = await engine.prove(Limits())
        assert reports[-1].final and reports[-1].margin is not None
        return reports[-1].margin

    return run(prove()), board.split()[0].count(".")


def check(board: str, best: int) -> None:
    margin, empties = solved(board)
    assert (margin > 0) == (best > 0) and (margin < 0) == (best < 0), (board, margin, best)
    # The file's score adds the squares left empty at the end to the winner's side.
    assert abs(margin) <= abs(best) <= abs(margin) + empties, (board, margin, best)


FIRST = ffo("fforum-1-19.obf", 1)
LATER = ffo("fforum-20-39.obf", 20)[:18]


@pytest.mark.parametrize("number, board, best", FIRST, ids=[f"ffo{number}" for number, _, _ in FIRST])
def test_ffo_1_to_19(number: int, board: str, best: int) -> None:
    check(board, best)


@pytest.mark.slow
@pytest.mark.parametrize("number, board, best", LATER, ids=[f"ffo{number}" for number, _, _ in LATER])
def test_ffo_20_to_37(number: int, board: str, best: int) -> None:
    check(board, best)
