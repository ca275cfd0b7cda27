"""The `Evaluation` option through the real engine: Othello's trained pattern tables by
default, its hand-set evaluation on request, the search and `eval` following the option,
and a clear refusal for an evaluation the game lacks."""

from __future__ import annotations

import random

import pytest

from games import find_game
from games.kernel import interpreted_namespace
from games.othello import evaluation as classic, patterns
from protocol.client import EngineError
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


def test_an_evaluation_the_game_lacks_is_refused_and_a_later_game_uses_its_own() -> None:
    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send("setgame clobber")
            with pytest.raises(EngineError) as refused:
                await engine.configure({"Evaluation": "patterns"})
            assert refused.value.code == "bad-value"
            assert "clobber has no evaluation patterns: it has classic" in str(refused.value)
            await engine.send("setoption name Evaluation value classic")
            await engine.send("setgame othello")
            await engine.send("setoption name Evaluation value patterns")
            await engine.send("setgame clobber")
            await engine.ready(timeout=180)
            assert (await engine.bestmove("go depth 2")).move is not None
            lines = await engine.ask("eval", "eval total")
            assert lines[0].startswith("eval total ")
    run(scenario())


def test_a_change_of_evaluation_empties_the_tables_that_hold_the_other_ones_scores() -> None:
    async def fresh_search(evaluation: str) -> tuple[int | None, int | None]:
        async with StdioEngine() as engine:
            await engine.send(f"setoption name Evaluation value {evaluation}")
            await engine.send("setgame othello")
            await engine.send("position startpos moves f5 d6")
            await engine.ready(timeout=180)
            final = (await engine.bestmove("go depth 6")).infos[-1]
            return final.score.cp, final.nodes

    async def scenario() -> None:
        expected = {name: await fresh_search(name) for name in ("classic", "patterns")}
        async with StdioEngine() as engine:
            await engine.send("setgame othello")
            await engine.send("position startpos moves f5 d6")
            for name in ("classic", "patterns", "classic"):
                await engine.send(f"setoption name Evaluation value {name}")
                await engine.ready(timeout=180)
                final = (await engine.bestmove("go depth 6")).infos[-1]
                assert (final.score.cp, final.nodes) == expected[name], name
            # Setting the value the option has already keeps the table: the search
            # finds its own entries.
            await engine.send("setoption name Evaluation value classic")
            assert (await engine.bestmove("go depth 6")).infos[-1].nodes < expected["classic"][1]
    run(scenario())
