"""The CodinGame bot's own move (`adapters.bot.own`), where the engine gives none in
time: the opening book's best move in a book position (or an image of it), the engine's
search run interpreted elsewhere."""

from __future__ import annotations

import random
import time

from adapters.bot.own import OwnMove, OwnSearch
from daemon.book import load_book
from games import find_game

OTHELLO = find_game("othello")


def own_move(own: OwnSearch, state, seconds: float = 0.3) -> OwnMove:
    legal = sorted(OTHELLO.format_move(state, move) for move in state.legal_moves())
    move = OwnMove(own, state, legal)
    move.work(time.monotonic() + seconds)
    return move


def test_a_book_position_gets_the_books_best_move_and_its_images_too() -> None:
    book = load_book(OTHELLO).result(60)
    own = OwnSearch(OTHELLO)
    start = OTHELLO.initial_state({})
    for first in ("f5", "c4", "d3", "e6"):  # the four images of one opening
        state = start.play(OTHELLO.parse_move(start, first))
        move = own_move(own, state)
        assert move.best == book.moves(state)[0].text and move.from_book and move.done
        assert move.describe() == "from the opening book"
    assert not own.out_of_book


def test_off_the_book_the_own_move_is_searched_and_the_book_is_not_read_again() -> None:
    own = OwnSearch(OTHELLO)
    rng = random.Random(5)
    state = OTHELLO.initial_state({})
    for _ in range(24):
        state = state.play(rng.choice(state.legal_moves()))
    assert not load_book(OTHELLO).result(60).moves(state)
    move = own_move(own, state)
    assert not move.from_book and move.depth >= 1 and "deep in the adapter" in move.describe()
    assert own.out_of_book
    # A book position later in the game is not looked up: the book is left for the game.
    after_f5 = OTHELLO.initial_state({}).play(OTHELLO.parse_move(OTHELLO.initial_state({}), "f5"))
    assert not own_move(own, after_f5, 0.05).from_book


def test_a_game_without_a_book_searches() -> None:
    clobber = find_game("clobber")
    own = OwnSearch(clobber)
    state = clobber.initial_state({})
    legal = sorted(clobber.format_move(state, move) for move in state.legal_moves())
    move = OwnMove(own, state, legal)
    move.work(time.monotonic() + 0.3)
    assert not move.from_book and move.depth >= 1 and own.out_of_book
