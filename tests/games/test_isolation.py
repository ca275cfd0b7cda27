"""Knight Isolation: referee vectors with their eliminations, the seeded start squares,
recorded games to their scores, the turn cap, perft, the endgame kernels, and the
compiled kernels against the interpreted ones on referee, played and arbitrary
positions."""

from __future__ import annotations

import random
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import find_game
from games.base import BadParameterError, BoardTextError
from games.isolation import endgame, rules
from games.isolation.javarandom import JavaRandom, start_squares
from games.kernel import COMPILING, interpreted_namespace
from search.specialised import perft_leaves
from tests.conftest import load_vectors
from tests.games.test_kernels import check_position

GAME = find_game("isolation")
RECORDS = load_vectors("isolation")
LETTERS = "rgb"


def board_of(record: dict) -> list[str]:
    alive = "".join(line[0] for line in record["status_lines"] if line.split()[1] == "1")
    return ["/".join(record["board"]), record["to_move"], f"alive={alive}"]


def test_every_referee_position_has_exactly_the_referee_moves() -> None:
    asked = [r for r in RECORDS if "legal" in r and not r.get("eliminated_without_input")]
    assert len(asked) > 700
    for record in asked:
        state = GAME.parse_board(board_of(record))
        assert LETTERS[state.to_move] == record["to_move"]
        moves = sorted(GAME.format_move(state, move) for move in state.legal_moves())
        assert moves == record["legal"], (record["game_index"], record["turn"])


def test_a_player_without_a_move_is_put_out_before_anyone_moves() -> None:
    eliminated = [r for r in RECORDS if r.get("eliminated_without_input")]
    assert len(eliminated) == 40
    for record in eliminated:
        assert record["legal"] == []
        state = GAME.parse_board(board_of(record))
        player = LETTERS.index(record["to_move"])
        assert not GAME.alive(state) >> player & 1, "put out at its turn"
        assert state.outcome() is not None or state.legal_moves()


def test_the_seeded_start_squares_match_the_referee() -> None:
    for record in load_vectors("perft"):
        if record["game"] == "isolation":
            squares = start_squares(record["seed"])
            names = [GAME.format_move(None, square) for square in squares]
            assert names == [record["initial_squares"][letter] for letter in LETTERS]
    seeds = {r["seed"]: r["initial_squares"] for r in RECORDS if "initial_squares" in r and "seed" in r}
    for seed, squares in seeds.items():
        assert [GAME.format_move(None, s) for s in start_squares(seed)] == squares
        state = GAME.initial_state({"seed": str(seed)})
        assert [GAME.format_move(None, s) for s in GAME.knights(state)] == squares


def test_java_random_matches_known_values() -> None:
    rng = JavaRandom(42)
    # new java.util.Random(42): nextInt(10) gives 0, 3, 8, 4, 0 (documented behaviour).
    assert [rng.next_int(10) for _ in range(5)] == [0, 3, 8, 4, 0]


def test_recorded_games_replay_to_the_referee_scores() -> None:
    games: dict[int, list[dict]] = {}
    for record in RECORDS:
        games.setdefault(record["game_index"], []).append(record)
    assert len(games) == 20
    for index, records in games.items():
        seed = records[0]["seed"]
        state = GAME.initial_state({"seed": str(seed)})
        terminal = None
        for record in records:
            if record.get("terminal"):
                terminal = record
                continue
            if record.get("eliminated_without_input"):
                continue
            assert GAME.format_board(state).split()[0] == "/".join(record["board"]), (index, record["turn"])
            assert 1 + GAME.blocked(state).bit_count() + 3 - GAME.alive(state).bit_count() == record["turn"]
            state = state.play(GAME.parse_move(state, record["move_played"]))
        assert terminal is not None
        outcome = state.outcome()
        assert outcome is not None
        assert list(outcome.returns) == terminal["scores"], index
        assert GAME.player_names[outcome.winner] == terminal["winner"]


def random_games(seed: int, games: int) -> list:
    """Every position of `games` random games from random seeded starts."""
    rng = random.Random(seed)
    positions = []
    for _ in range(games):
        position = GAME.initial_state({"seed": str(rng.randrange(1 << 32))})
        while True:
            positions.append(position)
            moves = position.legal_moves()
            if not moves:
                break
            position = position.play(rng.choice(moves))
    return positions


needs_numba = pytest.mark.skipif(not COMPILING, reason="numba is not available")


@needs_numba
def test_compiled_kernels_agree_on_every_referee_position() -> None:
    for record in RECORDS:
        if "board" in record and not record.get("terminal"):
            check_position(GAME, GAME.parse_board(board_of(record)))


@needs_numba
def test_compiled_kernels_agree_through_eliminations_and_decided_endgames() -> None:
    positions = random_games(11, 60)
    decided = [p for p in positions if max(GAME.evaluate(p)) >= 90_000]
    assert len(decided) > 100 and any(GAME.alive(p) != 0b111 for p in positions)
    for position in positions:
        check_position(GAME, position)


@needs_numba
@settings(max_examples=150, deadline=None)
@given(st.integers(0, (1 << 64) - 1), st.lists(st.integers(0, 63), min_size=3, max_size=3, unique=True),
       st.integers(0, 2), st.integers(1, 7), st.permutations([0, 1, 2]))
def test_compiled_kernels_agree_on_arbitrary_boards(blocked: int, knights: list[int], to_move: int,
                                                    alive: int, out_order: list[int]) -> None:
    for square in knights:
        blocked &= ~(1 << square)
    if not alive >> to_move & 1:
        to_move = alive.bit_length() - 1
    order = [player for player in out_order if not alive >> player & 1]
    letters = "".join(LETTERS[player] for player in range(3) if alive >> player & 1)
    cells = {square: LETTERS[player] for player, square in enumerate(knights)}
    grid = "/".join("".join(cells.get(rank * 8 + file, "#" if blocked >> (rank * 8 + file) & 1 else ".")
                            for file in range(8)) for rank in range(7, -1, -1))
    tokens = [grid, LETTERS[to_move], f"alive={letters}"]
    if order:
        tokens.append("out=" + "".join(LETTERS[player] for player in order))
    check_position(GAME, GAME.parse_board(tokens))


def test_turn_cap_leaves_the_players_still_in_at_zero() -> None:
    # 59 blocked squares and one player out: 60 turns used. Green moves (turn 61), red
    # moves (turn 62), and the referee stops there with both still in.
    cells = {0: "r", 63: "g", 36: "b", 10: ".", 46: "."}  # free: c2 for red, g6 for green
    rows = ["".join(cells.get(rank * 8 + file, "#") for file in range(8)) for rank in range(7, -1, -1)]
    state = GAME.parse_board(["/".join(rows), "g", "alive=rg"])
    assert state.outcome() is None
    assert [GAME.format_move(state, m) for m in state.legal_moves()] == ["g6"]
    state = state.play(state.legal_moves()[0])
    assert [GAME.format_move(state, m) for m in state.legal_moves()] == ["c2"]
    outcome = state.play(state.legal_moves()[0]).outcome()
    assert outcome is not None and outcome.reason == "turn limit"
    assert outcome.returns == (0, 0, 0) and outcome.winner is None


@pytest.mark.parametrize("text", [
    "r......./......../......../......../......../......../......../........ r",
    "r.g.b.../......../......../......../......../......../......../........ x",
    "r.g.b.../......../......../......../......../......../......../........ r alive=gb",
    "r.g.b.../......../......../......../......../......../......../........ r alive=rrg",
    "r.g.b.r./......../......../......../......../......../......../........ r",
    "r.g.b.../......../......../......../......../......../......../....x... r",
    "r.g.b.../......../......../......../......../......../......../........ r ply=3",
])
def test_bad_board_texts(text: str) -> None:
    with pytest.raises(BoardTextError):
        GAME.parse_board(text.split())


def test_seed_parameter() -> None:
    with pytest.raises(BadParameterError):
        GAME.initial_state({"seed": "x"})
    with pytest.raises(BadParameterError):
        GAME.initial_state({"colour": "r"})
    assert GAME.initial_state({}) == GAME.initial_state({"seed": "0"})


PERFT_FROM_SEEDS = {
    0: [6, 35, 262, 973, 4474, 15579, 76551, 327653],
    1: [6, 42, 204, 1171, 4206],
    7: [8, 64, 496, 1948, 8788],
    12345: [8, 47, 350, 1630, 5968],
}


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "interpreted"])
def test_perft_from_seeded_starts(compiled: bool) -> None:
    for seed, counts in PERFT_FROM_SEEDS.items():
        state = GAME.initial_state({"seed": str(seed)})
        depths = range(1, min(len(counts), 7 if compiled else 5) + 1)
        assert [perft_leaves(state, depth, compiled) for depth in depths] == counts[:len(depths)], seed


@pytest.mark.slow
def test_perft_8() -> None:
    assert perft_leaves(GAME.initial_state({}), 8) == PERFT_FROM_SEEDS[0][7]


def test_out_order_gives_the_scores() -> None:
    rows = "r......./......../......../......../......../......../......../.g.b...."
    state = GAME.parse_board([rows, "r", "alive=r", "out=bg"])
    assert GAME.scores(state) == (-1, 1, 0)
    assert GAME.format_board(state).endswith(" r alive=r out=bg")
    outcome = state.outcome()
    assert outcome is not None and outcome.returns == (2, 1, 0) and outcome.winner == 0
    assert GAME.scores(GAME.parse_board([rows, "r", "alive=rg"])) == (-1, -1, 0)


@lru_cache(maxsize=None)
def brute_longest(square: int, free: int) -> int:
    knight = int(rules.KNIGHT[square])
    return max((1 + brute_longest(target, free & ~(1 << target))
                for target in range(64) if knight >> target & 1 and free >> target & 1), default=0)


def test_knight_table_is_the_knight_spread() -> None:
    for square in range(64):
        assert rules.KNIGHT[square] == rules.knight_spread(rules.SQUARE[square])
    assert [int(rules.KNIGHT[square]).bit_count() for square in (0, 1, 9, 18, 27, 63)] == [2, 3, 4, 8, 8, 2]


ENDGAME_FORMS = pytest.mark.parametrize("kernels", [endgame, interpreted_namespace(endgame)],
                                        ids=["compiled", "interpreted"])


@ENDGAME_FORMS
def test_endgame_regions_and_longest_paths(kernels) -> None:
    """Regions are closed under knight jumps; the longest path matches exhaustive search
    whenever it says it is exact (every region here, within its node budget), and stays
    within the colour bound."""
    rng = random.Random(5)
    checked = 0
    for _ in range(300):
        free = sum(1 << square for square in rng.sample(range(64), rng.randrange(4, 28)))
        start = rng.randrange(64)
        own = int(kernels.region(np.int64(start), np.uint64(free)))
        assert own & ~free == 0
        assert kernels.region(np.int64(start), np.uint64(own)) == own
        left, exact = kernels.longest_path(np.int64(start), np.uint64(own), np.int64(endgame.TOUR_NODES))
        assert left == kernels.moves_left(np.int64(start), np.uint64(own))
        assert left <= kernels.tour_bound(np.int64(start), np.uint64(own)) <= own.bit_count()
        if own.bit_count() <= 18:
            assert exact and left == brute_longest(start, own)
            checked += own.bit_count() > 8
    assert checked > 20


def test_a_longest_path_out_of_nodes_is_a_path_found() -> None:
    # An open board: the search stops at its budget with the longest path it found.
    free = (1 << 64) - 1 - (1 << 27)
    left, exact = endgame.longest_path(np.int64(27), np.uint64(free), np.int64(50))
    assert not exact and 40 <= left <= 63


@ENDGAME_FORMS
def test_endgame_final_scores_follow_the_elimination_order(kernels) -> None:
    def final_scores(*values: int) -> tuple[int, ...]:
        return tuple(int(score) for score in kernels.final_scores(*map(np.int64, values)))

    # Moves left (2, 1, 5), red to move: green runs out first, then red.
    assert final_scores(2, 1, 5, 0, 0b111, -1, -1, -1) == (1, 0, 2)
    assert final_scores(1, 1, 1, 1, 0b111, -1, -1, -1) == (2, 0, 1)
    # Red already out with score 0: green is out next, scoring 1.
    assert final_scores(0, 0, 3, 1, 0b110, 0, -1, -1) == (0, 1, 2)
