"""The `Evaluation` option through the real engine: Othello's trained pattern tables by
default, its hand-set evaluation on request, Knight Isolation's trained tables on
request, the search and `eval` following the option (its refusals and the tables it
empties: tests/daemon/test_facade.py)."""

from __future__ import annotations

import random

import pytest

from games import find_game
from games.kernel import interpreted_namespace
from games.othello import evaluation as classic, patterns
from tests.conftest import StdioEngine, run

OTHELLO = find_game("othello")


def midgame_position(seed: int, plies: int = 24):
    rng = random.Random(seed)
    position = OTHELLO.initial_state({})
    for _ in range(plies):
        position = position.play(rng.choice(position.legal_moves()))
    return position


def depth_one_score(module, position) -> int:
    """What a 1-ply search scores `position` at with the evaluation `module`: the best
    of its moves' positions, valued for the side to move."""
    evaluate = interpreted_namespace(module).evaluate
    return max(-int(evaluate(position.play(move).s)) for move in position.legal_moves())


def test_the_option_is_announced_with_every_evaluation() -> None:
    async def scenario() -> None:
        async with StdioEngine() as engine:
            lines = await engine.ask("uci", "uciok")
            assert "option name Evaluation type combo default default var default var classic var patterns" in lines
    run(scenario())


@pytest.mark.parametrize("seed", [3, 11])
def test_search_and_eval_follow_the_option(seed: int) -> None:
    position = midgame_position(seed)
    board = OTHELLO.format_board(position)
    pattern_score, classic_score = depth_one_score(patterns, position), depth_one_score(classic, position)

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame othello")
            await engine.send(f"position board {board}")
            await engine.ready(timeout=180)
            for name, module, score, term in (("default", patterns, pattern_score, "corner2x5"),
                                              ("classic", classic, classic_score, "stable_edges"),
                                              ("patterns", patterns, pattern_score, "corner3x3")):
                await engine.send(f"setoption name Evaluation value {name}")
                await engine.ready(timeout=180)
                lines = await engine.ask("eval", "eval total")
                lines += await engine.ready()
                value = int(interpreted_namespace(module).evaluate(position.s))
                assert lines[0] == f"eval total {value}", name
                assert any(line.startswith(f"eval term {term} ") for line in lines), lines
                answer = await engine.bestmove("go depth 1")
                assert answer.infos[-1].score.cp == score, name
    run(scenario())


def test_knight_isolation_evaluates_with_its_trained_tables_on_request() -> None:
    isolation = find_game("isolation")
    trained = isolation.with_evaluation("patterns")
    position = isolation.initial_state({"seed": "4"})
    rng = random.Random(4)
    for _ in range(9):
        position = position.play(rng.choice(position.legal_moves()))
    board = isolation.format_board(position)

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame isolation seed=4")
            await engine.send(f"position board {board}")
            for name, game, term in (("default", isolation, "territory"), ("patterns", trained, "exits"),
                                     ("classic", isolation, "mobility")):
                await engine.send(f"setoption name Evaluation value {name}")
                await engine.ready(timeout=180)
                lines = await engine.ask("eval", "eval total")
                lines += await engine.ready()
                values = game.evaluate(position)
                me = position.to_move
                utility = values[me] - max(value for player, value in enumerate(values) if player != me)
                assert any(line.startswith(f"eval term {term} ") for line in lines), lines
                assert lines[0] == f"eval total {utility}", (name, lines)
                answer = await engine.bestmove("go depth 2")
                assert isolation.parse_move(position, answer.move) in position.legal_moves()
    run(scenario())
