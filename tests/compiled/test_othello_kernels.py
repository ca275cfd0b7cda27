"""Othello kernels against the reference rules and evaluation, move for move."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402
from hypothesis import given, settings, strategies as st  # noqa: E402
from numba import njit  # noqa: E402

from compiled.core import ONGOING  # noqa: E402
from compiled.othello import kernels as K, search as compiled_search  # noqa: E402
from games import find_game  # noqa: E402
from games.othello.bitboard import flips, move_mask  # noqa: E402
from games.othello.evaluation import EDGE_STABILITY  # noqa: E402
from games.othello.rules import make_state  # noqa: E402
from search.perft import perft as reference_perft  # noqa: E402
from tests.compiled import playouts  # noqa: E402
from tests.conftest import load_vectors, perft_records  # noqa: E402
from tests.test_othello import board  # noqa: E402

GAME = find_game("othello")
RECORDS = load_vectors("othello")
POSITIONS = [record for record in RECORDS if not record["terminal"]]
FULL = (1 << 64) - 1
KERNELS = (K.legal_moves, K.move_count, K.play, K.key, K.to_move, K.result, K.margin, K.evaluate,
           K.solvable, K.make_state)


def state_of(record: dict):
    return GAME.parse_board(["/".join(record["board"]), record["to_move"]])


def compiled_play(s: tuple, move: int) -> tuple:
    return playouts.compiled_play(K, s, move)


def compiled_perft(state, depth: int) -> int:
    return int(compiled_search.perft(K.pack(state), np.int64(depth)))


@njit(cache=True, nogil=True)
def _flips_and_moves(own, opp, out):
    """flips(own, opp, square) into out[square] for every square, and the move mask."""
    for square in range(64):
        out[square] = K.flips(own, opp, np.int64(square))
    return K.move_mask(own, opp)


def check_position(state) -> None:
    """Every kernel of one position, and the state after each of its moves."""
    s = K.pack(state)
    assert K.unpack(s) == state
    assert K.make_state(np.uint64(state.black), np.uint64(state.white), np.int64(state.to_move)) == s
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
        assert K.margin(s) == outcome.margin[state.to_move]
    assert K.evaluate(s) == GAME.evaluate(state)[state.to_move]
    assert K.solvable(s) == GAME.solvable(state)
    for move in moves:
        assert K.unpack(compiled_play(s, move)) == state.play(move)


# ---- perft ------------------------------------------------------------------------------


@pytest.mark.parametrize("record", perft_records("othello"), ids=lambda r: f"depth{r['depth']}")
def test_perft_from_the_start_matches_the_recorded_counts(record: dict) -> None:
    assert compiled_perft(GAME.initial_state({}), record["depth"]) == record["nodes"]


# The published Othello perft counts go on from a finished game as if both sides
# passed: 24571284 at depth 10 and 212258800 at 11. Here a finished game has no move
# (the reference's definition), which takes off the 228 games over after 9 plies and,
# at depth 11, the 356 over after 10 plies as well. The reference's own perft gives
# 24571056 at depth 10 (a minute of pure Python).
PUBLISHED_PERFT = {8: 390216, 9: 3005288, 10: 24571284 - 228, 11: 212258800 - 228 - 356}


def test_perft_deeper_than_the_reference_can_go() -> None:
    start = GAME.initial_state({})
    for depth in (8, 9, 10):
        assert compiled_perft(start, depth) == PUBLISHED_PERFT[depth]


@pytest.mark.slow
def test_perft_depth_11() -> None:
    assert compiled_perft(GAME.initial_state({}), 11) == PUBLISHED_PERFT[11]


@njit(cache=True, nogil=True)
def _finished_games(s, depth, buffers, counts, ply):
    """counts[p] += the games over after exactly p plies, for p <= ply + depth."""
    if K.result(s) != ONGOING:
        counts[ply] += 1
        return
    if depth == 0:
        return
    moves = buffers[depth]
    n = K.legal_moves(s, moves)
    for i in range(n):
        _finished_games(K.play(s, moves[i]), depth - 1, buffers, counts, ply + 1)


def finished_games(plies: int) -> list[int]:
    counts = np.zeros(plies + 1, dtype=np.int64)
    buffers = np.empty((plies + 1, K.MAX_MOVES), dtype=np.int64)
    _finished_games(K.pack(GAME.initial_state({})), np.int64(plies), buffers, counts, np.int64(0))
    return list(counts)


def test_the_first_finished_games() -> None:
    assert finished_games(9) == [0] * 9 + [228]


@pytest.mark.slow
def test_the_games_finished_after_ten_plies() -> None:
    assert finished_games(10) == [0] * 9 + [228, 356]


def test_perft_from_referee_positions_matches_the_reference() -> None:
    for record in random.Random(5).sample(POSITIONS, 40):
        state = state_of(record)
        assert compiled_perft(state, 3) == reference_perft(state, 3), record["game_index"]


@pytest.mark.slow
def test_perft_depth_5_from_referee_positions() -> None:
    for record in random.Random(6).sample(POSITIONS, 12):
        state = state_of(record)
        assert compiled_perft(state, 5) == reference_perft(state, 5), record["game_index"]


def test_perft_through_passes_and_finished_games() -> None:
    # Eight plies before the end of each recorded game with a pass: the pass is among
    # those plies, so the recorded line crosses it and perft follows that line to the
    # end of the game.
    games: dict[int, list[str]] = {}
    for record in RECORDS:
        if record["terminal"] and "pass" in record["game_moves"]:
            games[record["game_index"]] = record["game_moves"]
    assert games
    for tokens in games.values():
        state = GAME.initial_state({})
        for token in tokens[:-8]:
            state = state.play(GAME.parse_move(state, token))
        assert compiled_perft(state, 8) == reference_perft(state, 8)


# ---- positions --------------------------------------------------------------------------


def test_every_referee_position() -> None:
    for record in POSITIONS:
        check_position(state_of(record))


def test_recorded_games_replay_with_their_passes() -> None:
    games: dict[int, list[str]] = {}
    for record in RECORDS:
        if record["terminal"]:
            games[record["game_index"]] = record["game_moves"]
    for tokens in games.values():
        state = GAME.initial_state({})
        s = K.pack(state)
        for token in tokens:
            move = GAME.parse_move(state, token)
            state = state.play(move)
            s = compiled_play(s, move)
            assert K.unpack(s) == state
        assert K.result(s) != ONGOING
        check_position(state)


def random_playouts(games: int, seed: int) -> None:
    playouts.random_playouts(GAME, K, check_position, games, seed)


def test_random_playouts() -> None:
    random_playouts(12, seed=1)


@pytest.mark.slow
def test_many_random_playouts() -> None:
    random_playouts(300, seed=2)


@pytest.mark.parametrize("text", [
    board(black="b1", white="a1"),                     # black must pass
    board(black="b1", white="a1", side="1"),           # white's placement ends the game
    board(black="a1 b1", white="h8", side="1"),        # over with empty squares left
    board(black="a1", white="h8"),                     # a draw
    board(black="h8 a8", white="g8 b8 h7 g7 a7 b7"),   # every corner of bit 63
    board(black="h1 a8", white="g2 f3 e4 d5 c6 b7"),   # a long diagonal run
    board(black="d2 d7 f4 a4 f2 b2 f6 b6", white="d3 d5 d6 e4 c4 b4 e3 c3 e5 c5"),
    "/".join(["00000000"] * 4 + ["11111111"] * 4) + " 0",
    "/".join(["00000000"] * 4 + ["01111111"] + ["11111111"] * 3) + " 1",
    "/".join(["0000000."] + ["00000000"] * 3 + ["11111111"] * 4) + " 1",
])
@pytest.mark.parametrize("side", ["0", "1"])
def test_edge_positions(text: str, side: str) -> None:
    check_position(GAME.parse_board([text.split()[0], side]))


@st.composite
def boards(draw, density: int):
    """Black and white discs on random squares, about density / 4 of the board."""
    occupied = 0
    for _ in range(density):
        occupied |= draw(st.integers(0, FULL)) & draw(st.integers(0, FULL))
    colours = draw(st.integers(0, FULL))
    return occupied & colours, occupied & ~colours & FULL, draw(st.integers(0, 1))


@settings(max_examples=300, deadline=None)
@given(st.one_of(boards(1), boards(3), boards(6)))
def test_arbitrary_boards(position: tuple[int, int, int]) -> None:
    check_position(make_state(*position))


@settings(max_examples=300, deadline=None)
@given(boards(3))
def test_flips_and_move_mask_match_the_reference(position: tuple[int, int, int]) -> None:
    own, opp, _ = position
    out = np.empty(64, dtype=np.uint64)
    moves = _flips_and_moves(np.uint64(own), np.uint64(opp), out)
    assert int(moves) == move_mask(own, opp)
    empty = FULL ^ (own | opp)
    for square in range(64):
        if empty >> square & 1:
            assert int(out[square]) == flips(own, opp, square), square


# ---- the evaluation ----------------------------------------------------------------------


def test_edge_stability_is_antisymmetric() -> None:
    # The kernels evaluate the side to move as if it were black: that relies on a line
    # with the colours swapped scoring the negation, on every line.
    table = np.array(EDGE_STABILITY, dtype=np.int64).reshape(256, 256)
    assert (table == -table.T).all()
    assert (K.EDGE_STABILITY.astype(np.int64).reshape(256, 256) == table).all()


def test_every_kernel_compiles_once() -> None:
    check_position(GAME.initial_state({}))
    compiled_perft(GAME.initial_state({}), 2)
    for kernel in KERNELS:
        assert len(kernel.signatures) == 1, kernel
