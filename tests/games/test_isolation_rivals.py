"""Knight Isolation's rival models (`games.isolation.rivals`): each gives a probability
over the moves, and each predicts the class of play it is named after: recorded games of
players that play that way are predicted move for move."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings, strategies as st

from adapters.bot.bots import greedy_move
from games import find_game
from games.isolation import rivals
from games.kernel import interpreted_namespace

GAME = find_game("isolation")
RIVALS = interpreted_namespace(rivals)
RULES = interpreted_namespace(GAME.rules)


def predictions(position) -> tuple[list[int], np.ndarray]:
    moves = np.zeros(8, dtype=np.int64)
    count = int(RULES.legal_moves(position.s, moves))
    out = np.zeros((rivals.MODEL_COUNT, 8))
    RIVALS.predict(position.s, moves, np.int64(count), out, np.zeros(rivals.SCRATCH, dtype=np.int64))
    return [int(move) for move in moves[:count]], out[:, :count]


def random_game(seed: int, choose):
    """The positions and moves of a game from seed's start, each move `choose(position)`."""
    position = GAME.initial_state({"seed": str(seed)})
    line = []
    while position.outcome() is None:
        move = choose(position)
        line.append((position, move))
        position = position.play(move)
    return line


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), plies=st.integers(0, 30))
def test_each_model_gives_a_probability_over_the_moves(seed: int, plies: int) -> None:
    rng = random.Random(seed)
    position = GAME.initial_state({"seed": str(seed)})
    for _ in range(plies):
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(rng.choice(moves))
    if position.outcome() is not None:
        return
    moves, out = predictions(position)
    assert moves == position.legal_moves()
    assert np.all(out >= 0) and np.allclose(out.sum(axis=1), 1.0)
    # The best-few model spreads over at least min(3, moves) moves.
    assert (out[rivals.MODELS.index("best few")] > 0).sum() >= min(rivals.BEST_FEW, len(moves))


def test_the_territory_model_predicts_the_greedy_players_moves() -> None:
    """The example greedy bot plays the move the evaluation rates best for it: the
    territory model gives each of its moves in whole games a share of the best."""
    for seed in range(3):
        rng = random.Random(seed)

        def greedy(position):
            legal = [GAME.format_move(position, move) for move in position.legal_moves()]
            return GAME.parse_move(position, greedy_move(GAME, position, legal, rng))

        for position, move in random_game(seed, greedy):
            moves, out = predictions(position)
            territory = out[rivals.MODELS.index("territory")]
            assert territory[moves.index(move)] == territory.max() > 0


def test_the_mobility_model_predicts_a_player_greedy_on_its_exits() -> None:
    def exits(position, move):
        child = position.play(move)
        own = GAME.knights(child)[position.to_move]
        occupied = GAME.blocked(child) | sum(1 << square for square in GAME.knights(child))
        return bin(int(GAME.rules.KNIGHT[own]) & ~occupied).count("1")

    for seed in range(3):
        line = random_game(seed, lambda position: max(position.legal_moves(), key=lambda m: exits(position, m)))
        for position, move in line:
            moves, out = predictions(position)
            mobility = out[rivals.MODELS.index("mobility")]
            assert mobility[moves.index(move)] == mobility.max() > 0
