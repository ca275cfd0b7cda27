"""Lines of Action: referee vectors, perft, the rule details of the CodinGame referee, and
the evaluation's terms against their definitions (compiled and interpreted alike)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from games import find_game
from games.base import ONGOING, BadParameterError, BoardTextError, IllegalMoveError, NotationError
from games.kernel import COMPILING, interpreted_namespace
from games.loa import evaluation, rules
from search import new_searcher
from search.alphabeta import MATE_BOUND
from search.limits import StopSignal
from search.specialised import perft_leaves
from search.tt import TranspositionTable
from tests.conftest import load_vectors, perft_records

GAME = find_game("loa")
RECORDS = load_vectors("loa")
START = ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. b ply=0"
RULES = interpreted_namespace(rules)
TERMS = interpreted_namespace(evaluation)


def board(text: str):
    return GAME.parse_board(text.split())


def tokens(state) -> list[str]:
    return sorted(GAME.format_move(state, move) for move in state.legal_moves())


def sides(state) -> tuple[int, int]:
    """(own, opp) checkers of the side to move."""
    black, white = GAME.checkers(state)
    return (black, white) if state.to_move == 0 else (white, black)


def size(board: int) -> int:
    return board.bit_count()


def record_text(record: dict) -> str:
    return "/".join(record["board"]) + f" {record['to_move']} ply={record['ply']}"


def reference_moves(own: int, opp: int) -> list[str]:
    """The rule read literally, square by square: the independent check of the tables."""
    occupied = own | opp
    found = []
    for square in range(64):
        if not own >> square & 1:
            continue
        file, rank = square & 7, square >> 3
        for df, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
            count = 0
            for sign in (1, -1):
                f, r = file, rank
                while 0 <= f < 8 and 0 <= r < 8:
                    count += occupied >> (8 * r + f) & 1
                    f, r = f + sign * df, r + sign * dr
            count -= 1  # the checker itself was counted in both directions
            for sign in (1, -1):
                f, r = file + sign * df * count, rank + sign * dr * count
                if not (0 <= f < 8 and 0 <= r < 8) or own >> (8 * r + f) & 1:
                    continue
                path = [(file + sign * df * k, rank + sign * dr * k) for k in range(1, count)]
                if any(opp >> (8 * pr + pf) & 1 for pf, pr in path):
                    continue
                found.append("abcdefgh"[file] + str(rank + 1) + "abcdefgh"[f] + str(r + 1))
    return sorted(found)


# ---- the referee's own positions ---------------------------------------------------


def test_every_referee_position_has_exactly_the_referee_moves() -> None:
    assert len(RECORDS) == 1208
    for record in RECORDS:
        state = board(record_text(record))
        if record.get("terminal"):
            continue
        assert tokens(state) == record["legal"], (record["game_index"], record["ply"])


def test_recorded_games_replay_to_the_recorded_boards_and_results() -> None:
    games: dict[int, list[dict]] = {}
    for record in RECORDS:
        games.setdefault(record["game_index"], []).append(record)
    assert sum(1 for record in RECORDS if record.get("terminal")) == len(games) == 8
    for index, records in games.items():
        state = GAME.initial_state({})
        for record in sorted(records, key=lambda r: r["ply"]):
            rows, side, ply = GAME.format_board(state).split()
            assert (rows, ply) == ("/".join(record["board"]), f"ply={record['ply']}"), index
            black, white = map(size, GAME.checkers(state))
            assert (black, white) == (record["checkers_b"], record["checkers_w"])
            if record.get("terminal"):
                # The terminal record names the last mover as its side (with that side's
                # moves); the position itself has the other side to move.
                assert side != record["to_move"]
                outcome = state.outcome()
                assert outcome is not None and state.legal_moves() == []
                if record["result"] == "draw":
                    assert outcome.winner is None and outcome.returns == (0, 0)
                    assert outcome.reason == "150 plies"
                else:
                    assert GAME.player_names[outcome.winner] == record["winner"]
                    assert outcome.reason == "connected"
                assert len(record["game_moves"]) == record["ply"]
                break
            assert side == record["to_move"] and state.outcome() is None
            state = state.play(GAME.parse_move(state, record["move_played"]))


def test_the_last_movers_moves_at_the_end_agree_with_the_kernel() -> None:
    """A terminal record lists the last mover's moves in the final position; the game
    is over there, so only the generator kernel can be held against them."""
    out = np.empty(rules.MAX_MOVES, dtype=np.int64)
    for record in (r for r in RECORDS if r.get("terminal")):
        state = board(record_text(record))
        own, opp = sides(state)
        moves = out[:RULES.generate_moves(np.uint64(own), np.uint64(opp), out)]
        assert sorted(GAME.format_move(state, int(m)) for m in moves) == record["legal"]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "interpreted"])
@pytest.mark.parametrize("record", [r for r in perft_records("loa") if r["depth"] <= 3],
                         ids=lambda r: f"depth{r['depth']}")
def test_perft(record: dict, compiled: bool) -> None:
    assert perft_leaves(GAME.initial_state({}), record["depth"], compiled) == record["nodes"]


@pytest.mark.slow
@pytest.mark.parametrize("record", [r for r in perft_records("loa") if r["depth"] > 3],
                         ids=lambda r: f"depth{r['depth']}")
def test_perft_deep(record: dict) -> None:
    assert perft_leaves(GAME.initial_state({}), record["depth"]) == record["nodes"]


@pytest.mark.parametrize("seed", range(12))
def test_move_tables_agree_with_the_rule_read_square_by_square(seed: int) -> None:
    rng = random.Random(seed)
    state = GAME.initial_state({})
    while state.outcome() is None:
        assert tokens(state) == (reference_moves(*sides(state)) or ["pass"])
        state = state.play(rng.choice(state.legal_moves()))


# ---- the start position and the notation ------------------------------------------


def test_start_position_colours_and_first_player() -> None:
    state = GAME.initial_state({})
    assert GAME.format_board(state) == START
    assert state.to_move == 0 and GAME.player_names == ("b", "w")
    assert (*map(size, GAME.checkers(state)), GAME.plies(state)) == (12, 12, 0)
    assert len(state.legal_moves()) == 36 and state.outcome() is None


def test_ply_field_defaults_to_zero_and_is_always_written() -> None:
    bare = board(START.removesuffix(" ply=0"))
    assert bare == GAME.initial_state({})
    later = board(START.replace("ply=0", "ply=17"))
    assert GAME.plies(later) == 17 and GAME.format_board(later).endswith(" b ply=17")
    assert later.key != bare.key, "the ply is part of the key"


def test_every_move_counts_a_ply() -> None:
    state = GAME.initial_state({}).play(GAME.parse_move(GAME.initial_state({}), "b1b3"))
    assert GAME.plies(state) == 1 and state.to_move == 1
    assert GAME.format_board(state).endswith(" w ply=1")


@pytest.mark.parametrize("text", [
    ".bbbbbb./w......w b",
    ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbx. b",
    ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb. x",
    ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb.. b",
    ".bbbbbb./w......w/w......w/w......w/w......w/w......w/w......w/.bbbbbb.",
    START.replace("ply=0", "ply=151"),
    START.replace("ply=0", "ply=-1"),
    START.replace("ply=0", "ply=+3"),
    START.replace("ply=0", "ply=x"),
    START.replace("ply=0", "ply="),
    START.replace("ply=0", "ply=" + "9" * 5000),
    START.replace("ply=0", "ply=٣"),
    START + " ply=1",
    START + " turn=3",
    START.replace("ply=0", "alive=bw"),
    "......../w......w/w......w/w......w/w......w/w......w/w......w/........ b",
    "bbbbbbbb/bbbbbbb./w......w/w......w/w......w/w......w/w......w/w......w b",
])
def test_bad_board_texts(text: str) -> None:
    with pytest.raises(BoardTextError):
        board(text)


def test_bad_board_text_messages_quote_the_token() -> None:
    with pytest.raises(BoardTextError, match="'ply=151'"):
        board(START.replace("ply=0", "ply=151"))
    with pytest.raises(BoardTextError, match="repeated board field 'ply=1'"):
        board(START + " ply=1")
    with pytest.raises(BoardTextError, match="unexpected board field 'turn=3'"):
        board(START + " turn=3")


def test_setgame_parameters_are_refused() -> None:
    with pytest.raises(BadParameterError, match="'size=10'"):
        GAME.initial_state({"size": "10"})


def test_move_tokens() -> None:
    state = GAME.initial_state({})
    assert GAME.format_move(state, GAME.parse_move(state, "b1b3")) == "b1b3"
    with pytest.raises(IllegalMoveError, match="'b1b4'"):
        GAME.parse_move(state, "b1b4")
    with pytest.raises(IllegalMoveError, match="'pass'"):
        GAME.parse_move(state, "pass")
    for token in ("B1B3", "b1", "b1b3b", "i1a1", "pas"):
        with pytest.raises(NotationError):
            GAME.parse_move(state, token)


# ---- how checkers move -------------------------------------------------------------


def test_the_distance_counts_the_whole_line_in_both_directions() -> None:
    # d4's rank holds w a4, b d4 and b f4: three checkers, so d4 jumps three squares
    # either way (a4 west, a capture, and g4 east, over its own f4); its file holds d4
    # alone: one square; its diagonal a1-h8 holds d4 and g7: two squares, b2 and f6; its
    # anti-diagonal a7-g1 holds b6 and d4: two squares, b6 (a capture) and f2.
    state = board("......../......b./.w....../......../w..b.b../......../......../.......w b")
    moves = [move for move in tokens(state) if move.startswith("d4")]
    assert moves == ["d4a4", "d4b2", "d4b6", "d4d3", "d4d5", "d4f2", "d4f6", "d4g4"]
    assert tokens(state) == reference_moves(*sides(state))


def test_line_counts_include_checkers_behind_the_mover() -> None:
    # c3's rank holds b a3, b c3 and w h3: three, so c3 goes to f3, not d3. Its diagonal
    # holds b a1, c3 and w e5: three, and f6 lies beyond the enemy e5, so no jump there.
    state = board("......../......../......../....w.../......../b.b....w/......../b....... b")
    moves = [move for move in tokens(state) if move.startswith("c3")]
    assert moves == ["c3b4", "c3c2", "c3c4", "c3d2", "c3f3"]
    assert tokens(state) == reference_moves(*sides(state))


def test_jump_over_own_checkers_but_never_over_enemy_ones() -> None:
    # a1's rank holds b a1, b b1 and w h1: three, so a1d1 crosses its own b1. a1's file
    # holds b a1, w a2 and b a8: three, but a1a4 would cross the enemy a2.
    state = board("b......./......../......../......../......../......../w......./bb.....w b")
    moves = [move for move in tokens(state) if move.startswith("a1")]
    assert moves == ["a1b2", "a1d1"]
    assert tokens(state) == reference_moves(*sides(state))


def test_capture_removes_the_enemy_and_never_lands_on_own() -> None:
    # c1's rank holds b c1 and w e1: two, so c1e1 captures. c1's file holds b c1 and
    # b c3: two, and c3 is its own, so no c1c3.
    state = board(".......w/......../......../......../......../..b...../......../..b.w... b")
    moves = [move for move in tokens(state) if move.startswith("c1")]
    assert moves == ["c1a1", "c1b2", "c1d2", "c1e1"]
    after = state.play(GAME.parse_move(state, "c1e1"))
    assert tuple(map(size, GAME.checkers(after))) == (2, 1)
    assert GAME.format_board(after).split()[0].split("/")[7] == "....b..."


# ---- the end of the game -----------------------------------------------------------


def test_the_mover_wins_when_both_sides_are_connected() -> None:
    # Black captures white's stray d4 with b6d4: black joins c3/e5 (connected) and white
    # is left with the pair g7/h8, connected too. The mover wins.
    state = board(".......w/......w./.b....../....b.../...w..../..b...../......../........ b")
    move = GAME.parse_move(state, "b6d4")
    after = state.play(move)
    outcome = after.outcome()
    assert outcome is not None and outcome.winner == 0 and outcome.reason == "connected"
    assert outcome.returns == (1, -1)
    assert after.legal_moves() == []


def test_the_opponent_wins_when_a_capture_connects_it() -> None:
    # Black captures white's stray d4 but stays apart: white's g7/h8 is now one group.
    state = board(".......w/......w./.b....../......../...w..../......../......../b....... b")
    after = state.play(GAME.parse_move(state, "b6d4"))
    outcome = after.outcome()
    assert outcome is not None and outcome.winner == 1 and outcome.returns == (-1, 1)
    assert after.legal_moves() == []


def test_a_single_checker_is_connected() -> None:
    # White is down to h8 after the capture: it wins, black being apart.
    state = board(".......w/......../.b....../......../...w..../......../......../b....... b")
    after = state.play(GAME.parse_move(state, "b6d4"))
    assert size(GAME.checkers(after)[1]) == 1
    assert after.outcome().winner == 1
    # A board with a lone checker of the side to move: the last mover is checked first.
    lone = board("b......./......../......../......../......../......../......../w.....w. b")
    assert lone.outcome().winner == 0
    both = board("b......./......../......../......../......../......../......../w....... b")
    assert both.outcome().winner == 1, "the side not to move made the last move and wins"


def test_a_static_position_checks_the_last_mover_first() -> None:
    text = "bb....../......../......../......../......../......../......../......ww {}"
    assert board(text.format("w")).outcome().winner == 0
    assert board(text.format("b")).outcome().winner == 1


def test_the_game_is_drawn_after_150_plies() -> None:
    text = "b......b/......../......../......../......../......../......../w......w b ply={}"
    before = board(text.format(149))
    assert before.outcome() is None and before.legal_moves()
    after = before.play(before.legal_moves()[0])
    assert GAME.plies(after) == 150
    outcome = after.outcome()
    assert outcome is not None and outcome.winner is None and outcome.returns == (0, 0)
    assert outcome.reason == "150 plies"
    assert after.legal_moves() == []
    assert board(text.format(150)).outcome() == outcome


def test_a_connection_on_the_last_ply_wins_rather_than_draws() -> None:
    state = board("b......./..b...../......../......../......../......../......../w......w b ply=149")
    after = state.play(GAME.parse_move(state, "a8b8"))
    assert GAME.plies(after) == 150 and after.outcome().winner == 0


def test_pass_is_the_only_move_of_a_blocked_side() -> None:
    # Black a1 is boxed in by b1, a2, b2 and h8 by g8, h7, g7: every jump crosses white.
    state = board("......wb/......ww/......../......../......../......../ww....../bw...... b ply=10")
    assert state.outcome() is None
    assert tokens(state) == ["pass"]
    move = GAME.parse_move(state, "pass")
    after = state.play(move)
    assert (after.to_move, GAME.plies(after), GAME.checkers(after)) == (1, 11, GAME.checkers(state))
    assert after.outcome() is None and after.key != state.key
    assert after.key == board(GAME.format_board(after)).key
    assert "pass" not in tokens(after)
    with pytest.raises(IllegalMoveError):
        GAME.parse_move(after, "pass")


def test_a_pass_on_the_last_ply_draws() -> None:
    state = board("......wb/......ww/......../......../......../......../ww....../bw...... b ply=149")
    after = state.play(GAME.parse_move(state, "pass"))
    assert after.outcome().winner is None and after.legal_moves() == []


def test_picture_shows_side_and_ply() -> None:
    lines = GAME.picture(GAME.initial_state({}))
    assert lines[0] == "8 . b b b b b b ." and lines[7] == "1 . b b b b b b ."
    assert lines[8] == "  a b c d e f g h"
    assert lines[9:] == ["to move: b", "ply: 0 of 150"]


# ---- the evaluation ----------------------------------------------------------------


def transpose(board: int) -> int:
    return sum(1 << ((s & 7) * 8 + (s >> 3)) for s in range(64) if board >> s & 1)


def neighbours(square: int, steps) -> list[int]:
    file, rank = square & 7, square >> 3
    return [8 * (rank + dr) + file + df for df, dr in steps if 0 <= file + df < 8 and 0 <= rank + dr < 8]


KING_STEPS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr]
ROOK_STEPS = [(1, 0), (-1, 0), (0, 1), (0, -1)]


def regions(squares: set[int], steps) -> list[set[int]]:
    """The connected regions of `squares` by `steps`."""
    left, found = set(squares), []
    while left:
        region, stack = set(), [left.pop()]
        while stack:
            square = stack.pop()
            region.add(square)
            for near in neighbours(square, steps):
                if near in left:
                    left.discard(near)
                    stack.append(near)
        found.append(region)
    return found


def groups(board: int) -> int:
    """The number of 8-connected groups of `board`."""
    return len(regions({s for s in range(64) if board >> s & 1}, KING_STEPS))


def holes(board: int) -> int:
    """Enclosed 4-connected regions of empty squares (the background of 8-connectivity)."""
    empty = regions({s for s in range(64) if not board >> s & 1}, ROOK_STEPS)
    return sum(1 for region in empty if not any(s & 7 in (0, 7) or s >> 3 in (0, 7) for s in region))


def random_states(seed: int, games: int):
    rng = random.Random(seed)
    for _ in range(games):
        state = GAME.initial_state({})
        while state.outcome() is None:
            yield state
            state = state.play(rng.choice(state.legal_moves()))


def clustered_boards(seed: int, count: int):
    """(black, white) with 2 or more checkers each in a small window, so that groups,
    captures and connections in one move are common."""
    rng = random.Random(seed)
    for _ in range(count):
        side = rng.randint(3, 5)
        left, bottom = rng.randint(0, 8 - side), rng.randint(0, 8 - side)
        window = [8 * (bottom + r) + left + f for r in range(side) for f in range(side)]
        rng.shuffle(window)
        black_count = rng.randint(2, min(12, len(window) - 2))
        white_count = rng.randint(2, min(12, len(window) - black_count))
        yield (sum(1 << s for s in window[:black_count]),
               sum(1 << s for s in window[black_count:black_count + white_count]))


def dense_boards(seed: int, count: int):
    """(black, white) of any density, black not empty: denser than a game reaches."""
    rng = random.Random(seed)
    for _ in range(count):
        black = white = (1 << 64) - 1
        for _ in range(rng.randint(1, 4)):
            black &= rng.getrandbits(64)
        for _ in range(rng.randint(1, 4)):
            white &= rng.getrandbits(64)
        black |= 1 << rng.randrange(64)
        yield black, white & ~black


def moves_of(own: int, opp: int) -> list[tuple[int, int]]:
    """(from, to) squares of the moves of the side owning `own`, by the literal rule."""
    return [(square(token[:2]), square(token[2:])) for token in reference_moves(own, opp)]


def square(name: str) -> int:
    return "abcdefgh".index(name[0]) + 8 * (int(name[1]) - 1)


def test_euler_number_is_groups_minus_holes() -> None:
    rng = random.Random(3)
    for trial in range(400):
        board = rng.getrandbits(64) & (rng.getrandbits(64) if trial % 2 else (1 << 64) - 1)
        if not board:
            continue
        _, euler4 = TERMS.quads(np.uint64(board))
        assert euler4 == 4 * (groups(board) - holes(board)), hex(board)


def test_mobility_weighs_every_legal_move() -> None:
    """Each move counts 2, 1 on an edge, CAPTURE more for a capture; a checker without a
    move is blocked; on game positions and on boards of any density."""
    def expected(own: int, opp: int) -> tuple[int, int]:
        moves = moves_of(own, opp)
        score = sum((1 if to & 7 in (0, 7) or to >> 3 in (0, 7) else 2)
                    + (evaluation.CAPTURE if opp >> to & 1 else 0) for _, to in moves)
        movers = {frm for frm, _ in moves}
        return score, sum(1 for s in range(64) if own >> s & 1 and s not in movers)

    positions = [GAME.checkers(state) for state in random_states(4, 1)]
    for black, white in positions + list(dense_boards(6, 150)):
        found = TERMS.mobility(np.uint64(black), np.uint64(white))
        assert found == expected(black, white) + expected(white, black), (hex(black), hex(white))


def test_shape_is_concentration_and_centralisation() -> None:
    def chebyshev(a: int, b: int) -> int:
        return max(abs((a & 7) - (b & 7)), abs((a >> 3) - (b >> 3)))

    rng = random.Random(8)
    for _ in range(300):
        squares = rng.sample(range(64), rng.randint(1, 12))
        n = len(squares)
        centre = 8 * ((2 * sum(s >> 3 for s in squares) + n) // (2 * n)) + (2 * sum(s & 7 for s in squares) + n) // (2 * n)
        spread = sum(chebyshev(centre, s) for s in squares) - evaluation.MIN_DISTANCE_SUM[n]
        table = sum(evaluation.CENTRE_TABLE[s] for s in squares)
        assert TERMS.shape(np.uint64(sum(1 << s for s in squares))) == (
            spread, table, evaluation.CENTRE_TABLE[centre])


def test_evaluation_is_zero_sum_and_colour_symmetric() -> None:
    for state in random_states(5, 6):
        value = GAME.evaluate(state)
        assert value[0] == -value[1]
        black, white = GAME.checkers(state)
        mirrored = GAME.parse_board([
            "/".join("".join("b" if transpose(white) >> (8 * r + f) & 1 else
                             "w" if transpose(black) >> (8 * r + f) & 1 else "."
                             for f in range(8)) for r in range(7, -1, -1)),
            "bw"[state.to_move ^ 1], f"ply={GAME.plies(state)}",
        ])
        assert GAME.evaluate(mirrored) == (value[1], value[0])


def test_a_tight_group_beats_a_scattered_one() -> None:
    tight = board("......../......../......../...bb.../...bbw../......../....w.../w......w w")
    value = GAME.evaluate(tight)
    assert value[0] > 300


def test_a_side_to_move_that_can_connect_scores_the_win_in_one() -> None:
    # Black a8 joins c7 by a8b8; white cannot connect in one move.
    state = board("b......./..b...../......../......../......../......../......../w......w b ply=40")
    assert GAME.evaluate(state) == (evaluation.WIN_IN_ONE, -evaluation.WIN_IN_ONE)
    # With white to move the same black move is only a threat white must meet.
    other = board("b......./..b...../......../......../......../......../......../w......w w ply=40")
    assert 0 < GAME.evaluate(other)[0] < evaluation.WIN_IN_ONE


def connects_in_one(own: int, opp: int) -> bool:
    return bool(TERMS.connects_in_one(np.uint64(own), np.uint64(opp), TERMS.quads(np.uint64(own))[1]))


def test_connection_in_one_needs_few_groups_and_a_landing_square() -> None:
    assert not connects_in_one(0x8100000000000081, 1 << 27)
    assert not connects_in_one(*GAME.checkers(GAME.initial_state({})))
    # b a8, c7: a8b8, a8c6, c7b7 and c7b8 join them.
    black, white = GAME.checkers(board(
        "b......./..b...../......../......../......../......../......../w......w b ply=40"))
    assert connects_in_one(black, white)
    assert not connects_in_one(white, black)


def test_connection_in_one_is_a_move_that_joins_every_checker() -> None:
    """Against the definition: the checkers are one group, or one of their moves makes
    them so."""
    seen = set()
    for black, white in clustered_boards(9, 300):
        for own, opp in ((black, white), (white, black)):
            truth = groups(own) == 1 or any(groups(own ^ 1 << frm | 1 << to) == 1 for frm, to in moves_of(own, opp))
            assert connects_in_one(own, opp) == truth, (hex(own), hex(opp))
            seen.add(truth)
    assert seen == {True, False}


def test_values_shrink_near_the_ply_cap() -> None:
    text = "......../......../......../...bb.../...bbw../......../....w.../w......w w ply={}"
    early, late = GAME.evaluate(board(text.format(100))), GAME.evaluate(board(text.format(145)))
    assert early[0] > 0 and 0 <= late[0] < early[0]
    assert late[0] == early[0] * 5 // evaluation.HORIZON


def test_walls_count_enemy_edge_checkers_boxed_by_own_ones() -> None:
    # w on d1 with b on c2, d2, e2: walled. w on a4 with b on b4, b5 only: not (b3 free).
    own = sum(1 << s for s in (10, 11, 12, 25, 33))
    opp = sum(1 << s for s in (3, 24))
    assert TERMS.walls(np.uint64(own), np.uint64(opp)) == 1
    assert TERMS.walls(np.uint64(own | 1 << 17), np.uint64(opp)) == 2


# ---- compiled and interpreted ------------------------------------------------------


def playout_states(seed: int, games: int, greedy: float = 0.0):
    """The positions of seeded games; with probability `greedy` a move is the one the
    evaluation likes best for the mover, which ends more games by connection."""
    rng = random.Random(seed)
    for _ in range(games):
        state = GAME.initial_state({})
        while True:
            yield state
            moves = state.legal_moves()
            if not moves:
                break
            if rng.random() < greedy:
                move = max(moves, key=lambda m: (-GAME.evaluate(state.play(m))[state.to_move ^ 1], m))
            else:
                move = rng.choice(moves)
            state = state.play(move)


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_compiled_terms_agree_on_dense_boards() -> None:
    """The table gathers and wrapping products on boards denser than a game reaches."""
    for black, white in dense_boards(12, 300):
        b, w = np.uint64(black), np.uint64(white)
        assert evaluation.mobility(b, w) == TERMS.mobility(b, w)
        assert evaluation.quads(b) == TERMS.quads(b)
        assert evaluation.walls(b, w) == TERMS.walls(b, w)
        if black.bit_count() <= 12:
            assert evaluation.shape(b) == TERMS.shape(b)
            euler4 = TERMS.quads(b)[1]
            assert evaluation.connects_in_one(b, w, euler4) == TERMS.connects_in_one(b, w, euler4)


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_compiled_evaluation_meets_the_win_the_threat_and_the_horizon() -> None:
    seen = set()
    for state in [*playout_states(7, 2), *playout_states(8, 3, greedy=0.5)]:
        if state.outcome() is not None:
            continue
        value = GAME.evaluate(state)[state.to_move]
        if value == evaluation.WIN_IN_ONE:
            seen.add("win")
        elif connects_in_one(*reversed(sides(state))):
            seen.add("threat")
        if GAME.plies(state) > rules.MAX_PLIES - evaluation.HORIZON:
            seen.add("horizon")
        assert evaluation.evaluate(state.s) == value
    assert seen == {"win", "threat", "horizon"}


@pytest.mark.skipif(not COMPILING, reason="numba is not available")
def test_compiled_perft_through_ends_of_games() -> None:
    """Positions a few plies before a connection or the 150-ply draw, where perft
    crosses finished positions."""
    finals = []
    for seed in range(16):
        states = list(playout_states(seed, 1, greedy=0.7 if seed % 2 else 0.0))
        finals.append(states[max(0, len(states) - 4)])
    assert any(GAME.plies(state) > rules.MAX_PLIES - 4 for state in finals)
    assert any(RULES.result(state.s) == ONGOING and GAME.plies(state) < rules.MAX_PLIES - 4 for state in finals)
    for state in finals:
        assert perft_leaves(state, 3, True) == perft_leaves(state, 3, False), GAME.format_board(state)


# ---- searching ---------------------------------------------------------------------


def search(state, depth: int):
    stop = StopSignal()
    stop.arm(None, None, depth)
    table = TranspositionTable("loa", GAME.rules.KEY_SCHEME, 1 << 20)
    return list(new_searcher(GAME, table).search(state, stop))[-1]


def test_search_takes_a_win_in_one() -> None:
    state = board("b......./..b...../......../......../......../......../......../w......w b ply=40")
    final = search(state, 2)
    assert state.play(final.pv[0]).outcome().winner == 0 and final.score > MATE_BOUND


def test_search_avoids_a_capture_that_connects_the_opponent() -> None:
    # b6d4 would take white's last stray checker and leave white connected.
    state = board(".......w/......w./.b....../......../...w..../......../......../b....... b")
    final = search(state, 2)
    assert GAME.format_move(state, final.pv[0]) != "b6d4"
    assert final.score > -MATE_BOUND


def test_a_shallow_search_beats_a_random_player() -> None:
    for game_index in range(4):
        rng = random.Random(game_index)
        engine_side = game_index % 2
        state = GAME.initial_state({})
        while state.outcome() is None:
            if state.to_move == engine_side:
                move = search(state, 2).pv[0]
            else:
                move = rng.choice(state.legal_moves())
            state = state.play(move)
        assert state.outcome().winner == engine_side
