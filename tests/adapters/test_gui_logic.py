"""The web GUI's pure logic (adapters/gui/static/logic.js) run by node, outside a browser
(tests/data/gui_logic_check.js), on the legal moves and click paths of each game's start
position as the server sends them (adapters/view/board.py).

What it proves:
- clicking a move's path cell by cell plays exactly that move, each click before the
  last keeping the cells clicked so far and offering the cells that lead on to a move;
- a cell that no path starts with is refused, with nothing selected, and so is one that
  leads nowhere from a selection; a click that leads nowhere from the selection but
  starts another move begins that one instead;
- Undo and Redo in play go to the plies at which the human is to move; scores read as
  pawns with a sign or as a win or loss in so many moves; the expected share of the
  points comes from the win / draw / loss chances, else the score; editing a board
  cycles one cell's piece and sets the side to move, the rest of the board text kept;
- what a move changes on the board, for the board to animate (moveChanges): each game's
  typical move on small boards drawn by hand, and every ply of a game of each, forwards
  and backwards, the changes found making the board after it; nothing between boards
  of other sizes or the same board.

The tests skip, saying so, where node is not installed.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess

import pytest

from adapters.codingame import turn_format
from adapters.codingame.common import sorted_tokens
from adapters.view.board import HexBoard, SquareBoard
from games import find_game
from tests.conftest import DATA, ROOT, random_game
from search.multiplayer import WIN_VALUE

GAMES = ("clobber", "othello", "loa", "isolation", "abalone")
LOGIC = ROOT / "adapters" / "gui" / "static" / "logic.js"


def run_logic(data: dict) -> dict:
    """What gui_logic_check.js prints for `data` (see its header)."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the GUI's logic.js was not run")
    result = subprocess.run([node, str(DATA / "gui_logic_check.js"), str(LOGIC)], input=json.dumps(data),
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def check_calls(cases: list[tuple[str, list, object]]) -> None:
    """Each of Logic's functions, called with its arguments, gives the result expected."""
    results = run_logic({"calls": [[name, arguments] for name, arguments, _ in cases]})["calls"]
    wrong = [(name, arguments, result, expected)
             for (name, arguments, expected), result in zip(cases, results, strict=True) if result != expected]
    assert not wrong, "\n".join(f"{name}{arguments} gave {result!r}, not {expected!r}"
                                 for name, arguments, result, expected in wrong)


def start_legal(game: str) -> list[dict]:
    """The start position's legal moves and their click paths, as the `position` message has them."""
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    state = rules.initial_state({})
    return [{"move": move, "paths": style.click_paths(move)} for move in sorted_tokens(rules, state)]


def start_cells(game: str) -> list[str]:
    """The names of the start position's cells, as its view has them."""
    rules = find_game(game)
    rows = rules.format_board(rules.initial_state({})).split()[0].split("/")
    return [cell[0] for cell in turn_format(game).BOARD_STYLE.view(rows, rules.player_names)["cells"]]


def leading_on(legal: list[dict], selection: list[str]) -> list[str]:
    """The cells that extend `selection` towards a move, sorted."""
    return sorted({path[len(selection)] for entry in legal for path in entry["paths"]
                   if len(path) > len(selection) and path[:len(selection)] == selection})


REFUSED = {"move": None, "refused": True, "selection": [], "targets": []}


@pytest.mark.parametrize("game", GAMES)
def test_clicking_a_moves_path_plays_exactly_that_move(game: str) -> None:
    legal = start_legal(game)
    sequences = [(entry["move"], path) for entry in legal for path in entry["paths"]]
    assert all(path for _, path in sequences)
    outcomes = run_logic({"legal": {game: legal},
                          "clicks": [{"legal": game, "cells": path} for _, path in sequences]})["clicks"]
    for (move, path), clicked in zip(sequences, outcomes, strict=True):
        for k, outcome in enumerate(clicked[:-1]):
            selection = path[:k + 1]
            assert outcome == {"move": None, "selection": selection, "targets": leading_on(legal, selection)}, move
        assert clicked[-1] == {"move": move, "selection": [], "targets": []}


@pytest.mark.parametrize("game", GAMES)
def test_a_cell_no_path_starts_with_is_refused(game: str) -> None:
    legal = start_legal(game)
    starts = leading_on(legal, [])
    others = [cell for cell in start_cells(game) if cell not in starts]
    first = legal[0]["paths"][0]
    sequences = [[cell] for cell in others]
    if len(first) > 1:  # a selection, then a click that leads nowhere from it
        sequences.append([first[0], next(cell for cell in others if cell not in leading_on(legal, first[:1]))])
    result = run_logic({"legal": {game: legal}, "clicks": [{"legal": game, "cells": cells} for cells in sequences],
                        "calls": [["targets", [legal, []]]]})
    assert result["calls"] == [starts]
    assert others
    for cells, clicked in zip(sequences, result["clicks"], strict=True):
        assert clicked[-1] == REFUSED, cells


@pytest.mark.parametrize("game", ["clobber", "loa", "abalone"])
def test_a_click_that_leads_nowhere_from_the_selection_starts_another_move(game: str) -> None:
    legal = start_legal(game)
    first = legal[0]["paths"][0][0]
    other = next(cell for cell in leading_on(legal, []) if cell not in leading_on(legal, [first]) + [first])
    clicked = run_logic({"legal": {game: legal}, "clicks": [{"legal": game, "cells": [first, other]}]})["clicks"][0]
    assert clicked[-1] == {"move": None, "selection": [other], "targets": leading_on(legal, [other])}


def test_undo_and_redo_go_to_the_plies_at_which_the_human_is_to_move() -> None:
    two = {str(ply): ply % 2 for ply in range(5)}  # the player to move after each ply
    three = {str(ply): ply % 3 for ply in range(7)}
    known_to_ply_1 = {"0": 0, "1": 1}
    check_calls([
        ("undoPly", [two, 4, 0], 2), ("undoPly", [two, 3, 0], 2), ("undoPly", [two, 2, 0], 0),
        ("undoPly", [two, 1, 0], 0), ("undoPly", [two, 0, 0], 0), ("undoPly", [two, 4, 1], 3),
        ("redoPly", [two, 0, 4, 0], 2), ("redoPly", [two, 2, 4, 0], 4), ("redoPly", [two, 3, 4, 0], 4),
        ("redoPly", [two, 0, 4, 1], 1), ("redoPly", [two, 4, 4, 0], 4),
        ("undoPly", [three, 6, 0], 3), ("undoPly", [three, 6, 2], 5),
        ("redoPly", [three, 0, 6, 0], 3), ("redoPly", [three, 3, 6, 1], 4),
        # Where who is to move is not known, one ply at a time.
        ("undoPly", [known_to_ply_1, 4, 0], 3), ("redoPly", [known_to_ply_1, 1, 5, 0], 2),
    ])


def test_scores_read_as_pawns_or_as_a_win_or_loss_in_so_many_moves() -> None:
    def score(cp=None, mate=None, margin=None) -> list[dict]:
        return [{"cp": cp, "mate": mate, "margin": margin}]

    check_calls([
        ("scoreText", score(cp=125), "+1.25"), ("scoreText", score(cp=-40), "-0.40"),
        ("scoreText", score(cp=0), "0.00"), ("scoreText", score(mate=3), "win in 3"),
        ("scoreText", score(mate=-2), "loss in 2"), ("scoreText", score(mate=1, margin=6), "win in 1 (+6)"),
        ("scoreText", score(mate=-4, margin=-2), "loss in 4 (-2)"), ("scoreText", score(), ""),
    ])


def test_every_score_reads_one_way_and_a_game_of_three_in_places() -> None:
    """The whole-game analysis's scores ("cp -136", "mate 3") read as the live analysis's
    do; in a game of three, a proven ranking (search.multiplayer.WIN_VALUE a rank, from
    half of it) reads as a place, and the chances as places, not win / draw / loss."""
    value = WIN_VALUE
    check_calls([
        ("reportedScoreText", ["cp -136"], "-1.36"), ("reportedScoreText", ["cp 5787"], "+57.87"),
        ("reportedScoreText", ["mate 3"], "win in 3"), ("reportedScoreText", ["mate -2"], "loss in 2"),
        ("reportedScoreText", [f"cp {-2 * value + 7}", 3], "proven 3rd"),
        ("reportedScoreText", [f"cp {-value + 3}", 3], "proven 2nd"),
        ("reportedScoreText", [f"cp {value - 9}", 3], "proven 1st"),
        ("reportedScoreText", [f"cp {value // 2 - 1}", 3], f"+{(value // 2 - 1) / 100:.2f}"),
        ("reportedScoreText", [f"cp {-2 * value}", 2], f"{-2 * value / 100:.2f}"),
        ("scoreText", [{"cp": -value, "mate": None}, 3], "proven 2nd"),
        ("chancesHeading", [3], "1st / 2nd / 3rd"), ("chancesHeading", [2], "win / draw / loss"),
    ])


def test_the_share_of_the_points_comes_from_the_chances_else_the_score() -> None:
    def info(wdl=None, cp=None, mate=None) -> dict:
        return {"wdl": wdl, "cp": cp, "mate": mate}

    cases = [(info(wdl=[500, 200, 300], cp=-300), 0.6), (info(mate=2), 1), (info(mate=-1), 0),
             (info(cp=0), 0.5), (info(cp=600), 0.5 + 0.5 * math.tanh(1)), (info(), 0.5)]
    shares = run_logic({"calls": [["share", [given]] for given, _ in cases]})["calls"]
    for (given, expected), share in zip(cases, shares, strict=True):
        assert math.isclose(share, expected), (given, share)


def test_editing_cycles_one_cells_piece_and_sets_the_side_keeping_the_rest() -> None:
    square = "wb./..w w"
    hexagonal = "00000/000000 2 score1=1 score2=0 turn=4"
    check_calls([
        ("cycleCell", [square, 2, ".wb"], "wbw/..w w"), ("cycleCell", [square, 1, ".wb"], "w../..w w"),
        ("cycleCell", [square, 0, ".wb"], "bb./..w w"), ("cycleCell", [square, 3, ".wb"], "wb./w.w w"),
        ("cycleCell", [square, 6, ".wb"], square),
        ("cycleCell", [hexagonal, 6, "021"], "00000/020000 2 score1=1 score2=0 turn=4"),
        ("cycleCell", [hexagonal, 4, "021"], "00002/000000 2 score1=1 score2=0 turn=4"),
        ("withSide", [square, "b"], "wb./..w b"),
        ("withSide", [hexagonal, "1"], "00000/000000 1 score1=1 score2=0 turn=4"),
    ])


def test_the_counts_and_fields_read_in_words() -> None:
    """The status line says what the board text's fields mean: each player's pieces on
    the board (none where each has at most one), the players out, the turn or ply."""
    view = {"pieces": "discs", "cells": [["a1", 0, 0, 0, False], ["a2", 0, 1, 1, False], ["a3", 0, 2, 0, False],
                                          ["a4", 0, 3, -1, False]]}
    knights = {"pieces": "knights", "cells": [["a1", 0, 0, 0, False], ["b1", 1, 0, 2, False]]}
    check_calls([
        ("material", [view, ["black", "white"]], "discs: black 2, white 1"),
        ("material", [knights, ["red", "green", "blue"]], ""),
        ("fieldWords", ["alive=rb", ["red", "green", "blue"], ["r", "g", "b"]], "out: green"),
        # The players out in the order they went out, the field itself not shown.
        ("fieldWords", ["alive=g out=br", ["red", "green", "blue"], ["r", "g", "b"]], "out: blue, then red"),
        ("fieldWords", ["alive=rb out=g", ["red", "green", "blue"], ["r", "g", "b"]], "out: green"),
        ("inGame", ["alive=rb out=g", ["r", "g", "b"]], [True, False, True]),
        ("inGame", ["", ["w", "b"]], [True, True]),
        ("fieldWords", ["alive=rgb", ["red", "green", "blue"], ["r", "g", "b"]], ""),
        ("fieldWords", ["score1=1 score2=0 turn=12", ["white", "black"], ["w", "b"]], "turn 12"),
        ("fieldWords", ["ply=30", ["black", "white"], ["b", "w"]], "ply 30"),
        ("fieldWords", ["", ["black", "white"], ["b", "w"]], ""),
        ("fieldWords", ["odd=1", ["black", "white"], ["b", "w"]], "odd=1"),
    ])


def test_a_score_turned_round_is_the_other_sides() -> None:
    check_calls([
        ("otherSide", [{"cp": 125, "mate": None, "margin": None, "wdl": [600, 100, 300]}],
         {"cp": -125, "mate": None, "margin": None, "wdl": [300, 100, 600]}),
        ("otherSide", [{"cp": None, "mate": 3, "margin": 6, "wdl": None}],
         {"cp": None, "mate": -3, "margin": -6, "wdl": None}),
    ])


def test_abalone_lines_are_clicked_in_either_order_and_no_two_moves_share_a_click_path() -> None:
    """A line moving along itself is clicked rear, front, then the empty cell ahead of
    the front, as a player does, as well as front, rear, that cell; across the legal
    moves of many positions no two moves share a path, so a click never guesses."""
    rules, style = find_game("abalone"), turn_format("abalone").BOARD_STYLE
    for seed in range(12):
        position = rules.initial_state({})
        for token in random_game("abalone", 40, seed=seed):
            owner: dict[tuple[str, ...], str] = {}
            for move in sorted_tokens(rules, position):
                for path in style.click_paths(move):
                    assert owner.setdefault(tuple(path), move) == move, (path, move, owner[tuple(path)])
                inline = style._inline(style._move(move))
                if inline is not None:
                    rear, front = ("{},{}".format(*cell) for cell in inline)
                    ahead = style.arrow(move)[1]
                    assert [rear, front, ahead] in style.click_paths(move)
                    assert [front, rear, ahead] in style.click_paths(move)
            position = position.play(rules.parse_move(position, token))


def test_abalone_moves_read_as_their_ends_and_an_arrow() -> None:
    check_calls([
        ("moveText", ["2,3,3,5,4", "hex"], "2,3\u20133,5 \u2199"), ("moveText", ["4,7,4,7,2", "hex"], "4,7 \u2196"),
        ("moveText", ["0,8,2,8,0", "hex"], "0,8\u20132,8 \u2192"), ("moveText", ["e2e3", "square"], "e2e3"),
        ("moveText", ["leave", "hex"], "leave"),
    ])


def test_every_score_on_a_screen_reads_from_the_first_sides_view() -> None:
    """In a game of two, a score the engine gives for the second side (the side to move,
    or the player of a move analysed) is turned round, as lichess gives White's view
    everywhere; in a game of three it stays the side to move's, the one side it scores."""
    line = {"cp": -162, "mate": None, "margin": None, "wdl": [300, 100, 600]}
    turned = {"cp": 162, "mate": None, "margin": None, "wdl": [600, 100, 300]}
    check_calls([
        ("shownScore", [line, 1, 2], turned), ("shownScore", [line, 0, 2], line),
        ("shownScore", [line, 1, 3], line), ("shownScore", [line, 2, 3], line),
        ("scoreSide", [1, 2], 0), ("scoreSide", [2, 3], 2),
        ("reportedScoreText", ["cp -136", 2, 1], "+1.36"), ("reportedScoreText", ["cp -136", 2, 0], "-1.36"),
        ("reportedScoreText", ["mate 3", 2, 1], "loss in 3"), ("reportedScoreText", ["cp -136", 3, 1], "-1.36"),
    ])


def test_the_eval_bar_gives_every_player_a_share_in_a_fixed_order() -> None:
    """Two players: the first side's expected share of the points and the second's,
    whoever is to move. Three: each player's chance of finishing first, the engine's for
    the side to move, none for a player out, the rest shared by the others still in."""
    def info(wdl=None, cp=None, mate=None) -> dict:
        return {"wdl": wdl, "cp": cp, "mate": mate, "margin": None}

    cases = [(["barShares", [info(wdl=[600, 200, 200]), 0, [True, True]]], [0.7, 0.3]),
             (["barShares", [info(wdl=[600, 200, 200]), 1, [True, True]]], [0.3, 0.7]),
             (["barShares", [info(mate=2), 1, [True, True]]], [0, 1]),
             (["barShares", [info(wdl=[400, 300, 300]), 1, [True, True, True]]], [0.3, 0.4, 0.3]),
             (["barShares", [info(wdl=[400, 600, 0]), 0, [True, False, True]]], [0.4, 0, 0.6]),
             (["barShares", [info(wdl=[0, 1000, 0]), 2, [False, True, True]]], [0, 1, 0])]
    shares = run_logic({"calls": [call for call, _ in cases]})["calls"]
    for (call, expected), got in zip(cases, shares, strict=True):
        assert all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(got, expected, strict=True)), (call, got)


def test_words_count_and_a_refused_click_says_why() -> None:
    """Counts agree with their number; a refused click on the hexagonal board after a
    selection says in what order a line is clicked."""
    check_calls([
        ("counted", [1, "ply", "plies"], "1 ply"), ("counted", [0, "ply", "plies"], "0 plies"),
        ("counted", [42, "ply", "plies"], "42 plies"),
        ("refusalText", ["c3", [], "square"], "c3 is not a legal move here"),
        ("refusalText", ["c3", ["b2"], "square"], "c3 is not a legal move here"),
        ("refusalText", ["0,6", [], "hex"], "0,6 is not a legal move here"),
        ("refusalText", ["0,6", ["1,6"], "hex"],
         "0,6 is not a legal move here: after 1,6, click the cell it moves to, or the other end of its line"),
        ("refusalText", ["0,6", ["2,5", "1,5"], "hex"],
         "0,6 is not a legal move here: after the ends of a line, click the cell that the first marble clicked,"
         " 2,5, moves to (the cell ahead of the front marble for a line moving along itself)"),
    ])


# ---- what a move changes on the board (Logic.moveChanges), for the board to animate ----

#: Small boards drawn as the games draw theirs: square ones with three players' pieces
#: (b, w, r) and blocked squares (x), hexagonal ones of side 3 (rows of 3, 4, 5, 4, 3).
SQUARE = SquareBoard(colours=(("#111", "#000"), ("#eee", "#999"), ("#c00", "#800")), blocked="x", lettered=True)
HEX = HexBoard(colours=(("#111", "#000"), ("#eee", "#999")), side=3)


def square(*rows: str) -> dict:
    """The view of a small square board, its top row first (a2 b2 / a1 b1 for two rows)."""
    return SQUARE.view(list(rows), ["b", "w", "r"])


def hexagon(*rows: str) -> dict:
    """The view of a hexagonal board of side 3 (0: a black marble, 1: a white one)."""
    return HEX.view(list(rows), ["0", "1"])


def changes(moved=(), flipped=(), appeared=(), removed=(), blocked=()) -> dict:
    """What moveChanges gives, written short: moved (from, to, piece), flipped (cell,
    from, to), appeared (cell, piece), removed (cell, piece, dx, dy)."""
    return {"moved": [{"from": a, "to": b, "piece": p} for a, b, p in moved],
            "flipped": [{"cell": c, "from": a, "to": b} for c, a, b in flipped],
            "appeared": [{"cell": c, "piece": p} for c, p in appeared],
            "removed": [{"cell": c, "piece": p, "dx": dx, "dy": dy} for c, p, dx, dy in removed],
            "blocked": list(blocked)}


#: A step down and right on the hexagonal board, in cells.
SOUTH_EAST = (0.5, math.sqrt(3) / 2)


def test_each_games_typical_move_is_found_for_the_board_to_animate() -> None:
    """A move's pieces moved, flipped, placed, taken and pushed off, as each game makes
    them: Clobber's capture, Othello's placed disc and the discs it turns, Lines of
    Action's move and capture, Knight Isolation's knight and the square it leaves
    blocked, Abalone's lines moving sideways, along themselves, pushing and pushing off
    the board, every marble one step. A move taken back runs backwards."""
    check_calls([
        # Clobber: b2's white stone is taken by a2's black one.
        ("moveChanges", [square("bw", ".."), square(".b", "..")],
         changes(moved=[("a2", "b2", 0)], removed=[("b2", 1, 0, 0)])),
        # ... and taken back: the stone goes back, the one taken comes back.
        ("moveChanges", [square(".b", ".."), square("bw", "..")],
         changes(moved=[("b2", "a2", 0)], appeared=[("b2", 1)])),
        # Othello: black placed on a3 turns b3.
        ("moveChanges", [square("....", ".wb.", ".bw.", "...."), square("....", "bbb.", ".bw.", "....")],
         changes(flipped=[("b3", 1, 0)], appeared=[("a3", 0)])),
        ("moveChanges", [square("....", "bbb.", ".bw.", "...."), square("....", ".wb.", ".bw.", "....")],
         changes(flipped=[("b3", 0, 1)], removed=[("a3", 0, 0, 0)])),
        # Lines of Action: a move, then a capture.
        ("moveChanges", [square("b..w", "....", "....", "w..b"), square("...w", "....", "..b.", "w..b")],
         changes(moved=[("a4", "c2", 0)])),
        ("moveChanges", [square("...w", "....", "..b.", "w..b"), square("....", "....", "..w.", "w..b")],
         changes(moved=[("d4", "c2", 1)], removed=[("c2", 0, 0, 0)])),
        # Knight Isolation, three players: red's knight leaves a3, blocked, for b1.
        ("moveChanges", [square("r..", "..g", "b.."), square("x..", "..g", "br.")],
         changes(moved=[("a3", "b1", 2)], blocked=["a3"])),
        # Abalone: two marbles sideways, down and right.
        ("moveChanges", [hexagon("...", "00..", ".....", "....", "..."),
                         hexagon("...", "....", ".00..", "....", "...")],
         changes(moved=[("0,1", "1,2", 0), ("1,1", "2,2", 0)])),
        # ... three along themselves, each one step (the move's two ends alone change).
        ("moveChanges", [hexagon("...", "....", "000..", "....", "..."),
                         hexagon("...", "....", ".000.", "....", "...")],
         changes(moved=[("0,2", "1,2", 0), ("1,2", "2,2", 0), ("2,2", "3,2", 0)])),
        # ... three pushing one.
        ("moveChanges", [hexagon("...", "....", "0001.", "....", "..."),
                         hexagon("...", "....", ".0001", "....", "...")],
         changes(moved=[("0,2", "1,2", 0), ("1,2", "2,2", 0), ("2,2", "3,2", 0), ("3,2", "4,2", 1)])),
        # ... three pushing two, the last off the board: it leaves by the step.
        ("moveChanges", [hexagon("...", "....", "00011", "....", "..."),
                         hexagon("...", "....", ".0001", "....", "...")],
         changes(moved=[("0,2", "1,2", 0), ("1,2", "2,2", 0), ("2,2", "3,2", 0), ("3,2", "4,2", 1)],
                 removed=[("4,2", 1, 1, 0)])),
        # A piece that went further than one step in no line of its own pieces: one move.
        ("moveChanges", [hexagon("0..", "....", ".....", "....", "..."),
                         hexagon("...", "....", ".....", "....", "0..")],
         changes(moved=[("0,0", "0,4", 0)])),
    ])
    # Abalone: two pushing one off the board down and right, each one step that way.
    before = hexagon("...", "....", ".0...", ".0..", ".1.")
    after = hexagon("...", "....", ".....", ".0..", ".0.")
    got = run_logic({"calls": [["moveChanges", [before, after]]]})["calls"][0]
    assert got["moved"] == [{"from": "1,2", "to": "1,3", "piece": 0}, {"from": "1,3", "to": "1,4", "piece": 0}]
    (gone,) = got["removed"]
    assert (gone["cell"], gone["piece"]) == ("1,4", 1)
    assert math.isclose(gone["dx"], SOUTH_EAST[0]) and math.isclose(gone["dy"], SOUTH_EAST[1])


def test_no_animation_between_boards_of_other_sizes_or_the_same_board() -> None:
    """moveChanges gives null for views of other boards (another size, another shape,
    other cells) and where nothing on the board changed."""
    board = square("bw", "..")
    check_calls([
        ("moveChanges", [board, square("bw.", "...")], None),
        ("moveChanges", [board, square("bw", "..", "..")], None),
        ("moveChanges", [board, hexagon("...", "....", ".....", "....", "...")], None),
        ("moveChanges", [board, {**board, "cells": [["z9", *cell[1:]] for cell in board["cells"]]}], None),
        ("moveChanges", [board, board], None),
        ("moveChanges", [None, board], None),
    ])


def board_after(before: dict, found: dict) -> tuple[dict, set]:
    """The pieces (cell: player) and the blocked cells of `before` with the changes
    `found` made: every piece moved or removed lifted, then each put down where it went,
    each flipped turned, each appeared placed."""
    pieces = {cell[0]: cell[3] for cell in before["cells"] if cell[3] >= 0}
    for move in found["moved"]:
        assert pieces.pop(move["from"]) == move["piece"]
    for gone in found["removed"]:
        assert pieces.pop(gone["cell"]) == gone["piece"]
    for move in found["moved"]:
        assert move["to"] not in pieces
        pieces[move["to"]] = move["piece"]
    for flip in found["flipped"]:
        assert pieces[flip["cell"]] == flip["from"] != flip["to"]
        pieces[flip["cell"]] = flip["to"]
    for piece in found["appeared"]:
        assert piece["cell"] not in pieces
        pieces[piece["cell"]] = piece["piece"]
    return pieces, {cell[0] for cell in before["cells"] if cell[4]} | set(found["blocked"])


@pytest.mark.parametrize("game", GAMES)
def test_the_changes_of_every_ply_of_a_game_make_the_board_after_it(game: str) -> None:
    """Along a game of each (up to 200 plies), forwards and backwards, the changes found
    make the board after the ply from the one before it; a ply moves one piece (Abalone:
    up to five marbles, each one step the same way; Clobber and Lines of Action may take
    one; Othello places one and turns some)."""
    rules, style = find_game(game), turn_format(game).BOARD_STYLE
    position, views = rules.initial_state({}), []
    moves = random_game(game, 200, seed=11)
    for move in [None, *moves]:
        if move is not None:
            position = position.play(rules.parse_move(position, move))
        views.append(style.view(rules.format_board(position).split()[0].split("/"), rules.player_names))
    pairs = [(a, b) for a, b in zip(views, views[1:])] + [(b, a) for a, b in zip(views, views[1:])]
    found = run_logic({"calls": [["moveChanges", [a, b]] for a, b in pairs]})["calls"]
    for k, ((before, after), changed) in enumerate(zip(pairs, found, strict=True)):
        assert changed is not None
        pieces, blocked = board_after(before, changed)
        assert pieces == {cell[0]: cell[3] for cell in after["cells"] if cell[3] >= 0}
        forward = k < len(moves)
        if game == "abalone":
            steps = {(round(after_cell(after, m["to"])[0] - after_cell(after, m["from"])[0], 6),
                      round(after_cell(after, m["to"])[1] - after_cell(after, m["from"])[1], 6))
                     for m in changed["moved"]}
            assert len(steps) == 1 and math.isclose(math.hypot(*steps.pop()), 1, abs_tol=1e-5), changed
            assert not changed["flipped"] and not changed["appeared"] and not changed["blocked"]
        elif game == "othello":
            assert not changed["moved"] and changed["flipped"]
            assert len(changed["appeared"]) + len(changed["removed"]) == 1
        else:
            assert len(changed["moved"]) == 1 and not changed["flipped"]
            assert len(changed["removed"]) + len(changed["appeared"]) <= 1
        if game == "isolation" and forward:
            assert blocked == {cell[0] for cell in after["cells"] if cell[4]}


def after_cell(view: dict, name: str) -> tuple[float, float]:
    """The centre of cell `name` of `view`, in cells."""
    return next((cell[1], cell[2]) for cell in view["cells"] if cell[0] == name)
