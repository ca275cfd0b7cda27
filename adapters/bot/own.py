"""The adapter's own move, where the engine gives none in time (it is starting, gone,
late, or answers what the referee would not take): the engine's own search
(`search.new_searcher`), run interpreted in the adapter's process, for the time the turn
leaves. The adapter never loads compiled code (its start must fit the first turn), so
this search is the engine's Python core: tens of thousands of nodes a second, two to
five plies in most games' openings in 60 ms, more as the board empties, and it proves
short wins.

In a position of the engine's opening book the own move is the book's best, as the
engine would answer (`daemon.book.book_moves_at` reads the book's file for that position
alone, in milliseconds): the turns an engine still starting leaves to the adapter are the
game's first, where a shallow search chooses worst. Once a position is off the book, the
book is not read again in the game.

The searcher and its table (OWN_TABLE_BYTES) are made at the first need and kept for
the game, so that the table carries from turn to turn as the engine's does."""

from __future__ import annotations

import time

from games.base import Game, Position

#: The own search's transposition table (bytes).
OWN_TABLE_BYTES = 4 << 20


class OwnSearch:
    """The interpreted searcher of one game, made at its first use."""

    def __init__(self, game: Game):
        self.game = game
        self._searcher = None
        #: Whether a position of this game was found off the book.
        self.out_of_book = False

    def book_move(self, state: Position, legal: list[str]) -> str | None:
        """The book's best move in `state` where it is one of `legal`, else None."""
        if self.out_of_book:
            return None
        from daemon.book import book_moves_at  # only in a game that needs it

        listed = book_moves_at(self.game, state)
        self.out_of_book = not listed
        return listed[0].text if listed and listed[0].text in legal else None

    def searcher(self):
        if self._searcher is None:
            from search import new_searcher  # 30 ms, and only in a game that needs it
            from search.tt import TranspositionTable

            table = TranspositionTable(self.game.name, self.game.rules.KEY_SCHEME, OWN_TABLE_BYTES)
            self._searcher = new_searcher(self.game, table, compiled=False)
        return self._searcher


class OwnMove:
    """The adapter's own move in a position, worked out as time allows: `best` is the
    move of the deepest iteration of `OwnSearch` finished so far (of `legal`, the
    engine's tokens of the referee's moves), the first legal move before any. `work` may
    be called again with a later deadline: the search starts again from its table."""

    def __init__(self, own: OwnSearch, state: Position, legal: list[str]):
        self.best = legal[0]
        self.depth = 0
        self._own, self._state, self._legal = own, state, legal
        self.proven = False
        self.from_book = False

    @property
    def done(self) -> bool:
        return self.proven or self.from_book or len(self._legal) == 1

    def work(self, deadline: float) -> None:
        """Take the book's move where the book has one; else search until `deadline`
        (time.monotonic), the search proves the result, or MAX_PLY, keeping the deepest
        finished iteration's move that is one of `legal`."""
        if self.done or time.monotonic() >= deadline:
            return
        if self.depth == 0:
            booked = self._own.book_move(self._state, self._legal)
            if booked is not None:
                self.best, self.from_book = booked, True
                return
        from search.limits import StopSignal

        searcher = self._own.searcher()
        stop = StopSignal()
        stop.arm(int(deadline * 1e9), None, None)  # time.monotonic_ns()'s scale
        game = self._own.game
        for report in searcher.search(self._state, stop):
            if report.pv and report.depth >= max(self.depth, 1):
                token = game.format_move(self._state, report.pv[0])
                if token in self._legal:
                    self.best, self.depth = token, report.depth
                    self.proven = game.num_players == 2 and report.final and report.mate_in is not None

    def describe(self) -> str:
        """How `best` was chosen, for the log."""
        if self.from_book:
            return "from the opening book"
        if self.depth == 0:
            return "no search iteration finished in time: the first legal move"
        proven = ", the result proven" if self.proven else ""
        return f"searched {self.depth} {'ply' if self.depth == 1 else 'plies'} deep in the adapter{proven}"
