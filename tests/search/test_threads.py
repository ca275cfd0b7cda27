"""Threads: searches of several threads over one shared table. Entries stay whole under
concurrent stores, and searches of two threads play legal moves and prove what one
thread proves, in every game and every search that shares a table."""

from __future__ import annotations

import random
import threading

import numpy as np
import pytest

from games import all_games, find_game
from games.kernel import COMPILING, kernel
from search import new_searcher
from search.limits import StopSignal
from search.solver import _bucket, _store, new_solver_table
from search.tt import BUSY_SHIFT, EXACT, TranspositionTable, entry_value, tt_busy, tt_claim, tt_probe, tt_store, tt_unmark
from tests.conftest import DATA

pytestmark = pytest.mark.skipif(not COMPILING, reason="threads search in parallel only when compiled")

#: Keys of a small key space, for a table of a few slots: every store collides.
KEYS = np.arange(1, 65, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
ROUNDS = 10_000_000


@kernel
def _hammer(cells, thread, rounds, keys):
    """Store entries whose value is a function of their key, and probe others, `rounds`
    times; the number of probes that found an entry of another key's value."""
    torn = 0
    for r in range(rounds):
        stored = keys[(r * 7 + thread * 3) % len(keys)]
        tt_store(cells, stored, np.int64(0), np.int64(EXACT), np.int64(stored % np.uint64(1000)),
                 np.int64(thread * 1000 + r % 1000), np.int64(0))
        probed = keys[(r * 13 + thread) % len(keys)]
        entry = tt_probe(cells, probed)
        if entry != 0 and entry_value(entry) != np.int64(probed % np.uint64(1000)):
            torn += 1
    return torn


def _two_threads(hammer) -> int:
    """Torn probes of `hammer` run by two threads at once over one table of 8 slots."""
    cells = np.zeros((8, 2), dtype=np.uint64)
    hammer(cells, 0, 1, KEYS)  # loaded before the threads start
    counts = [0, 0]

    def run(thread: int) -> None:
        counts[thread] = hammer(cells, thread, ROUNDS, KEYS)

    threads = [threading.Thread(target=run, args=(thread,)) for thread in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts)


def test_concurrent_stores_never_leave_a_torn_entry() -> None:
    assert _two_threads(_hammer) == 0


def test_a_torn_entry_is_refused_by_its_check_word() -> None:
    """The control of the test above, made without a race: the slot that stores of keys
    `a` and `b` leave when their writes interleave, `b`'s first word with `a`'s second.
    A table of plain keys would take it for `b`'s entry with `a`'s value; the check word
    refuses it for both keys, where each store alone is found."""
    mask = np.uint64(7)
    a = KEYS[0]
    b = next(key for key in KEYS[1:] if key & mask == a & mask)
    slots = {}
    for key in (a, b):
        cells = np.zeros((8, 2), dtype=np.uint64)
        value = key % np.uint64(1000)
        tt_store(cells, key, np.int64(0), np.int64(EXACT), np.int64(value), np.int64(0), np.int64(0))
        assert entry_value(tt_probe(cells, key)) == value
        slots[int(key)] = cells[int(key & mask)]
    torn = np.zeros((8, 2), dtype=np.uint64)
    torn[int(a & mask)] = (slots[int(b)][0], slots[int(a)][1])
    assert tt_probe(torn, a) == 0 and tt_probe(torn, b) == 0


def test_a_full_solver_table_still_takes_the_threads_marks() -> None:
    """The solver's table keeps its exact bounds from one search to the next, so it is
    full soon: its busy area holds no entries, so that the threads still share the tree
    out (with marks among the entries, two threads on FFO #40-#46 visited 40% more
    nodes than one, not 10%)."""
    table = new_solver_table(1 << 20)
    area = len(table) >> BUSY_SHIFT
    positions = np.arange(1, 4 * len(table), dtype=np.int64) * np.int64(0x2545F4914F6CDD1D)
    for position in positions:
        _store(table, _bucket(table, position), position, np.int64(-2), np.int64(4), np.int64(7), np.int64(3))
    assert not table[-area:].any(), "no entry in the busy area"
    assert table[:-area, 3].all(), "every other slot filled"
    for position in positions[:100:7]:
        mark = position ^ np.int64(0x5A5A)
        assert tt_claim(table, mark, True) and tt_busy(table, mark), "a free move is claimed"
        assert not tt_claim(table, mark, True), "another thread defers it"
        tt_unmark(table, mark)
        assert not tt_busy(table, mark)


def _searcher(game, threads: int):
    searcher = new_searcher(game, TranspositionTable(game.name, game.rules.KEY_SCHEME, 1 << 22))
    searcher.set_threads(threads)
    return searcher


@pytest.mark.parametrize("name", sorted(all_games()))
def test_two_threads_search_legal_moves_in_every_game(name: str) -> None:
    game = find_game(name)
    for text in game.fixtures.BENCH_POSITIONS[:2]:
        root = game.parse_board(tuple(text.split()))
        searcher = _searcher(game, 2)
        stop = StopSignal()
        stop.max_depth = game.fixtures.BENCH_DEPTH + 1
        reports = list(searcher.search(root, stop))
        final = reports[-1]
        assert final.final and final.pv[0] in root.legal_moves()
        assert final.depth == stop.max_depth
        # The helper searched too, and its nodes count in the report.
        assert searcher.helper_nodes > 0
        assert final.nodes > searcher.nodes


def _endgames(name: str) -> list:
    """Three positions of `name` the solver proves in a moment: FFO #1-#3 (14 empty
    squares) for Othello, else positions of 24 stones reached by seeded random play."""
    game = find_game(name)
    if name == "othello":
        text = (DATA / game.fixtures.SOLVE_SUITE_FOLDER / "fforum-1-19.obf").read_text()
        return [game.parse_board(tuple(board.split())) for _, board, _ in game.fixtures.read_suite(text, 1)[:3]]
    chance = random.Random(26)
    positions = []
    while len(positions) < 3:
        position = game.initial_state({})
        while position.legal_moves() and (int(position.s[0]) | int(position.s[1])).bit_count() > 24:
            position = position.play(chance.choice(position.legal_moves()))
        if position.legal_moves():
            positions.append(position)
    return positions


@pytest.mark.parametrize("name", ["othello", "clobber"])
def test_two_threads_prove_what_one_proves(name: str) -> None:
    game = find_game(name)
    for root in _endgames(name):
        one = list(_searcher(game, 1).prove(root, StopSignal()))[-1]
        searcher = _searcher(game, 2)
        two = list(searcher.prove(root, StopSignal()))[-1]
        assert (two.margin, two.score > 0, two.score < 0) == (one.margin, one.score > 0, one.score < 0)
        assert two.pv[0] in root.legal_moves()
        assert searcher.helper_nodes > 0


def test_a_stop_ends_every_thread() -> None:
    game = find_game("clobber")
    searcher = _searcher(game, 2)
    stop = StopSignal()
    reports = searcher.search(game.initial_state({}), stop)
    assert not next(reports).final
    stop.stop()
    final = list(reports)[-1]
    assert final.final and final.pv
    # The helpers were stopped with the search, not left running: their node counts
    # stay as they are.
    nodes = searcher.helper_nodes
    threading.Event().wait(0.05)
    assert searcher.helper_nodes == nodes
