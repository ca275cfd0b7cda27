"""`eval`: the static evaluation through the protocol, against the compiled kernel the
search calls at its leaves, and its terms against the total."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games import all_games
from games.kernel import COMPILING
from protocol.client import EngineError
from tests.conftest import EVALUATION_ROUNDING, StdioEngine, run


def sample_positions(game, count: int, seed: int):
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        position = game.initial_state({"seed": str(seed)} if "seed" in game.parameters else {})
        while position.outcome() is None and len(positions) < count:
            if rng.random() < 0.3:
                positions.append(position)
            position = position.play(rng.choice(position.legal_moves()))
    return positions


def kernel_values(game, position) -> list[int]:
    """What the compiled evaluation the search's leaves call values `position` at, per
    player."""
    evaluation = game.evaluation
    if game.num_players == 2:
        value = int(evaluation.evaluate(position.s))
        return [value, -value] if position.to_move == 0 else [-value, value]
    values = np.zeros(3, dtype=np.int64)
    evaluation.evaluate(position.s, values)
    return [int(value) for value in values]


def leaf_score(game, position) -> int:
    """The score a leaf of the search has for the side to move: its value, and in a
    game of three players its value minus the best of the others' (`score cp`)."""
    values = kernel_values(game, position)
    me = position.to_move
    if game.num_players == 2:
        return values[me]
    return values[me] - max(value for player, value in enumerate(values) if player != me)


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
@pytest.mark.parametrize("name", sorted(all_games()))
def test_eval_gives_the_leaf_value_and_terms_that_add_up_to_it(name: str) -> None:
    game = all_games()[name]
    positions = sample_positions(game, 25, 7)

    async def scenario() -> None:
        async with StdioEngine() as engine:
            await engine.send(f"setgame {name}")
            for position in positions:
                await engine.send(f"position board {game.format_board(position)}")
                lines = (await engine.ask("eval", "eval total"))
                lines += await engine.ready()
                total = int(lines[0].split()[2])
                assert total == leaf_score(game, position), game.format_board(position)
                terms = [line.split() for line in lines[1:]]
                assert all(term[:2] == ["eval", "term"] and len(term) == 3 + game.num_players for term in terms)
                if terms:
                    # Each player's terms add up to its value.
                    for player, value in enumerate(kernel_values(game, position)):
                        summed = sum(int(term[3 + player]) for term in terms)
                        assert abs(summed - value) <= EVALUATION_ROUNDING[name], (lines, game.format_board(position))
                else:
                    # No terms: the evaluation values the position by a rule of its own
                    # (a win in one move), which its features mark with a negative phase.
                    assert game.evaluation.features(position.s)[0] < 0, game.format_board(position)
    run(scenario())


def test_eval_needs_a_game_and_waits_for_no_search() -> None:
    async def scenario() -> None:
        async with StdioEngine() as engine:
            with pytest.raises(EngineError) as refused:
                await engine.ask("eval", "eval total")
            assert (refused.value.code, refused.value.command) == ("no-game", "eval")
            await engine.send("setgame clobber")
            await engine.send("go infinite")
            with pytest.raises(EngineError) as refused:
                await engine.ask("eval", "eval total")
            assert refused.value.code == "busy"
            await engine.bestmove("stop")
            assert (await engine.ask("eval", "eval total"))[0].startswith("eval total ")
    run(scenario())
