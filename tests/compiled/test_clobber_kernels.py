"""Clobber kernels against the reference rules and evaluation, move for move."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402
from numba import njit  # noqa: E402

from compiled.clobber import kernels as K  # noqa: E402
from compiled.core import ONGOING  # noqa: E402
from games import find_game  # noqa: E402
from games.clobber.rules import make_state  # noqa: E402
from search.perft import perft as reference_perft  # noqa: E402
from tests.compiled import playouts  # noqa: E402
from tests.conftest import load_vectors, perft_records  # noqa: E402

GAME = find_game("clobber")
RECORDS = load_vectors("clobber")
KERNELS = (K.legal_moves, K.move_count, K.play, K.key, K.to_move, K.result, K.margin,
           K.evaluate, K.solvable)


def state_of(record: dict):
    return GAME.parse_board(["/".join(record["board"]), record["to_move"]])


def compiled_play(s: tuple, move: int) -> tuple:
    return playouts.compiled_play(K, s, move)


@njit(cache=True, nogil=True)
def _perft(s, depth, buffers):
    if depth <= 0:
        return np.int64(1)
    moves = buffers[depth]
    n = K.legal_moves(s, moves)
    if depth == 1:
        return np.int64(n)
    total = np.int64(0)
    for i in range(n):
        total += _perft(K.play(s, moves[i]), depth - 1, buffers)
    return total


def compiled_perft(state, depth: int) -> int:
    buffers = np.empty((max(depth, 1) + 1, K.MAX_MOVES), dtype=np.int64)
    return int(_perft(K.pack(state), np.int64(depth), buffers))


def check_position(state) -> None:
    """Every kernel of one position, and the key after each of its moves."""
    s = K.pack(state)
    out = np.empty(K.MAX_MOVES, dtype=np.int64)
    n = K.legal_moves(s, out)
    moves = state.legal_moves()
    assert list(out[:n]) == moves
    assert n <= K.MAX_MOVES and all(0 <= move < K.MOVE_LIMIT for move in moves)
    assert K.move_count(s) == n
    assert K.key(s) == state.key and K.to_move(s) == state.to_move
    outcome = state.outcome()
    if outcome is None:
        assert K.result(s) == ONGOING
    else:
        returns = outcome.returns[state.to_move]
        assert K.result(s) == (returns > 0) - (returns < 0)
        assert K.margin(s) == returns
    assert K.evaluate(s) == GAME.evaluate(state)[state.to_move]
    assert K.solvable(s) == GAME.solvable(state)
    for move in moves:
        assert K.unpack(compiled_play(s, move)) == state.play(move)


@pytest.mark.parametrize("record", perft_records("clobber"), ids=lambda r: f"depth{r['depth']}")
def test_perft_from_the_start_matches_the_recorded_counts(record: dict) -> None:
    assert compiled_perft(GAME.initial_state({}), record["depth"]) == record["nodes"]


def test_perft_from_referee_positions_matches_the_reference() -> None:
    sample = random.Random(5).sample(RECORDS, 40)
    for record in sample:
        state = state_of(record)
        depth = 3 if (state.white | state.black).bit_count() < 30 else 2
        assert compiled_perft(state, depth) == reference_perft(state, depth), record["game_index"]


@pytest.mark.slow
def test_perft_depth_4_from_referee_positions() -> None:
    for record in random.Random(6).sample(RECORDS, 12):
        state = state_of(record)
        assert compiled_perft(state, 4) == reference_perft(state, 4), record["game_index"]


def test_every_referee_position() -> None:
    for record in RECORDS:
        check_position(state_of(record))


def random_playouts(games: int, seed: int) -> None:
    playouts.random_playouts(GAME, K, check_position, games, seed)


def test_random_playouts() -> None:
    random_playouts(12, seed=1)


@pytest.mark.slow
def test_many_random_playouts() -> None:
    random_playouts(300, seed=2)


boards = st.tuples(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 1))


@settings(max_examples=400, deadline=None)
@given(boards)
def test_arbitrary_boards(board: tuple[int, int, int]) -> None:
    stones, colours, side = board
    check_position(make_state(stones & colours, stones & ~colours, side))


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(0, 1))
def test_sparse_boards(first: int, second: int, side: int) -> None:
    """Few stones: dead regions, dangling stones, dominoes and the finished positions."""
    stones = first & second
    check_position(make_state(stones & (first >> 7 | second << 3), stones & ~(first >> 7 | second << 3) & (2**64 - 1), side))


@pytest.mark.parametrize("text", [
    # the corners, bit 63 included, and a lone domino in each
    "......wb/......../......../......../......../......../......../b......w",
    "w......./b......./......../......../......../......../.......b/.......w",
    "wb....bw/......../......../...bw.../......../......../......../wb....bw",
    "w......./......../......../......../......../......../......../.......b",
    "......../......../......../......../......../......../......../........",
])
@pytest.mark.parametrize("side", ["w", "b"])
def test_edge_positions(text: str, side: str) -> None:
    check_position(GAME.parse_board([text, side]))


def test_every_kernel_compiles_once() -> None:
    check_position(GAME.initial_state({}))
    for kernel in KERNELS:
        assert len(kernel.signatures) == 1, kernel
