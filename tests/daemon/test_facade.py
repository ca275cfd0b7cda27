"""The session engine in-process (`daemon.engine.SessionEngine` and its search control,
`daemon.searching`), driven as a session drives it and heard through a listener that
records what it is told: the contracts of `go` and its limits, `stop`, ponder and
`ponderhit`, the watchdog, the book, options, hash tables and files, perft, refusals.

The tests await the listener's events rather than sleep, and check orderings and
contracts, never speed: their timeouts only catch a hang."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from daemon import runner
from daemon.book import load_book
from daemon.engine import Job, SessionEngine
from daemon.hashfiles import HashBudget
from daemon.refusals import BadValue, Busy, NoGame, Stopped
from daemon.runner import run_table_work
from daemon.searching import (
    CLOCK_GRACE_MS,
    GUARD_MS,
    SEARCH_MARGIN_MS,
    Deadlines,
    deadlines,
)
from daemon.session import go_limits
from games import find_game
from games.base import IllegalMoveError, NotationError, Position
from protocol.errors import ProtocolError
from protocol.parse import parse_line
from search.base import SearchReport
from search.limits import Limits
from search.tt import HashFileError
from tests.conftest import perft_records, run

#: How long an awaited event may take before the test calls it a hang.
HANG_S = 120
MS = 1_000_000
#: Clobber, white to move, with no white stone left: no legal move.
NO_MOVE = ("......../......../......../......../......../......../b......./........", "w")
#: Clobber, white to move, wins at once by a8b8: a search of it ends by itself.
PROVEN = ("wb....../......../......../......../......../......../......../.......b", "w")


class Recorder:
    """A `SearchListener` that records every event in order, as (kind, ...) tuples, and
    lets a test await the next one of a kind."""

    def __init__(self) -> None:
        self.events: list[tuple] = []
        self._queue: asyncio.Queue[tuple] = asyncio.Queue()

    def _record(self, *event: object) -> None:
        self.events.append(event)
        self._queue.put_nowait(event)

    def loading(self, waits_for_deadline: bool) -> None:
        self._record("loading", waits_for_deadline)

    def book(self, move) -> None:
        self._record("book", move)

    def threads(self, asked: int, granted: int, reason: str) -> None:
        self._record("threads", asked, granted, reason)

    def report(self, root: Position, report: SearchReport) -> None:
        self._record("report", root, report)

    def answer(self, root: Position, pv: tuple[int, ...], searched: bool) -> None:
        self._record("answer", root, pv, searched)

    async def next(self, kind: str) -> tuple:
        """The next event of `kind` not yet awaited (those of other kinds are passed)."""
        async def take() -> tuple:
            while (event := await self._queue.get())[0] != kind:
                pass
            return event
        return await asyncio.wait_for(take(), HANG_S)

    def of(self, kind: str) -> list[tuple]:
        return [event for event in self.events if event[0] == kind]

    @property
    def reports(self) -> list[SearchReport]:
        return [event[2] for event in self.of("report")]


async def engine_of(game: str, board: tuple[str, ...] = (), **options: object) -> tuple[SessionEngine, Recorder]:
    """A session engine on the Python core with `game` set (at `board`), `options` set
    (by their option names), and its recorder."""
    recorder = Recorder()
    engine = SessionEngine(recorder, budget=HashBudget(256 << 20))
    await run_table_work(engine.set_game, game, {})
    for name, value in options.items():
        await engine.set_option(name, value)
    if board:
        engine.set_position(board, ())
    return engine, recorder


def now_ns() -> int:
    return time.monotonic_ns()


# ---- deadlines: pure arithmetic ---------------------------------------------------------


def test_a_movetime_stops_the_search_its_overhead_early_and_answers_a_guard_before_it_ends() -> None:
    bounds = deadlines(Limits(movetime=1000), 0, 100, start_ns=5 * MS)
    assert bounds == Deadlines(stop_ns=(5 + 1000 - 100) * MS, answer_ns=(5 + 1000 - GUARD_MS) * MS)


def test_an_overhead_below_the_margin_keeps_the_margin() -> None:
    assert deadlines(Limits(movetime=1000), 0, 0, 0).stop_ns == (1000 - SEARCH_MARGIN_MS) * MS


def test_a_tiny_movetime_still_leaves_a_millisecond_to_each_deadline() -> None:
    bounds = deadlines(Limits(movetime=2), 0, 10, 0)
    assert bounds == Deadlines(stop_ns=1 * MS, answer_ns=1 * MS)


def test_a_clock_answers_a_grace_after_its_budget_and_counts_the_side_to_move() -> None:
    limits = Limits(clocks=(60_000, 1_000), increments=(0, 0), movestogo=10)
    white = deadlines(limits, 0, 0, 0)
    black = deadlines(limits, 1, 0, 0)
    assert white.stop_ns == (6000 - SEARCH_MARGIN_MS) * MS
    assert white.answer_ns == white.stop_ns + CLOCK_GRACE_MS * MS
    assert black.stop_ns is not None and black.stop_ns < white.stop_ns


def test_a_movetime_and_a_clock_together_keep_the_tighter_budget_and_the_movetime_guard() -> None:
    bounds = deadlines(Limits(movetime=500, clocks=(60_000,), movestogo=1), 0, 20, 0)
    assert bounds == Deadlines(stop_ns=480 * MS, answer_ns=(500 - GUARD_MS) * MS)


@pytest.mark.parametrize("limits", [Limits(), Limits(depth=5), Limits(nodes=1000), Limits(infinite=True)])
def test_limits_without_time_have_no_deadline(limits: Limits) -> None:
    assert deadlines(limits, 0, 10, 123) == Deadlines(None, None)


# ---- go and its limits --------------------------------------------------------------------


def test_a_depth_search_reports_each_depth_in_order_then_answers_once_with_the_last_pv() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(depth=3), None, now_ns())
        (_, root, pv, searched) = await heard.next("answer")
        assert engine.active is None
        assert root is engine.position and searched
        depths = [report.depth for report in heard.reports]
        assert depths == sorted(depths) and depths[-1] == 3
        assert pv == heard.reports[-1].pv and pv[0] in root.legal_moves()
        assert heard.events[-1][0] == "answer" and len(heard.of("answer")) == 1
        engine.close()
    run(scenario())


def test_a_node_search_ends_by_itself_and_answers_a_legal_move() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(nodes=2000), None, now_ns())
        (_, root, pv, _) = await heard.next("answer")
        assert pv[0] in root.legal_moves() and engine.active is None
        engine.close()
    run(scenario())


def test_searchmoves_cut_the_root_to_the_moves_given() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        root = engine.position
        only = root.legal_moves()[-1]
        await engine.go(Limits(depth=2), [only], now_ns())
        (_, _, pv, _) = await heard.next("answer")
        assert pv[0] == only and all(report.pv[0] == only for report in heard.reports)
        engine.close()
    run(scenario())


def test_a_position_without_moves_answers_at_once_with_no_move() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", NO_MOVE)
        await engine.go(Limits(depth=3), None, now_ns())
        assert heard.events == [("answer", engine.position, (), True)] and engine.active is None
        engine.close()
    run(scenario())


def test_an_infinite_search_answers_only_at_stop_and_then_once() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(infinite=True), None, now_ns())
        await heard.next("report")
        await heard.next("report")
        assert not heard.of("answer") and engine.active is not None
        await engine.stop()
        (_, root, pv, searched) = heard.of("answer")[0]
        assert len(heard.of("answer")) == 1 and engine.active is None
        assert searched and pv[0] in root.legal_moves()
        await engine.stop()  # nothing runs: nothing more is said
        assert len(heard.of("answer")) == 1
        engine.close()
    run(scenario())


def test_one_iteration_always_completes_within_a_node_limit() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(nodes=1), None, now_ns())
        (_, _, pv, searched) = await heard.next("answer")
        assert searched and heard.reports[0].depth == 1 and pv == heard.reports[-1].pv
        engine.close()
    run(scenario())


def test_an_infinite_search_that_ended_by_itself_still_waits_for_stop() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", PROVEN, OwnBook=False)
        await engine.go(Limits(infinite=True), None, now_ns())
        active = engine.active
        assert active is not None and active.run is not None
        await asyncio.wait_for(active.run.wait(), HANG_S)
        assert not heard.of("answer") and engine.active is active
        await engine.stop()
        (_, root, pv, searched) = heard.events[-1]
        assert heard.events[-1][0] == "answer" and searched
        assert root.game.format_move(root, pv[0]) == "a8b8"
        engine.close()
    run(scenario())


def test_a_ponder_search_that_ended_by_itself_answers_at_ponderhit_at_once() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", PROVEN, OwnBook=False)
        await engine.go(Limits(movetime=100, ponder=True), None, now_ns())
        active = engine.active
        assert active is not None and active.run is not None
        await asyncio.wait_for(active.run.wait(), HANG_S)
        assert not heard.of("answer")
        engine.ponderhit(now_ns())  # the answer is written before ponderhit returns
        (_, root, pv, searched) = heard.events[-1]
        assert heard.events[-1][0] == "answer" and searched and engine.active is None
        assert root.game.format_move(root, pv[0]) == "a8b8"
        engine.close()
    run(scenario())


def test_a_go_without_limits_is_infinite() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(), None, now_ns())
        await heard.next("report")
        await engine.finish_bounded_search()  # it has no bound: it does not wait for it
        assert not heard.of("answer")
        await engine.stop()
        assert len(heard.of("answer")) == 1
        engine.close()
    run(scenario())


def test_a_ponder_search_goes_past_its_depth_and_at_ponderhit_answers_the_deepest_done() -> None:
    """No limit counts while pondering: the search goes past the depth asked for, and at
    ponderhit drops the iteration under way and answers with the last one completed."""
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(depth=2, ponder=True), None, now_ns())
        active = engine.active
        assert active is not None and active.deadlines == Deadlines(None, None)
        while (await heard.next("report"))[2].depth < 3:
            pass
        assert not heard.of("answer") and engine.active is active
        engine.ponderhit(now_ns())
        (_, root, pv, searched) = await heard.next("answer")
        assert searched and pv == heard.reports[-1].pv and pv[0] in root.legal_moves()
        assert heard.reports[-1].depth >= 3 and engine.active is None
        engine.close()
    run(scenario())


def test_ponderhit_starts_the_clock_from_its_arrival() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False, MoveOverhead=0)
        await engine.go(Limits(movetime=60_000, ponder=True), None, now_ns())
        await heard.next("report")
        active = engine.active
        assert active is not None and not heard.of("answer")
        hit = now_ns()
        engine.ponderhit(hit)
        assert active.deadlines == deadlines(Limits(movetime=60_000), 0, 0, hit)
        await engine.stop()
        assert len(heard.of("answer")) == 1
        engine.close()
    run(scenario())


def test_a_ponder_search_stopped_answers_once_and_ponderhit_after_it_says_nothing() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(movetime=50, ponder=True), None, now_ns())
        await heard.next("report")
        assert not heard.of("answer")
        await engine.stop()
        engine.ponderhit(now_ns())
        assert len(heard.of("answer")) == 1 and engine.active is None
        engine.close()
    run(scenario())


def test_the_watchdog_answers_at_the_deadline_when_the_search_has_not_started() -> None:
    """Every compute thread is held, so the search cannot run: at its deadline the loop
    answers for it with the first legal move (the table knows none), unsearched, and
    the search, once it runs, adds nothing."""
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        release = threading.Event()
        holders = [runner.COMPUTE.submit(release.wait) for _ in range(runner.COMPUTE._max_workers)]
        try:
            await engine.go(Limits(movetime=50), None, now_ns())
            active = engine.active
            assert active is not None and active.run is not None
            (_, root, pv, searched) = await heard.next("answer")
            assert pv == (root.legal_moves()[0],) and not searched and engine.active is None
        finally:
            release.set()
        await asyncio.wait_for(active.run.wait(), HANG_S)
        for holder in holders:
            holder.result(HANG_S)
        assert len(heard.of("answer")) == 1 and not heard.of("report")
        engine.close()
    run(scenario())


def test_a_movetime_counts_from_the_commands_arrival_less_the_overhead() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False, MoveOverhead=40)
        received = now_ns()
        await engine.go(Limits(movetime=300), None, received)
        active = engine.active
        assert active is not None
        assert active.deadlines == Deadlines(received + 260 * MS, received + (300 - GUARD_MS) * MS)
        assert active.stop.deadline_ns == received + 260 * MS
        (_, root, pv, _) = await heard.next("answer")
        assert pv[0] in root.legal_moves()
        engine.close()
    run(scenario())


def test_a_second_go_waits_for_the_first_search_to_wind_down() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(infinite=True), None, now_ns())
        first = engine.active
        await heard.next("report")
        await engine.stop()
        await engine.go(Limits(depth=1), None, now_ns())
        assert first is not None and first.run is not None and first.run.done.is_set()
        await heard.next("answer")
        await heard.next("answer")
        engine.close()
    run(scenario())


def test_the_session_maps_the_coloured_clocks_to_players_and_refuses_clocks_it_cannot_use() -> None:
    clobber = find_game("clobber")
    start = clobber.initial_state({})
    mapped = go_limits(parse_line("go wtime 1000 btime 600000 winc 5"), clobber, start, "go")
    assert mapped.clocks[clobber.white_player] == 1000 and mapped.clocks[1 - clobber.white_player] == 600000
    assert mapped.increments[clobber.white_player] == 5
    assert go_limits(parse_line("go p1time 1000 p2time 600000"), clobber, start, "go").clocks == (1000, 600000)
    for line, message in (("go btime 1000", "no clock for the side to move (p1time)"),
                          ("go p1time 1000 p3time 100", "clobber has 2 players, no p3time")):
        with pytest.raises(ProtocolError) as refused:
            go_limits(parse_line(line), clobber, start, "go")
        assert refused.value.line() == f"error bad-value go {message}"


# ---- the book ------------------------------------------------------------------------------


async def othello_with_book(**options: object) -> tuple[SessionEngine, Recorder]:
    engine, heard = await engine_of("othello", BookVariety=0, **options)
    await engine.wait_loaded(HANG_S)
    return engine, heard


def test_a_timed_go_in_a_book_position_answers_the_books_move_unsearched() -> None:
    async def scenario() -> None:
        engine, heard = await othello_with_book()
        moves = load_book(engine.game).result().moves(engine.position)
        best = [move for move in moves if move.score == moves[0].score]  # BookVariety 0: one of these
        await engine.go(Limits(movetime=1000), None, now_ns())
        assert [event[0] for event in heard.events] == ["book", "answer"]
        (_, played), (_, root, pv, searched) = heard.events
        assert played in best and pv[0] == played.move and searched
        replies = load_book(engine.game).result().moves(root.play(played.move))
        assert pv[1:] == (replies[0].move,)  # the ponder move: the book's best reply
        assert engine.active is None
        engine.close()
    run(scenario())


def test_an_analysis_in_a_book_position_searches() -> None:
    async def scenario() -> None:
        engine, heard = await othello_with_book()
        await engine.go(Limits(depth=2), None, now_ns())
        await heard.next("answer")
        assert not heard.of("book") and heard.reports
        engine.close()
    run(scenario())


def test_a_ponder_go_in_a_book_position_holds_the_books_move_until_ponderhit() -> None:
    async def scenario() -> None:
        engine, heard = await othello_with_book()
        await engine.go(Limits(movetime=1000, ponder=True), None, now_ns())
        assert [event[0] for event in heard.events] == ["book"] and engine.active is not None
        engine.ponderhit(now_ns())
        assert [event[0] for event in heard.events] == ["book", "answer"] and engine.active is None
        engine.close()
    run(scenario())


def test_off_the_book_a_timed_go_searches() -> None:
    async def scenario() -> None:
        engine, heard = await othello_with_book()
        book = load_book(engine.game).result()
        position, moves = engine.position, []
        while book.moves(position):  # the first moves until the book has none
            move = position.legal_moves()[0]
            moves.append(position.game.format_move(position, move))
            position = position.play(move)
        engine.set_position((), tuple(moves))
        await engine.go(Limits(depth=1, movetime=60_000), None, now_ns())
        await heard.next("answer")
        assert not heard.of("book") and heard.reports
        engine.close()
    run(scenario())


def test_without_own_book_a_timed_go_searches() -> None:
    async def scenario() -> None:
        engine, heard = await othello_with_book(OwnBook=False)
        await engine.go(Limits(depth=1, movetime=60_000), None, now_ns())
        await heard.next("answer")
        assert not heard.of("book") and heard.reports
        engine.close()
    run(scenario())


# ---- options -------------------------------------------------------------------------------


def test_setting_an_option_makes_a_new_value_and_the_next_search_uses_it() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        before = engine.options
        await engine.set_option("MultiPV", 3)
        assert before.multi_pv == 1 and engine.options.multi_pv == 3
        assert engine.options == before.set("MultiPV", 3)
        await engine.go(Limits(depth=2), None, now_ns())
        await heard.next("answer")
        assert all(len(report.others) == 2 for report in heard.reports)
        engine.close()
    run(scenario())


def test_threads_on_the_python_core_are_cut_to_one_and_the_listener_hears_why() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False, Threads=2)
        await engine.go(Limits(depth=1), None, now_ns())
        await heard.next("answer")
        assert heard.events[0] == ("threads", 2, 1, "the python core searches with one thread")
        engine.close()
    run(scenario())


def test_hash_makes_a_new_table_of_its_size() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber")
        old = engine.table()
        await engine.set_option("Hash", 1)
        assert engine.options.hash == 1 and engine.table() is not old
        assert engine.table().slots < old.slots
        engine.close()
    run(scenario())


def test_probcut_reaches_the_searcher() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber", ProbCut=0)
        assert engine.searcher.probcut == 0 and engine.options.probcut == 0
        engine.close()
    run(scenario())


def test_an_evaluation_the_game_lacks_is_refused_and_changes_nothing() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber")
        before, game = engine.options, engine.game
        with pytest.raises(BadValue, match="clobber has no evaluation patterns: it has classic"):
            await engine.set_option("Evaluation", "patterns")
        assert engine.options is before and engine.game is game
        engine.close()
    run(scenario())


def test_a_later_game_takes_its_own_evaluation_where_it_lacks_the_options() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", Evaluation="classic")
        await run_table_work(engine.set_game, "othello", {})
        await engine.set_option("Evaluation", "patterns")
        await run_table_work(engine.set_game, "clobber", {})
        clobber = find_game("clobber")
        assert engine.options.evaluation == "patterns"
        assert engine.game.evaluation is clobber.with_evaluation(clobber.evaluations[0]).evaluation
        await engine.go(Limits(depth=2), None, now_ns())
        (_, root, pv, _) = await heard.next("answer")
        assert pv[0] in root.legal_moves()
        engine.close()
    run(scenario())


async def final_report(engine: SessionEngine, heard: Recorder, limits: Limits) -> SearchReport:
    await engine.go(limits, None, now_ns())
    await heard.next("answer")
    return heard.reports[-1]


def test_a_change_of_evaluation_empties_the_tables_that_hold_the_other_ones_scores() -> None:
    """Each search after a change of evaluation is the search of a fresh engine of that
    evaluation, score and nodes; setting the evaluation the option has keeps the table."""
    limits, moves = Limits(depth=3), ("f5", "d6")

    async def fresh(evaluation: str) -> tuple[int, int]:
        engine, heard = await engine_of("othello", OwnBook=False, Evaluation=evaluation)
        engine.set_position((), moves)
        final = await final_report(engine, heard, limits)
        engine.close()
        return final.score, final.nodes

    async def scenario() -> None:
        expected = {name: await fresh(name) for name in ("classic", "patterns")}
        engine, heard = await engine_of("othello", OwnBook=False)
        engine.set_position((), moves)
        for name in ("classic", "patterns", "classic"):
            await engine.set_option("Evaluation", name)
            final = await final_report(engine, heard, limits)
            assert (final.score, final.nodes) == expected[name], name
        await engine.set_option("Evaluation", "classic")
        assert (await final_report(engine, heard, limits)).nodes < expected["classic"][1]
        engine.close()
    run(scenario())


def test_the_announced_core_default_is_the_engines() -> None:
    engine = SessionEngine(core="compiled")
    assert engine.options.core == "compiled"
    assert next(spec for spec in engine.specs if spec.name == "Core").default == "compiled"
    assert SessionEngine().options.core == "python"


# ---- tables and hash files -----------------------------------------------------------------


def test_hash_clear_empties_the_table_a_search_filled() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(depth=3), None, now_ns())
        await heard.next("answer")
        cleared, _ = await run_table_work(engine.hash_clear)
        assert cleared > 0
        assert (await run_table_work(engine.hash_clear))[0] == 0
        engine.close()
    run(scenario())


def test_a_saved_table_loads_back_whole(tmp_path: Path) -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        await engine.go(Limits(depth=3), None, now_ns())
        await heard.next("answer")
        path = str(tmp_path / "clobber.hash")
        saved, _ = await engine.hash_save(path)
        await run_table_work(engine.hash_clear)
        loaded, _ = await engine.hash_load(path)
        assert saved > 0 and loaded == saved
        assert (await run_table_work(engine.hash_clear))[0] == saved
        with pytest.raises(HashFileError):
            await engine.hash_load(str(tmp_path / "missing.hash"))
        engine.close()
    run(scenario())


def test_the_hash_file_option_loads_its_file_and_saves_it_at_the_end(tmp_path: Path) -> None:
    async def scenario() -> None:
        path = str(tmp_path / "kept.hash")
        engine, heard = await engine_of("clobber", OwnBook=False, HashFile=path)
        await engine.go(Limits(depth=3), None, now_ns())
        await heard.next("answer")
        await engine.save_hash_file()
        engine.close()
        again, _ = await engine_of("clobber", HashFile=path)
        assert again.options.hash_file == path
        assert (await run_table_work(again.hash_clear))[0] > 0
        again.close()
    run(scenario())


# ---- perft and jobs ------------------------------------------------------------------------


def test_perft_counts_the_reference_leaves() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber")
        for record in perft_records("clobber")[:2]:
            nodes, _ = await engine.perft(record["depth"])
            assert nodes == record["nodes"]
        engine.close()
    run(scenario())


def test_a_halted_perft_is_stopped() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber")
        job = Job()
        job.halt()
        with pytest.raises(Stopped):
            await engine.perft(5, job)
        engine.close()
    run(scenario())


def test_a_job_calls_back_once_and_frees_the_engine_for_the_next() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber")
        done: list[str] = []
        failed: list[Exception] = []

        async def count(job: Job) -> str:
            nodes, _ = await engine.perft(2, job)
            return str(nodes)

        engine.start_job(count, done.append, failed.append)
        await engine.finish_job()
        assert done == ["11848"] and not failed and engine.job is None

        async def halted(job: Job) -> str:
            job.halt()
            await engine.perft(5, job)
            return "unreached"

        engine.start_job(halted, done.append, failed.append)
        await engine.stop_job()
        assert done == ["11848"] and isinstance(failed[0], Stopped) and engine.job is None
        engine.close()
    run(scenario())


# ---- refusals ------------------------------------------------------------------------------


def test_without_a_game_every_request_on_a_position_is_refused() -> None:
    async def scenario() -> None:
        engine = SessionEngine(Recorder())
        with pytest.raises(NoGame):
            await engine.go(Limits(depth=1), None, now_ns())
        with pytest.raises(NoGame):
            await engine.perft(1)
        with pytest.raises(NoGame):
            engine.table()
        with pytest.raises(NoGame):
            engine.set_position((), ("a1a2",))
        with pytest.raises(NoGame):
            engine.new_game()
        engine.close()
    run(scenario())


def test_an_illegal_move_names_its_number_and_leaves_the_position() -> None:
    async def scenario() -> None:
        engine, _ = await engine_of("clobber")
        start = engine.position
        first = start.game.format_move(start, start.legal_moves()[0])
        with pytest.raises((IllegalMoveError, NotationError)) as refused:
            engine.set_position((), (first, "zz99"))
        assert str(refused.value).startswith("move 2: ")
        assert engine.position is start
        engine.close()
    run(scenario())


def test_a_go_when_every_search_slot_is_taken_is_busy_and_says_nothing() -> None:
    async def scenario() -> None:
        engine, heard = await engine_of("clobber", OwnBook=False)
        taken = 0
        while runner.SEARCH_SLOTS.take():
            taken += 1
        try:
            with pytest.raises(Busy):
                await engine.go(Limits(depth=1), None, now_ns())
        finally:
            for _ in range(taken):
                runner.SEARCH_SLOTS.give_back()
        assert heard.events == [] and engine.active is None
        engine.close()
    run(scenario())
