"""The contract of games.base, checked for every registered game by random playouts."""

from __future__ import annotations

import random
import subprocess
import sys
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import all_games, find_game
from games.base import CLASSIC, GameError, IllegalMoveError, NotationError, UnknownGameError

GAMES = sorted(all_games())


def playout(game, seed: int, max_plies: int = 400):
    """The states of a random game from the start position."""
    rng = random.Random(seed)
    state = game.initial_state({})
    states = [state]
    for _ in range(max_plies):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(rng.choice(moves))
        states.append(state)
    return states


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_playout_keeps_the_state_contract(name: str, seed: int) -> None:
    """The first 80 plies of random games: a sample of the slow check below."""
    check_state_contract(find_game(name), playout(find_game(name), seed, 80))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_keep_the_state_contract_to_their_end(name: str, seed: int) -> None:
    check_state_contract(find_game(name), playout(find_game(name), seed))


def check_state_contract(game, states: list) -> None:
    """Every state of a playout keeps the contract: an outcome exactly when it has no
    move, board text and notation round trips, a child's key as recomputed, no
    mutation, no move twice, zero-sum returns at the end."""
    for state in states:
        snapshot = repr(state)
        moves = state.legal_moves()
        outcome = state.outcome()
        assert (outcome is None) == bool(moves), "outcome exactly when there is no move"
        text = game.format_board(state)
        again = game.parse_board(text.split())
        assert again == state, "board text round trip, key recomputed from scratch"
        for move in moves:
            token = game.format_move(state, move)
            assert game.parse_move(state, token) == move
            child = state.play(move)
            assert child.key == game.parse_board(game.format_board(child).split()).key
        assert repr(state) == snapshot, "play never mutates"
        assert len(set(moves)) == len(moves)
    final = states[-1].outcome()
    if final is not None and game.zero_sum:
        assert sum(final.returns) == 0


@pytest.mark.parametrize("name", GAMES)
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_board_images_are_the_same_game_seen_otherwise(name: str, seed: int) -> None:
    """Each image of a position has its moves, mapped back, and each move leads to the
    image of the position that move leads to: what lets a book answer for all of them."""
    game = find_game(name)
    for state in playout(game, seed, 60)[::3]:
        images = game.board_images(state)
        assert images[0][0] is state
        for image, back in images:
            assert image.to_move == state.to_move
            moves = image.legal_moves()
            assert sorted(back(move) for move in moves) == sorted(state.legal_moves())
            for move in moves:
                child = state.play(back(move))
                assert image.play(move) in {other for other, _ in game.board_images(child)}


@pytest.mark.parametrize("name", GAMES)
def test_turns_alternate_in_two_player_games(name: str) -> None:
    game = find_game(name)
    if game.num_players != 2:
        pytest.skip("two-player rule")
    states = playout(game, 7)
    for before, after in zip(states, states[1:]):
        assert after.to_move in range(game.num_players)
        assert before.key != after.key


@pytest.mark.parametrize("name", GAMES)
def test_the_descriptor_names_its_own_modules(name: str) -> None:
    """`evaluation`, `training` and `parts` are modules of the game's own package (the last
    two None where the game has none), and the hand-set evaluation is every game's."""
    game = find_game(name)
    assert CLASSIC in game.evaluations
    for module in (game.evaluation, game.with_evaluation(CLASSIC).evaluation, game.training, game.parts):
        assert module is None or isinstance(module, ModuleType) and module.__name__.startswith(f"games.{name}.")
    assert game.evaluation is not None


def test_importing_a_game_leaves_its_training_unloaded() -> None:
    """A training module is heavy and only the tools need it: a process that plays a game
    never imports it."""
    loaded = subprocess.run([sys.executable, "-c", "import sys; from games import all_games; all_games(); "
                             "print(any(name.endswith('.training') for name in sys.modules))"],
                            capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "False"


@pytest.mark.parametrize("name", GAMES)
def test_notation_errors_are_game_errors(name: str) -> None:
    game = find_game(name)
    state = game.initial_state({})
    for token in ("", "zz", "a0a1", "pass2", "\x01", "é"):
        with pytest.raises((NotationError, IllegalMoveError)):
            game.parse_move(state, token)
    for text in ("", "x", "//////// w", "a b c d"):
        with pytest.raises(GameError):
            game.parse_board(text.split())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=20), max_size=5))
def test_board_parsers_raise_only_game_errors(tokens: list[str]) -> None:
    for game in all_games().values():
        try:
            game.parse_board(tokens)
        except GameError:
            pass


def test_unknown_game() -> None:
    with pytest.raises(UnknownGameError, match="'chess'"):
        find_game("chess")
