"""Abalone: every kind of move on hand-made positions, the end of the game, the notation,
the move generator against a plain cell-by-cell one (on those positions, random games and
random boards), and the evaluation.

No referee is available for Abalone, so the rules are checked against positions built
by hand (with the expected results written out) and against an independent generator
written here on plain (x, y) cells.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import find_game
from games.base import BadParameterError, BoardTextError, IllegalMoveError, NotationError, Outcome
from games.abalone.fixtures import BENCH_POSITIONS
from games.abalone.game import Fields
from games.abalone.hexboard import (
    CELLS,
    INDEX_OF,
    MARBLES,
    MAX_PLIES,
    ON_BOARD,
    ROW_LENGTHS,
    WIDTH,
    WINNING_SCORE,
)
from search import new_searcher
from search.limits import StopSignal
from search.specialised import perft_leaves
from search.tt import TranspositionTable
from tests.conftest import StdioEngine, run

GAME = find_game("abalone")
START = "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=0 score2=0 turn=0"

# ---- plain (x, y) geometry, written independently of games.abalone.hexboard ----------

#: Direction d as an axial step (q, r): E, NE, NW, W, SW, SE.
AXIAL = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def to_axial(x: int, y: int) -> tuple[int, int]:
    return x - 4 + max(0, 4 - y), y - 4


def to_xy(q: int, r: int) -> tuple[int, int] | None:
    """The (x, y) of an axial cell, None off the board."""
    if max(abs(q), abs(r), abs(q + r)) > 4:
        return None
    y = r + 4
    return q + 4 - max(0, 4 - y), y


def neighbour(cell: tuple[int, int], direction: int, times: int = 1) -> tuple[int, int] | None:
    q, r = to_axial(*cell)
    dq, dr = AXIAL[direction]
    return to_xy(q + times * dq, r + times * dr)


ALL_CELLS = [(x, y) for y, length in enumerate(ROW_LENGTHS) for x in range(length)]


def cells(text: str) -> list[tuple[int, int]]:
    """`"2,3 3,4"` as [(2, 3), (3, 4)]."""
    return [tuple(int(n) for n in item.split(",")) for item in text.split()]


def board(black: str = "", white: str = "", side: str = "2", **fields: int) -> str:
    """The board text with black (`2`) and white (`1`) marbles on the named cells."""
    grid = {cell: "0" for cell in ALL_CELLS}
    for names, char in ((black, "2"), (white, "1")):
        for cell in cells(names):
            assert cell in grid, cell
            grid[cell] = char
    rows = ["".join(grid[x, y] for x in range(length)) for y, length in enumerate(ROW_LENGTHS)]
    extra = "".join(f" {key}={value}" for key, value in fields.items())
    return "/".join(rows) + " " + side + extra


def state_of(text: str):
    return GAME.parse_board(text.split())


def fields(state) -> Fields:
    """The marbles, side to move, scores and turn of a position as Python ints."""
    return GAME.fields(state)


def tokens(state) -> list[str]:
    return sorted(GAME.format_move(state, move) for move in state.legal_moves())


def grid_of(state) -> dict[tuple[int, int], str]:
    rows = GAME.format_board(state).split()[0].split("/")
    return {(x, y): rows[y][x] for x, y in ALL_CELLS}


def marbles(state) -> str:
    """The cells of each colour, as `board` takes them: `"black / white"`."""
    grid = grid_of(state)
    names = {"2": [], "1": []}
    for (x, y), char in sorted(grid.items(), key=lambda item: (item[0][1], item[0][0])):
        if char in names:
            names[char].append(f"{x},{y}")
    return " ".join(names["2"]) + " / " + " ".join(names["1"])


def after(text: str, token: str):
    state = state_of(text)
    return state.play(GAME.parse_move(state, token))


# ---- an independent cell-by-cell move generator ----------------------------------------


def reference_moves(grid: dict[tuple[int, int], str], me: str) -> dict:
    """Every legal move of player `me` (`"2"` or `"1"`) as
    {(frozenset of moved cells, direction): (resulting grid, marbles pushed off)}."""
    other = "1" if me == "2" else "2"
    lines = set()
    for cell in ALL_CELLS:
        if grid[cell] != me:
            continue
        lines.add((cell,))
        for direction in range(6):
            line = [cell]
            for _ in range(2):
                nxt = neighbour(line[-1], direction)
                if nxt is None or grid[nxt] != me:
                    break
                line.append(nxt)
                lines.add(tuple(sorted(line)))
    results = {}
    for line in lines:
        for direction in range(6):
            new = dict(grid)
            off = 0
            along = len(line) == 1 or any(neighbour(line[0], direction, k) == line[-1]
                                          or neighbour(line[-1], direction, k) == line[0]
                                          for k in (1, 2))
            if along:
                front = next(c for c in line if neighbour(c, direction) not in line)
                target = neighbour(front, direction)
                if target is None or grid[target] == me:
                    continue
                if grid[target] == other:
                    column = [target]
                    while True:
                        nxt = neighbour(column[-1], direction)
                        if nxt is None or grid[nxt] != other:
                            break
                        column.append(nxt)
                    behind = neighbour(column[-1], direction)
                    if len(column) >= len(line) or (behind is not None and grid[behind] != "0"):
                        continue
                    if behind is None:
                        off = 1
                    else:
                        new[behind] = other
                for c in line:
                    new[c] = "0"
                for c in line:
                    new[neighbour(c, direction)] = me
            else:
                targets = [neighbour(c, direction) for c in line]
                if any(t is None or grid[t] != "0" for t in targets):
                    continue
                for c in line:
                    new[c] = "0"
                for t in targets:
                    new[t] = me
            results[frozenset(line), direction] = (new, off)
    return results


def token_key(token: str) -> tuple[frozenset, int]:
    """The (cells moved, direction) a token names, read with the plain geometry."""
    x1, y1, x2, y2, direction = (int(n) for n in token.split(","))
    first, last = (x1, y1), (x2, y2)
    line = {first, last}
    for d in range(6):
        if neighbour(first, d, 2) == last:
            line.add(neighbour(first, d))
    return frozenset(line), direction


def engine_moves(state) -> dict:
    """The engine's moves keyed as `reference_moves`, with their children."""
    result = {}
    for move in state.legal_moves():
        key = token_key(GAME.format_move(state, move))
        assert key not in result
        result[key] = state.play(move)
    return result


def check_against_reference(state) -> None:
    """The engine's moves of `state` (best-first: descending move ints) and their
    children against the independent generator; whether the game goes on against
    whether that generator finds a move."""
    before = fields(state)
    moves = state.legal_moves()
    if max(before.black_score, before.white_score) >= WINNING_SCORE or before.turn >= MAX_PLIES:
        assert moves == [] and state.outcome() is not None
        return
    me = GAME.player_names[state.to_move]
    expected = reference_moves(grid_of(state), me)
    assert moves == sorted(set(moves), reverse=True), GAME.format_board(state)
    assert (state.outcome() is None) == bool(expected), GAME.format_board(state)
    found = engine_moves(state)
    assert set(found) == set(expected), GAME.format_board(state)
    for key, child in found.items():
        new, off = expected[key]
        assert grid_of(child) == new, (GAME.format_board(state), key)
        after = fields(child)
        scores = (after.black_score - before.black_score, after.white_score - before.white_score)
        assert scores == ((off, 0) if me == "2" else (0, off))
        assert after.turn == before.turn + 1 and child.to_move == 1 - state.to_move
        assert child == state_of(GAME.format_board(child))


# ---- the start position and perft -------------------------------------------------------


def test_start_position() -> None:
    state = GAME.initial_state({})
    assert GAME.format_board(state) == START
    assert state.to_move == 0 and GAME.player_names == ("2", "1") and GAME.white_player == 1
    assert (fields(state).black.bit_count(), fields(state).white.bit_count()) == (14, 14)
    assert GAME.picture(state) == [
        "0     1 1 1 1 1",
        "1    1 1 1 1 1 1",
        "2   . . 1 1 1 . .",
        "3  . . . . . . . .",
        "4 . . . . . . . . .",
        "5  . . . . . . . .",
        "6   . . 2 2 2 . .",
        "7    2 2 2 2 2 2",
        "8     2 2 2 2 2",
        "pushed off: 2 has 0, 1 has 0",
        "turn: 0",
        "to move: 2",
    ]


def test_start_position_has_the_well_known_44_moves() -> None:
    state = GAME.initial_state({})
    assert len(state.legal_moves()) == 44
    assert len(reference_moves(grid_of(state), "2")) == 44
    check_against_reference(state)


def test_perft() -> None:
    state = GAME.initial_state({})
    assert [perft_leaves(state, depth) for depth in (1, 2, 3)] == [44, 1936, 98912]


@pytest.mark.parametrize(("text", "counts"), [
    # Counted by the rules over Python ints that the kernels replaced.
    (BENCH_POSITIONS[1], (74, 5478, 398216)),
    (BENCH_POSITIONS[2], (77, 6389, 489030)),
    (BENCH_POSITIONS[3], (58, 4859, 285068)),
])
def test_perft_from_the_bench_positions(text: str, counts: tuple[int, ...]) -> None:
    state = state_of(text)
    assert tuple(perft_leaves(state, depth) for depth in (1, 2, 3)) == counts


@pytest.mark.slow
def test_perft_4() -> None:
    # The reference generator below counts the same at depth 4 (in about four minutes).
    assert perft_leaves(GAME.initial_state({}), 4) == 5045110


@pytest.mark.slow
def test_perft_3_agrees_with_the_reference_generator() -> None:
    start = GAME.initial_state({})
    total = 0
    for child in (start.play(move) for move in start.legal_moves()):
        for grandchild in (child.play(move) for move in child.legal_moves()):
            total += len(reference_moves(grid_of(grandchild), "2"))
    assert total == 98912


def rotate(token: str) -> str:
    """A move token turned half a round: (x, y) to (len - 1 - x, 8 - y), d to d + 3."""
    x1, y1, x2, y2, direction = (int(n) for n in token.split(","))
    y1, y2 = 8 - y1, 8 - y2
    x1, x2 = ROW_LENGTHS[y1] - 1 - x1, ROW_LENGTHS[y2] - 1 - x2
    return f"{x1},{y1},{x2},{y2},{(direction + 3) % 6}"


def test_the_start_is_symmetric_under_a_half_turn_with_colours_swapped() -> None:
    black_moves = {token_key(rotate(token)) for token in tokens(GAME.initial_state({}))}
    white_first = state_of(START.replace(" 2 ", " 1 "))
    assert {token_key(token) for token in tokens(white_first)} == black_moves


# ---- every kind of move ------------------------------------------------------------------


def test_a_single_marble_steps_in_each_of_the_six_directions() -> None:
    text = board(black="4,4", white="0,0")
    assert tokens(state_of(text)) == [f"4,4,4,4,{d}" for d in range(6)]
    # E, NE, NW, W, SW, SE of the centre cell.
    for direction, cell in enumerate(["5,4", "4,3", "3,3", "3,4", "3,5", "4,5"]):
        assert marbles(after(text, f"4,4,4,4,{direction}")) == f"{cell} / 0,0"
    # Off the middle line the rows are shifted: NE from the top half keeps x.
    assert marbles(after(board(black="2,2", white="0,0"), "2,2,2,2,1")) == "2,1 / 0,0"
    assert marbles(after(board(black="2,6", white="0,0"), "2,6,2,6,1")) == "3,5 / 0,0"
    assert marbles(after(board(black="2,6", white="0,0"), "2,6,2,6,2")) == "2,5 / 0,0"


def test_in_line_moves_of_two_and_three() -> None:
    two = board(black="3,4 4,4", white="0,0")
    assert marbles(after(two, "3,4,4,4,0")) == "4,4 5,4 / 0,0"
    assert marbles(after(two, "4,4,3,4,3")) == "2,4 3,4 / 0,0"
    three = board(black="2,3 3,4 3,5", white="0,0")  # a NW-SE line
    assert marbles(after(three, "2,3,3,5,5")) == "3,4 3,5 3,6 / 0,0"
    assert marbles(after(three, "3,5,2,3,2")) == "1,2 2,3 3,4 / 0,0"
    # The canonical token is rear then front; the ends are accepted in either order.
    state = state_of(three)
    move = GAME.parse_move(state, "2,3,3,5,5")
    assert GAME.parse_move(state, "3,5,2,3,5") == move
    assert GAME.format_move(state, move) == "2,3,3,5,5"
    assert GAME.format_move(state, GAME.parse_move(state, "2,3,3,5,2")) == "3,5,2,3,2"


def test_broadside_moves_of_two_and_three_and_the_statement_example() -> None:
    # The statement's `2 3 3 5 4` moves (2,3), (3,4), (3,5) south-west.
    text = board(black="2,3 3,4 3,5", white="0,0")
    state = state_of(text)
    move = GAME.parse_move(state, "2,3,3,5,4")
    assert GAME.parse_move(state, "3,5,2,3,4") == move
    assert GAME.format_move(state, move) == "2,3,3,5,4"
    assert marbles(state.play(move)) == "2,4 2,5 2,6 / 0,0"
    assert marbles(after(text, "2,3,3,5,0")) == "3,3 4,4 4,5 / 0,0"
    two = board(black="3,4 4,4", white="0,0")
    assert marbles(after(two, "3,4,4,4,1")) == "3,3 4,3 / 0,0"
    assert marbles(after(two, "3,4,4,4,5")) == "3,5 4,5 / 0,0"
    # One occupied destination blocks a broadside move, own or enemy.
    blocked = state_of(board(black="3,4 4,4 4,3", white="3,5"))
    # North-east (4,3) is own; south-west and south-east (3,5) is white; north-west is free.
    for direction in (1, 4, 5):
        assert f"3,4,4,4,{direction}" not in tokens(blocked)
    assert "3,4,4,4,2" in tokens(blocked)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(blocked, "3,4,4,4,5")


@pytest.mark.parametrize(("black", "white", "token", "result"), [
    # 2 push 1 east, 3 push 1 and 3 push 2 west, 3 push 2 along NW-SE.
    ("2,4 3,4", "4,4", "2,4,3,4,0", "3,4 4,4 / 5,4"),
    ("4,4 5,4 6,4", "3,4", "6,4,4,4,3", "3,4 4,4 5,4 / 2,4"),
    ("4,4 5,4 6,4", "2,4 3,4", "6,4,4,4,3", "3,4 4,4 5,4 / 1,4 2,4"),
    ("2,2 3,3 4,4", "4,5 4,6", "2,2,4,4,5", "3,3 4,4 4,5 / 4,6 4,7"),
])
def test_sumito_pushes(black: str, white: str, token: str, result: str) -> None:
    text = board(black=black, white=white)
    child = after(text, token)
    assert marbles(child) == result
    assert fields(child)[3:5] == (0, 0)


def test_a_push_needs_only_the_cell_behind_the_column_free() -> None:
    child = after(board(black="2,4 3,4", white="4,4 6,4"), "2,4,3,4,0")
    assert marbles(child) == "3,4 4,4 / 5,4 6,4"


@pytest.mark.parametrize(("black", "white", "token"), [
    ("2,4 3,4", "4,4 5,4", "2,4,3,4,0"),              # 2 against 2
    ("1,4 2,4 3,4", "4,4 5,4 6,4", "1,4,3,4,0"),      # 3 against 3
    ("2,4 3,4", "4,4 5,4 6,4", "2,4,3,4,0"),          # 2 against a longer column
    ("1,4 2,4 3,4", "4,4 5,4 6,4 7,4", "1,4,3,4,0"),  # 3 against 4
    ("3,4", "4,4", "3,4,3,4,0"),                      # a single marble never pushes
    ("2,4 3,4 5,4", "4,4", "2,4,3,4,0"),              # own marble behind the enemy
    ("1,4 2,4 3,4 6,4", "4,4 5,4", "1,4,3,4,0"),      # own marble behind a column of 2
])
def test_blocked_pushes(black: str, white: str, token: str) -> None:
    state = state_of(board(black=black, white=white))
    assert token not in tokens(state)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, token)
    check_against_reference(state)


def test_a_four_marble_line_moves_and_pushes_with_three_only() -> None:
    four = "1,4 2,4 3,4 4,4"
    state = state_of(board(black=four, white="5,4 6,4 7,4"))
    assert not any(t.startswith("2,4,4,4,0") or t == "1,4,4,4,0" for t in tokens(state))
    with pytest.raises(IllegalMoveError, match="not a line"):
        GAME.parse_move(state, "1,4,4,4,0")
    # Against two, the front three push: 3 against 2.
    child = after(board(black=four, white="5,4 6,4"), "2,4,4,4,0")
    assert marbles(child) == "1,4 3,4 4,4 5,4 / 6,4 7,4"
    # Alone, the front three (and two, and one) move; the fourth stays.
    state = state_of(board(black=four, white="0,0"))
    assert {"2,4,4,4,0", "3,4,4,4,0", "4,4,4,4,0"} <= set(tokens(state))
    check_against_reference(state)


def corner(direction: int) -> tuple[int, int]:
    """The corner cell four steps from the centre in `direction`: its neighbour that way
    is off the board."""
    dq, dr = AXIAL[direction]
    return to_xy(4 * dq, 4 * dr)


@pytest.mark.parametrize("direction", range(6))
def test_pushes_off_the_board_in_every_direction_score(direction: int) -> None:
    edge = corner(direction)
    pushers = [neighbour(edge, (direction + 3) % 6, k) for k in (1, 2)]
    name = " ".join(f"{x},{y}" for x, y in pushers)
    text = board(black=name, white=f"{edge[0]},{edge[1]} 4,4")
    state = state_of(text)
    token = f"{pushers[1][0]},{pushers[1][1]},{pushers[0][0]},{pushers[0][1]},{direction}"
    child = state.play(GAME.parse_move(state, token))
    assert fields(child)[3:5] == (1, 0)
    assert fields(child).white.bit_count() == 1
    assert GAME.format_board(child).endswith(" 1 score1=0 score2=1 turn=1")
    # A 3-against-2 push off the same edge, by white.
    column = [edge, neighbour(edge, (direction + 3) % 6)]
    pushers = [neighbour(edge, (direction + 3) % 6, k) for k in (2, 3, 4)]
    text = board(black=" ".join(f"{x},{y}" for x, y in column),
                 white=" ".join(f"{x},{y}" for x, y in pushers), side="1", score1=5)
    state = state_of(text)
    token = f"{pushers[2][0]},{pushers[2][1]},{pushers[0][0]},{pushers[0][1]},{direction}"
    child = state.play(GAME.parse_move(state, token))
    assert fields(child)[3:5] == (0, 6)
    assert fields(child).black.bit_count() == 1 and fields(child).white.bit_count() == 3
    outcome = child.outcome()
    assert outcome is not None and child.legal_moves() == []
    assert outcome.winner == 1 and outcome.returns == (-1, 1)
    assert outcome.margin == (-6, 6) and outcome.reason == "six off 0-6"


def test_no_marble_leaves_the_board_of_its_own_side() -> None:
    # A single marble and an in-line pair at the rim cannot step off; a broadside pair
    # on the top line cannot move up.
    state = state_of(board(black="0,0 1,0 2,0", white="4,8"))
    moved = tokens(state)
    for token in ("0,0,0,0,1", "0,0,0,0,2", "0,0,0,0,3", "1,0,0,0,3", "2,0,0,0,3",
                  "0,0,1,0,1", "0,0,1,0,2", "0,0,2,0,1", "1,0,2,0,2"):
        assert token not in moved
        with pytest.raises(IllegalMoveError):
            GAME.parse_move(state, token)
    assert "0,0,2,0,0" in moved and "0,0,2,0,4" in moved and "0,0,2,0,5" in moved
    check_against_reference(state)


def test_six_off_ends_the_game() -> None:
    text = board(black="2,4 3,4", white="4,4", side="2", score2=5)
    state = state_of(text)
    assert state.outcome() is None
    child = state.play(GAME.parse_move(state, "2,4,3,4,0"))
    assert child.outcome() is None  # (4,4) goes to (5,4), not off
    edge = state_of(board(black="6,4 7,4", white="8,4 0,0", score2=5))
    child = edge.play(GAME.parse_move(edge, "6,4,7,4,0"))
    outcome = child.outcome()
    assert outcome.winner == 0 and outcome.returns == (1, -1) and outcome.margin == (6, -6)
    assert child.legal_moves() == [] and outcome.reason == "six off 6-0"


@pytest.mark.parametrize(("score1", "score2", "winner", "margin"), [
    (1, 2, 0, (1, -1)), (3, 0, 1, (-3, 3)), (2, 2, None, (0, 0)),
])
def test_the_ply_limit_decides_by_marbles_pushed_off(score1: int, score2: int,
                                                    winner: int | None, margin: tuple) -> None:
    state = state_of(board(black="4,4", white="0,0", side="1", score1=score1, score2=score2,
                           turn=349))
    assert state.outcome() is None and state.legal_moves()
    child = state.play(GAME.parse_move(state, "0,0,0,0,0"))
    assert fields(child).turn == 350 and child.legal_moves() == []
    outcome = child.outcome()
    assert outcome.winner == winner and outcome.margin == margin
    assert outcome.reason == f"ply limit {score2}-{score1}"
    assert sum(outcome.returns) == 0


def test_a_side_without_a_move_loses() -> None:
    # A single black marble in the top corner, its three neighbours white.
    boxed = state_of(board(black="0,0", white="1,0 0,1 1,1", score1=1))
    assert boxed.legal_moves() == []
    outcome = boxed.outcome()
    assert outcome.winner == 1 and outcome.returns == (-1, 1) and outcome.reason == "no move"
    assert outcome.margin == (-1, 1)
    # A black pair boxed in but with a push off the board left has a move.
    push = state_of(board(black="1,1 2,2", white="0,0 1,0 0,1 2,1 1,2 3,2 2,3 3,3 3,1"))
    assert push.outcome() is None
    check_against_reference(push)


def test_the_margin_is_the_marbles_pushed_off_in_every_outcome() -> None:
    # Boxed in with more marbles pushed off than the winner: a loss by a margin of +2.
    boxed = state_of(board(black="0,0", white="1,0 0,1 1,1", score1=1, score2=3))
    outcome = boxed.outcome()
    assert outcome.returns == (-1, 1) and outcome.margin == (2, -2)
    # Six off, in the middle of the board: over, whoever is to move.
    for side in "21":
        won = state_of(board(black="4,4", white="0,0", side=side, score2=6))
        assert won.legal_moves() == []
        assert won.outcome() == Outcome((1, -1), 0, "six off 6-0", (6, -6))
    # The ply limit, whoever is to move.
    for side in "21":
        for score1, score2 in ((1, 2), (3, 0), (2, 2)):
            state = state_of(board(black="4,4", white="0,0", side=side, score1=score1,
                                   score2=score2, turn=350))
            outcome = state.outcome()
            assert state.legal_moves() == [] and outcome.margin == (score2 - score1, score1 - score2)
            sign = (score2 > score1) - (score2 < score1)
            assert outcome.returns == (sign, -sign)


def cell_names(cells) -> str:
    return " ".join(f"{x},{y}" for x, y in cells)


def hand_made_positions() -> list[str]:
    """The positions of the tests above: every kind of move, blocked pushes, pushes off
    every edge, the ends of the game."""
    texts = [
        board(black="4,4", white="0,0"),
        board(black="2,2", white="0,0"),
        board(black="2,6", white="0,0"),
        board(black="3,4 4,4", white="0,0"),
        board(black="2,3 3,4 3,5", white="0,0"),
        board(black="3,4 4,4 4,3", white="3,5"),
        board(black="2,4 3,4", white="4,4 6,4"),
        board(black="0,0 1,0 2,0", white="4,8"),
        board(black="1,4 2,4 3,4 4,4", white="5,4 6,4 7,4"),
        board(black="1,4 2,4 3,4 4,4", white="5,4 6,4"),
        board(black="1,4 2,4 3,4 4,4", white="0,0"),
        board(black="2,4 3,4", white="4,4", score2=5),
        board(black="6,4 7,4", white="8,4 0,0", score2=5),
        board(black="0,0", white="1,0 0,1 1,1", score1=1),
        board(black="1,1 2,2", white="0,0 1,0 0,1 2,1 1,2 3,2 2,3 3,3 3,1"),
        board(black="0,4 4,4", white="1,4 2,4"),
    ]
    for black, white in [
        ("2,4 3,4", "4,4"), ("4,4 5,4 6,4", "3,4"), ("4,4 5,4 6,4", "2,4 3,4"),
        ("2,2 3,3 4,4", "4,5 4,6"), ("2,4 3,4", "4,4 5,4"), ("1,4 2,4 3,4", "4,4 5,4 6,4"),
        ("2,4 3,4", "4,4 5,4 6,4"), ("1,4 2,4 3,4", "4,4 5,4 6,4 7,4"), ("3,4", "4,4"),
        ("2,4 3,4 5,4", "4,4"), ("1,4 2,4 3,4 6,4", "4,4 5,4"),
    ]:
        texts.append(board(black=black, white=white))
    for direction in range(6):
        edge = corner(direction)
        back = (direction + 3) % 6
        pushers = [neighbour(edge, back, k) for k in (1, 2)]
        texts.append(board(black=cell_names(pushers), white=cell_names([edge, (4, 4)])))
        column = [edge, neighbour(edge, back)]
        pushers = [neighbour(edge, back, k) for k in (2, 3, 4)]
        texts.append(board(black=cell_names(column), white=cell_names(pushers), side="1",
                           score1=5))
    for score1, score2 in ((1, 2), (3, 0), (2, 2)):
        texts.append(board(black="4,4", white="0,0", side="1", score1=score1, score2=score2,
                           turn=349))
    return texts


@pytest.mark.parametrize("text", hand_made_positions())
def test_hand_made_positions_with_either_side_to_move(text: str) -> None:
    for side in "21":
        words = text.split()
        words[1] = side
        state = GAME.parse_board(words)
        check_against_reference(state)
        for move in state.legal_moves():
            check_against_reference(state.play(move))


# ---- properties on random games ----------------------------------------------------------


def random_game(seed: int, plies: int = 350, greedy: float = 0.0):
    """A game from the start: each ply the first move (pushes off come first) with
    probability `greedy`, else a uniform choice."""
    rng = random.Random(seed)
    state = GAME.initial_state({})
    states = [state]
    for _ in range(plies):
        moves = state.legal_moves()
        if not moves:
            break
        state = state.play(moves[0] if rng.random() < greedy else rng.choice(moves))
        states.append(state)
    return states


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_agree_with_the_reference_generator(seed: int) -> None:
    for state in random_game(seed)[::7]:
        if state.outcome() is None:
            check_against_reference(state)


@pytest.mark.parametrize("seed", range(3))
def test_greedy_games_that_end_with_six_off(seed: int) -> None:
    states = random_game(100 + seed, greedy=0.6)
    assert states[-1].outcome() is not None
    assert max(fields(states[-1])[3:5]) == WINNING_SCORE
    for state in states[::3] + states[-1:]:
        check_against_reference(state)


# ---- random boards -------------------------------------------------------------------------


def _distance(a: int, b: int) -> int:
    """The hex distance between two cells (bit indices)."""
    dq, dr = a % WIDTH - b % WIDTH, a // WIDTH - b // WIDTH
    return max(abs(dq), abs(dr), abs(dq + dr))


@st.composite
def _positions(draw, black: list[int], white: list[int], to_move: int | None = None):
    """The position of these marbles with any side to move (unless given), scores and
    turn as the notation allows them, mostly in a game that goes on."""
    limits = (min(WINNING_SCORE, MARBLES - len(white)), min(WINNING_SCORE, MARBLES - len(black)))
    if draw(st.integers(0, 3)):
        limits = tuple(min(limit, WINNING_SCORE - 1) for limit in limits)
    black_score = draw(st.integers(0, limits[0]))
    white_score = draw(st.integers(0, limits[1]))
    if black_score == white_score == WINNING_SCORE:
        white_score -= 1
    turn = draw(st.sampled_from([0, 1, 77, 200, MAX_PLIES - 1, MAX_PLIES]))
    if to_move is None:
        to_move = draw(st.integers(0, 1))
    return GAME.position(Fields(sum(1 << cell for cell in black), sum(1 << cell for cell in white),
                                to_move, black_score, white_score, turn))


@st.composite
def boards(draw, dense: bool = False):
    """Marbles on random cells (dense: packed within two cells of a random centre)."""
    if dense:
        centre = draw(st.sampled_from(CELLS))
        pool = [cell for cell in CELLS if _distance(cell, centre) <= 2]
    else:
        pool = list(CELLS)
    cells = draw(st.lists(st.sampled_from(pool), unique=True, min_size=min(6, len(pool)),
                          max_size=28))
    colours = draw(st.lists(st.booleans(), min_size=len(cells), max_size=len(cells)))
    black = [cell for cell, colour in zip(cells, colours) if colour][:MARBLES]
    white = [cell for cell, colour in zip(cells, colours) if not colour][:MARBLES]
    return draw(_positions(black, white))


@st.composite
def crowds(draw):
    """The side to move's marbles on the cells nearest a random centre, the enemy's on
    the next ones around them: often boxed in, sometimes with a push left."""
    centre = draw(st.sampled_from(CELLS))
    rank = {cell: draw(st.integers(0, 9)) for cell in CELLS}
    cells = sorted(CELLS, key=lambda cell: (_distance(cell, centre), rank[cell]))
    own = draw(st.integers(1, 7))
    enemy = draw(st.integers(6, MARBLES))
    to_move = draw(st.integers(0, 1))
    mine, theirs = cells[:own], cells[own:own + enemy]
    black, white = (mine, theirs) if to_move == 0 else (theirs, mine)
    return draw(_positions(black, white, to_move))


@settings(max_examples=60, deadline=None)
@given(state=st.one_of(boards(), boards(dense=True), crowds()))
def test_random_boards_agree_with_the_reference_generator(state) -> None:
    check_against_reference(state)
    assert state == state_of(GAME.format_board(state))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_marbles_and_scores_add_up_to_fourteen_each(seed: int) -> None:
    for state in random_game(seed):
        black, white, _, black_score, white_score, _ = fields(state)
        assert black & ~ON_BOARD == 0 and white & ~ON_BOARD == 0
        assert black & white == 0
        assert black.bit_count() + white_score == 14
        assert white.bit_count() + black_score == 14
        assert state.key == GAME.position(fields(state)).key


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_every_move_without_a_push_can_be_undone(seed: int) -> None:
    for state in random_game(seed, 120)[::5]:
        for move in state.legal_moves():
            token = GAME.format_move(state, move)
            child = state.play(move)
            if _pushes(state, child):
                continue
            # The mover moves the same marbles back the opposite way.
            x1, y1, x2, y2, direction = (int(n) for n in token.split(","))
            line, _ = token_key(token)
            moved = sorted((neighbour(c, direction) for c in line), key=lambda c: (c[1], c[0]))
            back_direction = (direction + 3) % 6
            ends = f"{moved[0][0]},{moved[0][1]},{moved[-1][0]},{moved[-1][1]}"
            again = GAME.position(fields(child)._replace(to_move=state.to_move,
                                                         turn=fields(state).turn))
            restored = again.play(GAME.parse_move(again, f"{ends},{back_direction}"))
            assert fields(restored)[:2] == fields(state)[:2]
            assert restored.key == GAME.position(
                fields(state)._replace(to_move=restored.to_move, turn=fields(restored).turn)).key


def _pushes(state, child) -> bool:
    """Whether the move from `state` to `child` moved enemy marbles."""
    if state.to_move == 0:
        return fields(child).white != fields(state).white
    return fields(child).black != fields(state).black


# ---- notation ------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222 2",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/222222 2",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/2222. 2",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 0",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 b",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222",
    START + " turn=3",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 ply=3",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=7",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=-1",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=x",
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 turn=351",
    # 14 black marbles on the board, so white cannot have pushed one off.
    "11111/111111/0011100/00000000/000000000/00000000/0022200/222222/22222 2 score1=1",
    # 15 black marbles.
    "11111/111111/0011100/00000000/000000000/00000000/0222200/222222/22222 2",
    board(black="4,4", white="0,0", score1=6, score2=6),
])
def test_bad_board_texts(text: str) -> None:
    with pytest.raises(BoardTextError):
        GAME.parse_board(text.split())


def test_board_text_fields_default_to_zero_and_round_trip() -> None:
    short = START.split()[:2]
    assert GAME.parse_board(short) == GAME.initial_state({})
    state = state_of(board(black="4,4", white="0,0 1,0", side="1", score1=4, score2=6, turn=77))
    assert GAME.format_board(state) == board(black="4,4", white="0,0 1,0", side="1",
                                             score1=4, score2=6, turn=77)
    assert fields(state)[2:] == (1, 6, 4, 77)
    assert state_of(GAME.format_board(state)) == state
    assert state.outcome().winner == 0


@pytest.mark.parametrize("token", [
    "", "2,3,3,5", "2,3,3,5,4,1", "2 3 3 5 4", "2,3,3,5,6", "a,3,3,5,4", "-1,3,3,5,4",
    "2,3,3,5,+4", "2,3,3,9,4", "5,0,5,0,0", "2,3,3,5,٤", "2;3;3;5;4", "2,,3,5,4",
])
def test_malformed_move_tokens(token: str) -> None:
    with pytest.raises(NotationError):
        GAME.parse_move(GAME.initial_state({}), token)


@pytest.mark.parametrize("token", [
    "0,4,3,4,0",   # four cells apart
    "0,4,2,5,0",   # not on one line
    "2,6,2,6,5",   # onto an own marble
    "0,0,0,0,4",   # a white marble
    "4,4,4,4,0",   # an empty cell
    "0,8,2,8,1",   # broadside onto own marbles
])
def test_well_formed_illegal_moves(token: str) -> None:
    state = GAME.initial_state({})
    if token in tokens(state):
        pytest.fail(f"{token} is legal")
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(state, token)


def test_setgame_parameters_are_refused() -> None:
    with pytest.raises(BadParameterError, match="'size=10'"):
        GAME.initial_state({"size": "10"})


# ---- the evaluation --------------------------------------------------------------------------


def half_turn_swap(state):
    """The position turned half a round with the colours swapped (and the scores)."""
    rows = GAME.format_board(state).split()[0].split("/")
    swapped = [row[::-1].translate(str.maketrans("12", "21")) for row in reversed(rows)]
    _, _, _, black_score, white_score, turn = fields(state)
    return state_of(f"{'/'.join(swapped)} {'12'[state.to_move]} score1={black_score} "
                    f"score2={white_score} turn={turn}")


def mirror(state):
    """The position reflected left to right (every line reversed)."""
    rows = GAME.format_board(state).split()[0].split("/")
    _, _, _, black_score, white_score, turn = fields(state)
    return state_of(f"{'/'.join(row[::-1] for row in rows)} {'21'[state.to_move]} "
                    f"score1={white_score} score2={black_score} turn={turn}")


def test_evaluation_is_zero_sum_colour_blind_and_symmetric() -> None:
    for seed in range(4):
        for state in random_game(seed, 200)[::9]:
            value = GAME.evaluate(state)
            assert value[0] == -value[1]
            assert GAME.evaluate(half_turn_swap(state)) == (value[1], value[0])
            assert GAME.evaluate(mirror(state)) == value


def test_evaluation_terms() -> None:
    start = GAME.initial_state({})
    assert GAME.evaluate(start) == (0, 0)
    # A marble pushed off is worth 100, whatever else.
    black, white = fields(start)[:2]
    for to_move in (0, 1):
        scored = GAME.evaluate(GAME.position(Fields(black, white, to_move, 1, 0)))
        assert scored[0] - GAME.evaluate(GAME.position(Fields(black, white, to_move)))[0] == 100
    # Central marbles beat marbles on the rim.
    centre = GAME.evaluate(GAME.position(Fields(1 << INDEX_OF[4, 4], 1 << INDEX_OF[0, 0], 0)))
    assert centre[0] > 0
    # A marble that can be pushed off is a liability: (0,4) against the pair (1,4) (2,4).
    # Black: centre 4 + 0, no pair, one marble in danger; white: centre 3 + 2, one pair,
    # one push.
    danger = board(black="0,4 4,4", white="1,4 2,4")
    assert GAME.evaluate(state_of(danger)) == (6 * 1 - 2 * 1 - 10 * 1 - 3 * 1, 9)
    assert GAME.evaluate(state_of(danger.replace(" 2", " 1"))) == (-9, 9)


def test_a_two_ply_search_beats_a_random_player() -> None:
    rng = random.Random(11)
    for game_index in range(4):
        side = game_index % 2
        state = GAME.initial_state({})
        table = TranspositionTable("abalone", GAME.rules.KEY_SCHEME, 1 << 20)
        while state.outcome() is None:
            if state.to_move == side:
                stop = StopSignal()
                stop.arm(None, None, 2)
                move = list(new_searcher(GAME, table).search(state, stop))[-1].pv[0]
            else:
                move = rng.choice(state.legal_moves())
            state = state.play(move)
        assert state.outcome().winner == side, game_index


# ---- through the engine ---------------------------------------------------------------------


def test_the_engine_plays_abalone() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame abalone")
            (line,) = await engine.ask("moves", "moves")
            assert len(line.split()) == 45 and "2,6,2,6,2" in line.split()
            (line,) = await engine.ask("perft 2", "perft")
            assert line.startswith("perft 2 nodes 1936 ")
            await engine.send("position startpos moves 3,8,3,6,2 2,2,2,0,4")
            lines = await engine.ask("d", "board-text")
            assert lines[-1] == ("board-text 11011/111111/0011100/00100000/000000000/00020000/"
                                 "0022200/222222/22202 2 score1=0 score2=0 turn=2")
            text = board(black="6,4 7,4", white="8,4 0,0", score2=5)
            await engine.send(f"position board {text} moves 6,4,7,4,0")
            lines = await engine.ask("d", "result")
            assert lines[-1] == "result 2 six off 6-0"
            reply = await engine.bestmove("go depth 2")
            assert reply.move is None
            await engine.send(f"position board {board(black='2,4 3,4', white='5,4 0,0')}")
            assert (await engine.bestmove("go depth 2")).move is not None
    run(scenario())
