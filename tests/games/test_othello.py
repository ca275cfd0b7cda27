"""Othello: referee vectors, perft, the rule details of the CodinGame referee, the line
kernels against a plain reference, the kernels compiled against interpreted on unusual
boards, and the evaluation's invariants."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from games import find_game
from games.base import BadParameterError, BoardTextError, IllegalMoveError, NotationError, Position
from games.kernel import COMPILING, interpreted_namespace
from games.othello import bitboard, rules
from games.othello.evaluation import EDGE_STABILITY, WEIGHTS
from games.othello.rules import PASS
from search import new_searcher
from search.limits import StopSignal
from search.specialised import perft_leaves
from search.tt import TranspositionTable
from tests.conftest import StdioEngine, load_vectors, perft_records, run
from tests.games.test_kernels import check_position

GAME = find_game("othello")
RECORDS = load_vectors("othello")
POSITIONS = [record for record in RECORDS if not record["terminal"]]
FULL = (1 << 64) - 1
START = "......../......../......../...10.../...01.../......../......../........ 0"


def board(black: str = "", white: str = "", side: str = "0") -> str:
    """The board text with discs on the named squares (`"a1 d3"`), row 1 first."""
    cells = [["."] * 8 for _ in range(8)]
    for names, char in ((black, "0"), (white, "1")):
        for name in names.split():
            cells[int(name[1]) - 1][ord(name[0]) - ord("a")] = char
    return "/".join("".join(row) for row in cells) + " " + side


def state_of(text: str):
    return GAME.parse_board(text.split())


def position(black: int, white: int, to_move: int) -> Position:
    """The position of two bitboards (any discs, reachable or not)."""
    return Position(GAME, interpreted_namespace(rules).make_state(np.uint64(black), np.uint64(white), to_move))


def disc_counts(state) -> tuple[int, int]:
    black, white = GAME.discs(state)
    return black.bit_count(), white.bit_count()


def tokens(state) -> list[str]:
    return sorted(GAME.format_move(state, move) for move in state.legal_moves())


def discs(state) -> str:
    """The squares of each colour, as `board` takes them."""
    rows = GAME.format_board(state).split()[0].split("/")
    names = {"0": [], "1": []}
    for row_index, row in enumerate(rows):
        for file, cell in enumerate(row):
            if cell in names:
                names[cell].append("abcdefgh"[file] + str(row_index + 1))
    return " ".join(sorted(names["0"])) + " / " + " ".join(sorted(names["1"]))


# ---- referee vectors and perft ------------------------------------------------------


def test_every_referee_position_has_exactly_the_referee_moves() -> None:
    assert len(POSITIONS) == 1200
    for record in POSITIONS:
        state = state_of("/".join(record["board"]) + " " + record["to_move"])
        # The referee skips a player without a placement, so it never records a pass.
        assert record["legal"] and "pass" not in record["legal"]
        assert tokens(state) == record["legal"], (record["game_index"], record["turn"])
        assert sorted(record["legal_referee_order"]) == record["legal"]
        assert disc_counts(state) == (record["discs_0"], record["discs_1"])


def test_recorded_games_replay_with_their_passes_to_the_recorded_result() -> None:
    games: dict[int, list[dict]] = {}
    for record in RECORDS:
        games.setdefault(record["game_index"], []).append(record)
    assert len(games) == 20
    games_with_a_pass = 0
    for index, records in games.items():
        (final,) = [record for record in records if record["terminal"]]
        positions = iter(sorted((r for r in records if not r["terminal"]), key=lambda r: r["turn"]))
        state = GAME.initial_state({})
        if "pass" in final["game_moves"]:
            games_with_a_pass += 1
        for token in final["game_moves"]:
            if token == "pass":
                # The referee skips this turn; the engine plays it as the only legal move.
                assert tokens(state) == ["pass"], index
            else:
                record = next(positions)
                assert GAME.format_board(state) == "/".join(record["board"]) + " " + record["to_move"]
                assert record["move_played"] == token
            state = state.play(GAME.parse_move(state, token))
        assert next(positions, None) is None
        assert GAME.format_board(state).split()[0] == "/".join(final["board"])
        outcome = state.outcome()
        assert outcome is not None and state.legal_moves() == []
        black, white = final["discs_0"], final["discs_1"]
        assert disc_counts(state) == (black, white)
        expected = "draw" if black == white else "0" if black > white else "1"
        assert final["result"] == expected
        assert ("draw" if outcome.winner is None else GAME.player_names[outcome.winner]) == expected
        assert outcome.margin == (black - white, white - black)
        assert outcome.reason == f"discs {black}-{white}"
    assert games_with_a_pass == 6


@pytest.mark.parametrize("record", perft_records("othello"), ids=lambda r: f"depth{r['depth']}")
def test_perft(record: dict) -> None:
    assert perft_leaves(GAME.initial_state({}), record["depth"]) == record["nodes"]


# The published Othello perft counts go on from a finished game as if both sides
# passed: 24571284 at depth 10 and 212258800 at 11. Here a finished game has no move,
# which takes off the 228 games over after 9 plies and, at depth 11, the 356 over after
# 10 plies as well.
PUBLISHED_PERFT = {8: 390216, 9: 3005288, 10: 24571284 - 228, 11: 212258800 - 228 - 356}


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
@pytest.mark.parametrize("depth", [8, 9, 10])
def test_perft_deep(depth: int) -> None:
    assert perft_leaves(GAME.initial_state({}), depth, compiled=True) == PUBLISHED_PERFT[depth]


@pytest.mark.slow
@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_perft_depth_11() -> None:
    assert perft_leaves(GAME.initial_state({}), 11, compiled=True) == PUBLISHED_PERFT[11]


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_perft_from_referee_positions_compiled_and_interpreted() -> None:
    for record in random.Random(5).sample(POSITIONS, 40):
        state = state_of("/".join(record["board"]) + " " + record["to_move"])
        assert perft_leaves(state, 3, compiled=True) == perft_leaves(state, 3, compiled=False), record["game_index"]


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_perft_through_passes_and_finished_games() -> None:
    # Eight plies before the end of each recorded game with a pass, along its line: the
    # pass is among those plies, and perft follows the line to the end of the game.
    games = [record["game_moves"] for record in RECORDS if record["terminal"] and "pass" in record["game_moves"]]
    assert games
    for tokens in games:
        state = GAME.initial_state({})
        for token in tokens[:-8]:
            state = state.play(GAME.parse_move(state, token))
        assert perft_leaves(state, 8, compiled=True) == perft_leaves(state, 8, compiled=False)


# ---- the rules ----------------------------------------------------------------------


def test_start_position_colours_and_first_player() -> None:
    state = GAME.initial_state({})
    assert GAME.format_board(state) == START
    assert state.to_move == 0 and GAME.player_names == ("0", "1")
    assert discs(state) == "d5 e4 / d4 e5"
    assert tokens(state) == ["c4", "d3", "e6", "f5"]
    assert GAME.format_move(state, GAME.parse_move(state, "d3")) == "d3"
    assert GAME.parse_move(state, "d3") == 19


def test_a_placement_flips_every_bracketed_line_in_all_eight_directions() -> None:
    state = state_of(board(black="d2 d7 f4 a4 f2 b2 f6 b6",
                           white="d3 d5 d6 e4 c4 b4 e3 c3 e5 c5"))
    after = state.play(GAME.parse_move(state, "d4"))
    assert GAME.discs(after)[1] == 0
    assert discs(after) == ("a4 b2 b4 b6 c3 c4 c5 d2 d3 d4 d5 d6 d7 e3 e4 e5 f2 f4 f6 / ")
    assert after.to_move == 1 and after.outcome() is not None  # white has no disc left


def test_only_bracketed_lines_flip() -> None:
    # East: a run ending on an own disc flips; north: a run reaching the edge does not;
    # south: a run ending on an empty square does not; west: an own disc next to it.
    state = state_of(board(black="g4 c4", white="e4 f4 d3 d2 d1 d5 d6"))
    after = state.play(GAME.parse_move(state, "d4"))
    assert discs(after) == "c4 d4 e4 f4 g4 / d1 d2 d3 d5 d6"
    long_run = state_of(board(black="a1", white="b1 c1 d1 e1 f1 g1"))
    assert tokens(long_run) == ["h1"]
    assert discs(long_run.play(GAME.parse_move(long_run, "h1"))) == "a1 b1 c1 d1 e1 f1 g1 h1 / "


def test_lines_do_not_wrap_around_the_board_edges() -> None:
    # h1 then a2 are consecutive squares: white h1 is not between g1 and black a2.
    assert tokens(state_of(board(black="a2", white="h1"))) == []
    assert tokens(state_of(board(black="h2", white="a2 a3", side="0"))) == []
    assert tokens(state_of(board(black="a3", white="h1 h2"))) == []
    assert tokens(state_of(board(black="h5", white="a6 b6"))) == []


def test_a_side_without_a_placement_must_pass_and_only_then() -> None:
    state = state_of(board(black="b1", white="a1"))
    assert state.legal_moves() == [PASS] and tokens(state) == ["pass"]
    assert state.outcome() is None
    with pytest.raises(IllegalMoveError, match="'c1'"):
        GAME.parse_move(state, "c1")
    passed = state.play(GAME.parse_move(state, "pass"))
    assert GAME.discs(passed) == GAME.discs(state) and passed.to_move == 1
    assert passed == state_of(GAME.format_board(passed)) and passed.key != state.key
    assert tokens(passed) == ["c1"]
    with pytest.raises(IllegalMoveError, match="'pass'"):
        GAME.parse_move(passed, "pass")
    with pytest.raises(IllegalMoveError, match="'pass'"):
        GAME.parse_move(GAME.initial_state({}), "pass")


def test_a_side_without_discs_has_lost() -> None:
    state = state_of(board(black="b1", white="a1", side="1"))
    after = state.play(GAME.parse_move(state, "c1"))
    outcome = after.outcome()
    assert outcome is not None and after.legal_moves() == []
    assert outcome.winner == 1 and outcome.returns == (-1, 1)
    assert outcome.margin == (-3, 3) and outcome.reason == "discs 0-3"
    lone = state_of(board(black="c3 h8")).outcome()
    assert lone.winner == 0 and lone.margin == (2, -2)


def test_the_game_ends_when_neither_side_can_place_even_with_empty_squares() -> None:
    state = state_of(board(black="a1 b1", white="h8", side="1"))
    outcome = state.outcome()
    assert state.legal_moves() == [] and outcome is not None
    assert outcome.winner == 0 and outcome.returns == (1, -1) and outcome.margin == (1, -1)
    draw = state_of(board(black="a1", white="h8")).outcome()
    assert draw.winner is None and draw.returns == (0, 0) and draw.margin == (0, 0)
    assert draw.reason == "discs 1-1"


def test_a_full_board_ends_the_game_by_disc_count() -> None:
    rows = ["00000000"] * 4 + ["11111111"] * 4
    full = state_of("/".join(rows) + " 0")
    assert full.legal_moves() == []
    assert full.outcome().winner is None and full.outcome().margin == (0, 0)
    rows[4] = "01111111"
    won = state_of("/".join(rows) + " 1")
    assert won.outcome().winner == 0 and won.outcome().margin == (2, -2)
    assert won.outcome().reason == "discs 33-31"


def test_the_last_placement_can_end_the_game_with_empty_squares_left() -> None:
    # Black takes b1; white then has no disc, so the game is over with 61 empty squares.
    state = state_of(board(black="c1", white="b1"))
    assert tokens(state) == ["a1"]
    after = state.play(GAME.parse_move(state, "a1"))
    assert after.outcome().winner == 0 and after.outcome().margin == (3, -3)


def test_pass_keeps_the_search_going() -> None:
    state = state_of(board(black="b1", white="a1"))
    table = TranspositionTable("othello", GAME.rules.KEY_SCHEME, 1 << 20)
    stop = StopSignal()
    stop.arm(None, None, 3)
    final = list(new_searcher(GAME, table).search(state, stop))[-1]
    assert final.pv[0] == PASS and final.mate_in is not None and final.mate_in < 0


# ---- notation -----------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "......../......../......../...10.../...01.../......../........ 0",
    "......../......../......../...10.../...01.../......../......../......... 0",
    "......../......../......../...10.../...0w.../......../......../........ 0",
    "......../......../......../...bw.../...wb.../......../......../........ 0",
    "......../......../......../...10.../...01.../......../......../........ 2",
    "......../......../......../...10.../...01.../......../......../........ b",
    "......../......../......../...10.../...01.../......../......../........ 0 ply=3",
    "......../......../......../...10.../...01.../......../......../........ 0 0",
    "......../......../......../...10.../...01.../......../......../........",
])
def test_bad_board_texts(text: str) -> None:
    with pytest.raises(BoardTextError):
        GAME.parse_board(text.split())


def test_board_text_round_trip_and_row_one_on_top() -> None:
    state = state_of(board(black="a1 h8", white="h1", side="1"))
    assert GAME.format_board(state) == "0......1/......../......../......../......../......../......../.......0 1"
    assert state_of(GAME.format_board(state)) == state
    assert GAME.picture(state)[0] == "1 0 . . . . . . 1"
    assert GAME.picture(state)[-2:] == ["discs: 0 has 2, 1 has 1", "to move: 1"]


@pytest.mark.parametrize("token", ["D3", "d9", "i1", "d", "d33", "pass ", "PASS", "3d", ""])
def test_malformed_move_tokens(token: str) -> None:
    with pytest.raises(NotationError):
        GAME.parse_move(GAME.initial_state({}), token)


def test_well_formed_illegal_moves() -> None:
    state = GAME.initial_state({})
    for token in ("a1", "d4", "e5", "c3", "pass"):
        with pytest.raises(IllegalMoveError):
            GAME.parse_move(state, token)


def test_setgame_parameters_are_refused() -> None:
    with pytest.raises(BadParameterError, match="'size=10'"):
        GAME.initial_state({"size": "10"})


# ---- the line kernels against a plain reference -------------------------------------

_DIRECTIONS = ((1, 0), (0, 1), (1, 1), (-1, 1), (-1, 0), (0, -1), (-1, -1), (1, -1))


def reference_flips(own: int, opp: int, square: int) -> int:
    flipped = 0
    row, file = divmod(square, 8)
    for file_step, row_step in _DIRECTIONS:
        r, f, run = row + row_step, file + file_step, 0
        while 0 <= r < 8 and 0 <= f < 8 and opp >> (r * 8 + f) & 1:
            run |= 1 << (r * 8 + f)
            r, f = r + row_step, f + file_step
        if 0 <= r < 8 and 0 <= f < 8 and own >> (r * 8 + f) & 1:
            flipped |= run
    return flipped


def random_boards(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        occupied = rng.getrandbits(64) & rng.getrandbits(64) | rng.getrandbits(64) & rng.getrandbits(64)
        own = occupied & rng.getrandbits(64)
        yield own, occupied ^ own


#: `move_mask` and `flips` as the searches run them, and as the interpreter does (the
#: plain-Python twins of the compiled intrinsics).
FORMS = [pytest.param(bitboard, id="compiled", marks=pytest.mark.skipif(not COMPILING, reason="numba is not available")),
         pytest.param(interpreted_namespace(bitboard), id="interpreted")]


def check_lines(kernels, own: int, opp: int) -> None:
    """`move_mask` and `flips` on every empty square against `reference_flips`."""
    empty = FULL ^ (own | opp)
    expected = 0
    for square in range(64):
        if empty >> square & 1:
            flipped = reference_flips(own, opp, square)
            assert kernels.flips(np.uint64(own), np.uint64(opp), np.int64(square)) == flipped, square
            if flipped:
                expected |= 1 << square
    assert kernels.move_mask(np.uint64(own), np.uint64(opp)) == expected


@pytest.mark.parametrize("kernels", FORMS)
def test_move_mask_and_flips_match_a_square_by_square_reference(kernels) -> None:
    for own, opp in random_boards(1500, 1):
        check_lines(kernels, own, opp)


@st.composite
def boards(draw, density: int):
    """Black and white discs on random squares, about density / 4 of the board, and a
    side to move."""
    occupied = 0
    for _ in range(density):
        occupied |= draw(st.integers(0, FULL)) & draw(st.integers(0, FULL))
    colours = draw(st.integers(0, FULL))
    return occupied & colours, occupied & ~colours & FULL, draw(st.integers(0, 1))


@pytest.mark.parametrize("kernels", FORMS)
@settings(max_examples=300, deadline=None)
@given(boards(3))
def test_move_mask_and_flips_on_arbitrary_boards(kernels, discs: tuple[int, int, int]) -> None:
    check_lines(kernels, discs[0], discs[1])


# ---- every kernel compiled against interpreted, on boards no game reaches ------------


@pytest.mark.parametrize("text", [
    board(black="b1", white="a1"),                     # black must pass
    board(black="b1", white="a1", side="1"),           # white's placement ends the game
    board(black="a1 b1", white="h8", side="1"),        # over with empty squares left
    board(black="a1", white="h8"),                     # a draw
    board(black="h8 a8", white="g8 b8 h7 g7 a7 b7"),   # every corner of bit 63
    board(black="h1 a8", white="g2 f3 e4 d5 c6 b7"),   # a long diagonal run
    board(black="d2 d7 f4 a4 f2 b2 f6 b6", white="d3 d5 d6 e4 c4 b4 e3 c3 e5 c5"),
    "/".join(["00000000"] * 4 + ["11111111"] * 4) + " 0",
    "/".join(["00000000"] * 4 + ["01111111"] + ["11111111"] * 3) + " 1",
    "/".join(["0000000."] + ["00000000"] * 3 + ["11111111"] * 4) + " 1",
])
@pytest.mark.parametrize("side", ["0", "1"])
def test_edge_positions(text: str, side: str) -> None:
    check_position(GAME, GAME.parse_board([text.split()[0], side]))


def test_every_referee_position() -> None:
    for record in POSITIONS:
        check_position(GAME, state_of("/".join(record["board"]) + " " + record["to_move"]))


@settings(max_examples=300, deadline=None)
@given(st.one_of(boards(1), boards(3), boards(6)))
def test_arbitrary_boards(discs: tuple[int, int, int]) -> None:
    check_position(GAME, position(*discs))


def test_played_keys_and_moves_are_those_of_the_position_set_up_afresh() -> None:
    """`play` updates the key, the placements and the pass incrementally: after every
    move of random games they equal those `make_state` computes from the discs."""
    rng = random.Random(3)
    for _ in range(20):
        state = GAME.initial_state({})
        while state.legal_moves():
            state = state.play(rng.choice(state.legal_moves()))
            assert state == position(*GAME.discs(state), state.to_move)


# ---- the evaluation -----------------------------------------------------------------


def transforms(bitboard: int) -> list[int]:
    """The eight images of a bitboard under the symmetries of the square."""
    images = []
    for transpose in (False, True):
        for flip_rows in (False, True):
            for flip_files in (False, True):
                image = 0
                for square in range(64):
                    if bitboard >> square & 1:
                        row, file = divmod(square, 8)
                        if transpose:
                            row, file = file, row
                        if flip_rows:
                            row = 7 - row
                        if flip_files:
                            file = 7 - file
                        image |= 1 << (row * 8 + file)
                images.append(image)
    return images


def positions_of_random_games(count: int, seed: int):
    rng = random.Random(seed)
    for _ in range(count):
        state = GAME.initial_state({})
        for _ in range(rng.randrange(60)):
            moves = state.legal_moves()
            if not moves:
                break
            state = state.play(rng.choice(moves))
        yield state


def test_evaluation_is_zero_sum_colour_blind_and_symmetric() -> None:
    for state in positions_of_random_games(80, 2):
        (black, white), to_move = GAME.discs(state), state.to_move
        value = GAME.evaluate(state)
        assert value[0] == -value[1]
        assert GAME.evaluate(position(white, black, 1 - to_move)) == (value[1], value[0])
        for black_image, white_image in zip(transforms(black), transforms(white)):
            assert GAME.evaluate(position(black_image, white_image, to_move)) == value


def line(text: str) -> int:
    """The EDGE_STABILITY index of a line written as 8 cells of `0 1 .`."""
    black = sum(1 << cell for cell, char in enumerate(text) if char == "0")
    white = sum(1 << cell for cell, char in enumerate(text) if char == "1")
    return black << 8 | white


@pytest.mark.parametrize(("text", "stable"), [
    ("0000....", 3),   # joined to an owned corner
    ("0.......", 0),   # corners are not counted
    ("00000000", 6),
    ("10101010", 0),   # a full edge: everything stays, one each side of the corners
    ("1000....", 0),   # the white corner brackets them once e1 is white
    (".0000000", 6),   # white has no disc to bracket with
    ("0110....", -0),
    ("10011...", 0),
    ("01.....1", 0),
    ("0011....", 1),
])
def test_edge_stability_examples(text: str, stable: int) -> None:
    assert EDGE_STABILITY[line(text)] == stable
    reverse = line(text[::-1])
    assert EDGE_STABILITY[reverse] == stable
    swapped = line(text.translate(str.maketrans("01", "10")))
    assert EDGE_STABILITY[swapped] == -stable


def test_edge_stability_is_antisymmetric() -> None:
    # The evaluation scores the side to move as if it were black: that relies on a line
    # with the colours swapped scoring the negation, on every line.
    table = EDGE_STABILITY.astype(np.int64).reshape(256, 256)
    assert (table == -table.T).all()


def test_weights_cover_every_phase() -> None:
    assert WEIGHTS.shape == (65, 9)


def test_a_three_ply_search_beats_a_random_player() -> None:
    rng = random.Random(5)
    for game_index in range(6):
        side = game_index % 2
        state = GAME.initial_state({})
        table = TranspositionTable("othello", GAME.rules.KEY_SCHEME, 1 << 20)
        while state.outcome() is None:
            if state.to_move == side:
                stop = StopSignal()
                stop.arm(None, None, 3)
                move = list(new_searcher(GAME, table).search(state, stop))[-1].pv[0]
            else:
                move = rng.choice(state.legal_moves())
            state = state.play(move)
        assert state.outcome().winner == side


# ---- through the engine -------------------------------------------------------------


def test_the_engine_passes_and_reports_the_result() -> None:
    async def scenario():
        async with StdioEngine() as engine:
            await engine.send("setgame othello")
            assert await engine.ask("moves", "moves") == ["moves c4 d3 e6 f5"]
            (line_,) = await engine.ask("perft 5", "perft")
            assert line_.startswith("perft 5 nodes 1396 ")
            await engine.send(f"position board {board(black='b1', white='a1')}")
            assert await engine.ask("moves", "moves") == ["moves pass"]
            assert (await engine.bestmove("go depth 3")).move == "pass"
            await engine.send(f"position board {board(black='b1', white='a1')} moves pass c1")
            lines = await engine.ask("d", "result")
            assert lines[-2] == f"board-text {board(white='a1 b1 c1', side='0')}"
            assert lines[-1] == "result 1 discs 0-3"
            assert (await engine.bestmove("go depth 2")).move is None
    run(scenario())
