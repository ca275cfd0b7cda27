"""Othello's opening explorer (`games.othello.explorer`): its index of the WTHOR expert
games, checked against counts made here from the files' raw bytes (a game's record: a
16-byte file header, then 68 bytes a game, black's real score at byte 6 and the moves
from byte 8, each `10 * row + column`), and its saved arrays checked, never trusted.

The whole database (/work/shared/data/othello-games, 137,548 games) is indexed once for
the module: about 2 to 3 seconds."""

from __future__ import annotations

import collections
import time
from pathlib import Path

import numpy as np
import pytest

from games import find_game
from games.explorer import game_explorer
from games.othello import explorer
from games.othello.training import replay_games
from tests.conftest import EXPERT_GAMES
from tests.games.test_othello_training import random_game, write_games

OTHELLO = find_game("othello")
FOLDER = EXPERT_GAMES


def name_of(code: int) -> str:
    """The square of a move byte: 56 is f5."""
    return "abcdefgh"[code % 10 - 1] + str(code // 10)


def code_of(move: int) -> int:
    """The move byte of a square: f5 (37) is 56."""
    return 10 * (move // 8 + 1) + move % 8 + 1


def position_after(names):
    """The position after the moves `names` from the start, passing where the side to
    move must (the files record no passes)."""
    position = OTHELLO.initial_state({})
    for name in names:
        if position.legal_moves() == [OTHELLO.rules.PASS]:
            position = position.play(OTHELLO.rules.PASS)
        position = position.play(OTHELLO.parse_move(position, name))
    return position


def board_after(names) -> str:
    """The board text of `position_after(names)`."""
    return OTHELLO.format_board(position_after(names))


@pytest.fixture(scope="module")
def raw() -> tuple[np.ndarray, np.ndarray]:
    """(moves (N, 60), black's final margin (N,)) of every game, from the files' bytes."""
    if not FOLDER.is_dir():
        pytest.skip(f"the WTHOR database is not at {FOLDER}")
    records = np.concatenate([np.frombuffer(path.read_bytes()[16:], dtype=np.uint8).reshape(-1, 68)
                              for path in sorted(FOLDER.glob("WTH_*.wtb"))])
    return records[:, 8:], 2 * records[:, 6].astype(np.int64) - 64


@pytest.fixture(scope="module")
def index(raw) -> explorer.Index:
    started = time.perf_counter()
    built = explorer.build_index(FOLDER)
    print(f"indexed in {time.perf_counter() - started:.2f} s")
    return built


def tally(moves: np.ndarray, margins: np.ndarray, selected: np.ndarray, ply: int) -> dict[str, tuple[int, int]]:
    """{move: (games, black's margin sum)} of the move at `ply` of the selected games."""
    found: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    for code, margin in zip(moves[selected, ply].tolist(), margins[selected].tolist()):
        found[name_of(code)][0] += 1
        found[name_of(code)][1] += margin
    return {move: tuple(value) for move, value in found.items()}


def shown(exploration) -> dict[str, tuple[int, int]]:
    return {entry.move: (entry.games, entry.black_margin_sum) for entry in exploration.moves}


def test_the_explorer_is_found_by_the_games_name() -> None:
    assert game_explorer("othello") is explorer
    assert game_explorer("clobber") is None and game_explorer("no.such") is None


def test_after_f5_d6_the_moves_counts_and_black_averages_are_the_files(raw, index) -> None:
    moves, margins = raw
    selected = (moves[:, 0] == 56) & (moves[:, 1] == 64)
    expected = tally(moves, margins, selected, 2)
    found = index.explore(board_after(["f5", "d6"]))
    assert found.games == int(selected.sum()) == sum(games for games, _ in expected.values())
    assert shown(found) == expected
    assert [entry.games for entry in found.moves] == sorted((games for games, _ in expected.values()), reverse=True)
    c3 = next(entry for entry in found.moves if entry.move == "c3")
    assert c3.black_average == pytest.approx(expected["c3"][1] / expected["c3"][0])
    wins = int(((moves[:, 2] == 33) & selected & (margins > 0)).sum())
    draws = int(((moves[:, 2] == 33) & selected & (margins == 0)).sum())
    assert c3.black_half_points == 2 * wins + draws
    assert found.ply == 2 and not found.past and found.ended == 0


def test_a_game_begun_elsewhere_than_f5_finds_the_games_turned_to_it(index) -> None:
    """The files turn every game to begin f5: d3 c5 is f5 d6 turned (c4 e3 and e6 f4
    too), its moves turned back."""
    straight = index.explore(board_after(["f5", "d6"]))
    turned = index.explore(board_after(["d3", "c5"]))
    assert turned.games == straight.games
    assert [(entry.games, entry.black_margin_sum) for entry in turned.moves] == [
        (entry.games, entry.black_margin_sum) for entry in straight.moves]
    assert turned.moves[0].move == "f6" and straight.moves[0].move == "c3"
    assert index.explore(board_after([])).games == straight.games + index.explore(board_after(["f5", "f6"])).games \
        + index.explore(board_after(["f5", "f4"])).games


def test_move_orders_that_reach_one_position_are_merged(raw, index) -> None:
    """f5 d6 c3 d3 c4 and f5 d6 c4 d3 c3 reach one position: its games are those of
    every order of its five squares that reaches it (each replayed here by the rules)."""
    moves, margins = raw
    target = board_after(["f5", "d6", "c3", "d3", "c4"])
    squares = sorted([56, 64, 33, 34, 43])
    candidates = np.all(np.sort(moves[:, :5], axis=1) == squares, axis=1)
    orders = collections.Counter(tuple(row) for row in moves[candidates, :5].tolist())
    reaching = []
    for order in orders:
        try:
            if board_after([name_of(code) for code in order]) == target:
                reaching.append(order)
        except ValueError:  # an order that is not legal throughout reaches nothing
            continue
    assert len(reaching) >= 2 and all(orders[order] < sum(orders[o] for o in reaching) for order in reaching)
    selected = np.zeros(len(moves), dtype=bool)
    for order in reaching:
        selected |= np.all(moves[:, :5] == order, axis=1)
    found = index.explore(target)
    assert found.games == int(selected.sum()) == sum(orders[order] for order in reaching)
    assert shown(found) == tally(moves, margins, selected, 5)


def test_a_position_no_game_reached_and_one_past_the_last_ply_are_told_apart(raw, index) -> None:
    moves, _ = raw
    # A position that no game's first squares, in any order, make: a move off the
    # first game's line (the squares of a position are those its plies filled).
    line = [name_of(code) for code in moves[0, :explorer.LAST_PLY + 1]]
    unplayed = None
    for ply in range(2, explorer.LAST_PLY):
        played = {tuple(sorted(row)) for row in moves[:, :ply + 1].tolist()}
        position = position_after(line[:ply])
        unplayed = next((OTHELLO.format_move(position, move) for move in position.legal_moves()
                         if tuple(sorted(moves[0, :ply].tolist() + [code_of(move)])) not in played), None)
        if unplayed is not None:
            break
    assert unplayed is not None
    never = index.explore(board_after(line[:ply] + [unplayed]))
    assert never.games == 0 and never.moves == () and not never.past
    last = index.explore(board_after(line[:explorer.LAST_PLY]))
    assert last.ply == explorer.LAST_PLY and not last.past and last.games >= 1
    assert line[explorer.LAST_PLY] in {entry.move for entry in last.moves}
    past = index.explore(board_after(line))
    assert past.past and past.ply == explorer.LAST_PLY + 1 and past.games == 0


def test_a_position_whose_mover_must_pass_answers_the_pass(raw, index) -> None:
    """Found among the files' games by the replay: a position whose side to move is not
    the ply's is one after a pass."""
    moves, _ = raw
    for start in range(0, len(moves), 10_000):
        chunk = moves[start:start + 10_000].copy()
        chunk[:, explorer.LAST_PLY + 1:] = 0
        count = len(chunk) * (explorer.LAST_PLY + 2)
        boards, game, black = np.zeros((count, 2), np.uint64), np.zeros(count, np.int64), np.zeros(count, np.bool_)
        rows, played = replay_games(chunk, boards, game, black)
        ply = np.arange(rows) - np.concatenate(([0], np.cumsum(played + 1)[:-1]))[game[:rows]]
        after_pass = np.flatnonzero((black[:rows] != (ply % 2 == 0)) & (ply <= explorer.LAST_PLY))
        if len(after_pass):
            break
    assert len(after_pass), "no game of the files passes"
    number, at = start + int(game[after_pass[0]]), int(ply[after_pass[0]])
    position = position_after([name_of(code) for code in moves[number, :at].tolist()])
    assert position.legal_moves() == [OTHELLO.rules.PASS]
    found = index.explore(OTHELLO.format_board(position))
    following = index.explore(OTHELLO.format_board(position.play(OTHELLO.rules.PASS)))
    assert [(entry.move, entry.games) for entry in found.moves] == [("pass", following.games)]
    assert found.games == following.games >= 1


def test_games_whose_record_stops_are_counted_as_ending_there(tmp_path: Path) -> None:
    """A record of ten moves, beside the whole game it begins: both reach its tenth
    position, one plays on."""
    codes, real, _ = random_game(3)
    write_games(tmp_path, [(codes, real, 32), (codes[:10], 40, 32)])
    index = explorer.build_index(tmp_path)
    assert (index.games, index.files) == (2, 1)
    found = index.explore(board_after([name_of(code) for code in codes[:10]]))
    assert (found.games, found.ended) == (2, 1)
    assert shown(found) == {name_of(codes[10]): (1, 2 * real - 64)}
    with pytest.raises(ValueError, match="no WTH_"):
        explorer.build_index(tmp_path / "nothing")


def test_saved_arrays_are_read_back_only_when_whole_and_consistent(tmp_path: Path) -> None:
    write_games(tmp_path, [(random_game(seed)[0], 40, 32) for seed in range(4)])
    index = explorer.build_index(tmp_path)
    arrays = index.arrays()
    again = explorer.index_of(arrays)
    assert again.arrays().keys() == arrays.keys() and (again.games, again.last_ply) == (4, explorer.LAST_PLY)
    board = board_after([])
    assert again.explore(board) == index.explore(board)
    broken = {
        "a missing array": {name: value for name, value in arrays.items() if name != "games"},
        "another dtype": {**arrays, "games": arrays["games"].astype(np.int64)},
        "another format": {**arrays, "format": np.frombuffer(b"something else", dtype=np.uint8)},
        "unsorted positions": {**arrays, "black": arrays["black"][::-1].copy()},
        "a short offsets column": {**arrays, "first": arrays["first"][:-1]},
        "an entry of no game": {**arrays, "games": np.zeros_like(arrays["games"])},
        "a square off the board": {**arrays, "move": np.full_like(arrays["move"], 70)},
        "a 2-D array": {**arrays, "move": arrays["move"].reshape(1, -1)},
    }
    refused = {}
    for what, wrong in broken.items():
        try:
            explorer.index_of(wrong)
        except ValueError as error:
            refused[what] = str(error)
    assert refused.keys() == broken.keys()
    assert all("not an index" in said or "another format" in said for said in refused.values())


def test_the_whole_index_is_bounded_and_looked_up_fast(index) -> None:
    arrays = index.arrays()
    assert index.games == 137_548 and index.files == len(list(FOLDER.glob("WTH_*.wtb")))
    assert len(arrays["move"]) < 1_200_000 and sum(value.nbytes for value in arrays.values()) < 40e6
    board = board_after(["f5", "d6", "c3", "d3", "c4"])
    started = time.perf_counter()
    for _ in range(100):
        index.explore(board)
    assert (time.perf_counter() - started) / 100 < 0.01
