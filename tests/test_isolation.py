"""Knight Isolation: referee vectors with their eliminations, the seeded start squares,
recorded games to their scores, and the turn cap."""

from __future__ import annotations

import pytest

from games import find_game
from games.base import BadParameterError, BoardTextError
from games.isolation.endgame import elimination_order, longest_path, region
from games.isolation.javarandom import JavaRandom, start_squares
from games.isolation.rules import KNIGHT
from tests.conftest import load_vectors

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
        assert not state.alive >> player & 1, "put out at its turn"
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
        assert [GAME.format_move(None, s) for s in state.knights] == squares


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
            assert 1 + state.blocked.bit_count() + 3 - state.alive.bit_count() == record["turn"]
            state = state.play(GAME.parse_move(state, record["move_played"]))
        assert terminal is not None
        outcome = state.outcome()
        assert outcome is not None
        assert list(outcome.returns) == terminal["scores"], index
        assert GAME.player_names[outcome.winner] == terminal["winner"]


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


def test_endgame_longest_paths_and_elimination_order() -> None:
    # A 2x3 block: a knight on a1 can visit b3 then c1 then a2 then c3 then ... check by brute force.
    free = sum(1 << s for s in (1, 2, 8, 9, 10, 16, 17, 18))
    def brute(square: int, left: int) -> int:
        best = 0
        for target in range(64):
            if KNIGHT[square] >> target & 1 and left >> target & 1:
                best = max(best, 1 + brute(target, left & ~(1 << target)))
        return best
    assert longest_path(0, free) == brute(0, free)
    assert region(0, free) & ~free == 0
    assert elimination_order([2, 1, 5], 0b111, 0) == [1, 0, 2]
    assert elimination_order([1, 1, 1], 0b111, 1) == [1, 2, 0]
    assert elimination_order([0, 3, 3], 0b110, 1) == [1, 2]
