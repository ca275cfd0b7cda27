"""`engine --socket PATH`: a daemon on a Unix-domain socket, over real `engine` processes.

What it proves: sessions are served there with no `auth` (the folder's permissions are
the authentication, even where TCP asks for a token); the socket is the user's alone
(mode 0600) and a folder open to others is refused; a socket file left by a daemon that
is gone is replaced, one a daemon still answers on is not; `--idle-exit` ends the daemon
once no session has been open for so long, never while one is, and takes its socket
file away; `--idle-exit` without a listener is a usage error."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import time
from pathlib import Path

import pytest

from protocol.client import Engine, SimpleEngine
from tests.conftest import LOAD_SLACK, engine_command, run, stop_process

#: How long a daemon may take to listen (s): its start imports numba.
LISTEN_S = 30


def private_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "run"
    folder.mkdir(mode=0o700)
    return folder


def start(*arguments: str) -> subprocess.Popen:
    return subprocess.Popen([*engine_command(), *arguments], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def wait_listening(path: Path, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + LISTEN_S
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read()
        if path.exists():
            return
        time.sleep(0.05)
    pytest.fail(f"no socket at {path}")


def test_sessions_are_served_on_the_socket_without_a_token(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "engine.sock"
    token = tmp_path / "token"
    token.write_text("secret\n")
    process = start("--socket", str(path), "--tcp", "0", "--token", str(token))
    try:
        wait_listening(path, process)
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        with SimpleEngine.connect_unix(path) as engine:
            engine.setgame("clobber")
            (best,) = engine.analyse({"depth": 3})
            assert best.depth == 3 and best.move

        async def two_sessions() -> None:
            first, second = await Engine.connect_unix(path), await Engine.connect_unix(path)
            try:
                await first.setgame("othello")
                await second.setgame("loa")
                assert (await first.ask("d", "board-text"))[-1].split()[0] == "board-text"
                assert (await second.ask("games", "games"))[-1].startswith("games ")
            finally:
                await first.close()
                await second.close()
        run(two_sessions())
    finally:
        stop_process(process)
    assert not path.exists(), "the daemon leaves no socket file behind"


def test_a_folder_open_to_others_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "open"
    folder.mkdir()
    folder.chmod(0o755)
    process = start("--socket", str(folder / "engine.sock"))
    try:
        assert process.wait(LISTEN_S) == 1
        assert "must be this user's alone" in process.stderr.read()
    finally:
        stop_process(process)


def test_a_stale_socket_is_replaced_and_a_live_one_kept(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "engine.sock"
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))  # bound, never listening: what a killed daemon leaves
    stale.close()
    process = start("--socket", str(path))
    try:
        deadline = time.monotonic() + LISTEN_S
        while True:
            try:
                with SimpleEngine.connect_unix(path) as engine:
                    engine.setgame("clobber")
                break
            except (ConnectionRefusedError, FileNotFoundError):
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        second = start("--socket", str(path))
        try:
            assert second.wait(LISTEN_S) == 1
            assert "a daemon already listens there" in second.stderr.read()
        finally:
            stop_process(second)
        assert path.exists() and process.poll() is None
    finally:
        stop_process(process)


#: The idle time of the idle-exit test (s): the daemon counts it from its start too, so
#: the test's first connection must come within it on a loaded machine.
IDLE_S = 5


def test_idle_exit_ends_the_daemon_only_once_no_session_is_open(tmp_path: Path) -> None:
    path = private_folder(tmp_path) / "engine.sock"
    process = start("--socket", str(path), "--idle-exit", str(IDLE_S))
    try:
        wait_listening(path, process)
        deadline = time.monotonic() + IDLE_S
        while True:  # the socket's file is there from its bind, before it listens
            try:
                engine = SimpleEngine.connect_unix(path)
                break
            except ConnectionRefusedError:
                assert time.monotonic() < deadline and process.poll() is None
                time.sleep(0.05)
        with engine:
            engine.setgame("clobber")
            time.sleep(IDLE_S + 1.5)  # well past the idle time, with a session open
            assert process.poll() is None
            assert engine.analyse({"depth": 2})[0].depth == 2
        closed = time.monotonic()
        assert process.wait(LISTEN_S) == 0
        assert time.monotonic() - closed >= IDLE_S - LOAD_SLACK
        assert not path.exists()
    finally:
        stop_process(process)


def test_idle_exit_needs_a_listener() -> None:
    result = subprocess.run([*engine_command(), "--idle-exit", "5"], stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, timeout=LISTEN_S)
    assert result.returncode == 2
    assert "--idle-exit is for a daemon serving --tcp or --socket" in result.stderr
