"""The compiled Lines of Action kernels against the reference `games.loa`: perft, move
lists in order, keys, results and the evaluation, position by position."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from compiled.core import ONGOING  # noqa: E402
from compiled.driver import CompiledAlphaBeta  # noqa: E402
from compiled.loa import evaluation as terms  # noqa: E402
from compiled.loa import kernels, search  # noqa: E402
from compiled.table import ArrayTable  # noqa: E402
from games import find_game  # noqa: E402
from games.loa import evaluation  # noqa: E402
from games.loa.bitboards import MAX_PLIES, PASS  # noqa: E402
from games.loa.rules import make_state  # noqa: E402
from search.alphabeta import AlphaBeta  # noqa: E402
from search.limits import StopSignal  # noqa: E402
from search.perft import perft as reference_perft  # noqa: E402
from search.tt import TranspositionTable  # noqa: E402
from tests.conftest import load_vectors, perft_records  # noqa: E402

GAME = find_game("loa")
RECORDS = load_vectors("loa")


def compiled_perft(state, depth: int) -> int:
    return int(search.perft(kernels.pack(state), np.int64(depth)))


def board(text: str):
    return GAME.parse_board(text.split())


def record_state(record: dict):
    return board("/".join(record["board"]) + f" {record['to_move']} ply={record['ply']}")


def expected_result(state) -> int:
    outcome = state.outcome()
    if outcome is None:
        return ONGOING
    value = outcome.returns[state.to_move]
    return (value > 0) - (value < 0)


_OUT = np.empty(kernels.MAX_MOVES, dtype=np.int64)


def check_position(state, children: bool = True) -> None:
    """Every kernel on `state` against the reference, and `play` of every legal move."""
    s = kernels.pack(state)
    assert kernels.unpack(s) == state
    assert int(kernels.key(s)) == state.key
    assert kernels.to_move(s) == state.to_move
    moves = state.legal_moves()
    n = kernels.legal_moves(s, _OUT)
    assert list(_OUT[:n]) == moves, GAME.format_board(state)
    assert all(0 <= move < kernels.MOVE_LIMIT for move in moves) and n <= kernels.MAX_MOVES
    result = kernels.result(s)
    assert result == expected_result(state), GAME.format_board(state)
    if result != ONGOING:
        assert kernels.margin(s) == state.outcome().returns[state.to_move]
    assert kernels.evaluate(s) == GAME.evaluate(state)[state.to_move], GAME.format_board(state)
    assert kernels.solvable(s) == GAME.solvable(state)
    if children:
        for move in moves:
            assert kernels.unpack(kernels.play(s, move)) == state.play(move), (
                GAME.format_board(state), GAME.format_move(state, move))


def playout_states(seed: int, games: int, greedy: float = 0.0):
    """The positions of seeded games; with probability `greedy` a move is the one the
    evaluation likes best for the mover, which ends more games by connection."""
    rng = random.Random(seed)
    for _ in range(games):
        state = GAME.initial_state({})
        while True:
            yield state
            moves = state.legal_moves()
            if not moves:
                break
            if rng.random() < greedy:
                move = max(moves, key=lambda m: (-GAME.evaluate(state.play(m))[state.to_move ^ 1], m))
            else:
                move = rng.choice(moves)
            state = state.play(move)


# ---- perft ---------------------------------------------------------------------------


@pytest.mark.parametrize("record", perft_records("loa"), ids=lambda r: f"depth{r['depth']}")
def test_perft_from_the_start(record: dict) -> None:
    assert compiled_perft(GAME.initial_state({}), record["depth"]) == record["nodes"]


def test_perft_from_referee_positions() -> None:
    sample = [record_state(record) for record in RECORDS[::40]]
    for state in sample:
        assert compiled_perft(state, 2) == reference_perft(state, 2), GAME.format_board(state)


@pytest.mark.slow
def test_perft_from_every_referee_position() -> None:
    for record in RECORDS:
        state = record_state(record)
        assert compiled_perft(state, 3) == reference_perft(state, 3), GAME.format_board(state)


def test_perft_through_ends_of_games() -> None:
    """Positions a few plies before a connection or the 150-ply draw, where perft
    crosses finished positions."""
    finals = []
    for seed in range(40):
        states = list(playout_states(seed, 1, greedy=0.7 if seed % 2 else 0.0))
        finals.append(states[max(0, len(states) - 4)])
    assert any(state.ply > MAX_PLIES - 4 for state in finals)
    assert any(expected_result(state) == ONGOING and state.ply < MAX_PLIES - 4 for state in finals)
    for state in finals:
        assert compiled_perft(state, 3) == reference_perft(state, 3), GAME.format_board(state)


# ---- position by position ------------------------------------------------------------


def test_every_referee_position() -> None:
    assert len(RECORDS) == 1208
    for record in RECORDS:
        check_position(record_state(record), children=False)


def test_referee_games_replay() -> None:
    """The recorded games played move by move through the kernels."""
    games: dict[int, list[dict]] = {}
    for record in RECORDS:
        games.setdefault(record["game_index"], []).append(record)
    for records in games.values():
        state = GAME.initial_state({})
        s = kernels.pack(state)
        for record in sorted(records, key=lambda r: r["ply"]):
            assert kernels.unpack(s) == state
            if record.get("terminal"):
                assert kernels.result(s) != ONGOING
                break
            move = GAME.parse_move(state, record["move_played"])
            # A tuple returned to Python holds Python ints: pack it again so that every
            # call sees the same argument types.
            state, s = state.play(move), kernels.pack(kernels.unpack(kernels.play(s, move)))


@pytest.mark.parametrize("seed", range(4))
def test_random_playouts(seed: int) -> None:
    for state in playout_states(seed, 8):
        check_position(state)


@pytest.mark.parametrize("seed", range(3))
def test_greedy_playouts_end_by_connection(seed: int) -> None:
    outcomes = []
    for state in playout_states(100 + seed, 3, greedy=0.8):
        check_position(state)
        if state.outcome() is not None:
            outcomes.append(state.outcome().winner)
    assert any(winner is not None for winner in outcomes)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(40))
def test_many_playouts(seed: int) -> None:
    for state in playout_states(1000 + seed, 5, greedy=0.3 * (seed % 3)):
        check_position(state)


@pytest.mark.parametrize("text, expected", [
    # The mover wins when both sides are connected.
    (".......w/......w./.b....../....b.../...w..../..b...../......../........ b", None),
    # The opponent wins when a capture connects it.
    (".......w/......w./.b....../......../...w..../......../......../b....... b", None),
    # A lone checker is connected.
    (".......w/......../.b....../......../...w..../......../......../b....... b", None),
    ("b......./......../......../......../......../......../......../w.....w. b", 1),
    ("b......./......../......../......../......../......../......../w....... b", -1),
    ("bb....../......../......../......../......../......../......../......ww w", -1),
    ("bb....../......../......../......../......../......../......../......ww b", -1),
    # The 150-ply draw, a connection on the last ply, the horizon of the evaluation.
    ("b......b/......../......../......../......../......../......../w......w b ply=149", None),
    ("b......b/......../......../......../......../......../......../w......w b ply=150", 0),
    ("b......./..b...../......../......../......../......../......../w......w b ply=149", None),
    ("b......./..b...../......../......../......../......../......../w......w w ply=140", None),
    ("b......./..b...../......../......../......../......../......../w......w b ply=40", None),
    # Pass, the only move of a blocked side, and a pass on the last ply.
    ("......wb/......ww/......../......../......../......../ww....../bw...... b ply=10", None),
    ("......wb/......ww/......../......../......../......../ww....../bw...... b ply=149", None),
])
def test_rule_positions(text: str, expected: int | None) -> None:
    state = board(text)
    check_position(state)
    if expected is not None:
        assert kernels.result(kernels.pack(state)) == expected
    for move in state.legal_moves():
        check_position(state.play(move))


def test_pass() -> None:
    state = board("......wb/......ww/......../......../......../......../ww....../bw...... b ply=10")
    s = kernels.pack(state)
    assert kernels.legal_moves(s, _OUT) == 1 and _OUT[0] == PASS
    assert kernels.unpack(kernels.play(s, PASS)) == state.play(PASS)


def test_the_evaluation_terms_are_reached() -> None:
    """Playouts like the ones above meet the win in one, the threat and the draw
    horizon."""
    seen = set()
    states = [*playout_states(7, 2), *playout_states(8, 3, greedy=0.5)]
    for state in states:
        if state.outcome() is not None:
            continue
        value = GAME.evaluate(state)[state.to_move]
        if value == evaluation.WIN_IN_ONE:
            seen.add("win")
        elif GAME.evaluate(make_state(state.black, state.white, state.to_move ^ 1, state.ply))[
                state.to_move ^ 1] == evaluation.WIN_IN_ONE:
            seen.add("threat")
        if state.ply > MAX_PLIES - evaluation.HORIZON:
            seen.add("horizon")
        assert kernels.evaluate(kernels.pack(state)) == value
    assert seen == {"win", "threat", "horizon"}


@st.composite
def positions(draw):
    """Any legal board text: 1 to 12 checkers a side, either side to move, any ply."""
    squares = draw(st.permutations(range(64)))
    black_count = draw(st.integers(1, 12))
    white_count = draw(st.integers(1, 12))
    black = sum(1 << s for s in squares[:black_count])
    white = sum(1 << s for s in squares[black_count:black_count + white_count])
    return make_state(black, white, draw(st.integers(0, 1)), draw(st.integers(0, MAX_PLIES)))


@settings(max_examples=1000, deadline=None)
@given(positions())
def test_any_position(state) -> None:
    check_position(state)


@st.composite
def clustered_positions(draw):
    """Checkers in a small window, so that groups, captures, threats and wins in one
    are common."""
    size = draw(st.integers(3, 5))
    left, bottom = draw(st.integers(0, 8 - size)), draw(st.integers(0, 8 - size))
    window = [8 * (bottom + r) + left + f for r in range(size) for f in range(size)]
    squares = draw(st.permutations(window))
    black_count = draw(st.integers(2, min(12, len(window) - 2)))
    white_count = draw(st.integers(2, min(12, len(window) - black_count)))
    black = sum(1 << s for s in squares[:black_count])
    white = sum(1 << s for s in squares[black_count:black_count + white_count])
    return make_state(black, white, draw(st.integers(0, 1)), draw(st.integers(100, MAX_PLIES)))


@settings(max_examples=1000, deadline=None)
@given(clustered_positions())
def test_clustered_position(state) -> None:
    check_position(state)


@st.composite
def board_pairs(draw):
    """Two disjoint boards of any density (the AND of 1 to 4 random boards), black not
    empty."""
    def sparse():
        board = (1 << 64) - 1
        for _ in range(draw(st.integers(1, 4))):
            board &= draw(st.integers(0, (1 << 64) - 1))
        return board
    black = sparse() | 1 << draw(st.integers(0, 63))
    return black, sparse() & ~black


@settings(max_examples=500, deadline=None)
@given(board_pairs())
def test_evaluation_terms(boards) -> None:
    """Each term against the reference, on boards denser than a game reaches."""
    black, white = boards
    b, w = np.uint64(black), np.uint64(white)
    assert terms._mobility(b, w) == evaluation.mobility(black, white)[:4]
    assert terms._quads(b) == evaluation.quads(black)
    assert terms._walls(b, w) == evaluation.walls(black, white)
    if black.bit_count() <= 12:
        assert terms._shape(b) == evaluation.shape(black)
        entries = evaluation.mobility(black, white)[4]
        euler4 = evaluation.quads(black)[1]
        assert terms.connects_in_one(b, w, euler4) == evaluation.connects_in_one(black, euler4, entries, 0)


# ---- the generated search ------------------------------------------------------------


def searched(searcher, state, depth: int):
    stop = StopSignal()
    stop.arm(None, None, depth)
    return [(r.depth, r.score, r.pv, r.nodes, r.seldepth) for r in searcher.search(state, stop)]


def late_positions(seed: int, count: int):
    """Ongoing positions from the last plies of seeded games, alternately random ones
    (most reach the 150-ply cap: the draw horizon) and ones ended by a connection (the
    win in one and the threat)."""
    found = []
    while len(found) < count:
        states = list(playout_states(seed, 1, greedy=0.4 * (len(found) % 2)))
        seed += 1
        found.append(next(state for state in states[-8:] if state.outcome() is None))
    return found


@pytest.mark.parametrize("depth, seed, count", [
    (3, 0, 2),
    (4, 10, 4),
    pytest.param(5, 20, 6, marks=pytest.mark.slow),
])
def test_search_late_positions(depth: int, seed: int, count: int) -> None:
    for state in late_positions(seed, count):
        fast = CompiledAlphaBeta(GAME, ArrayTable(GAME.name, GAME.key_scheme, 1 << 20))
        slow = AlphaBeta(GAME, TranspositionTable(GAME.name, GAME.key_scheme, 6 << 20))
        assert searched(fast, state, depth) == searched(slow, state, depth), GAME.format_board(state)
