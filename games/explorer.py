"""Opening explorers: the moves a game's expert games played from a position, how often
and with what result, from an index of those games; found in the game's own
`games.<name>.explorer` module where it has one (a game without one has no explorer).

Such a module holds:

    FILES          a glob naming the files of expert games in a folder
    INDEX_FORMAT   a text naming the index's layout and bounds: saved indexes of another
                   format are not read
    source_files(folder) -> list[Path]
                   the files of `folder` an index is built from, sorted
    build_index(folder) -> index
                   the index of the games of `folder`; raises ValueError where its files
                   are not the format's (or there are none), OSError where they cannot
                   be read
    index_of(arrays) -> index
                   the index saved as its `arrays()` (a mapping of names to numpy
                   arrays); raises ValueError where they are not a whole, consistent
                   index of INDEX_FORMAT: a saved file is checked, never trusted

and an index has `arrays()` (a dict of numpy arrays, no objects: what `index_of` takes
back), `games` and `files` (what it was built from), `last_ply` (the last ply whose
positions it holds) and `explore(board)`, the `Exploration` of a board text as the
engine prints it (raising a GameError, a ValueError, for a text that is no board of the
game).
"""

from __future__ import annotations

from types import ModuleType

import attrs

from games import game_part


@attrs.frozen
class ExploredMove:
    """A move the expert games played from a position: its text (the game's notation),
    the games that played it, the sum of the first player's (black's) final disc margins
    in them, and that player's points in them, halves counted (2 a win, 1 a draw)."""

    move: str
    games: int
    black_margin_sum: int
    black_half_points: int

    @property
    def black_average(self) -> float:
        """Black's average final margin in the games that played it."""
        return self.black_margin_sum / self.games

    @property
    def black_score(self) -> float:
        """Black's score in them, from 0 (every game lost) to 1 (every game won)."""
        return self.black_half_points / (2 * self.games)


@attrs.frozen
class Exploration:
    """What an index knows of a position: its ply (moves played to reach it), the
    index's last ply, the games that reached it, their moves from there (most played
    first) and the games whose record ends there. A position past the last ply is one
    the index does not hold, whether games reached it or not (`past`); one within it
    and reached by no game has no games."""

    ply: int
    last_ply: int
    games: int = 0
    moves: tuple[ExploredMove, ...] = ()
    ended: int = 0

    @property
    def past(self) -> bool:
        """Whether the position lies past the index's last ply (the index cannot say)."""
        return self.ply > self.last_ply


def game_explorer(game: str) -> ModuleType | None:
    """The `explorer` module of `game` (see the module docstring), None where it has
    none."""
    return game_part(game, "explorer")
