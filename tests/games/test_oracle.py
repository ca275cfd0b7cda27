"""The engine against the naive rule oracles of `tests/oracle`, text to text.

First each oracle is held against the referee vectors (its legal moves and results are
the referee's), then hypothesis plays random games from the start position and from
referee positions, and at every ply compares the engine with the oracle: the legal move
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


def isolation_out(record: dict, terminal: dict) -> str:
    """The players out before `record`'s turn, first out first, from the events of its
    game's terminal record (`"25:r eliminated ..."`)."""
    eliminated = [(int(event.split(":")[0]), event.split(":")[1][0])
                  for event in terminal["events"] if "eliminated" in event]
    turn = record.get("turn", 10**9)
    return "".join(letter for at, letter in eliminated if at < turn)


@cache
def referee_boards(name: str) -> tuple[tuple[dict, str], ...]:
    """Each referee record with the board text of its position."""
    records = vectors(name)
    if name != "isolation":
        return tuple((record, oracle_of(name).referee_board(
            record if "to_move" in record else {**record, "to_move": "0"})) for record in records)
    terminals = {record["game_index"]: record for record in records if record.get("terminal")}
    boards = []
    for record in records:
        out = isolation_out(record, terminals[record["game_index"]])
        if record.get("terminal"):
            record = {**record, "to_move": record["winner"],
                      "status_lines": [f"{letter} {int(letter == record['winner'])} null" for letter in "rgb"]}
        boards.append((record, oracle_of(name).referee_board(record, out)))
    return tuple(boards)


def referee_result(name: str, record: dict) -> Result:
    """The result a terminal referee record states, in the oracles' terms."""
    if name == "isolation":
        returns = tuple(record["scores"])
        return Result(returns, "rgb".index(record["winner"]))
    if name == "othello":
        winner = None if record["result"] == "draw" else int(record["result"])
        margin = record["discs_0"] - record["discs_1"]
        return Result((0, 0) if winner is None else ((1, -1) if winner == 0 else (-1, 1)),
                      winner, (margin, -margin))
    winner = record.get("winner") if name == "clobber" else None
    if winner is None:
        return Result((0, 0), None)
    index = oracle_of(name).PLAYERS.index(winner)
    return Result((1, -1) if index == 0 else (-1, 1), index)


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
            assert oracle.result(position) == referee_result(name, record), record
        elif record.get("eliminated_without_input"):
            assert record["to_move"] in position.out, record
        else:
            assert oracle.result(position) is None, record
            assert oracle.legal_moves(position) == set(record["legal"]), record


@pytest.mark.parametrize("name", ("clobber", "othello", "loa", "abalone"))
def test_oracle_start_is_the_engine_start(name: str) -> None:
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


# Start positions ---------------------------------------------------------------------

@st.composite
def abalone_positions(draw) -> str:
    """A scattered Abalone position: 9 to 14 marbles a side, the missing ones counted as
    pushed off, any side to move and any ply (often near the 350-ply limit)."""
    lengths = (5, 6, 7, 8, 9, 8, 7, 6, 5)
    black, white = draw(st.integers(9, 14)), draw(st.integers(9, 14))
    cells = draw(st.permutations(range(61)))
    content = ["0"] * 61
    for cell in cells[:black]:
        content[cell] = "2"
    for cell in cells[black:black + white]:
        content[cell] = "1"
    lines, start = [], 0
    for length in lengths:
        lines.append("".join(content[start:start + length]))
        start += length
    side = draw(st.sampled_from("21"))
    turn = draw(st.one_of(st.integers(0, 349), st.integers(330, 349)))
    return f"{'/'.join(lines)} {side} score1={14 - black} score2={14 - white} turn={turn}"


def scattered_rows(cells: list[int], pieces: list[str]) -> str:
    """8 rows of `.` with `pieces[i]` on square `cells[i]` (0 = the first row's first)."""
    content = ["."] * 64
    for cell, piece in zip(cells, pieces):
        content[cell] = piece
    return "/".join("".join(content[row * 8:row * 8 + 8]) for row in range(8))


@st.composite
def sparse_positions(draw, colours: str, most: int) -> str:
    """An 8x8 board text with 0 to `most` pieces of each of the two `colours` scattered
    at random and either to move: Clobber endgames, Othello wipe-outs and passes."""
    first, second = draw(st.integers(0, most)), draw(st.integers(0, most))
    cells = draw(st.permutations(range(64)))
    rows = scattered_rows(cells, [colours[0]] * first + [colours[1]] * second)
    return f"{rows} {draw(st.sampled_from(colours))}"


@st.composite
def loa_positions(draw) -> str:
    """A sparse Lines of Action position (1 to 6 checkers a side), where connection,
    captures that connect the victim and single checkers come up at once."""
    black, white = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    cells = draw(st.permutations(range(64)))
    rows = scattered_rows(cells, ["b"] * black + ["w"] * white)
    return f"{rows} {draw(st.sampled_from('bw'))} ply={draw(st.integers(0, 149))}"


@st.composite
def isolation_positions(draw) -> str:
    """A crowded Knight Isolation position: many blocked squares, some players out, the
    global turn cap of 62 near or reached."""
    blocked = draw(st.integers(40, 61))
    cells = draw(st.permutations(range(64)))
    out = "".join(draw(st.permutations("rgb"))[:draw(st.integers(0, 2))])
    alive = "".join(letter for letter in "rgb" if letter not in out)
    rows = scattered_rows(cells, list("rgb") + ["#"] * blocked)
    side = draw(st.sampled_from(alive))
    return f"{rows} {side} alive={alive}" + (f" out={out}" if out else "")


def start_texts(name: str) -> st.SearchStrategy[str]:
    """The board texts playouts start from: the start position and referee positions."""
    game = find_game(name)
    if name == "isolation":
        starts = st.integers(-2**31, 2**31).map(
            lambda seed: game.format_board(game.initial_state({"seed": str(seed)})))
    else:
        starts = st.just(game.format_board(game.initial_state({})))
    scattered = {"abalone": abalone_positions(), "loa": loa_positions(),
                 "isolation": isolation_positions(), "clobber": sparse_positions("wb", 16),
                 "othello": sparse_positions("01", 12)}
    referee = [text for record, text in referee_boards(name) if not record.get("terminal")]
    return st.one_of(starts, *([st.sampled_from(referee)] if referee else []),
                     *([scattered[name]] if name in scattered else []))


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
