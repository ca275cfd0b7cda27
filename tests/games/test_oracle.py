"""The engine against the naive rule oracles of `tests/oracle`, text to text.

First each oracle is held against the referee vectors (its legal moves and results are
the referee's), then hypothesis plays random games from the start position, from
referee positions and from the oracle's scattered ones, and at every ply compares the engine with the oracle: the legal move
tokens, the result (returns, winner, margin), and after the chosen move the board text
and the key (the engine's incremental key equals the key of the same position parsed
from its text). Only the edge API of `games` is used.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from games import all_games, find_game
from tests.oracle import Result

GAMES = tuple(all_games())
VECTORS = Path(__file__).resolve().parents[1] / "data" / "vectors"

#: No shrinking: replaying whole games makes it take minutes, and a failure already
#: names the board text and the move where the engine and the oracle part.
PLAYOUTS = settings(deadline=None, database=None,
                    phases=[Phase.explicit, Phase.reuse, Phase.generate],
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def oracle_of(name: str):
    return importlib.import_module(f"tests.oracle.{name}")


@cache
def vectors(name: str) -> tuple[dict, ...]:
    path = VECTORS / f"{name}.jsonl"
    if not path.exists():
        return ()  # no referee was available
    with open(path) as handle:
        return tuple(json.loads(line) for line in handle)


@cache
def referee_boards(name: str) -> tuple[tuple[dict, str], ...]:
    """Each referee record with the board text of its position."""
    records = vectors(name)
    return tuple(zip(records, oracle_of(name).referee_boards(records))) if records else ()


# The oracles against the referee ---------------------------------------------------

def test_every_game_has_an_oracle() -> None:
    for name in GAMES:
        assert importlib.util.find_spec(f"tests.oracle.{name}") is not None, name


@pytest.mark.parametrize("name", [name for name in GAMES if vectors(name)])
def test_oracle_plays_the_referee_vectors(name: str) -> None:
    oracle = oracle_of(name)
    for record, text in referee_boards(name):
        position = oracle.parse_board(text)
        if record.get("terminal"):
            assert oracle.result(position) == oracle.referee_result(record), record
        elif record.get("eliminated_without_input"):
            assert record["to_move"] in position.out, record
        else:
            assert oracle.result(position) is None, record
            assert oracle.legal_moves(position) == set(record["legal"]), record


@pytest.mark.parametrize("name", [name for name in GAMES if not find_game(name).parameters])
def test_oracle_start_is_the_engine_start(name: str) -> None:
    """Of every game whose start takes no parameter; Knight Isolation's seeded start is
    checked below."""
    game, oracle = find_game(name), oracle_of(name)
    assert oracle.format_board(oracle.start()) == game.format_board(game.initial_state({}))


@pytest.mark.parametrize("seed", range(5))
def test_oracle_knights_start_where_the_referee_puts_them(seed: int) -> None:
    expected = next(record["initial_squares"] for record in vectors("perft")
                    if record.get("game") == "isolation" and record.get("seed") == seed)
    isolation = oracle_of("isolation")
    assert isolation.java_random_start(seed) == expected
    game = find_game("isolation")
    assert (isolation.format_board(isolation.start(seed))
            == game.format_board(game.initial_state({"seed": str(seed)})))


# Where the playouts start -------------------------------------------------------------

def start_texts(name: str) -> st.SearchStrategy[str]:
    """The board texts playouts start from: the start position (of any seed, for a game
    whose start takes one), referee positions and the oracle's scattered positions."""
    game = find_game(name)
    if "seed" in game.parameters:
        starts = st.integers(-2**31, 2**31).map(
            lambda seed: game.format_board(game.initial_state({"seed": str(seed)})))
    else:
        starts = st.just(game.format_board(game.initial_state({})))
    referee = [text for record, text in referee_boards(name) if not record.get("terminal")]
    return st.one_of(starts, *([st.sampled_from(referee)] if referee else []), oracle_of(name).scattered())


# The engine against the oracles -------------------------------------------------------

def engine_result(position) -> Result | None:
    outcome = position.outcome()
    if outcome is None:
        return None
    return Result(tuple(outcome.returns), outcome.winner,
                  None if outcome.margin is None else tuple(outcome.margin))


def play_out(name: str, data: st.DataObject, text: str) -> int:
    """Plays a random game from `text` in the engine and the oracle side by side,
    comparing them at every ply; returns the plies played."""
    game, oracle = find_game(name), oracle_of(name)
    position, reference = game.parse_board(text.split()), oracle.parse_board(text)
    assert game.format_board(position) == oracle.format_board(reference)
    plies = 0
    while True:
        moves = {game.format_move(position, move): move for move in position.legal_moves()}
        board = game.format_board(position)
        assert len(moves) == len(position.legal_moves()), board
        assert set(moves) == oracle.legal_moves(reference), board
        assert engine_result(position) == oracle.result(reference), board
        if not moves:
            return plies
        token = data.draw(st.sampled_from(sorted(moves)), label="move")
        assert game.parse_move(position, token) == moves[token]
        position, reference = position.play(moves[token]), oracle.play(reference, token)
        text = game.format_board(position)
        assert text == oracle.format_board(reference), f"{board} {token}"
        assert position.key == game.parse_board(text.split()).key, f"{board} {token}"
        plies += 1


def check_playouts(name: str, games: int) -> None:
    """`games` random playouts of `name`, engine against oracle."""
    @settings(PLAYOUTS, max_examples=games)
    @given(data=st.data())
    def playouts(data: st.DataObject) -> None:
        play_out(name, data, data.draw(start_texts(name), label="start"))

    playouts()


@pytest.mark.parametrize("name", GAMES)
def test_engine_agrees_with_oracle(name: str) -> None:
    check_playouts(name, oracle_of(name).PLAYOUTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_engine_agrees_with_oracle_at_length(name: str) -> None:
    check_playouts(name, 10 * oracle_of(name).PLAYOUTS)
