"""Opening books: reading a book file carefully, and the engine answering from its book
through the protocol (a real engine process, its book in $ENGINE_BOOK_DIR)."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from daemon.book import Book, book_path
from games import all_games, find_game
from protocol.client import Engine
from tests.conftest import LOAD_SLACK, engine_command, run

OTHELLO = find_game("othello")
START = OTHELLO.format_board(OTHELLO.initial_state({}))


def board_after(*moves: str) -> str:
    position = OTHELLO.initial_state({})
    for move in moves:
        position = position.play(OTHELLO.parse_move(position, move))
    return OTHELLO.format_board(position)


def write_book(path: Path, entries: list[dict], game: str = "othello", book_format: int = 1) -> Path:
    lines = [json.dumps({"format": book_format, "game": game, "source": {"test": True}})]
    lines += [entry if isinstance(entry, str) else json.dumps(entry) for entry in entries]
    path.write_text("\n".join(lines) + "\n")
    return path


BOOK = [
    {"board": START, "move": "f5", "score": 4, "depth": 20},
    {"board": board_after("f5"), "move": "d6", "score": -3, "depth": 19},
]


def test_a_book_keeps_its_good_entries_and_leaves_out_the_rest(tmp_path: Path) -> None:
    book = Book.read(OTHELLO, write_book(tmp_path / "book.jsonl", [
        *BOOK,
        {"board": board_after("f5", "d6"), "move": "a1", "score": 0, "depth": 1},  # illegal there
        {"board": START, "move": "d3", "score": 0, "depth": 1},  # a repeated board
        {"board": "not a board", "move": "d3"},
        "{broken json",
        {"move": "d3"},
    ]))
    assert book.check() == 2 and len(book) == 2  # the illegal move and the board that does not parse
    entry = book.probe(OTHELLO.initial_state({}))
    assert entry is not None and (entry.text, entry.score, entry.depth) == ("f5", 4, 20)
    assert book.probe(OTHELLO.parse_board(board_after("f5", "d6").split())) is None
    assert book.source == {"test": True}


def test_no_file_is_an_empty_book(tmp_path: Path) -> None:
    assert len(Book.read(OTHELLO, tmp_path / "missing.jsonl")) == 0


@pytest.mark.parametrize(("header", "why"), [
    ("", "not a book file"),
    ('{"format": 3, "game": "othello"}', "not a book file"),
    ('{"format": 1, "game": "clobber"}', "a book of 'clobber'"),
])
def test_a_file_that_is_not_this_games_book_is_refused(tmp_path: Path, header: str, why: str) -> None:
    path = tmp_path / "book.jsonl"
    path.write_text(header + "\n")
    with pytest.raises(ValueError, match=why):
        Book.read(OTHELLO, path)


#: A format-2 book: the start with three of its four (equivalent) moves, then f5's
#: replies, of which d6 and f4 within a disc of each other.
VARIED = [
    {"board": START, "depth": 12, "moves": [{"move": "f5", "score": 40}, {"move": "d3", "score": 40},
                                            {"move": "c4", "score": 40}]},
    {"board": board_after("f5"), "depth": 12, "moves": [{"move": "f6", "score": -300}, {"move": "d6", "score": -40},
                                                        {"move": "f4", "score": -90}]},
]


def test_a_book_lists_several_moves_best_first_and_plays_the_near_best_at_random(tmp_path: Path) -> None:
    book = Book.read(OTHELLO, write_book(tmp_path / "book.jsonl", VARIED, book_format=2))
    after_f5 = OTHELLO.parse_board(board_after("f5").split())
    assert [(entry.text, entry.score, entry.depth) for entry in book.moves(after_f5)] == [
        ("d6", -40, 12), ("f4", -90, 12), ("f6", -300, 12)]
    assert book.probe(after_f5).text == "d6"
    rng = random.Random(7)
    assert {book.probe(after_f5, 0, rng).text for _ in range(50)} == {"d6"}
    assert {book.probe(after_f5, 50, rng).text for _ in range(50)} == {"d6", "f4"}
    assert {book.probe(after_f5, 1000, rng).text for _ in range(80)} == {"d6", "f4", "f6"}


def test_a_book_answers_for_the_images_of_its_positions(tmp_path: Path) -> None:
    """The book holds f5's replies only; after d3, c4 or e6 (the same position turned
    over) it answers with the same reply turned over."""
    book = Book.read(OTHELLO, write_book(tmp_path / "book.jsonl", VARIED, book_format=2))
    start = OTHELLO.initial_state({})
    replies = {}
    for first in ("f5", "d3", "c4", "e6"):
        after = start.play(OTHELLO.parse_move(start, first))
        replies[first] = [(entry.text, entry.score) for entry in book.moves(after)]
        for entry in book.moves(after):
            assert entry.move in after.legal_moves()
    assert replies == {"f5": [("d6", -40), ("f4", -90), ("f6", -300)],
                       "d3": [("c5", -40), ("e3", -90), ("c3", -300)],
                       "c4": [("e3", -40), ("c5", -90), ("c3", -300)],
                       "e6": [("f4", -40), ("d6", -90), ("f6", -300)]}


def test_an_entry_with_an_illegal_or_repeated_move_is_left_out_whole(tmp_path: Path) -> None:
    book = Book.read(OTHELLO, write_book(tmp_path / "book.jsonl", [
        {"board": START, "depth": 3, "moves": [{"move": "f5", "score": 1}, {"move": "a1", "score": 9}]},
        {"board": board_after("f5"), "depth": 3, "moves": [{"move": "d6", "score": 1}, {"move": "d6", "score": 2}]},
        {"board": board_after("f5", "d6"), "depth": 3, "moves": []},
        {"board": board_after("f5", "f6"), "depth": 3, "moves": [{"move": "e6", "score": 5}]},
    ], book_format=2))
    assert book.check() == 3 and len(book) == 1


def test_the_shipped_books_are_whole() -> None:
    """Every entry of every game's shipped book reads: its board parses and each of its
    moves is legal there."""
    for game in all_games().values():
        path = book_path(game)
        if path.is_file() and "ENGINE_BOOK_DIR" not in os.environ:
            lines = path.read_text().count("\n")
            book = Book.read(game, path)
            assert book.check() == 0 and len(book) == lines - 1, game.name


def test_a_book_still_being_read_never_makes_a_go_late_and_isready_waits_for_it(tmp_path: Path) -> None:
    """A client that sends `setgame`, `position` and `go movetime` at once gets its move
    within its time, even while the book is still being read (a book of many lines to
    parse, here repeats of one board); `isready` waits until the book is read, and then
    a `go` answers from it."""
    write_book(tmp_path / "othello.jsonl", BOOK + [{"depth": 20, **BOOK[0]}] * 150_000)  # each line parsed

    async def scenario() -> None:
        engine = await Engine.popen(engine_command(), env=dict(os.environ, ENGINE_BOOK_DIR=str(tmp_path)))
        try:
            await engine.ask("uci", "uciok", timeout=60)  # the engine reads its input
            await engine.send("setgame othello")
            await engine.send("position startpos")
            started = time.monotonic()
            lines = await engine.ask("go movetime 200", "bestmove", timeout=60)
            assert time.monotonic() - started < 0.2 + LOAD_SLACK, lines
            assert not any(line.startswith("info string book") for line in lines)
            await engine.ready(timeout=120)
            lines = await engine.ask("go movetime 100", "bestmove")
            assert lines == ["info string book f5 score 4 depth 20", "bestmove f5 ponder d6"]
        finally:
            await engine.close()

    run(scenario())


def test_book_variety_draws_among_the_near_best_moves_through_the_protocol(tmp_path: Path) -> None:
    async def scenario() -> None:
        write_book(tmp_path / "othello.jsonl", VARIED, book_format=2)
        engine = await Engine.popen(engine_command(), env=dict(os.environ, ENGINE_BOOK_DIR=str(tmp_path)))
        try:
            await engine.send("setgame othello")
            await engine.send("position startpos moves f5")
            await engine.send("setoption name BookVariety value 0")
            played = {(await engine.ask("go movetime 100", "bestmove"))[-1] for _ in range(10)}
            assert played == {"bestmove d6"}
            await engine.send("setoption name BookVariety value 60")
            played = {(await engine.ask("go movetime 100", "bestmove"))[-1].split()[1] for _ in range(30)}
            assert played == {"d6", "f4"}
            # After d3, the book's position turned over: its moves turned over too.
            await engine.send("position startpos moves d3")
            lines = await engine.ask("go movetime 100", "bestmove")
            assert lines[0].startswith("info string book ") and lines[-1].split()[1] in ("c5", "e3")
        finally:
            await engine.close()

    run(scenario())


def test_the_builder_grows_a_book_from_expert_games_and_resumes_it(tmp_path: Path) -> None:
    """scripts/book: the positions enough expert games reach, then drop-out expansion;
    each move's value the negamax of the book; a second run searches nothing again."""
    from tests.games.test_othello_training import random_game, write_games

    games_folder = tmp_path / "games"
    games_folder.mkdir()
    played = [random_game(seed) for seed in range(30)]
    write_games(games_folder, [(codes, real, real) for codes, real, _ in played])
    out = tmp_path / "othello.jsonl"

    def build(*arguments: str) -> dict:
        done = subprocess.run([sys.executable, "-m", "tools.book", "othello", "--games", str(games_folder),
                               "--min-games", "8", "--plies", "3", "--depth", "3", "--lines", "40", "--workers", "1", "--out", str(out),
                               *arguments], capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return json.loads(out.read_text().splitlines()[0])["source"]

    source = build("--expand", "4")
    book = Book.read(OTHELLO, out)
    assert len(book) == source["positions"] == out.read_text().count("\n") - 1
    # Every position at least 8 of the games reach in 3 plies is in the book (by an image).
    reached: dict[str, tuple[int, object]] = {}
    for _, _, positions in played:
        for position in positions[:4]:
            count, _ = reached.get(OTHELLO.format_board(position), (0, None))
            reached[OTHELLO.format_board(position)] = (count + 1, position)
    common = [position for count, position in reached.values() if count >= 8]
    assert common and all(book.moves(position) for position in common)
    # Each entry lists every legal move, and a move into the book is worth minus the
    # best move of the position it leads to.
    for line in out.read_text().splitlines()[1:]:
        entry = json.loads(line)
        position = OTHELLO.parse_board(entry["board"].split())
        assert sorted(move["move"] for move in entry["moves"]) == sorted(
            OTHELLO.format_move(position, move) for move in position.legal_moves())
        for move in entry["moves"]:
            child = position.play(OTHELLO.parse_move(position, move["move"]))
            if book.moves(child):
                assert move["score"] == -book.moves(child)[0].score
            else:
                assert move["score"] == move["search"]
    again = build("--expand", "0")
    assert again["resumed"] == again["positions"] == source["positions"]


def test_reach_counts_the_moves_a_line_plays_from_book_positions(tmp_path: Path) -> None:
    """tools.book.reach: a line leaves the book at the first position it lacks, whether
    the book holds that position as it is or by an image."""
    from tools.book import reach

    book = Book.read(OTHELLO, write_book(tmp_path / "book.jsonl", BOOK))
    # It holds the start and the position after f5 (and its images after e6 and d3), not
    # that after f5 d6 (nor its images after e6 f4 and d3 c5).
    lines = [("f5", "d6", "c3"), ("f5", "f6", "e6"), ("e6", "f4", "c3"), ("d3", "c5", "f6"), ("f5",), ()]
    assert reach(OTHELLO, book, lines) == [2, 2, 2, 2, 1, 0]
    assert reach(OTHELLO, Book(OTHELLO, {}), [("f5", "d6")]) == [0]


def test_reading_the_entries_of_some_boards_alone_finds_what_the_whole_read_finds(tmp_path: Path) -> None:
    """`Book.read(only=...)` (and through it `book_moves_at`): the entries of those boards,
    the file's last line without its newline included, a broken line among them left
    out; a board the book lacks finds nothing."""
    last = {"board": board_after("f5", "d6"), "depth": 10, "moves": [{"move": "c3", "score": 5}]}
    path = write_book(tmp_path / "othello.jsonl", [*VARIED, '{"board": "broken', last], book_format=2)
    path.write_text(path.read_text().rstrip("\n"))
    whole = Book.read(OTHELLO, path)
    for moves in ((), ("f5",), ("f5", "d6"), ("d3",), ("d3", "c5")):
        position = OTHELLO.initial_state({})
        for move in moves:
            position = position.play(OTHELLO.parse_move(position, move))
        images = {OTHELLO.format_board(image) for image, _ in OTHELLO.board_images(position)}
        assert Book.read(OTHELLO, path, only=images).moves(position) == whole.moves(position), moves
    assert whole.moves(OTHELLO.parse_board(board_after("f5", "d6").split()))
    assert len(Book.read(OTHELLO, path, only={board_after("f5", "d6", "c3")})) == 0
