"""The typed client: `info` lines parsed as the engine formats them, scores that order
as results do, and the typed calls against a real engine, async and blocking."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import find_game
from protocol.client import Engine, EngineError, Limit, SimpleEngine
from protocol.format import format_info
from protocol.info import Info, Score, Wdl, parse_info
from search.base import MATE, SearchReport
from tests.conftest import engine_command, run

counts = st.integers(0, 2**40)
reports = st.builds(
    SearchReport,
    depth=st.integers(1, 127), seldepth=st.integers(1, 127),
    score=st.one_of(st.integers(-50_000, 50_000), st.integers(1, 200).map(lambda n: MATE - n),
                    st.integers(1, 200).map(lambda n: n - MATE)),
    nodes=counts, elapsed_ms=st.integers(0, 10**7), hashfull=st.integers(0, 1000),
    pv=st.lists(st.integers(0, 10**6), max_size=8).map(tuple),
    margin=st.none() | st.integers(-64, 64),
)


@given(report=reports, multipv=st.none() | st.integers(1, 256),
       wdl=st.none() | st.tuples(st.integers(0, 1000), st.integers(0, 1000), st.integers(0, 1000)))
def test_parse_info_reads_what_the_engine_writes(report: SearchReport, multipv, wdl) -> None:
    line = format_info(report, lambda pv: [f"m{move}" for move in pv], multipv, wdl)
    info = parse_info(line)
    assert info is not None and info.line() == line
    assert (info.depth, info.seldepth, info.multipv, info.nodes, info.time, info.hashfull) == (
        report.depth, report.seldepth, multipv, report.nodes, report.elapsed_ms, report.hashfull)
    mate = report.mate_in
    assert info.score == (Score(mate=mate) if mate is not None else Score(cp=report.score))
    assert info.wdl == (None if wdl is None else Wdl(*wdl))
    assert info.margin == report.margin
    assert info.pv == tuple(f"m{move}" for move in report.pv)


def test_scores_order_as_results_do() -> None:
    ordered = [Score(mate=-1), Score(mate=-7), Score(cp=-900), Score(cp=0), Score(cp=35), Score(mate=9),
               Score(mate=2)]
    assert sorted(reversed(ordered)) == ordered
    assert max(ordered) == Score(mate=2)
    with pytest.raises(ValueError):
        Score(cp=1, mate=2)


def test_other_lines_are_not_infos() -> None:
    assert parse_info("info string book f5 score 4 depth 20") is None
    assert parse_info("bestmove f5") is None
    assert parse_info("info depth 2 currmove a1 score cp 5") == Info(depth=2, score=Score(cp=5))


def test_typed_calls_against_a_real_engine() -> None:
    async def scenario() -> None:
        engine = await Engine.popen(engine_command())
        try:
            await engine.setgame("othello")
            lines = await engine.analyse(Limit(depth=4), position="startpos moves f5", multipv=3)
            assert [info.multipv for info in lines] == [1, 2, 3] and all(info.depth == 4 for info in lines)
            assert lines[0].score >= lines[1].score >= lines[2].score
            only = await engine.analyse({"depth": 3}, searchmoves=["f4"])
            assert len(only) == 1 and only[0].move == "f4"
            played = await engine.play({"depth": 2}, position="startpos")
            assert played.move in {"d3", "c4", "f5", "e6"}
            evaluation = await engine.eval()
            assert evaluation.total == sum(values[0] for values in evaluation.terms.values())
            with pytest.raises(EngineError) as refused:
                await engine.configure({"MultiPV": 0})
            assert refused.value.code == "bad-value"
            with pytest.raises(asyncio.TimeoutError):
                await engine.analyse({"depth": 60}, timeout=0.2)
        finally:
            await engine.close()
    run(scenario())


def test_the_blocking_wrapper() -> None:
    with SimpleEngine.popen(engine_command()) as engine:
        engine.setgame("clobber")
        engine.configure({"ShowWDL": True})
        (best,) = engine.analyse({"depth": 3})
        assert best.wdl is not None and sum((best.wdl.win, best.wdl.draw, best.wdl.loss)) == 1000
        assert engine.play(Limit(nodes=500)).move
        assert set(engine.eval().terms) == {"movers", "reserves", "dangling", "tempo", "odd_dominoes"}


def test_an_analysis_streams_until_stopped() -> None:
    async def scenario() -> None:
        engine = await Engine.popen(engine_command())
        try:
            await engine.setgame("clobber")
            depths = []
            async with engine.analysis() as stream:  # no limit: runs until stopped
                async for info in stream:
                    depths.append(info.depth)
                    if info.depth == 3:
                        await stream.stop()
            assert depths[:3] == [1, 2, 3] and stream.bestmove is not None and stream.bestmove.move
            async with engine.analysis({"depth": 2}, multipv=2) as stream:
                infos = [info async for info in stream]
            assert {info.multipv for info in infos} == {1, 2} and stream.bestmove.move == infos[-2].move
            async with engine.analysis() as stream:  # leaving the block stops the search
                await stream.__anext__()
            assert stream.bestmove is not None
            assert await engine.ready() == []
        finally:
            await engine.close()
    run(scenario())


def test_play_ponders_and_a_ponderhit_answers_from_that_search(session) -> None:
    """`play(..., ponder=True)` leaves a `go ponder` running on the expected reply; a
    `play` of that position answers from it (its limits count from `ponderhit`, so the
    search that ran meanwhile goes past the limit's depth), and anything else stops it."""
    def deepest(answer) -> int:
        return max(info.depth or 0 for info in map(parse_info, answer.infos) if info is not None)

    async def scenario() -> None:
        async with session() as engine:
            await engine.setgame("clobber")
            first = await engine.play({"depth": 3}, ponder=True)
            assert first.move and first.ponder
            await asyncio.sleep(2)
            expected = f"startpos moves {first.move}  {first.ponder}"
            hit = await engine.play({"depth": 3}, position=expected, ponder=True)
            assert hit.move and deepest(hit) > 3, "answered by the pondering search"
            # The opponent plays another move: the pondering search is stopped and a
            # search of the real position answers, to the limit.
            clobber = find_game("clobber")
            played = [first.move, first.ponder, hit.move]
            state = clobber.initial_state({})
            for token in played:
                state = state.play(clobber.parse_move(state, token))
            reply = next(token for token in sorted(clobber.format_move(state, move) for move in state.legal_moves())
                         if token != hit.ponder)
            other = await engine.play({"depth": 3}, position=f"startpos moves {' '.join(played)} {reply}", ponder=True)
            assert deepest(other) == 3
            # Every other call stops a pondering search first.
            evaluation = await engine.eval()
            assert isinstance(evaluation.total, int)
            assert (await engine.analyse({"depth": 2}))[0].depth == 2
    run(scenario())
