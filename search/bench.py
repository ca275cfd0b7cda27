"""The bench: fixed-depth searches of a game's bench positions with an empty table.

Its node count is a signature of search and evaluation behaviour, pinned per game.
"""

from __future__ import annotations

import time

import attrs

from games.base import Game
from games.kernel import COMPILING
from search import new_searcher
from search.limits import StopSignal
from search.specialised import ready_searches
from search.tt import TranspositionTable

#: Table size for the bench (131,072 slots): large enough that replacement does not
#: depend on it much. The pinned node counts were measured with this many slots.
BENCH_HASH_BYTES = 2 << 20


@attrs.frozen
class BenchResult:
    nodes: int
    seconds: float

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


def run_bench(game: Game, depth: int | None = None, compiled: bool = COMPILING) -> BenchResult:
    """Search every bench position of `game` to `depth` (default: its bench depth), each
    with a fresh table, its kernels compiled (loaded before the clock starts) or
    interpreted."""
    total = 0
    elapsed = 0.0
    for text in game.bench_positions:
        state = game.parse_board(text.split())
        table = TranspositionTable(game.name, game.key_scheme, BENCH_HASH_BYTES)
        table.cells.fill(0)  # the pages mapped now, not during the timed search
        searcher = new_searcher(game, table, compiled=compiled)
        ready_searches(game, compiled)
        stop = StopSignal()
        stop.arm(None, None, depth or game.bench_depth)
        started = time.perf_counter()
        final = list(searcher.search(state, stop))[-1]
        elapsed += time.perf_counter() - started
        total += final.nodes
    return BenchResult(total, elapsed)
