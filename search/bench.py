"""The bench: fixed-depth searches of a game's bench positions with an empty table.

Its node count is a signature of search and evaluation behaviour, pinned per game.
"""

from __future__ import annotations

import time

import attrs

from games.base import Game
from search import new_searcher
from search.limits import StopSignal
from search.tt import TranspositionTable

#: Table size for the bench: large enough that replacement does not depend on it much.
BENCH_HASH_BYTES = 16 << 20


@attrs.frozen
class BenchResult:
    nodes: int
    seconds: float

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


def run_bench(game: Game, depth: int | None = None, new_table=TranspositionTable,
              searcher=new_searcher) -> BenchResult:
    """Search every bench position of `game` to `depth` (default: its bench depth), each
    with a fresh table; `new_table(name, key_scheme, bytes)` and `searcher(game, table)`
    choose the core (default: the reference)."""
    total = 0
    elapsed = 0.0
    for text in game.bench_positions:
        state = game.parse_board(text.split())
        table = new_table(game.name, game.key_scheme, BENCH_HASH_BYTES)
        stop = StopSignal()
        stop.arm(None, None, depth or game.bench_depth)
        started = time.perf_counter()
        final = list(searcher(game, table).search(state, stop))[-1]
        elapsed += time.perf_counter() - started
        total += final.nodes
    return BenchResult(total, elapsed)
