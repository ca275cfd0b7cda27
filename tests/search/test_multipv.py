"""MultiPV on a warm table: whatever the table holds from earlier searches (of the
position itself, of positions before and after it, to other depths), every iteration
reports its lines best first, and the move played is the first line's."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import all_games
from search import new_searcher
from search.limits import StopSignal
from search.tt import TranspositionTable

#: Depths that take a few milliseconds compiled in every game.
DEPTHS = {"othello": 6, "clobber": 4, "loa": 4, "abalone": 3, "isolation": 6}


def walk(game, params: dict[str, str], rng: random.Random, plies: int):
    """The positions of a random game from the start, up to `plies` plies or its end."""
    line = [game.initial_state(params)]
    for _ in range(plies):
        moves = line[-1].legal_moves()
        if not moves:
            break
        line.append(line[-1].play(rng.choice(moves)))
    return line


def search(searcher, position, depth: int, multipv: int = 1):
    stop = StopSignal()
    stop.arm(None, None, depth)
    return list(searcher.search(position, stop, None, multipv))


@pytest.mark.parametrize("name", sorted(all_games()))
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 30), priors=st.integers(1, 4),
       multipv=st.integers(2, 5))
def test_multipv_lines_are_best_first_on_a_warm_table(name: str, seed: int, plies: int, priors: int,
                                                       multipv: int) -> None:
    game = all_games()[name]
    rng = random.Random(seed)
    params = {"seed": str(seed % 1000)} if "seed" in game.parameters else {}
    line = walk(game, params, rng, plies + 3)
    position = line[min(plies, len(line) - 1)]
    if len(position.legal_moves()) < 2:
        return
    searcher = new_searcher(game, TranspositionTable(game.name, game.rules.KEY_SCHEME, 1 << 22))
    for _ in range(priors):  # the table as earlier moves of a game leave it
        search(searcher, rng.choice(line), rng.randint(1, DEPTHS[name] + 1), rng.choice((1, multipv)))
    reports = search(searcher, position, DEPTHS[name], multipv)
    for report in reports[:-1]:
        scores = [report.score, *(score for score, _ in report.others)]
        assert scores == sorted(scores, reverse=True), (report.depth, scores)
        assert len({pv[0] for _, pv in report.others} | {report.pv[0]}) == len(scores)
    last = next(report for report in reversed(reports) if not report.final)
    assert reports[-1].pv[0] == last.pv[0]


@pytest.mark.parametrize("name", sorted(all_games()))
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 30), nodes=st.integers(1, 300_000),
       multipv=st.integers(2, 4))
def test_a_search_cut_short_reports_whole_sets_and_ends_on_the_last(name: str, seed: int, plies: int, nodes: int,
                                                                    multipv: int) -> None:
    """A node limit ends a search inside an iteration (or inside its further lines):
    every report is a whole set (`multipv` lines, or every root move where fewer), and
    the final one is the last completed iteration's set again, whose first move is
    played: lines of an unfinished iteration never stand beside those of a finished one."""
    game = all_games()[name]
    rng = random.Random(seed)
    params = {"seed": str(seed % 1000)} if "seed" in game.parameters else {}
    line = walk(game, params, rng, plies)
    position = line[-1]
    if not position.legal_moves():
        return
    expected = min(multipv, len(position.legal_moves()))
    searcher = new_searcher(game, TranspositionTable(game.name, game.rules.KEY_SCHEME, 1 << 20))
    stop = StopSignal()
    stop.arm(None, nodes, None)
    reports = list(searcher.search(position, stop, None, multipv))
    assert len(reports) >= 2, "the first iteration completes whatever the limit"
    for report in reports:
        assert 1 + len(report.others) == expected, (report.depth, report.final)
    final, last = reports[-1], reports[-2]
    assert final.final and not last.final
    assert final.depth == last.depth
    assert [final.score, *(score for score, _ in final.others)] == [last.score, *(score for score, _ in last.others)]
    assert [final.pv[0], *(pv[0] for _, pv in final.others)] == [last.pv[0], *(pv[0] for _, pv in last.others)]
