"""The compiled Knight Isolation kernels against the reference rules, evaluation and
endgame: perft, move order, keys, eliminations, returns and per-player evaluations."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from numba import njit  # noqa: E402

from compiled.isolation import kernels as K  # noqa: E402
from games.isolation import GAME  # noqa: E402
from games.isolation.endgame import longest_path, region  # noqa: E402
from games.isolation.rules import KNIGHT, make_state  # noqa: E402
from search.perft import perft  # noqa: E402
from tests.conftest import load_vectors  # noqa: E402

RECORDS = load_vectors("isolation")


@njit(cache=True, nogil=True)
def compiled_perft(s, depth):
    if depth <= 0:
        return 1
    moves = np.empty(K.MAX_MOVES, dtype=np.int64)
    n = K.legal_moves(s, moves)
    if depth == 1:
        return n
    total = 0
    for i in range(n):
        total += compiled_perft(K.play(s, moves[i]), depth - 1)
    return total


def board_of(record: dict) -> list[str]:
    alive = "".join(line[0] for line in record["status_lines"] if line.split()[1] == "1")
    return ["/".join(record["board"]), record["to_move"], f"alive={alive}"]


def vector_states() -> list:
    states = []
    for record in RECORDS:
        if "board" in record and not record.get("terminal"):
            states.append(GAME.parse_board(board_of(record)))
    return states


def playout_states(seed: int, games: int) -> list:
    """Every position of `games` random games from random seeded starts."""
    rng = random.Random(seed)
    states = []
    for _ in range(games):
        state = GAME.initial_state({"seed": str(rng.randrange(1 << 32))})
        while True:
            states.append(state)
            moves = state.legal_moves()
            if not moves:
                break
            state = state.play(rng.choice(moves))
    return states


def check_position(state) -> None:
    """Every kernel on one position against the reference."""
    s = K.pack(state)
    assert K.unpack(s) == state
    assert int(K.key(s)) == state.key
    assert int(K.to_move(s)) == state.to_move
    buffer = np.zeros(K.MAX_MOVES, dtype=np.int64)
    n = K.legal_moves(s, buffer)
    moves = state.legal_moves()
    assert list(buffer[:n]) == moves
    assert K.move_count(s) == n
    assert all(0 <= move < K.MOVE_LIMIT for move in moves)
    values = np.zeros(3, dtype=np.int64)
    outcome = state.outcome()
    assert K.returns(s, values) == (outcome is not None)
    if outcome is not None:
        assert tuple(values) == outcome.returns
    K.evaluate(s, values)
    assert tuple(values) == GAME.evaluate(state)
    for move in moves:
        assert K.unpack(K.play(s, move)) == state.play(move)
    for player in range(3):
        n = K.moves_for(s, player, buffer)
        assert list(buffer[:n]) == state.moves_for(player)
        for move in state.moves_for(player):
            for next_player in range(3):
                expected = state.play_for(player, move, next_player)
                assert K.unpack(K.play_for(s, player, move, next_player)) == expected


def test_perft_from_seeded_starts() -> None:
    for seed, depth in ((0, 5), (1, 4), (7, 4), (12345, 4)):
        state = GAME.initial_state({"seed": str(seed)})
        assert compiled_perft(K.pack(state), depth) == perft(state, depth), seed


def test_perft_from_referee_positions() -> None:
    states = vector_states()
    for state in random.Random(3).sample(states, 40):
        assert compiled_perft(K.pack(state), 3) == perft(state, 3)


def test_every_referee_position() -> None:
    for state in vector_states():
        check_position(state)


def test_random_playouts() -> None:
    for state in playout_states(11, 60):
        check_position(state)


def test_playouts_reach_decided_endgames_and_eliminations() -> None:
    """The playouts above cover the endgame path of the evaluation and eliminations."""
    states = playout_states(11, 60)
    decided = [s for s in states if GAME.evaluate(s)[0] >= 0 and max(GAME.evaluate(s)) >= 90_000]
    assert len(decided) > 100
    assert any(s.alive != 0b111 for s in states)


def test_turn_cap_and_out_order() -> None:
    cells = {0: "r", 63: "g", 36: "b", 10: ".", 46: "."}
    rows = ["".join(cells.get(rank * 8 + file, "#") for file in range(8)) for rank in range(7, -1, -1)]
    state = GAME.parse_board(["/".join(rows), "g", "alive=rg"])
    while True:
        check_position(state)
        if not state.legal_moves():
            break
        state = state.play(state.legal_moves()[0])
    assert state.outcome().reason == "turn limit"
    check_position(GAME.parse_board(["/".join(rows), "g", "alive=rg", "out=b"]))


def test_longest_path_matches_the_reference() -> None:
    rng = random.Random(5)
    for _ in range(300):
        free = 0
        for square in rng.sample(range(64), rng.randrange(4, 20)):
            free |= 1 << square
        start = rng.randrange(64)
        own = region(start, free)
        if own.bit_count() <= 16:
            assert K.longest_path(start, np.uint64(own)) == longest_path(start, own)
        assert int(K.region(start, np.uint64(free))) == own


@settings(max_examples=150, deadline=None)
@given(st.integers(0, (1 << 64) - 1), st.lists(st.integers(0, 63), min_size=3, max_size=3, unique=True),
       st.integers(0, 2), st.integers(1, 7))
def test_arbitrary_boards(blocked: int, knights: list[int], to_move: int, alive: int) -> None:
    for square in knights:
        blocked &= ~(1 << square)
    if not alive >> to_move & 1:
        to_move = alive.bit_length() - 1
    check_position(make_state(blocked, tuple(knights), to_move, alive))


def test_knight_table() -> None:
    assert [int(x) for x in K.KNIGHT] == list(KNIGHT)
