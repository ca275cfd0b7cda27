"""The compiled three-player searches against `search.multiplayer`: at fixed depths, with
node budgets and over consecutive searches sharing a table, both cores report the same
depths, scores, moves, lines and node counts."""

from __future__ import annotations

import random
import threading
import time

import pytest

pytest.importorskip("numba")

from compiled.isolation import kernels as K  # noqa: E402
from compiled.isolation import search as S  # noqa: E402
from compiled.isolation.driver import CompiledMultiPlayerSearch  # noqa: E402
from compiled.table import ArrayTable  # noqa: E402
from games.isolation import GAME  # noqa: E402
from games.isolation.fixtures import BENCH_POSITIONS  # noqa: E402
from search.limits import StopSignal  # noqa: E402
from search.multiplayer import ALGORITHMS, MultiPlayerSearch  # noqa: E402
from search.perft import perft  # noqa: E402
from search.tt import TranspositionTable  # noqa: E402

SLOTS = 1 << 12


@pytest.fixture(autouse=True, scope="module")
def loaded() -> None:
    from compiled import runtime

    runtime.warm(GAME)


def tables(slots: int = SLOTS) -> tuple[TranspositionTable, ArrayTable]:
    reference = TranspositionTable(GAME.name, GAME.key_scheme, slots * 96)
    compiled = ArrayTable(GAME.name, GAME.key_scheme, slots * 16)
    assert reference.slots == compiled.slots == slots
    return reference, compiled


def playout_positions(seed: int, count: int) -> list:
    """Positions from random games: openings, middle games, eliminations, endgames."""
    rng = random.Random(seed)
    positions = []
    while len(positions) < count:
        state = GAME.initial_state({"seed": str(rng.randrange(1 << 32))})
        line = []
        while state.legal_moves():
            line.append(state)
            state = state.play(rng.choice(state.legal_moves()))
        positions += rng.sample(line, min(3, len(line)))
    return positions[:count]


POSITIONS = ([GAME.initial_state({})] + [GAME.parse_board(text.split()) for text in BENCH_POSITIONS]
             + playout_positions(9, 8))


def reports(searcher, state, depth=None, budget=None):
    stop = StopSignal()
    stop.arm(None, budget, depth)
    return [(r.depth, r.seldepth, r.score, r.nodes, r.pv, r.final) for r in searcher.search(state, stop)]


def check_same(algorithm: str, state, depth=None, budget=None, slots: int = SLOTS) -> None:
    reference_table, compiled_table = tables(slots)
    expected = reports(MultiPlayerSearch(GAME, reference_table, algorithm), state, depth, budget)
    got = reports(CompiledMultiPlayerSearch(GAME, compiled_table, algorithm), state, depth, budget)
    assert got == expected, (algorithm, GAME.format_board(state), depth, budget)
    assert compiled_table.entries() == reference_table.entries()


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_fixed_depths_match_the_reference(algorithm: str) -> None:
    depth = {"paranoid": 6, "brs": 5, "maxn": 4}[algorithm]
    for state in POSITIONS:
        check_same(algorithm, state, depth)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_node_budgets_stop_both_at_the_same_node(algorithm: str) -> None:
    for state, budget in zip(POSITIONS[:4], (40, 100, 333, 1000)):
        check_same(algorithm, state, None, budget)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_small_table_replaces_alike(algorithm: str) -> None:
    for state in POSITIONS[:3]:
        check_same(algorithm, state, 6 if algorithm != "maxn" else 4, slots=64)


def test_consecutive_searches_share_the_table() -> None:
    """Entries of earlier searches (older generations) steer later ones alike."""
    reference_table, compiled_table = tables(256)
    reference = MultiPlayerSearch(GAME, reference_table, "paranoid")
    compiled = CompiledMultiPlayerSearch(GAME, compiled_table, "paranoid")
    state = GAME.initial_state({"seed": "5"})
    for _ in range(6):
        expected = reports(reference, state, 5)
        assert reports(compiled, state, 5) == expected
        state = state.play(expected[-1][4][0])
    assert sorted(compiled_table.pairs()) == sorted(reference_table.pairs())


def test_finished_and_forced_positions() -> None:
    cells = {0: "r", 63: "g", 36: "b", 10: ".", 46: "."}
    rows = ["".join(cells.get(rank * 8 + file, "#") for file in range(8)) for rank in range(7, -1, -1)]
    state = GAME.parse_board(["/".join(rows), "g", "alive=rg"])
    while True:
        for algorithm in ALGORITHMS:
            check_same(algorithm, state, 4)
        if not state.legal_moves():
            break
        state = state.play(state.legal_moves()[0])


def test_stopped_and_expired_searches_answer_alike() -> None:
    """A search stopped or past its deadline before it starts still completes depth 1
    (which answers only to `stop` at its polls) and answers with it."""
    state = GAME.initial_state({"seed": "8"})
    for algorithm in ALGORITHMS:
        results = []
        for searcher_class, table in zip((MultiPlayerSearch, CompiledMultiPlayerSearch), tables()):
            for stopped in (True, False):
                stop = StopSignal()
                if stopped:
                    stop.stop()
                else:
                    stop.arm(time.monotonic() - 1, None, None)
                results.append([(r.depth, r.score, r.nodes, r.pv, r.final)
                                for r in searcher_class(GAME, table, algorithm).search(state, stop)])
        assert results[:2] == results[2:]
        assert results[0][-1][0] == 1 and results[0][-1][4]


def test_a_stop_from_another_thread_ends_the_search() -> None:
    _, table = tables(1 << 16)
    stop = StopSignal()
    reports_seen = []

    def search() -> None:
        searcher = CompiledMultiPlayerSearch(GAME, table, "paranoid")
        reports_seen.extend(searcher.search(GAME.initial_state({}), stop))

    thread = threading.Thread(target=search)
    thread.start()
    time.sleep(0.3)
    stop.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert reports_seen[-1].final and reports_seen[-1].pv


def test_perft() -> None:
    state = GAME.initial_state({"seed": "3"})
    assert S.perft(K.pack(state), 5) == perft(state, 5)


def test_only_an_array_table() -> None:
    reference_table, _ = tables()
    with pytest.raises(ValueError):
        CompiledMultiPlayerSearch(GAME, reference_table, "paranoid")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        CompiledMultiPlayerSearch(GAME, tables()[1], "minimax")


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_deeper_searches_match_the_reference(algorithm: str) -> None:
    depth = {"paranoid": 8, "brs": 7, "maxn": 6}[algorithm]
    for state in POSITIONS + playout_positions(21, 12):
        check_same(algorithm, state, depth, slots=1 << 14)


def test_every_compiled_function_has_one_signature() -> None:
    """Numba's cache cannot reload a recursive function compiled for two signatures."""
    from compiled import runtime

    runtime.warm(GAME)
    functions = [S._perft, S._paranoid, S._brs, S._maxn, S.paranoid_root, S.brs_root, S.maxn_root,
                 K.legal_moves, K.moves_for, K.play, K.play_for, K.returns, K.evaluate, K._longest]
    for function in functions:
        assert len(function.signatures) <= 1, function
