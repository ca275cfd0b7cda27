"""The first moments of a daemon: commands that arrive while it prepares numba's compiler
and loads a game's compiled code, as a new user or an eager client sends them."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from games import all_games
from games.kernel import NUMBA_MISSING
from protocol.client import Engine
from tests.conftest import LOAD_SLACK, TcpEngine, run

needs_numba = pytest.mark.skipif(NUMBA_MISSING is not None, reason=str(NUMBA_MISSING))


def test_a_go_behind_isready_keeps_its_deadline_from_when_it_was_read(session) -> None:
    """`movetime` is counted from when the engine read the `go` line, even when the line
    waits behind an `isready` that waits for the compiled code; a depth limit searches
    fully once the code is there."""

    async def scenario() -> None:
        async with session() as engine:
            await engine.ready()  # the process is up and reading
            sent = time.monotonic()
            await engine.send_raw(b"setgame clobber\nposition startpos moves e2e3\nisready\ngo movetime 300\n")
            lines = await engine.until("bestmove", 10)
            assert "readyok" in lines
            assert time.monotonic() - sent < 0.3 + LOAD_SLACK, lines
            await engine.send_raw(b"position startpos moves e2e3\nisready\ngo depth 5\n")
            lines = await engine.until("bestmove", 30)
            assert not any("no search iteration" in line for line in lines), lines
            assert any(line.startswith("info depth 5 ") for line in lines), lines

    run(scenario())


@needs_numba
def test_isready_waits_for_the_compiled_code() -> None:
    """After `setgame`, `readyok` means the game's compiled searches are there: the
    first `go` says nothing of a core still loading."""

    async def scenario() -> None:
        daemon = TcpEngine("--core", "compiled")
        try:
            client = await Engine.connect("127.0.0.1", daemon.port)
            await client.send("setgame abalone")
            await client.ready(60)
            lines = await client.ask("go movetime 50", "bestmove")
            assert not any("still loading" in line for line in lines), lines
            await client.close()
        finally:
            daemon.stop()

    run(scenario())


@needs_numba
def test_preparing_the_compiler_holds_numbas_compiler_lock() -> None:
    """The start-up thread that prepares numba's typing and target contexts refreshes
    them under the lock every compilation and cache load takes: a refresh racing with
    one of theirs broke numba's registries ('generator already executing')."""
    code = """
import threading
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import cpu_target
from search import specialised

held = []
for context in (cpu_target.typing_context, cpu_target.target_context):
    def refresh(original=context.refresh):
        held.append(global_compiler_lock.is_locked())
        return original()
    context.refresh = refresh
specialised.prepare_compiler()
next(thread for thread in threading.enumerate() if thread.name == "prepare-compiler").join(60)
print(bool(held) and all(held))
"""
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "True", result.stdout[-300:] + result.stderr


@needs_numba
def test_commands_sent_the_moment_the_daemon_listens_raise_nothing() -> None:
    """Clients that choose games and load hash files while the daemon still prepares
    numba's compiler: every command is answered, and the log holds no traceback."""

    async def scenario(daemon: TcpEngine) -> None:
        clients = [await Engine.connect("127.0.0.1", daemon.port) for _ in range(3)]
        for client, game in zip(clients, all_games()):  # a game each
            await client.send_raw(f"setgame {game}\nhash load nothing-here\n".encode())
        for client in clients:
            (line,) = await client.until("error", 60)
            assert line == "error io hash no hash file 'nothing-here'"
            await client.ready(60)
            await client.close()

    for _ in range(3):
        daemon = TcpEngine("--core", "compiled")
        try:
            run(scenario(daemon))
        finally:
            daemon.stop()
        time.sleep(0.2)  # the log's last lines
        assert not any("Traceback" in line or "Error" in line for line in daemon.log), "".join(daemon.log)
