"""`engine-gui`'s requests against searches that run: over real WebSockets to a real
`python -m adapters.gui.main` process (see tests/adapters/test_gui_server.py).

What it proves:
- an analysis sends its lines as whole sets, all of one completed depth: lines of two
  depths never stand side by side;
- a `stop` ends the request's search whenever it comes, even before the request's `go`
  reached the engine (right after the position's reply), in play, in an analysis and in
  the analysis of a whole game;
- a tab closed during the analysis of a whole game is freed at once: its search ends,
  the next tab is served under `--max-tabs 1`, and SIGINT still ends `engine-gui`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from pathlib import Path
from typing import Iterator

import aiohttp

import pytest

from tests.adapters.test_gui_server import WAIT_S, Gui, http_session, open_socket, receive, running_gui, tab
from tests.conftest import cpu_seconds, random_game, run

#: Far longer than a test waits for a stopped search's answer: a search that ignores its
#: stop shows as a missing answer.
LONG_MS = 120_000
#: How long a stopped search may take to answer (s), on a loaded machine.
STOPPED_S = 20
#: How long the GUI may take to end after Ctrl-C (s): it closes its tabs' sessions and
#: waits up to daemon.main.EXIT_LOAD_WAIT_S for compiled code still loading, each slow
#: on a loaded machine; only a hang takes longer.
ENDED_S = 60


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Gui]:
    """An `engine-gui` with its in-process engine and no token."""
    with running_gui(tmp_path_factory.mktemp("gui") / "stderr.log") as gui:
        yield gui


async def until(ws: aiohttp.ClientWebSocketResponse, kind: str, timeout: float = WAIT_S) -> tuple[dict, list[dict]]:
    """The next message of type `kind` (an error fails), and the messages before it."""
    before = []
    while True:
        message = await ws.receive_json(timeout=timeout)
        assert message["type"] != "error", message
        if message["type"] == kind:
            return message, before
        before.append(message)


def test_an_analysis_sends_whole_sets_of_lines_of_one_depth(server: Gui) -> None:
    async def check() -> None:
        async with http_session() as http, tab(http, server) as ws:
            for game, multipv in (("othello", 4), ("clobber", 3), ("abalone", 3), ("isolation", 2)):
                await ws.send_json({"op": "analyse", "seq": 1, "game": game, "multipv": multipv})
                shown, _ = await until(ws, "position")
                expected = min(multipv, len(shown["legal"]))
                sets = []
                ends = asyncio.get_running_loop().time() + 2
                while len(sets) < 6 and asyncio.get_running_loop().time() < ends:
                    with contextlib.suppress(asyncio.TimeoutError):
                        message, _ = await until(ws, "lines", ends - asyncio.get_running_loop().time())
                        sets.append(message["lines"])
                await ws.send_json({"op": "stop"})
                _, last = await until(ws, "stopped", STOPPED_S)
                sets += [message["lines"] for message in last if message["type"] == "lines"]
                assert sets, game
                for lines in sets:
                    assert [line["multipv"] for line in lines] == list(range(1, expected + 1)), (game, lines)
                    assert len({line["depth"] for line in lines}) == 1, (game, lines)
                    assert len({line["pv"][0] for line in lines}) == expected, (game, lines)
                    scores = [line["cp"] if line["mate"] is None else line["mate"] * 10**6 for line in lines]
                    assert all(line["mate"] is not None or line["cp"] is not None for line in lines)
                    if all(line["mate"] is None for line in lines):
                        assert scores == sorted(scores, reverse=True), (game, lines)
                # Past the first depth, a line of a move scored the depth before is steadied.
                steadied = [line for lines in sets for line in lines if line["steady"] is not None]
                assert steadied or all(lines[0]["depth"] == sets[0][0]["depth"] for lines in sets), game

    run(check())


def test_a_stop_right_after_the_positions_reply_ends_the_search(server: Gui) -> None:
    """The page sends `stop` as soon as it sees the position: the tab is then still
    setting up its search, before its `go`. The search must end all the same."""
    async def check() -> None:
        async with http_session() as http, tab(http, server) as ws:
            for seq, delay in enumerate((0, 0, 0.001, 0.002, 0.005, 0.02), 1):
                await ws.send_json({"op": "play", "seq": seq, "game": "clobber", "moves": [], "movetime": LONG_MS})
                await until(ws, "position")
                await asyncio.sleep(delay)
                await ws.send_json({"op": "stop"})
                answer, _ = await until(ws, "bestmove", STOPPED_S)
                assert answer["seq"] == seq and answer["move"]
                await until(ws, "position")  # the position after the engine's move
            for seq, delay in enumerate((0, 0.001, 0.005), 10):
                await ws.send_json({"op": "analyse", "seq": seq, "game": "loa", "multipv": 2})
                await until(ws, "position")
                await asyncio.sleep(delay)
                await ws.send_json({"op": "stop"})
                stopped, _ = await until(ws, "stopped", STOPPED_S)
                assert stopped["seq"] == seq

    run(check())


def test_a_stop_ends_the_analysis_of_a_whole_game(server: Gui) -> None:
    moves = random_game("clobber", 6, seed=11)

    async def check() -> None:
        async with http_session() as http, tab(http, server) as ws:
            for delay in (0, 0.5):
                await ws.send_json({"op": "analyse_game", "seq": 1, "game": "clobber", "moves": moves,
                                    "movetime": LONG_MS, "top": 2})
                await until(ws, "progress")
                await asyncio.sleep(delay)
                await ws.send_json({"op": "stop"})
                stopped, _ = await until(ws, "stopped", STOPPED_S)
                assert stopped["done"] == 0 and stopped["total"] == len(moves)
            # The tab goes on, with the book on again for play.
            await ws.send_json({"op": "play", "seq": 2, "game": "othello", "movetime": 100})
            answer, _ = await until(ws, "bestmove")
            assert answer["move"] in {"d3", "c4", "f5", "e6"}

    run(check())


def test_a_tab_closed_during_the_analysis_of_a_game_is_freed(tmp_path: Path) -> None:
    moves = random_game("othello", 10, seed=2)

    async def served(gui: Gui) -> dict:
        """The first message of the next tab that gets one, retrying while the limit holds."""
        deadline = time.monotonic() + STOPPED_S
        async with http_session() as http:
            while True:
                async with open_socket(http, gui) as ws:
                    message = await receive(ws)
                if message["type"] == "hello" or time.monotonic() > deadline:
                    return message
                await asyncio.sleep(0.2)

    async def check(server: Gui) -> None:
        for _ in range(2):
            async with http_session() as http, tab(http, server) as ws:
                await ws.send_json({"op": "analyse_game", "seq": 1, "game": "othello", "moves": moves,
                                    "depth": 40, "top": 3})
                await until(ws, "progress")
                await asyncio.sleep(0.3)
            # The page is gone: its tab must be freed, and its search ended.
            assert (await served(gui))["type"] == "hello"
        used = cpu_seconds(gui.process.pid)
        await asyncio.sleep(2)
        assert cpu_seconds(gui.process.pid) - used < 1, "a closed tab's search still runs"

    # The engine in the GUI's process, where a search left running would show in its CPU time.
    with running_gui(tmp_path / "stderr.log", "--max-tabs", "1", "--private") as gui:
        run(check(gui))
        gui.process.send_signal(signal.SIGINT)
        assert gui.process.wait(ENDED_S) is not None
