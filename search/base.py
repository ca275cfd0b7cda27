"""What every search shares: the report it yields, score bounds, the abort signal, the
order of MultiPV lines."""

from __future__ import annotations

import attrs

#: The score of a win at the root; a win in n plies scores MATE - n.
MATE = 1_000_000
#: Scores beyond this are proven wins or losses.
MATE_BOUND = MATE - 1000
INFINITY = MATE + 1
MAX_PLY = 128
#: The search polls its stop signal every POLL_MASK + 1 nodes (a power of two).
POLL_MASK = 31


def best_first(lines: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """MultiPV lines of one iteration, (score, root move) each, best first; lines of equal
    score keep the order they were searched in.

    Each line's score is exact for its own full-window search, but the searches share a
    warm table whose entries of other depths can bound one line's moves differently from
    another's: a line searched after the first can score above it. Its own search is the
    better evidence, so the lines are reported, and the best one played, in score order."""
    return sorted(lines, key=lambda line: -line[0])


class Aborted(Exception):
    """Raised inside the tree when the stop signal fires; caught at the root."""


@attrs.frozen
class SearchReport:
    """What a search knows after an iteration (or at the end, `final`).

    Attributes:
        depth: the last completed iteration.
        seldepth: the deepest ply reached.
        score: the value for the side to move at the root, in the game's centi-units;
            beyond MATE_BOUND in absolute value it encodes a proven result.
        nodes: nodes visited so far in this search.
        elapsed_ms: wall time since the search started.
        hashfull: transposition table use, per mille.
        pv: the principal variation, best move first; empty when the root has no move.
        final: True on the last report of the search.
        margin: the exact final margin (e.g. disc difference) for the side to move when
            the endgame solver has proved it, else None.
        others: with MultiPV, the next best root moves' lines of the same iteration, best
            first, each (its exact score, its principal variation).
    """

    depth: int
    seldepth: int
    score: int
    nodes: int
    elapsed_ms: int
    hashfull: int
    pv: tuple[int, ...]
    final: bool = False
    margin: int | None = None
    others: tuple[tuple[int, tuple[int, ...]], ...] = ()

    @property
    def mate_in(self) -> int | None:
        """Moves (of the side to move) to a proven win, negative for a proven loss."""
        if self.score > MATE_BOUND:
            return (MATE - self.score + 1) // 2
        if self.score < -MATE_BOUND:
            return -((MATE + self.score) // 2)
        return None
