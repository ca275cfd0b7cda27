"""The real `engine --tcp` process: independent sessions, concurrency, disconnects."""

from __future__ import annotations

import asyncio
import time

from games import find_game
from protocol.client import Engine
from tests.conftest import LOAD_SLACK, TcpEngine, cpu_seconds, run

CLOBBER = find_game("clobber")
START = CLOBBER.initial_state({})
LEGAL = {CLOBBER.format_move(START, move) for move in START.legal_moves()}


def test_sessions_are_independent(tcp_engine: TcpEngine) -> None:
    async def scenario():
        first = await Engine.connect("127.0.0.1", tcp_engine.port)
        second = await Engine.connect("127.0.0.1", tcp_engine.port)
        await first.send("setgame clobber")
        await first.send("position startpos moves a2a3")
        assert (await second.ask("moves", "error"))[-1].startswith("error no-game moves ")
        await second.send("setgame clobber")
        await second.send("setoption name MoveOverhead value 50")
        (first_board,) = [l for l in await first.ask("d", "board-text") if l.startswith("board-text")]
        (second_board,) = [l for l in await second.ask("d", "board-text") if l.startswith("board-text")]
        assert first_board != second_board
        await first.send("go infinite")
        await first.until("info depth 2")
        # The second session is not busy because the first one searches.
        answer = await second.bestmove("go depth 2")
        assert answer.move in LEGAL
        assert (await first.bestmove("stop")).move is not None
        await first.close()
        await second.close()
    run(scenario())


def test_movetime_holds_with_several_sessions_searching(tcp_engine: TcpEngine) -> None:
    async def play(client: Engine, movetime: int) -> list[float]:
        await client.send("setgame clobber")
        await client.ready()
        elapsed = []
        for _ in range(4):
            answer = await client.bestmove(f"go movetime {movetime}")
            assert answer.move in LEGAL
            elapsed.append(answer.elapsed)
        return elapsed

    async def scenario():
        clients = [await Engine.connect("127.0.0.1", tcp_engine.port) for _ in range(3)]
        results = await asyncio.gather(*(play(client, 100) for client in clients))
        for client in clients:
            await client.close()
        return [value for result in results for value in result]

    elapsed = run(scenario())
    assert max(elapsed) < 0.1 + LOAD_SLACK, elapsed


def test_a_vanished_client_stops_its_search(tcp_engine: TcpEngine) -> None:
    async def scenario():
        client = await Engine.connect("127.0.0.1", tcp_engine.port)
        await client.send("setgame clobber")
        await client.send("go infinite")
        await client.until("info depth 2")
        client._writer.transport.abort()  # a client that vanishes without a word
        await asyncio.sleep(0.3)
        before = cpu_seconds(tcp_engine.process.pid)
        await asyncio.sleep(1.0)
        used = cpu_seconds(tcp_engine.process.pid) - before
        assert used < 0.2, f"the daemon kept searching: {used:.2f} s of CPU in 1 s"
        other = await Engine.connect("127.0.0.1", tcp_engine.port)
        assert await other.ready() == []
        await other.close()
    run(scenario())


def test_quit_ends_only_its_own_session(tcp_engine: TcpEngine) -> None:
    async def scenario():
        first = await Engine.connect("127.0.0.1", tcp_engine.port)
        second = await Engine.connect("127.0.0.1", tcp_engine.port)
        await first.send("quit")
        assert await first._reader.read() == b""
        assert await second.ready() == []
        await second.close()
        assert tcp_engine.process.poll() is None
    run(scenario())


def test_a_client_that_never_reads_cannot_stall_others(tcp_engine: TcpEngine) -> None:
    async def scenario():
        # The daemon's first `isready` waits for the compiled code to load (about half a
        # second): done first, so that the wait measured below is the greedy client's.
        first = await Engine.connect("127.0.0.1", tcp_engine.port)
        assert await first.ready() == []
        await first.close()
        greedy = await Engine.connect("127.0.0.1", tcp_engine.port)
        await greedy.send("setgame clobber")
        for _ in range(3000):
            greedy._writer.write(b"moves\n")
        await greedy._writer.drain()
        other = await Engine.connect("127.0.0.1", tcp_engine.port)
        started = time.monotonic()
        assert await other.ready() == []
        assert time.monotonic() - started < LOAD_SLACK
        greedy._writer.transport.abort()
        await other.close()
    run(scenario())


def test_listens_on_loopback_by_default(tcp_engine: TcpEngine) -> None:
    assert any("listening on 127.0.0.1:" in line for line in tcp_engine.log)


def test_sigterm_ends_the_daemon_cleanly() -> None:
    engine = TcpEngine()
    engine.process.terminate()
    assert engine.process.wait(10) == 0
