"""Opening books: reading a book file carefully, and the engine answering from its book
through the protocol (a real engine process, its book in $ENGINE_BOOK_DIR)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from daemon.book import Book
from games import find_game
from protocol.client import Engine
from tests.conftest import engine_command, run

OTHELLO = find_game("othello")
START = OTHELLO.format_board(OTHELLO.initial_state({}))


def board_after(*moves: str) -> str:
    position = OTHELLO.initial_state({})
    for move in moves:
        position = position.play(OTHELLO.parse_move(position, move))
    return OTHELLO.format_board(position)


def write_book(path: Path, entries: list[dict], game: str = "othello") -> Path:
    lines = [json.dumps({"format": 1, "game": game, "source": {"test": True}})]
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
    assert len(book) == 2
    entry = book.probe(OTHELLO.initial_state({}))
    assert entry is not None and (entry.text, entry.score, entry.depth) == ("f5", 4, 20)
    assert book.probe(OTHELLO.parse_board(board_after("f5", "d6").split())) is None
    assert book.source == {"test": True}


def test_no_file_is_an_empty_book(tmp_path: Path) -> None:
    assert len(Book.read(OTHELLO, tmp_path / "missing.jsonl")) == 0


@pytest.mark.parametrize(("header", "why"), [
    ("", "not a book file"),
    ('{"format": 2, "game": "othello"}', "not a book file"),
    ('{"format": 1, "game": "clobber"}', "a book of 'clobber'"),
])
def test_a_file_that_is_not_this_games_book_is_refused(tmp_path: Path, header: str, why: str) -> None:
    path = tmp_path / "book.jsonl"
    path.write_text(header + "\n")
    with pytest.raises(ValueError, match=why):
        Book.read(OTHELLO, path)


def engine_with_book(folder: Path):
    write_book(folder / "othello.jsonl", BOOK)
    environment = dict(os.environ, ENGINE_BOOK_DIR=str(folder))
    return Engine.popen(engine_command(), env=environment)


def test_the_engine_plays_its_book_when_it_plays_and_searches_when_it_analyses(tmp_path: Path) -> None:
    async def scenario() -> None:
        engine = await engine_with_book(tmp_path)
        try:
            await engine.send("setgame othello")
            await engine.send("position startpos")
            lines = await engine.ask("go movetime 100", "bestmove")
            assert lines == ["info string book f5 score 4 depth 20", "bestmove f5 ponder d6"]
            # Analysis searches: no book.
            lines = await engine.ask("go depth 2", "bestmove")
            assert not any("book" in line for line in lines)
            assert any(line.startswith("info depth 2") for line in lines)
            # Off the book: a search.
            await engine.send("position startpos moves f5 d6")
            lines = await engine.ask("go movetime 50", "bestmove")
            assert not any("book" in line for line in lines)
            # OwnBook false: a search, even on a book position.
            await engine.send("setoption name OwnBook value false")
            await engine.send("position startpos")
            lines = await engine.ask("go movetime 50", "bestmove")
            assert not any("book" in line for line in lines)
        finally:
            await engine.close()

    run(scenario())


def test_a_ponder_search_on_a_book_position_answers_at_ponderhit(tmp_path: Path) -> None:
    async def scenario() -> None:
        engine = await engine_with_book(tmp_path)
        try:
            await engine.send("setgame othello")
            await engine.send("position startpos moves f5")
            await engine.send("go ponder movetime 100")
            assert await engine.ready() == ["info string book d6 score -3 depth 19"]
            lines = await engine.ask("ponderhit", "bestmove")
            assert lines == ["bestmove d6"]
        finally:
            await engine.close()

    run(scenario())
