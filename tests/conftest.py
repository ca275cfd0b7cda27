"""Shared fixtures: the referee vectors, the slow marker, and starting real engines."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Iterator

import pytest

from adapters.analysis.gamefile import LEAVE
from adapters.codingame import turn_format
from adapters.codingame.common import sorted_tokens
from games import find_game
from protocol.launch import engine_command

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
VECTORS = DATA / "vectors"
#: The data shared beside the project, read in place: $ENGINE_SHARED_DATA, else the
#: folder `shared/data` beside the checkout.
SHARED_DATA = Path(os.environ.get("ENGINE_SHARED_DATA") or ROOT.parent / "shared" / "data")
#: The WTHOR database of expert Othello games.
EXPERT_GAMES = SHARED_DATA / "othello-games"

# Engines the tests start import this checkout's code, whichever install is on the path.
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
# ... and keep their hash files in a directory of the test run's own, not the user's.
os.environ["ENGINE_HASH_DIR"] = tempfile.mkdtemp(prefix="engine-test-hash-")
# The tools' shared daemons of the test run live in a runtime folder (mode 0700) and log
# to a state folder of its own, and end with it (`pytest_sessionfinish`).
os.environ["ENGINE_RUNTIME_DIR"] = tempfile.mkdtemp(prefix="engine-test-run-")
os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="engine-test-state-")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--runslow", action="store_true", help="also run the slow exhaustive checks")
    parser.addoption("--core", choices=("compiled", "python"),
                     help="the search core of the engines the tests start (default: the engine's)")


def pytest_configure(config: pytest.Config) -> None:
    core = config.getoption("--core")
    if core:
        os.environ["ENGINE_CORE"] = core


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """End the shared daemons the test run's tools started (none outlives the run)."""
    end_daemons(None, signal.SIGTERM)


def end_daemons(folder: Path | None, signum: int) -> None:
    """Send `signum` to every shared daemon in runtime folder `folder` (None:
    ENGINE_RUNTIME_DIR's) whose process is known (it answers, or its pid file names it)."""
    from protocol import shared

    for found in shared.status(folder):
        if found.pid is not None:
            with contextlib.suppress(OSError):
                os.kill(found.pid, signum)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


#: What a check of wall-clock time allows beyond the bound it checks: on a loaded machine
#: a process may wait this long for a core. Such a check tells a deadline kept from one
#: missed or ignored; how closely the engine and the adapter keep theirs is measured on
#: a quiet machine by scripts/bench and scripts/strength, not by the tests.
LOAD_SLACK = 0.5
#: How long a check allows for what the engine does at once and whose failure would be
#: far longer (a `stop` ending a perft of minutes): the behaviour, not the machine's
#: latency, which two busy loops beside the suite stretch past LOAD_SLACK.
AT_ONCE_S = 5.0

#: How far the weighted terms of each game's evaluation may add up from its value, for
#: the rounding the evaluation documents (Lines of Action rounds its per-checker
#: averages and its Euler terms down). Every game states its own: the weights' tests
#: check that every registered game is here.
EVALUATION_ROUNDING = {"clobber": 0, "othello": 0, "loa": 8, "isolation": 0, "abalone": 0}


def load_vectors(name: str) -> list[dict]:
    with open(VECTORS / f"{name}.jsonl") as handle:
        return [json.loads(line) for line in handle]


def perft_records(game: str) -> list[dict]:
    return [record for record in load_vectors("perft") if record["game"] == game and "depth" in record]


def move_tokens(position) -> set[str]:
    """The legal moves of `position` (a `games.base.Position`), as its game writes them."""
    return {position.game.format_move(position, move) for move in position.legal_moves()}


def stop_process(process: subprocess.Popen) -> None:
    """Terminate `process` if it still runs, and kill it if it does not end in 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def random_game(game: str, plies: int, seed: int = 1, leave_at: int | None = None) -> list[str]:
    """Up to `plies` random legal moves of `game` from its start (fewer where it ends);
    in a game of more players, with the player to move leaving it (`LEAVE`) after
    `leave_at` of them."""
    rules = find_game(game)
    position, moves, rng = rules.initial_state({}), [], random.Random(seed)
    for ply in range(plies):
        if ply == leave_at:
            position = turn_format(game).leave(position, position.to_move)
            moves.append(LEAVE)
        legal = sorted_tokens(rules, position)
        if not legal:
            break
        moves.append(rng.choice(legal))
        position = position.play(rules.parse_move(position, moves[-1]))
    return moves


def run(coroutine):
    """Run a coroutine to completion in a fresh event loop (tests stay synchronous)."""
    return asyncio.run(coroutine)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def resident_mib(pid: int) -> float:
    """A process's resident memory (VmRSS), in MiB, from /proc."""
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for {pid}")


class TcpEngine:
    """A real `engine --tcp 0` process; `port` is read from its log on stderr, which a
    thread then keeps reading into `log` (so that the daemon never blocks on it)."""

    def __init__(self, *extra: str):
        self.process = subprocess.Popen(
            [*engine_command(), "--tcp", "0", *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        assert self.process.stderr is not None
        self.log: list[str] = []
        while True:
            line = self.process.stderr.readline().decode()
            if not line:
                raise RuntimeError("engine exited before listening: " + "".join(self.log))
            self.log.append(line)
            match = re.search(r"listening on [^ ]+:(\d+)", line)
            if match:
                self.port = int(match.group(1))
                break
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for raw in self.process.stderr:
            self.log.append(raw.decode("utf-8", "replace"))

    def stop(self) -> None:
        stop_process(self.process)


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private runtime folder of the test's own (mode 0700, no daemon yet) for this
    process and the tools it starts (ENGINE_RUNTIME_DIR); its daemons are stopped at the
    end, killed where they do not stop. It is made in the system's temporary folder, not
    in `tmp_path`: the shared daemon's socket lives there, and a Unix socket's path has
    at most 107 bytes, which a pytest worker's `tmp_path` can pass."""
    from protocol import shared

    folder = Path(tempfile.mkdtemp(prefix="engine-run-"))
    monkeypatch.setenv("ENGINE_RUNTIME_DIR", str(folder))
    yield folder
    folder.chmod(0o700)
    with contextlib.suppress(OSError):
        shared.stop(shared.Place.of(folder=folder))
    end_daemons(folder, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def tcp_engine() -> Iterator[TcpEngine]:
    engine = TcpEngine()
    try:
        yield engine
    finally:
        engine.stop()


class StdioEngine:
    """An async context manager: a real `engine` on stdio, as an Engine."""

    def __init__(self, *arguments: str):
        self.arguments = arguments
        self.client = None

    async def __aenter__(self):
        from protocol.client import Engine

        self.client = await Engine.popen([*engine_command(), *self.arguments],
                                               stderr=subprocess.DEVNULL)
        return self.client

    async def __aexit__(self, *exc_info) -> None:
        await self.client.close()


class TcpSession:
    """An async context manager: a real `engine --tcp 0` daemon and one session of it
    over a socket, as an Engine; the daemon stops on exit."""

    def __init__(self, *arguments: str):
        self.arguments = arguments
        self.client = None

    async def __aenter__(self):
        from protocol.client import Engine

        self.server = TcpEngine(*self.arguments)
        self.client = await Engine.connect("127.0.0.1", self.server.port)
        return self.client

    async def __aexit__(self, *exc_info) -> None:
        try:
            await self.client.close()
        finally:
            self.server.stop()


@pytest.fixture(params=["stdio", "tcp"])
def session(request: pytest.FixtureRequest):
    """Each transport in turn: StdioEngine, then TcpSession (called like either)."""
    return {"stdio": StdioEngine, "tcp": TcpSession}[request.param]
