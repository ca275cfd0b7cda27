"""adapters/view/board.py against the games' own rules, over random positions of every game
(30 a game, reached by seeded random play from the start).

What it proves:
- a view has one cell per character of the board text's rows, in their order, named as
  the game's notation names that cell (`e2` by file and rank, `x,y` on the hexagonal
  board), with the index of the player whose piece the character is, and blocked where
  it is the game's blocked square;
- a move is entered by clicks without ambiguity: every legal move has a way of clicking
  it, its paths name cells of the view, no two moves share a path, and no move's path is
  the beginning of another move's (the GUI plays a move as soon as a path is complete);
- a path clicks what the rules move: every cell of a path but its last holds one of
  the mover's pieces (the piece that moves; on the hexagonal board, the ends of the line
  of marbles), and once the rules play the move the path's last cell holds the mover's
  piece: where the piece (on the hexagonal board, the first marble clicked) went;
- on the hexagonal board, that last cell is one cell from the first clicked marble, in
  the same direction on both ways of clicking a line;
- a move's arrow (the analysis draws it) goes from one of the mover's pieces (or rings
  the one square of a placement) to a cell the mover holds once the move is played; on
  the hexagonal board it points the way the marbles move, over the whole line where the
  line moves along itself, one cell otherwise.
"""

from __future__ import annotations

import functools
import math
import random

import pytest

from adapters.view.board import HexBoard
from adapters.codingame import turn_format
from adapters.codingame.common import sorted_tokens
from games import find_game
from games.base import Position

GAMES = ("clobber", "othello", "loa", "isolation", "abalone")
POSITIONS = 30
#: The longest random line played to reach a position.
MAX_PLIES = 80


@functools.cache
def random_positions(game: str) -> tuple[Position, ...]:
    """POSITIONS positions of `game`, each after a random number of random moves."""
    rules, rng = find_game(game), random.Random(game)
    positions = []
    for _ in range(POSITIONS):
        state = rules.initial_state({})
        for _ in range(rng.randrange(MAX_PLIES)):
            legal = sorted_tokens(rules, state)
            if not legal:
                break
            state = state.play(rules.parse_move(state, rng.choice(legal)))
        positions.append(state)
    return tuple(positions)


def rows_of(game: str, state: Position) -> list[str]:
    return find_game(game).format_board(state).split()[0].split("/")


def pieces(game: str, state: Position) -> dict[str, int]:
    """Each cell of the position's view, by name, and the index of the player whose piece
    is on it (-1: none)."""
    rules = find_game(game)
    view = turn_format(game).BOARD_STYLE.view(rows_of(game, state), rules.player_names)
    return {name: piece for name, _, _, piece, _ in view["cells"]}


@pytest.mark.parametrize("game", GAMES)
def test_a_view_has_a_cell_for_each_character_of_the_board_text(game: str) -> None:
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    names = rules.player_names
    for state in random_positions(game):
        rows = rows_of(game, state)
        view = style.view(rows, names)
        characters = [(x, y, char) for y, row in enumerate(rows) for x, char in enumerate(row)]
        assert len(view["cells"]) == len(characters)
        for (x, y, char), (name, _, _, piece, blocked) in zip(characters, view["cells"]):
            if isinstance(style, HexBoard):
                assert name == f"{x},{y}"
                assert not blocked
            else:
                rank = y + 1 if style.row1_top else len(rows) - y
                assert name == f"{'abcdefghijklmnopqrstuvwxyz'[x]}{rank}"
                assert blocked == (char == style.blocked)
            assert piece == (names.index(char) if char in names else -1), (name, char)


@pytest.mark.parametrize("game", GAMES)
def test_every_legal_move_has_click_paths_no_other_move_begins_with(game: str) -> None:
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    for state in random_positions(game):
        cells = set(pieces(game, state))
        clicked: dict[tuple[str, ...], str] = {}
        for move in sorted_tokens(rules, state):
            paths = style.click_paths(move)
            assert paths, move
            for path in paths:
                assert set(path) <= cells, (move, path)
                assert clicked.setdefault(tuple(path), move) == move, f"{move} and {clicked[tuple(path)]} share {path}"
        for path, move in clicked.items():
            for length in range(len(path)):
                other = clicked.get(path[:length], move)
                assert other == move, f"{other}'s path {list(path[:length])} begins {move}'s {list(path)}"


@pytest.mark.parametrize("game", GAMES)
def test_a_click_path_starts_on_a_piece_the_rules_move_and_ends_where_it_goes(game: str) -> None:
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    for state in random_positions(game):
        mover = state.to_move
        before = pieces(game, state)
        for move in sorted_tokens(rules, state):
            after = pieces(game, state.play(rules.parse_move(state, move)))
            for path in style.click_paths(move):
                if not path:
                    continue  # a pass: nothing to click
                assert all(before[cell] == mover for cell in path[:-1]), (move, path)
                assert after[path[-1]] == mover, (move, path)


def test_a_hexagonal_click_path_moves_its_first_marble_one_cell_as_the_move_does() -> None:
    rules, style = find_game("abalone"), turn_format("abalone").BOARD_STYLE
    for state in random_positions("abalone"):
        view = style.view(rows_of("abalone", state), rules.player_names)
        centres = {name: (x, y) for name, x, y, _, _ in view["cells"]}
        for move in sorted_tokens(rules, state):
            steps = set()
            for path in style.click_paths(move):
                # The last click is one cell from the first marble clicked, or, for a line
                # clicked rear, front, then the cell ahead, from the second.
                (x2, y2) = centres[path[-1]]
                (x1, y1) = next((centres[cell] for cell in path[:-1][:2]
                                 if math.isclose(math.hypot(x2 - centres[cell][0], y2 - centres[cell][1]), 1)),
                                centres[path[0]])
                assert math.isclose(math.hypot(x2 - x1, y2 - y1), 1), (move, path)
                steps.add((round(x2 - x1, 6), round(y2 - y1, 6)))
            assert len(steps) == 1, f"the marbles of {move} would move apart: {steps}"


@pytest.mark.parametrize("game", GAMES)
def test_an_arrow_goes_from_a_piece_that_moves_to_where_the_mover_lands(game: str) -> None:
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    for state in random_positions(game):
        mover, before = state.to_move, pieces(game, state)
        for move in sorted_tokens(rules, state):
            arrow = style.arrow(move)
            if not arrow:
                assert not any(style.click_paths(move)), move  # a pass
                continue
            start, end = arrow
            assert start == end or before[start] == mover, (move, arrow)
            assert pieces(game, state.play(rules.parse_move(state, move)))[end] == mover, (move, arrow)


def test_a_hexagonal_arrow_spans_a_line_that_moves_along_itself() -> None:
    rules, style = find_game("abalone"), turn_format("abalone").BOARD_STYLE
    for state in random_positions("abalone"):
        view = style.view(rows_of("abalone", state), rules.player_names)
        centres = {name: (x, y) for name, x, y, _, _ in view["cells"]}
        inline = 0
        for move in sorted_tokens(rules, state):
            path = style.click_paths(move)[0]
            step = [b - a for a, b in zip(centres[path[0]], centres[path[-1]])]
            ends = [centres[cell] for cell in path[:-1]]
            line = [b - a for a, b in zip(ends[0], ends[-1])]
            along = math.hypot(*line) > 0 and math.isclose(line[0] * step[1] - line[1] * step[0], 0, abs_tol=1e-9)
            start, end = (centres[cell] for cell in style.arrow(move))
            arrow = [b - a for a, b in zip(start, end)]
            length = math.hypot(*line) + 1 if along else 1
            inline += along
            assert math.isclose(math.hypot(*arrow), length), (move, arrow, length)
            assert math.isclose(arrow[0] * step[0] + arrow[1] * step[1], length), (move, arrow, step)
        assert inline, "some move of a line along itself"


@pytest.mark.parametrize("game", GAMES)
def test_the_coordinates_stand_next_to_the_cells_they_name(game: str) -> None:
    """Every label lies inside the drawing, within a cell's width of the cells it names:
    a square board's files just under its bottom rank and its ranks just left of its
    first file; on the hexagonal board both coordinates of a cell's name x,y, each line's
    `y` at its left end and each `x` one step beyond both ends of the cells that share
    it."""
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    view = style.view(rows_of(game, rules.initial_state({})), rules.player_names)
    cells = view["cells"]
    for text, x, y in view["labels"]:
        assert 0 < x < view["width"] and 0 < y < view["height"], (text, x, y)
    if view["shape"] == "square":
        bottom, left = max(cell[2] for cell in cells), min(cell[1] for cell in cells)
        for text, x, y in view["labels"]:
            if text.isdigit():  # a rank: beside its row, just left of the first file
                assert any(cell[2] == y for cell in cells) and 0 < left - x <= 0.75, (text, x, y)
            else:  # a file: under its file, just under the bottom rank
                assert any(cell[1] == x and cell[0][0] == text for cell in cells), (text, x, y)
                assert 0 < y - bottom <= 0.75, (text, x, y)
        return
    labels = {}
    for text, x, y in view["labels"]:
        labels.setdefault(text, []).append((x, y))
    for name, x, y, _, _ in cells:
        column, row = name.split(",")
        (lx, ly), = labels[f"y{row}"]
        assert ly == y and 0 < x - lx and (column != "0" or x - lx <= 1), name  # at its line's left end
        ends = labels[f"x{column}"]
        assert len(ends) == 2
        sharing = [(cx, cy) for cell_name, cx, cy, _, _ in cells if cell_name.split(",")[0] == column]
        for lx, ly in ends:  # one step from an end of the cells that share x
            assert min(math.dist((lx, ly), centre) for centre in sharing) == pytest.approx(1), (name, lx, ly)
