"""The typed client: `info` lines parsed as the engine formats them, scores that order
as results do, the typed calls against a real engine, async and blocking, and the
session kept in step after every error."""

from __future__ import annotations

import asyncio
import threading

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import find_game
from protocol.client import Engine, EngineError, Limit, SimpleEngine
from protocol.format import format_info
from protocol.info import Info, LineSets, Score, Wdl, parse_info
from search.base import MATE, SearchReport
from tests.conftest import TcpEngine, engine_command, move_tokens, run

OTHELLO_OPENINGS = {"d3", "c4", "f5", "e6"}

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


def legal_tokens(name: str, moves: str = "") -> set[str]:
    """The moves of game `name` after `moves` (space-separated), as the game writes them."""
    game = find_game(name)
    state = game.initial_state({})
    for token in moves.split():
        state = state.play(game.parse_move(state, token))
    return move_tokens(state)


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
            assert played.move in OTHELLO_OPENINGS
            assert [info.depth for info in played.infos] == [1, 2] and all(info.pv for info in played.infos)
            assert [info.line() for info in played.infos] == [
                line for line in played.info_lines if not line.startswith("info string ")]
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
        assert set(engine.eval().terms) == {"movers", "reserves", "dangling", "tempo", "odd_dominoes",
                                            "won_parts", "odd_fuzzy"}


def test_a_blocking_client_that_cannot_connect_leaves_no_thread(tmp_path) -> None:
    before = {thread.ident for thread in threading.enumerate()}
    for _ in range(3):
        with pytest.raises(OSError):
            SimpleEngine.connect_unix(tmp_path / "no-daemon.sock")
    assert [thread.name for thread in threading.enumerate() if thread.ident not in before] == []


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
        return max(info.depth or 0 for info in answer.infos)

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
            reply = next(token for token in sorted(move_tokens(state)) if token != hit.ponder)
            other = await engine.play({"depth": 3}, position=f"startpos moves {' '.join(played)} {reply}", ponder=True)
            assert deepest(other) == 3
            # Every other call stops a pondering search first.
            evaluation = await engine.eval()
            assert isinstance(evaluation.total, int)
            assert (await engine.analyse({"depth": 2}))[0].depth == 2
    run(scenario())


@pytest.mark.parametrize("transport", ["stdio", "tcp"])
def test_after_an_error_the_next_call_reads_its_own_reply(transport: str) -> None:
    """A typed call sends its command, then `isready`: the `readyok` that follows an
    error is read before the error is raised, so that every later call reads its own
    reply."""
    server = TcpEngine() if transport == "tcp" else None
    try:
        with (SimpleEngine.popen(engine_command()) if server is None
              else SimpleEngine.connect("127.0.0.1", server.port)) as engine:
            with pytest.raises(EngineError) as unknown:
                engine.setgame("chess")
            assert (unknown.value.code, unknown.value.command) == ("bad-value", "setgame")
            engine.setgame("othello")
            with pytest.raises(EngineError) as illegal:
                engine.position("startpos moves a1")
            assert (illegal.value.code, illegal.value.command) == ("illegal-move", "position")
            (best,) = engine.analyse({"depth": 3})
            assert best.depth == 3 and best.move in OTHELLO_OPENINGS, "the position is unchanged"
    finally:
        if server is not None:
            server.stop()


def test_refused_options_raise_the_first_error_with_the_others(session) -> None:
    """`configure` sends one `setoption` per option and one `isready`: it reads every
    error up to the `readyok`, raises the first with the others attached, and the
    options the engine took are set."""
    async def scenario() -> None:
        async with session() as engine:
            await engine.setgame("clobber")
            with pytest.raises(EngineError) as refused:
                await engine.configure({"Hash": 0, "ShowWDL": True, "Nonsense": 1})
            assert (refused.value.code, refused.value.command) == ("bad-value", "setoption")
            assert "Hash" in refused.value.message
            assert [other.line for other in refused.value.others] == [
                "error bad-value setoption unknown option 'Nonsense'"]
            (best,) = await engine.analyse({"depth": 2})
            assert best.depth == 2 and best.wdl is not None, "ShowWDL, between the refused two, is set"
            with pytest.raises(EngineError) as alone:
                await engine.configure({"Hash": 0})
            assert alone.value.others == ()
            assert isinstance((await engine.eval()).total, int)
    run(scenario())


def test_a_refused_search_leaves_the_session_in_step(session) -> None:
    """A refused command gets one error line, a refused `go` no `bestmove`: `eval`,
    `analyse`, `analysis` and `play` raise the error, and the next call's reply is its
    own."""
    async def scenario() -> None:
        async with session() as engine:
            with pytest.raises(EngineError) as no_game:
                await engine.eval()
            assert no_game.value.code == "no-game"
            await engine.setgame("othello")
            with pytest.raises(EngineError) as refused:
                await engine.analyse({"depth": 3}, searchmoves=["a1"])
            assert (refused.value.code, refused.value.command) == ("illegal-move", "go")
            (best,) = await engine.analyse({"depth": 3})
            assert best.depth == 3 and best.move in OTHELLO_OPENINGS
            with pytest.raises(EngineError) as streamed:
                async with engine.analysis({"depth": 3}, searchmoves=["a1"]) as stream:
                    async for _ in stream:
                        pass
            assert streamed.value.command == "go" and stream.bestmove is None
            with pytest.raises(EngineError) as clockless:
                await engine.play(Limit(depth=2, p3time=1000))
            assert clockless.value.message == "othello has 2 players, no p3time"
            assert (await engine.play({"depth": 2})).move in OTHELLO_OPENINGS
            assert len((await engine.eval()).terms) > 1
    run(asyncio.wait_for(scenario(), 120))


def test_a_search_that_runs_out_of_time_is_stopped(session) -> None:
    """A typed search that outlasts its timeout is stopped, and its `bestmove` read,
    before asyncio.TimeoutError is raised."""
    async def scenario() -> None:
        async with session() as engine:
            await engine.setgame("clobber")
            with pytest.raises(asyncio.TimeoutError):
                await engine.analyse({"depth": 60}, timeout=0.2)
            (best,) = await engine.analyse({"depth": 2})
            assert best.depth == 2
    run(scenario())


def test_a_refused_ponder_search_is_not_reported_by_a_later_call(session) -> None:
    """Pondering is best-effort. In Knight Isolation with the clocks of red and green
    only, red's `play` is answered but its `go ponder` on blue's turn is refused (no
    p3time): the next call neither raises nor misreads that error, and a `play` of the
    pondered position searches afresh and raises its own."""
    two_clocks = Limit(depth=2, p1time=60_000, p2time=60_000)

    async def scenario() -> None:
        async with session() as engine:
            await engine.setgame("isolation")
            first = await engine.play(two_clocks, ponder=True)
            assert first.move in legal_tokens("isolation") and first.ponder
            assert isinstance((await engine.eval()).total, int)
            await engine.position("startpos")
            first = await engine.play(two_clocks, ponder=True)
            with pytest.raises(EngineError) as refused:
                await engine.play(two_clocks, position=f"startpos moves {first.move} {first.ponder}")
            assert refused.value.message == "no clock for the side to move (p3time)"
            answer = await engine.play(attrs.evolve(two_clocks, p3time=60_000))
            assert answer.move in legal_tokens("isolation", f"{first.move} {first.ponder}")
            assert answer.infos[-1].depth == 2
    run(scenario())


def test_a_limit_writes_every_limit_of_go() -> None:
    assert Limit().go() == "go"
    assert Limit(depth=3, nodes=10, movetime=0, mate=2).go(searchmoves=["a1", "b2"]) == (
        "go movetime 0 depth 3 nodes 10 mate 2 searchmoves a1 b2")
    assert Limit(wtime=1000, btime=2000, winc=10, binc=20, movestogo=5).go(ponder=True) == (
        "go ponder wtime 1000 btime 2000 winc 10 binc 20 movestogo 5")
    assert Limit(p1time=1, p2time=2, p3time=3, p1inc=4, p2inc=5, p3inc=6).go() == (
        "go p1time 1 p2time 2 p3time 3 p1inc 4 p2inc 5 p3inc 6")
    assert Limit(depth=4, infinite=True).go() == "go depth 4 infinite"


def test_play_on_the_clock(session) -> None:
    """Clocks reach the engine under their own names: white's and black's in Clobber
    (white moves first, so black's clock alone is refused), each player's in Knight
    Isolation; the engine answers within the budget of the clock to move, pondering
    with the same clocks on the opponent's time."""
    async def scenario() -> None:
        async with session() as engine:
            await engine.setgame("clobber")
            with pytest.raises(EngineError) as refused:
                await engine.play(Limit(btime=60_000))
            assert refused.value.message == "no clock for the side to move (p1time)"
            clocks = Limit(wtime=2_000, btime=60_000, winc=100, binc=100, movestogo=10)  # a 268 ms budget
            first = await engine.play(clocks, ponder=True)
            assert first.move in legal_tokens("clobber") and first.elapsed < 2
            played = f"{first.move} {first.ponder}"
            hit = await engine.play(clocks, position=f"startpos moves {played}")
            assert hit.move in legal_tokens("clobber", played) and hit.elapsed < 2

            await engine.setgame("isolation")
            clocks = Limit(p1time=3_000, p2time=3_000, p3time=3_000, p1inc=100, p2inc=100, p3inc=100)
            first = await engine.play(clocks, ponder=True)
            assert first.move in legal_tokens("isolation") and first.elapsed < 2
            played = f"{first.move} {first.ponder}"
            hit = await engine.play(clocks, position=f"startpos moves {played}")
            assert hit.move in legal_tokens("isolation", played) and hit.elapsed < 2
    run(scenario())


def _info(depth: int, multipv: int | None, move: str) -> Info:
    return Info(depth=depth, multipv=multipv, score=Score(cp=0), pv=(move,))


def test_line_sets_keep_whole_sets_of_one_depth() -> None:
    # Sets of three: depth 1, depth 2, then line 1 of depth 3 alone at the end.
    infos = [_info(1, 1, "a"), _info(1, 2, "b"), _info(1, 3, "c"),
             _info(2, 1, "b"), _info(2, 2, "a"), _info(2, 3, "c"), _info(3, 1, "c")]
    known, unknown = LineSets(3), LineSets()
    became = [(known.add(info), unknown.add(info)) for info in infos]
    assert [k for k, _ in became] == [False, False, True, False, False, True, False]
    assert [u for _, u in became] == [False, False, False, True, False, False, True]
    for sets in (known, unknown):  # the set of depth 3 never became whole
        assert not sets.close() and sets.complete == tuple(infos[3:6])
    # A line out of its set's order, or of another depth, breaks the set.
    broken = LineSets(2)
    for info in (_info(1, 1, "a"), _info(2, 2, "b"), _info(1, 2, "b")):
        assert not broken.add(info)
    assert broken.complete == ()
    # Lines without multipv (MultiPV 1) are sets of one.
    single = LineSets()
    for depth in (1, 2, 3):
        single.add(_info(depth, None, "a"))
    single.close()
    assert [info.depth for info in single.complete] == [3]


def test_multipv_lines_come_in_whole_sets_of_one_depth() -> None:
    """A timed MultiPV search writes each completed iteration's lines together, all at
    one depth, and ends on the last whole set, whose line 1 is `bestmove`: no line of an
    unfinished iteration (a depth ahead of the others) is written; `analyse` returns
    that set."""
    async def scenario() -> None:
        engine = await Engine.popen(engine_command())
        try:
            await engine.setgame("othello")
            await engine.configure({"OwnBook": False, "MultiPV": 4})
            for movetime in (150, 400, 900):
                answer = await engine.bestmove(f"go movetime {movetime}", timeout=30)
                sets: list[list[Info]] = []
                for info in answer.infos:
                    if info.multipv == 1:
                        sets.append([])
                    sets[-1].append(info)
                for lines in sets:
                    assert [info.multipv for info in lines] == [1, 2, 3, 4], movetime
                    assert len({info.depth for info in lines}) == 1
                    assert len({info.move for info in lines}) == 4
                assert answer.move == sets[-1][0].move
                # The final set is the last completed iteration's: repeated as the final
                # report, or, answered by the watchdog on a busy machine, not repeated;
                # never an iteration behind.
                depths = [lines[0].depth for lines in sets]
                assert depths == sorted(depths), movetime
            lines = await engine.analyse({"movetime": 400}, multipv=4)
            assert len(lines) == 4 and len({info.depth for info in lines}) == 1
            assert {info.move for info in lines} == OTHELLO_OPENINGS
        finally:
            await engine.close()
    run(scenario())
