"""Game records: trees of every game round-trip through SGF (hypothesis), Othello's
lines through GGF and transcripts, files written by hand from the formats' examples
read as they should, and hostile text is a ValueError naming its place, never another
exception or a hang."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import all_games, find_game
from records.formats import read_format, sgf_number, write_format
from records.sgf import MAX_NESTING, read_sgf, write_sgf
from records.tree import COLOURS, GLYPHS, MAX_NODES, Node, Record, Shape, grown, player_header
from tests.conftest import EXPERT_GAMES, sorted_tokens

GAMES = sorted(all_games())
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=40)
CELLS = st.text("abcdefgh12345678,", min_size=1, max_size=5)


def shapes() -> st.SearchStrategy[list[Shape]]:
    """Shapes in the order the SGF writer keeps them: green arrows, green circles, the
    other colours' (in their order)."""
    shape = st.builds(lambda cells, colour: Shape(tuple(cells), colour),
                      st.lists(CELLS, min_size=1, max_size=2), st.sampled_from(COLOURS))
    return st.lists(shape, max_size=3).map(
        lambda found: sorted(found, key=lambda s: (s.colour != COLOURS[0], s.colour == COLOURS[0] and not s.is_arrow)))


@st.composite
def records(draw, game: str | None = None) -> Record:
    """A record of a game with a tree of legal moves: a main line and variations, each
    node with a comment, glyphs and shapes drawn."""
    name = draw(st.sampled_from(GAMES)) if game is None else game
    rules = find_game(name)
    rng = random.Random(draw(st.integers(0, 2**32)))
    headers = draw(st.dictionaries(st.sampled_from(["EV", "DT", "RE", "GN", "PC", "AN", "SO"]), TEXT, max_size=3))
    headers.update({player_header(name, seat): draw(TEXT) for seat in range(rules.num_players) if draw(st.booleans())})
    record = Record(name, headers)
    record.root.comment = draw(TEXT)
    # Grow lines from random nodes of the tree: the first the main line.
    nodes = [(record.root, rules.initial_state({}))]
    for _ in range(draw(st.integers(1, 4))):
        node, position = nodes[rng.randrange(len(nodes))] if len(nodes) > 1 else nodes[0]
        for _ in range(draw(st.integers(0, 12))):
            legal = sorted_tokens(rules, position)
            if not legal or position.outcome() is not None:
                break
            token = rng.choice(legal)
            node = node.add(token, position.to_move)
            position = position.play(rules.parse_move(position, token))
            node.comment = draw(TEXT) if rng.random() < 0.3 else ""
            node.glyphs = draw(st.lists(st.sampled_from(sorted(GLYPHS)), unique=True, max_size=2))
            node.shapes = draw(shapes())
            nodes.append((node, position))
    return record


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_every_games_tree_round_trips_through_sgf(record: Record) -> None:
    text = write_sgf([record])
    assert read_sgf(text, "generated.sgf") == [record]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), min_size=2, max_size=3))
def test_a_collection_of_records_round_trips(collection: list[Record]) -> None:
    assert read_sgf(write_sgf(collection)) == collection


@pytest.mark.parametrize("game", GAMES)
def test_each_games_file_names_it_and_its_moves_by_side(game: str) -> None:
    rules = find_game(game)
    position, moves = rules.initial_state({}), []
    for _ in range(4):
        token = sorted_tokens(rules, position)[0]
        moves.append(token)
        position = position.play(rules.parse_move(position, token))
    text = write_sgf([grown(game, moves)])
    assert f"GE[{game}]" in text
    number = sgf_number(game)
    assert (f"GM[{number}]" in text) == (number is not None)
    first_side = rules.side_names[0]
    assert f";{ {'black': 'B', 'white': 'W'}.get(first_side, first_side.upper()) }[{moves[0]}]".replace(" ", "") in text


def test_an_othello_file_written_by_hand_reads_with_its_variations_and_markup() -> None:
    # After the SGF specification's own example: a main line, two variations, comments,
    # move annotations and markup; the file names the game by its SGF number alone.
    text = """(;FF[4]GM[2]CA[UTF-8]PB[Anna]PW[Bo]RE[B+4]C[Root comment]
      ;B[f5]TE[1]C[the tiger]AR[f5:d6]CR[c4]
      ;W[d6]
      (;B[c3]BM[2]C[a blunder:\\]\\\\]
        ;W[d3]IT[])
      (;B[c5]DO[]XS[red:c5:e3]
        ;W[f4]
        (;B[e3])
        (;B[e7]TE[2]C[second
line])))"""
    (record,) = read_sgf(text, "hand.sgf")
    assert record.game == "othello" and record.headers == {"PB": "Anna", "PW": "Bo", "RE": "B+4"}
    assert record.root.comment == "Root comment"
    assert record.moves() == ["f5", "d6", "c3", "d3"]
    f5 = record.root.children[0]
    assert (f5.glyphs, f5.comment, f5.shapes) == ([1], "the tiger", [Shape(("f5", "d6")), Shape(("c4",))])
    d6 = f5.children[0]
    assert [child.move for child in d6.children] == ["c3", "c5"]
    c3, c5 = d6.children
    assert (c3.glyphs, c3.comment) == ([4], "a blunder:]\\") and c3.children[0].glyphs == [5]
    assert c5.glyphs == [6] and c5.shapes == [Shape(("c5", "e3"), "red")]
    f4 = c5.children[0]
    assert [child.move for child in f4.children] == ["e3", "e7"]
    assert f4.children[1].glyphs == [3] and f4.children[1].comment == "second\nline"
    assert [node.player for node in record.root.walk()][1:4] == [0, 1, 0]
    assert read_sgf(write_sgf([record])) == [record]


def test_nodes_without_a_move_lend_their_markup_to_the_move_before() -> None:
    (record,) = read_sgf("(;GE[clobber];W[b1a1];C[said after]CR[a1];B[b2a2])")
    assert record.moves() == ["b1a1", "b2a2"]
    assert record.root.children[0].comment == "said after"


@pytest.mark.parametrize("text, found", [
    ("(;GM[1]SZ[19];B[aa])", "GM[1] is no game of the engine"),
    ("(;GE[chess];B[e4])", "GE[chess] names no game"),
    ("(;GE[othello];B[a1])", "move 1 (a1)"),
    ("(;GE[othello];W[f5])", "move 1 (f5): a move of white where black is to move"),
    ("(;GE[othello]();B[f5])", "an empty variation"),
    ("(;GE[othello];B[f5]W[d6])", "one move"),
    ("(;GE[othello];B[f5", "never ends"),
    ("(;GE[othello];B[f5]", "ends inside a game tree"),
    ("(;GE[othello]))", "closes no game tree"),
    ("(;GE[othello](;B[f5])(B[d3]))", "a property outside any node"),
    ("(;GE[othello]BT[nonsense w])", "the record's start"),
    ("(;GE[othello]GP[seed])", "no name=value"),
    ("(;GE[othello];B[f5]AR[f5])", "no arrow"),
    ("(;GE[othello];B[f5]XS[purple:f5])", "colour"),
    ("", "no game tree"),
    ("hello", "a property outside any node"),
    ("(;GE[othello]) 7", "unexpected '7'"),
])
def test_a_broken_file_is_refused_saying_where(text: str, found: str) -> None:
    with pytest.raises(ValueError, match="^broken.sgf") as error:
        read_sgf(text, "broken.sgf")
    assert found in str(error.value)


def test_a_fault_is_placed_by_line_and_column() -> None:
    with pytest.raises(ValueError, match=r"^f.sgf:3:2: unexpected '\}'"):
        read_sgf("(;GE[othello]\n;B[f5]\n }", "f.sgf")


def test_hostile_files_are_bounded() -> None:
    with pytest.raises(ValueError, match=f"more than {MAX_NESTING} variations"):
        read_sgf("(;GE[othello]" + "(;B[f5]" * (MAX_NESTING + 5), "deep.sgf")
    with pytest.raises(ValueError, match=f"more than {MAX_NODES} nodes"):
        read_sgf("(;GE[clobber]" + ";C[x]" * (MAX_NODES + 5) + ")", "long.sgf")
    with pytest.raises(ValueError, match="a value of more than"):
        read_sgf("(;GE[othello]C[" + "x" * 100_000 + "])", "big.sgf")


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("();[]\\:BWCGEMTARX ofd356\n")), max_size=80))
def test_any_text_is_read_or_refused_with_a_value_error(text: str) -> None:
    try:
        read_sgf("(;GE[othello]" + text, "fuzz.sgf")
    except ValueError:
        pass


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records(), st.data())
def test_a_mangled_record_is_read_or_refused_with_a_value_error(record: Record, data) -> None:
    text = write_sgf([record])
    at = data.draw(st.integers(0, len(text)))
    cut = data.draw(st.integers(0, 8))
    mangled = text[:at] + data.draw(st.text(st.sampled_from(list("()[];\\BW:")), max_size=4)) + text[at + cut:]
    try:
        read_sgf(mangled, "mangled.sgf")
    except ValueError:
        pass


# ---- Othello's own formats -----------------------------------------------------------

GGF_GAME = ("(;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:40.MST]PB[Saio1200]PW[Jukebox]RB[2197.72]"
            "RW[2199.33]TI[15:00//02:00]TY[8]RE[-2.000]BO[8 -------- -------- -------- ---O*--- ---*O--- -------- "
            "-------- -------- *]B[f5//0.01]W[f6/-0.50/0.01]B[E6]W[f4];)")


def test_a_ggf_game_reads_with_its_headers_and_round_trips() -> None:
    (record,) = read_format("othello", "ggf", GGF_GAME, "game.ggf")
    assert record.moves() == ["f5", "f6", "e6", "f4"] and record.start is None
    assert record.headers["PB"] == "Saio1200" and record.headers["RE"] == "-2.000"
    again = read_format("othello", "ggf", write_format("othello", "ggf", [record]), "again.ggf")
    assert again == [record]


def a_pass() -> tuple[str, list[str]]:
    """A board of a random Othello game where the side to move must pass and the game
    goes on, and the pass with the reply after it."""
    rules = find_game("othello")
    for seed in range(1000):
        rng, position = random.Random(seed), rules.initial_state({})
        while position.outcome() is None:
            legal = sorted_tokens(rules, position)
            if legal == ["pass"]:
                after = position.play(rules.parse_move(position, "pass"))
                return rules.format_board(position), ["pass", sorted_tokens(rules, after)[0]]
            position = position.play(rules.parse_move(position, rng.choice(legal)))
    raise AssertionError("no pass in 1000 random games")


def test_a_ggf_game_from_another_board_with_a_pass_reads() -> None:
    board_text, moves = a_pass()
    rows, side = board_text.split()
    disc = {"0": "*", "1": "O", ".": "-"}
    board = "8 " + " ".join("".join(disc[c] for c in row) for row in rows.split("/")) + " " + disc[side]
    first = "B" if side == "0" else "W"
    other = "W" if first == "B" else "B"
    text = f"(;GM[Othello]BO[{board}]{first}[PA]{other}[{moves[1].upper()}/1.5/0.2];)"
    (record,) = read_format("othello", "ggf", text, "pass.ggf")
    assert record.moves() == moves and record.start == board_text
    assert read_format("othello", "ggf", write_format("othello", "ggf", [record]), "again.ggf") == [record]


@pytest.mark.parametrize("text, found", [
    ("(;GM[Chess]B[e4];)", "not Othello"),
    ("(;GM[Othello]B[a1];)", "move 1 (a1)"),
    ("(;GM[Othello]BO[8 ---];)", "no 8x8 board"),
    ("nothing", "no GGF game"),
])
def test_a_broken_ggf_game_is_refused_saying_where(text: str, found: str) -> None:
    with pytest.raises(ValueError, match="^broken.ggf") as error:
        read_format("othello", "ggf", text, "broken.ggf")
    assert found in str(error.value)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records("othello"))
def test_othellos_main_lines_round_trip_through_ggf_and_transcripts(record: Record) -> None:
    line = grown("othello", record.moves())
    assert read_format("othello", "ggf", write_format("othello", "ggf", [line]), "g.ggf") == [line]
    assert read_format("othello", "transcript", write_format("othello", "transcript", [line]), "t") == [line]


def test_a_transcript_reads_in_either_case_with_spaces() -> None:
    (record,) = read_format("othello", "transcript", "F5d6 C3d3\nc4", "t.txt")
    assert record.moves() == ["f5", "d6", "c3", "d3", "c4"]
    with pytest.raises(ValueError, match=r"t.txt: square 2 \(f5\)"):
        read_format("othello", "transcript", "f5f5", "t.txt")
    with pytest.raises(ValueError, match="not a square"):
        read_format("othello", "transcript", "f5 z9", "t.txt")


def test_a_game_without_a_format_says_which_it_has() -> None:
    with pytest.raises(ValueError, match="has no record format 'ggf'"):
        read_format("clobber", "ggf", "", "x")


def test_a_node_adds_a_move_once() -> None:
    root = Node()
    assert root.add("f5", 0) is root.add("f5", 0) and len(root.children) == 1


def test_a_player_leaving_a_game_of_three_is_a_step_of_the_record() -> None:
    from adapters.codingame import turn_format
    from tests.conftest import random_game

    moves = random_game("isolation", 12, seed=5, leave_at=4)
    leave = turn_format("isolation").leave
    record = grown("isolation", moves, leave=leave)
    assert record.moves() == moves
    assert read_sgf(write_sgf([record]), "left.sgf", leave=leave) == [record]
    with pytest.raises(ValueError, match="need the rule of leaving"):
        read_sgf(write_sgf([record]), "left.sgf")


def test_the_wthor_games_read_as_records_with_their_players_and_results() -> None:
    """The first three games of WTH_2004.wtb, as the database's notes list them, and
    the first 200: each of its recorded squares in order, passes added by the rules."""
    from games.othello.records import read_wthor
    from games.othello.training import read_games
    from records.formats import records_of

    folder = EXPERT_GAMES
    if not (folder / "WTH_2004.wtb").exists():
        pytest.skip(f"no {folder}")
    games = records_of("othello", read_wthor(folder / "WTH_2004.wtb", limit=200))
    expected = [
        ("Halvorsen Luke", "B+18", "f5f6e6f4e3c5g5g4g3d6e7f3e2d7c4d3f7c6c8f2b5b6c7d1a6b4a3h3b3a5c3a4d2e1c2h6g6e8"
                                   "f8g8h5h4c1h7d8b8b7b1b2a1a2a8a7g7h8h2g2h1g1f1"),
        ("Ortiz George", "B+2", "f5d6c3d3c4f4c5b3d2c6b6e6b5a5f7e3a6b4c7d7e7a7a3c8f2f3e2d8c2g8e8f8f6g6g5c1b7a8b8a4h8"
                                "h4h7g7h5g3h6g4h3a2b1a1b2d1e1f1g1h1g2h2"),
        ("Cairns Phil", "W+8", "f5d6c3d3c4f3f4g5c6c5d7b3b5g3e6f6e3b4d2a5b6c2g4d1e2h4g6f1e1f2c1d8g1c7e7e8f7f8c8b8g7h5"
                               "h7b7a6a4h6g2a3a2a1b1b2h1h3h2a8a7g8h8"),
    ]
    for record, (white, result, transcript) in zip(games, expected):
        assert record.headers["PB"] == "Vecchi Elisabetta" and record.headers["PW"] == white
        assert record.headers["RE"] == result and record.headers["DT"] == "2004"
        assert write_format("othello", "transcript", [record]) == transcript
    # The training reads every year; 2004's games follow those of 1977-2003.
    moves, _, _ = read_games(folder)
    before = sum(int.from_bytes((folder / f"WTH_{year}.wtb").read_bytes()[4:8], "little")
                 for year in range(1977, 2004))
    for number, record in enumerate(games):
        squares = [code for code in moves[before + number] if code]
        assert [move for move in record.moves() if move != "pass"] == [
            "abcdefgh"[code % 10 - 1] + str(code // 10) for code in squares]
