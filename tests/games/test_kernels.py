"""Every game's kernels compiled against the same kernels interpreted: the numba
intrinsics' plain-Python twins and numba's integer semantics agree with the
interpreter's, position by position (bench positions and random playouts), and the
recorded perft counts hold in both forms."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games import all_games
from games.base import Position
from games.kernel import COMPILING, interpreted_namespace
from search.specialised import perft_leaves
from tests.conftest import perft_records

pytestmark = pytest.mark.skipif(not COMPILING, reason="numba is not available")

#: The contract kernels of a game's rules module: of every game, then of two-player
#: games, then of games of more players.
RULES = ("legal_moves", "play", "key", "to_move")
TWO_PLAYER_RULES = ("result", "margin", "solvable")
MULTI_PLAYER_RULES = ("returns", "moves_for", "play_for")
GAMES = [game for game in all_games().values() if hasattr(game, "rules")]


def rule_names(game) -> tuple[str, ...]:
    return RULES + (TWO_PLAYER_RULES if game.num_players == 2 else MULTI_PLAYER_RULES)


def check_position(game, position: Position) -> None:
    """Each kernel compiled and interpreted on `position`, and after each of its moves."""
    compiled, plain = game.rules, interpreted_namespace(game.rules)
    s = position.s
    out, plain_out = np.empty(compiled.MAX_MOVES, np.int64), np.empty(compiled.MAX_MOVES, np.int64)
    count = compiled.legal_moves(s, out)
    assert count == plain.legal_moves(s, plain_out)
    assert list(out[:count]) == list(plain_out[:count])
    assert all(0 <= move < compiled.MOVE_LIMIT for move in out[:count])
    for name in ("key", "to_move"):
        assert getattr(compiled, name)(s) == getattr(plain, name)(s), name
    if hasattr(compiled, "move_count"):  # an optional kernel: the moves, counted
        assert compiled.move_count(s) == plain.move_count(s) == count
    if game.num_players == 2:
        check_two_player_kernels(game, s)
    else:
        check_multi_player_kernels(game, s)
    for move in out[:count]:
        assert Position(game, compiled.play(s, move)) == position.play(int(move))


def check_two_player_kernels(game, s: tuple) -> None:
    compiled, plain = game.rules, interpreted_namespace(game.rules)
    for name in ("result", "solvable"):
        assert getattr(compiled, name)(s) == getattr(plain, name)(s), name
    if plain.result(s) != 2:
        assert compiled.margin(s) == plain.margin(s)
    assert game.evaluation.evaluate(s) == interpreted_namespace(game.evaluation).evaluate(s)


def check_multi_player_kernels(game, s: tuple) -> None:
    """Returns and evaluations per player; every player's moves out of turn, each
    played with every player next."""
    compiled, plain = game.rules, interpreted_namespace(game.rules)
    players = game.num_players
    values, plain_values = np.zeros(players, np.int64), np.zeros(players, np.int64)
    assert compiled.returns(s, values) == plain.returns(s, plain_values)
    assert list(values) == list(plain_values)
    game.evaluation.evaluate(s, values)
    interpreted_namespace(game.evaluation).evaluate(s, plain_values)
    assert list(values) == list(plain_values)
    out, plain_out = np.empty(compiled.MAX_MOVES, np.int64), np.empty(compiled.MAX_MOVES, np.int64)
    for player in map(np.int64, range(players)):
        count = compiled.moves_for(s, player, out)
        assert count == plain.moves_for(s, player, plain_out)
        assert list(out[:count]) == list(plain_out[:count])
        for move in out[:count]:
            for following in map(np.int64, range(players)):
                assert (Position(game, compiled.play_for(s, player, move, following))
                        == Position(game, plain.play_for(s, player, move, following)))


def random_playouts(game, games: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(games):
        position = game.initial_state({})
        while True:
            check_position(game, position)
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_random_playouts(game) -> None:
    random_playouts(game, 3, seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_many_random_playouts(game) -> None:
    random_playouts(game, 100, seed=2)


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_bench_positions(game) -> None:
    for text in game.fixtures.BENCH_POSITIONS:
        check_position(game, game.parse_board(text.split()))


@pytest.mark.parametrize("game", GAMES, ids=lambda game: game.name)
def test_every_kernel_compiles_once(game) -> None:
    """Every kernel, called on the positions of a whole game (the last one's margin
    included), has one compiled signature, whatever ran before in this process."""
    random_playouts(game, 1, seed=3)
    for name in rule_names(game):
        assert len(getattr(game.rules, name).signatures) == 1, name
    assert len(game.evaluation.evaluate.signatures) == 1


#: The recorded perft counts small enough to count interpreted as well.
SMALL_PERFTS = [record for game in GAMES for record in perft_records(game.name) if record["nodes"] <= 300_000]


@pytest.mark.parametrize("record", SMALL_PERFTS, ids=lambda r: f"{r['game']}-{r['depth']}")
def test_recorded_perft_counts_hold_compiled_and_interpreted(record) -> None:
    start = all_games()[record["game"]].initial_state({})
    assert perft_leaves(start, record["depth"], compiled=True) == record["nodes"]
    assert perft_leaves(start, record["depth"], compiled=False) == record["nodes"]
