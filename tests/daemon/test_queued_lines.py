"""The lines a session reads ahead of the one it applies: a `stop` or `quit` halts the
long jobs of every line before it, started or not, and replies keep the order of the
lines even when lines are dropped past the queue's bound; while a search runs, only the
lines that may be are answered. Against the real `engine` over pipes and TCP, and
in-process, a `Session` fed its lines by the test (`tests.daemon.inprocess`)."""

from __future__ import annotations

import pytest

from daemon.session import QUEUED_LINES
from protocol.client import Engine, EngineClosed
from tests.conftest import TcpEngine, run
from tests.daemon.inprocess import InProcess


async def lines_until(engine, prefix: str, timeout: float = 10) -> list[str]:
    return await engine.until(prefix, timeout, raise_errors=False)


def test_a_stop_behind_a_queued_job_halts_it() -> None:
    """`perft 99`, `eval`, `stop`, `isready` in one write: the perft has not started when
    the stop is read, and is halted all the same; eval and isready are answered."""

    async def scenario() -> None:
        client = InProcess()
        client.feed("setgame clobber", "perft 99", "eval", "stop", "isready")
        lines = await client.until("readyok")
        assert lines[0].startswith("error stopped perft stopped after "), lines
        assert lines[1].startswith("eval total ")
        assert all(line.startswith("eval term ") for line in lines[2:-1])
        # Nothing runs on: the session answers the next long job at once.
        client.feed("perft 2")
        assert (await client.until("perft"))[0].startswith("perft 2 nodes ")
        await client.quit()

    run(scenario())


@pytest.mark.parametrize("between", ["position startpos", "setoption name MultiPV value 2"])
def test_a_quit_behind_a_queued_job_ends_the_session(session, between: str) -> None:
    async def scenario() -> None:
        async with session() as engine:
            await engine.setgame("clobber")
            await engine.send_raw(f"perft 99\n{between}\nquit\n".encode())
            (line,) = await lines_until(engine, "error")
            assert line.startswith("error stopped perft stopped after ")
            with pytest.raises(EngineClosed):
                await engine.read_line(10)

    run(scenario())


def test_stopped_queued_jobs_give_their_search_slots_back() -> None:
    """Sessions that each queue a perft behind other lines and stop it hold no search
    slot afterwards: another session's `go` is served."""
    daemon = TcpEngine("--max-searches", "2")

    async def scenario() -> None:
        clients = [await Engine.connect("127.0.0.1", daemon.port) for _ in range(3)]
        for client in clients:
            await client.setgame("clobber")
            await client.send_raw(b"perft 99\neval\nstop\nisready\n")
        for client in clients:
            await lines_until(client, "readyok")
        other = await Engine.connect("127.0.0.1", daemon.port)
        await other.setgame("clobber")
        assert (await other.bestmove("go depth 2", timeout=10)).move
        for client in [*clients, other]:
            await client.close()

    try:
        run(scenario())
    finally:
        daemon.stop()


def test_replies_keep_the_order_of_the_lines_when_lines_are_dropped() -> None:
    """300 `isready` behind a perft: past QUEUED_LINES lines waiting, lines are dropped,
    and the refusal of each comes in its turn, after the replies of the lines before it."""

    async def scenario() -> None:
        client = InProcess()
        client.feed("setgame clobber", "perft 99", *["isready"] * 300)
        await client.read()
        client.feed("stop")  # it halts the perft when read, dropped or not
        lines = await client.until("error stopped perft stopped after ")
        assert len(lines) == 1, "a refusal came before the reply of an earlier line"
        client.feed("uci")
        lines = await client.until("uciok")
        replies = [line for line in lines if not line.startswith(("id ", "option ", "uciok", "error busy stop"))]
        ready = [index for index, line in enumerate(replies) if line == "readyok"]
        dropped = [index for index, line in enumerate(replies)
                   if line == f"error busy isready more than {QUEUED_LINES} commands waiting: line dropped"]
        assert len(ready) + len(dropped) == 300 and dropped, replies[-5:]
        assert max(ready) < min(dropped), "a refusal came before the reply of an earlier line"
        await client.quit()

    run(scenario())


def test_a_search_leaves_isready_stop_and_uci_to_be_answered_and_refuses_the_rest() -> None:
    async def scenario() -> None:
        client = InProcess()
        client.feed("setgame clobber", "go infinite")
        await client.until("info depth 2")
        client.feed("isready")
        assert not any(line.startswith("bestmove") for line in await client.until("readyok"))
        client.feed("go depth 1", "position startpos")
        assert (await client.until("error"))[-1] == "error busy go search running"
        assert (await client.until("error"))[-1] == "error busy position search running"
        client.feed("uci")
        assert not any(line.startswith("bestmove") for line in await client.until("uciok"))
        client.feed("stop")
        assert (await client.until("bestmove"))[-1].startswith("bestmove ")
        # A stop while idle is ignored and not carried over to the next go.
        client.feed("stop", "isready")
        assert await client.until("readyok") == ["readyok"]
        client.feed("go depth 2")
        assert any(line.startswith("info depth 2 ") for line in await client.until("bestmove"))
        await client.quit()

    run(scenario())
