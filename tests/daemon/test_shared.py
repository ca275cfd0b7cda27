"""The user's shared daemon (`protocol.shared`, `engine daemon start|stop|status`), over
real processes in a runtime folder of the test's own: two tools starting it at once
start one; a session of it searches; a daemon killed with SIGKILL is replaced at the
next start; another install's socket is left alone; it ends on `stop` and, idle, by
itself; a runtime folder open to others is refused."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from protocol import shared
from protocol.client import Engine
from protocol.format import DaemonFigures
from tests.conftest import engine_command, run

#: How long a daemon may take to start or end (s).
WAIT_S = 60


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private runtime folder and log folder, for this process and the engines it starts."""
    folder = tmp_path / "runtime"
    folder.mkdir(mode=0o700)
    monkeypatch.setenv("ENGINE_RUNTIME_DIR", str(folder))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    yield folder
    shared.stop()


def engine_daemon(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([*engine_command(), "daemon", *arguments], capture_output=True, text=True, timeout=WAIT_S)


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_two_tools_starting_at_once_start_one_daemon_that_serves_sessions(runtime: Path) -> None:
    starts = [subprocess.Popen([*engine_command(), "daemon", "start"], stdout=subprocess.PIPE, text=True)
              for _ in range(2)]
    for process in starts:
        assert process.wait(WAIT_S) == 0 and "engine daemon: running" in process.stdout.read()
    (found,) = shared.status()
    assert found.figures is not None and found.current
    assert "(this install): running" in engine_daemon("status").stdout

    async def session() -> None:
        engine = await Engine.shared()
        try:
            await engine.setgame("clobber")
            (best,) = await engine.analyse({"depth": 3})
            assert best.depth == 3 and best.move
            await engine.send("daemon")
            about = DaemonFigures.parse(await engine.read_line(WAIT_S))
            assert (about.pid, about.sessions, about.searching) == (found.figures.pid, 1, 0)
            assert about.games == ("clobber",) and about.memory > 0 and about.max_searches >= 1
        finally:
            await engine.close()
    run(session())
    (after,) = shared.status()
    assert after.figures.pid == found.figures.pid, "the same daemon served the session"
    assert "games loaded: clobber" in after.line() and ", 0 session(s) (0 searching)" in after.line()
    result = engine_daemon("stop")
    assert result.returncode == 0 and "stopped" in result.stdout
    assert engine_daemon("status").stdout.strip() == "engine daemon: none running"
    assert "not running" in engine_daemon("stop").stdout


def test_a_killed_daemon_is_replaced_at_the_next_start(runtime: Path) -> None:
    first = shared.ensure_running()
    pid = shared.status()[0].figures.pid
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not shared.answers(first.socket), "the killed daemon still answers")
    assert first.socket.exists(), "a killed daemon leaves its socket"
    assert "not answering" in engine_daemon("status").stdout
    again = shared.ensure_running()
    assert again.socket == first.socket and shared.answers(again.socket)
    assert shared.status()[0].figures.pid != pid


def test_another_installs_daemon_is_left_alone(runtime: Path) -> None:
    other = runtime / "engine-0123456789abcdef.sock"
    process = subprocess.Popen([*engine_command(), "--socket", str(other)], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until(lambda: shared.answers(other), "the other install's daemon did not listen")
        place = shared.ensure_running()
        assert place.socket != other
        found = {entry.key: entry for entry in shared.status()}
        assert found["0123456789abcdef"].figures.pid == process.pid and not found["0123456789abcdef"].current
        assert found[place.key].current and found[place.key].figures.pid != process.pid
        assert shared.stop()
        assert shared.answers(other) and process.poll() is None
    finally:
        process.terminate()
        process.wait(WAIT_S)


def test_an_idle_daemon_ends_by_itself(runtime: Path) -> None:
    place = shared.ensure_running(idle_exit=1)
    wait_until(lambda: not place.socket.exists(), "the idle daemon did not end")
    assert engine_daemon("status").stdout.strip() == "engine daemon: none running"


def test_a_runtime_folder_open_to_others_is_refused(runtime: Path) -> None:
    runtime.chmod(0o755)
    result = engine_daemon("start")
    assert result.returncode == 1 and "must be this user's alone (chmod 700)" in result.stderr
    runtime.chmod(0o700)


def test_the_install_key_follows_the_served_files(tmp_path: Path) -> None:
    """A served file touched or changed makes another key; the key costs no file reads."""
    before = shared.install_key()
    assert before == shared.install_key()
    probe = Path(shared.__file__)
    stamp = probe.stat()
    try:
        os.utime(probe, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))
        assert shared.install_key() != before
    finally:
        os.utime(probe, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert shared.install_key() == before
