"""engine-gui's opening explorer (`adapters.gui.explorer`): its messages for the page,
checked against counts made here from the WTHOR files' raw bytes and against the
opening book; its index built once in a thread and cached, a cache file read back
only when whole, built again otherwise; its requests bounded.

The whole database (/work/shared/data/othello-games) is indexed and saved once for the
module: about 5 seconds (2 to 3 to build, 2 to compress)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import numpy as np
import pytest

from adapters.gui.explorer import MAX_BOARD, Explorer, checked_request
from daemon.book import book_moves_at
from games import find_game
from games.othello import explorer as game_explorer
from tests.conftest import EXPERT_GAMES
from tests.games.test_othello_training import random_game, write_games

OTHELLO = find_game("othello")
FOLDER = EXPERT_GAMES


def board_after(names) -> str:
    position = OTHELLO.initial_state({})
    for name in names:
        position = position.play(OTHELLO.parse_move(position, name))
    return OTHELLO.format_board(position)


def ask(explorer: Explorer, board: str, game: str = "othello", seq: object = 1) -> list[dict]:
    """Every message `Explorer.answers` gives for the request."""
    async def collect() -> list[dict]:
        return [message async for message in explorer.answers({"seq": seq, "game": game, "board": board})]
    return asyncio.run(collect())


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> tuple[Explorer, list[dict], float]:
    """An explorer of the whole database, its first answer's messages and how long
    they took."""
    if not FOLDER.is_dir():
        pytest.skip(f"the WTHOR database is not at {FOLDER}")
    explorer = Explorer(FOLDER, tmp_path_factory.mktemp("explorer-cache"))
    started = time.perf_counter()
    messages = ask(explorer, board_after(["f5", "d6"]))
    return explorer, messages, time.perf_counter() - started


def test_the_first_request_says_the_index_is_being_built_then_answers(whole) -> None:
    explorer, messages, seconds = whole
    print(f"indexed and saved in {seconds:.2f} s")
    files = len(list(FOLDER.glob("WTH_*.wtb")))
    if len(messages) == 2:  # the build took longer than READ_WAIT_S, as it does
        assert messages[0]["note"] == f"building the index from {files} files…" and messages[0]["moves"] == []
    assert messages[-1]["note"] is None and messages[-1]["games"] > 0
    assert explorer.builds == 1
    saved = list(explorer.cache_folder.glob("othello-*.npz"))
    assert len(saved) == 1 and saved[0].stat().st_size < 30e6


def test_after_f5_d6_the_moves_are_the_files_with_the_books_values(whole) -> None:
    explorer = whole[0]
    board = board_after(["f5", "d6"])
    [message] = ask(explorer, board, seq=7)
    records = np.concatenate([np.frombuffer(path.read_bytes()[16:], dtype=np.uint8).reshape(-1, 68)
                              for path in sorted(FOLDER.glob("WTH_*.wtb"))])
    selected = records[(records[:, 8] == 56) & (records[:, 9] == 64)]
    assert (message["type"], message["seq"], message["game"], message["board"]) == ("explorer", 7, "othello", board)
    assert (message["games"], message["ply"], message["last_ply"]) == (len(selected), 2, game_explorer.LAST_PLY)
    expected = {}
    for code in np.unique(selected[:, 10]).tolist():
        margins = 2 * selected[selected[:, 10] == code, 6].astype(np.int64) - 64
        name = "abcdefgh"[code % 10 - 1] + str(code // 10)
        expected[name] = (len(margins), round(float(margins.mean()), 2),
                          round(float(((margins > 0) + 0.5 * (margins == 0)).mean()), 4))
    assert {entry["move"]: (entry["games"], entry["black_average"], pytest.approx(entry["black_score"], abs=1e-4))
            for entry in message["moves"]} == expected
    games = [entry["games"] for entry in message["moves"]]
    assert games == sorted(games, reverse=True)
    book = book_moves_at(OTHELLO, OTHELLO.parse_board(board.split()))
    assert book and message["book"] == [{"move": entry.text, "value": entry.score, "depth": entry.depth}
                                        for entry in book]
    values = {entry.text: entry.score for entry in book}
    assert all(entry["book"] == values.get(entry["move"]) for entry in message["moves"])
    assert any(entry["book"] is not None for entry in message["moves"])


def test_no_game_reached_and_past_the_last_ply_are_said(whole) -> None:
    explorer = whole[0]
    [start] = ask(explorer, board_after([]))
    assert start["games"] == 137_548 and [entry["move"] for entry in start["moves"]] == ["f5"]
    # Down the most played line to a position one of whose legal moves leads where no
    # game went (a move none played may lead to a position they reached otherwise: d3
    # from the start is f5 turned). Othello's own tests find such positions from the
    # files' bytes alone.
    line, never = [], None
    while never is None:
        position = OTHELLO.parse_board(board_after(line).split())
        [reached] = ask(explorer, board_after(line))
        for move in position.legal_moves():
            [child] = ask(explorer, OTHELLO.format_board(position.play(move)))
            if child["games"] == 0:
                never = child
                break
        line.append(reached["moves"][0]["move"])
    assert never["note"] == "no expert game reached this position" and never["moves"] == []
    assert never["ply"] == len(line) and never["last_ply"] == game_explorer.LAST_PLY
    deep = OTHELLO.parse_board(board_after([]).split())
    while (OTHELLO.discs(deep)[0] | OTHELLO.discs(deep)[1]).bit_count() - 4 <= game_explorer.LAST_PLY:
        deep = deep.play(deep.legal_moves()[0])  # a pass adds no disc: plies are counted by the discs
    [past] = ask(explorer, OTHELLO.format_board(deep))
    assert past["note"] == f"past ply {game_explorer.LAST_PLY}, the index's last" and past["moves"] == []


def test_a_game_without_explorer_or_without_a_folder_says_so(tmp_path: Path) -> None:
    clobber = find_game("clobber")
    board = clobber.format_board(clobber.initial_state({}))
    [message] = ask(Explorer(tmp_path, tmp_path / "cache"), board, game="clobber")
    assert message["note"] == "no expert games for clobber" and message["moves"] == [] and message["book"] is None
    [message] = ask(Explorer(None, tmp_path / "cache"), board_after(["f5"]))
    assert message["note"].startswith("no folder of expert games named") and message["book"]
    [message] = ask(Explorer(tmp_path / "none here", tmp_path / "cache"), board_after(["f5"]))
    assert message["note"].startswith("the expert games of othello cannot be read: no WTH_*.wtb file")


def test_an_index_is_built_once_then_read_from_its_cache(tmp_path: Path) -> None:
    games, cache = tmp_path / "games", tmp_path / "cache"
    games.mkdir()
    played = [random_game(seed) for seed in range(4)]
    write_games(games, [(codes, real, 32) for codes, real, _ in played])
    board = board_after([])
    first = Explorer(games, cache)
    answer = ask(first, board)[-1]
    assert first.builds == 1 and answer["games"] == 4 and answer["note"] is None
    [saved] = cache.glob("othello-*.npz")
    written = saved.stat().st_mtime_ns
    second = Explorer(games, cache)
    assert ask(second, board) == [answer] and second.builds == 0 and saved.stat().st_mtime_ns == written
    # A corrupt file, then a foreign one, are built again and replaced.
    for wrong in (b"not an index" * 100, None):
        if wrong is None:
            with saved.open("wb") as handle:
                np.savez(handle, format=np.zeros(3, np.uint8))
        else:
            saved.write_bytes(wrong)
        third = Explorer(games, cache)
        assert ask(third, board)[-1] == answer and third.builds == 1
        assert list(cache.glob("othello-*.npz")) == [saved] and saved.stat().st_size > 1000
    # A changed folder is indexed again; the old cache file goes.
    write_games(games, [(codes, real, 32) for codes, real, _ in played[:3]])
    fourth = Explorer(games, cache)
    assert ask(fourth, board)[-1]["games"] == 3 and fourth.builds == 1
    [again] = cache.glob("othello-*.npz")
    assert again != saved


def test_malformed_requests_are_refused_with_what_is_wrong() -> None:
    good = board_after(["f5"])
    for request, said in [
        ("f5", "is an object"),
        ({"board": good}, "names its game"),
        ({"game": "../othello", "board": good}, "names its game"),
        ({"game": "nosuchgame", "board": good}, "unknown game"),
        ({"game": "othello"}, "board text"),
        ({"game": "othello", "board": "x" * (MAX_BOARD + 1)}, "at most 4096"),
        ({"game": "othello", "board": good + "\n" + good}, "one line"),
        ({"game": "othello", "board": "......../........ 0"}, "not a board of othello"),
    ]:
        with pytest.raises(ValueError, match=said):
            checked_request(request)
    assert checked_request({"game": "othello", "board": "  " + good.replace(" ", "   "), "seq": 3})[2:] == (good, 3)


def test_a_request_cancelled_midway_leaves_the_shared_futures_to_the_next(whole) -> None:
    """A tab cancels its request when a newer one comes: the book and the index, shared
    by every tab, are still there for the next request."""
    import concurrent.futures
    import threading

    from daemon.book import Book, book_path

    def books(game) -> concurrent.futures.Future:
        """The game's book read afresh in a thread, as `daemon.book.load_book` reads it
        once a process: not read yet when the first request is cancelled."""
        future: concurrent.futures.Future = concurrent.futures.Future()
        if not loads:
            threading.Timer(0.2, lambda: future.set_result(Book.read(game, book_path(game)))).start()
            loads.append(future)
        return loads[0]

    loads: list[concurrent.futures.Future] = []
    explorer = Explorer(FOLDER, whole[0].cache_folder, books)

    async def cancelled_then_answered() -> dict:
        first = asyncio.ensure_future(explorer.answer({"seq": 1, "game": "othello", "board": board_after(["f5"])}))
        await asyncio.sleep(0)
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        return await explorer.answer({"seq": 2, "game": "othello", "board": board_after(["f5", "d6"])})

    message = asyncio.run(cancelled_then_answered())
    assert message["seq"] == 2 and message["games"] > 0 and message["book"]
