"""Clobber: referee vectors, perft, and the rule details of the CodinGame referee."""

from __future__ import annotations

import pytest

from games import find_game
from games.base import BadParameterError, BoardTextError, IllegalMoveError, NotationError
from search.specialised import perft_leaves
from tests.conftest import load_vectors, perft_records

GAME = find_game("clobber")
RECORDS = load_vectors("clobber")


def state_of(record: dict):
    return GAME.parse_board(["/".join(record["board"]), record["to_move"]])


def test_every_referee_position_has_exactly_the_referee_moves() -> None:
    assert len(RECORDS) == 620
    for record in RECORDS:
        state = state_of(record)
        moves = sorted(GAME.format_move(state, move) for move in state.legal_moves())
        assert moves == record["legal"], (record["game_index"], record["ply"])
        assert len(moves) == record["legal_count"]


def test_recorded_games_replay_to_the_recorded_boards_and_winner() -> None:
    games: dict[int, list[dict]] = {}
    assert sum(1 for record in RECORDS if record.get("terminal")) == 15
    for record in RECORDS:
        games.setdefault(record["game_index"], []).append(record)
    for index, records in games.items():
        state = GAME.initial_state({})
        for record in sorted(records, key=lambda r: r["ply"]):
            assert GAME.format_board(state) == "/".join(record["board"]) + " " + record["to_move"]
            if record.get("terminal"):
                outcome = state.outcome()
                assert outcome is not None
                assert GAME.player_names[outcome.winner] == record["winner"]
                break
            state = state.play(GAME.parse_move(state, record["move_played"]))


@pytest.mark.parametrize("record", [r for r in perft_records("clobber") if r["depth"] <= 3],
                         ids=lambda r: f"depth{r['depth']}")
def test_perft(record: dict) -> None:
    assert perft_leaves(GAME.initial_state({}), record["depth"]) == record["nodes"]


@pytest.mark.slow
@pytest.mark.parametrize("record", [r for r in perft_records("clobber") if r["depth"] > 3],
                         ids=lambda r: f"depth{r['depth']}")
def test_perft_deep(record: dict) -> None:
    assert perft_leaves(GAME.initial_state({}), record["depth"]) == record["nodes"]


def test_start_position_colours_and_first_player() -> None:
    state = GAME.initial_state({})
    rows = GAME.format_board(state).split()[0].split("/")
    assert rows[0] == "wbwbwbwb" and rows[7] == "bwbwbwbw"
    assert state.to_move == 0 and GAME.player_names[0] == "w"


def test_the_player_without_a_move_loses() -> None:
    lone = GAME.parse_board(["w......./......../......../......../......../......../......../.......b", "w"])
    outcome = lone.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.returns == (-1, 1)
    assert lone.legal_moves() == []
    pair = GAME.parse_board(["wb....../......../......../......../......../......../......../........", "b"])
    (move,) = pair.legal_moves()
    assert GAME.format_move(pair, move) == "b8a8"
    after = pair.play(move)
    assert after.outcome().winner == 1


def test_moves_are_captures_onto_orthogonal_enemies_only() -> None:
    state = GAME.parse_board(["......../......../...b..../..bwb.../...b..../......../......../........", "w"])
    assert sorted(GAME.format_move(state, m) for m in state.legal_moves()) == ["d5c5", "d5d4", "d5d6", "d5e5"]
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, "d5c4")
    with pytest.raises(NotationError):
        GAME.parse_move(state, "d5")


@pytest.mark.parametrize("text", [
    "wbwbwbwb/bwbwbwbw w",
    "wbwbwbwx/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw w",
    "wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw x",
    "wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbwb w",
    "wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw/wbwbwbwb/bwbwbwbw w ply=3",
])
def test_bad_board_texts(text: str) -> None:
    with pytest.raises(BoardTextError):
        GAME.parse_board(text.split())


def test_setgame_parameters_are_refused() -> None:
    with pytest.raises(BadParameterError, match="'size=10'"):
        GAME.initial_state({"size": "10"})
