"""Threads through the real `engine`: the option and its bound, deadlines and stops with
two threads, and the daemon's thread budget shared by its sessions."""

from __future__ import annotations

import asyncio
import time

import pytest

from games import find_game
from games.kernel import COMPILING
from protocol.client import Engine
from tests.conftest import LOAD_SLACK, StdioEngine, TcpEngine, run

OTHELLO = find_game("othello")
LEGAL = {OTHELLO.format_move(OTHELLO.initial_state({}), move) for move in OTHELLO.initial_state({}).legal_moves()}
BUDGET_CUT = "info string Threads 2 asked, searching with 1: the daemon's thread budget (--threads 2) has no more free"

pytestmark = pytest.mark.skipif(not COMPILING, reason="threads search in parallel only when compiled")


def test_uci_offers_threads_up_to_the_budget_and_refuses_more() -> None:
    async def scenario():
        async with StdioEngine("--threads", "3") as engine:
            assert "option name Threads type spin default 1 min 1 max 3" in await engine.ask("uci", "uciok")
            reply = await engine.ask("setoption name Threads value 4", "error")
            assert reply[-1] == "error bad-value setoption Threads must be in 1..3, got '4'"
            await engine.send("setoption name threads value 3")
            assert await engine.ready() == []
    run(scenario())


def test_movetime_and_stop_keep_their_latency_with_two_threads() -> None:
    async def scenario():
        async with StdioEngine("--threads", "2") as engine:
            await engine.send("setoption name Threads value 2")
            await engine.send("setoption name OwnBook value false")
            await engine.send("setgame othello")
            await engine.ready()
            for _ in range(3):
                answer = await engine.bestmove("go movetime 200")
                assert answer.move in LEGAL
                assert answer.elapsed < 0.2 + LOAD_SLACK, answer.elapsed
                assert not any(line.startswith("info string Threads") for line in answer.info_lines)
            await engine.send("go infinite")
            await engine.until("info depth 8")
            started = time.monotonic()
            answer = await engine.bestmove("stop")
            assert time.monotonic() - started < LOAD_SLACK
            assert answer.move in LEGAL
    run(scenario())


def test_sessions_share_the_thread_budget() -> None:
    async def scenario(port: int):
        first = await Engine.connect("127.0.0.1", port)
        second = await Engine.connect("127.0.0.1", port)
        for client in (first, second):
            await client.send("setoption name Threads value 2")
            await client.send("setgame clobber")
            await client.ready()
        await first.send("go infinite")
        await first.until("info depth 2")
        # The first search holds both threads of the budget: the second gets one.
        answer = await second.bestmove("go depth 3")
        assert answer.info_lines[0] == BUDGET_CUT
        assert answer.infos[-1].depth == 3
        await first.bestmove("stop")
        # Given back when the first search has ended: it answers first, then waits for
        # its helpers to stop.
        await asyncio.sleep(LOAD_SLACK)
        answer = await second.bestmove("go depth 3")
        assert BUDGET_CUT not in answer.info_lines
        await first.close()
        await second.close()

    daemon = TcpEngine("--threads", "2")
    try:
        run(scenario(daemon.port))
    finally:
        daemon.stop()
