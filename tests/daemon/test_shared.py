"""The user's shared daemon (`protocol.shared`, `engine daemon start|stop|status`), over
real processes in a runtime folder of the test's own: two tools starting it at once
start one; a session of it searches; a daemon killed with SIGKILL is replaced at the
next start; another install's socket is left alone; it ends on `stop` and, idle, by
itself; a runtime folder open to others is refused."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from protocol import shared
from protocol.client import Engine
from protocol.format import DaemonFigures
from tests.conftest import AT_ONCE_S, engine_command, run, stop_process
from tools.hostile import NOBODY, WAYS, broken

#: How long a daemon may take to start or end (s).
WAIT_S = 60


@pytest.fixture
def runtime(runtime: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test's runtime folder (tests/conftest.py), with a log folder of its own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return runtime


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


#: The install key of another version of the code.
OTHER_KEY = "0123456789abcdef"


def other_install(runtime: Path) -> subprocess.Popen:
    """A daemon of another install (OTHER_KEY) in `runtime`, once it listens."""
    other = runtime / f"engine-{OTHER_KEY}.sock"
    process = subprocess.Popen([*engine_command(), "--socket", str(other)], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: shared.answers(other), "the other install's daemon did not listen")
    return process


def test_another_installs_daemon_is_left_alone(runtime: Path) -> None:
    other = runtime / f"engine-{OTHER_KEY}.sock"
    process = other_install(runtime)
    try:
        place = shared.ensure_running()
        assert place.socket != other
        found = {entry.key: entry for entry in shared.status()}
        assert found[OTHER_KEY].figures.pid == process.pid and not found[OTHER_KEY].current
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


def test_the_install_key_follows_the_served_files_and_the_daemons_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A served file touched or changed makes another key, and so does another value of
    a variable the daemon reads; the key costs no file reads."""
    before = shared.install_key()
    monkeypatch.setenv("ENGINE_BOOK_DIR", str(tmp_path))
    assert shared.install_key() != before
    monkeypatch.delenv("ENGINE_BOOK_DIR")
    assert before == shared.install_key()
    probe = Path(shared.__file__)
    stamp = probe.stat()
    try:
        os.utime(probe, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))
        assert shared.install_key() != before
    finally:
        os.utime(probe, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert shared.install_key() == before


PIPED = "setgame clobber\nposition startpos moves e2e3\nisready\ngo depth 4\n"


def test_engine_shared_serves_stdio_as_a_session_of_the_daemon(runtime: Path) -> None:
    """`engine --shared` answers a piped session as the stdio engine does (the search
    after the end of input is finished and answered), on the one shared daemon."""
    for _ in range(2):
        done = subprocess.run([*engine_command(), "--shared"], input=PIPED, capture_output=True, text=True,
                              timeout=WAIT_S)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == "readyok" and lines[-1].startswith("bestmove ") and "info depth 4" in done.stdout
    (found,) = shared.status()
    assert found.figures.games == ("clobber",) and found.figures.sessions == 0
    asked = subprocess.run([*engine_command(), "--shared"], input="games\nquit\ngames\n", capture_output=True,
                           text=True, timeout=WAIT_S)
    assert asked.stdout.splitlines() == ["games clobber othello loa isolation abalone"]


def test_engine_shared_becomes_an_engine_of_its_own_where_the_daemon_cannot_serve(runtime: Path) -> None:
    runtime.chmod(0o755)
    done = subprocess.run([*engine_command(), "--shared"], input=PIPED, capture_output=True, text=True,
                          timeout=WAIT_S)
    runtime.chmod(0o700)
    assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith("bestmove "), done.stderr
    assert "the shared engine daemon cannot be used" in done.stderr and "of its own" in done.stderr
    assert list(runtime.iterdir()) == []


def test_eof_finish_is_for_the_users_own_sessions(runtime: Path) -> None:
    """Over TCP a stranger's end of input always abandons its work: `eof` is refused."""
    done = subprocess.run([*engine_command(), "--shared"], input="eof later\n", capture_output=True,
                          text=True, timeout=WAIT_S)
    assert done.stdout.startswith("error syntax eof expected eof finish or eof abandon, got 'later'"), done.stdout

    async def stranger() -> str:
        process = await asyncio.create_subprocess_exec(*engine_command(), "--tcp", "0",
                                                       stderr=asyncio.subprocess.PIPE)
        try:
            while b"listening on" not in (line := await process.stderr.readline()):
                assert line, "the TCP daemon did not listen"
            port = int(line.decode().rsplit(":", 1)[1])
            engine = await Engine.connect("127.0.0.1", port)
            await engine.send("eof finish")
            answer = await engine.read_line(WAIT_S)
            await engine.close()
            return answer
        finally:
            process.terminate()
            await process.wait()
    assert run(stranger()).startswith("error unsupported eof")


def test_start_can_load_games_and_says_why_it_cannot(runtime: Path) -> None:
    started = engine_daemon("start", "--load", "clobber", "--load", "othello")
    assert started.returncode == 0 and "running, clobber othello loaded" in started.stdout, started.stderr
    (found,) = shared.status()
    assert found.figures.games == ("clobber", "othello") and found.figures.sessions == 0
    refused = engine_daemon("start", "--load", "chess")
    assert refused.returncode == 1 and "the daemon did not load chess: error " in refused.stderr


def test_eof_finish_is_taken_while_a_search_runs(runtime: Path) -> None:
    """`eof finish` read while a search runs is taken, not refused as busy: the search
    after it is still answered at the end of input."""
    done = subprocess.run([*engine_command(), "--shared"], input="setgame clobber\ngo depth 4\neof abandon\neof finish\n",
                          capture_output=True, text=True, timeout=WAIT_S)
    assert "error" not in done.stdout and done.stdout.splitlines()[-1].startswith("bestmove "), done.stdout


#: What `open_session` says of each way the daemon cannot be used (but `full`, whose
#: session opens and whose `setgame` is refused).
REFUSALS = {"flood": "answered isready with 8192 bytes and no line: it is no engine",
            "garbage": "answered isready with b'hello there\\n': it is no engine of this install",
            "silent": "did not answer isready within 1.0 s", "foreign": "runs as uid 65534, not as this user",
            "lock": "has been held for 1.0 s by pid", "lock-stopped": "is held by a stopped process",
            "stopped": "did not answer isready within 1.0 s", "stopped-starting": "the daemon being started (pid"}


@pytest.mark.parametrize("way", REFUSALS)
def test_a_daemon_that_cannot_be_used_is_said_in_words_within_the_wait(runtime: Path, way: str) -> None:
    if way == "foreign" and os.getuid() != 0:
        pytest.skip("a listener of another user needs root to make")
    with broken(way, engine_command()):
        started = time.monotonic()
        with pytest.raises(shared.Unusable) as refused:
            shared.open_session(wait=1.0)
        assert time.monotonic() - started < 1.0 + AT_ONCE_S
    assert REFUSALS[way] in str(refused.value), refused.value


#: The ways an `engine --shared` tries by default, one of each path (the others, whose
#: refusals the test above checks, with --runslow).
SAMPLED = ("garbage", "silent", "lock-stopped", "full")


@pytest.mark.parametrize("way", [way if way in SAMPLED else pytest.param(way, marks=pytest.mark.slow)
                                 for way in WAYS])
def test_engine_shared_serves_on_its_own_whatever_keeps_the_daemon_from_serving(runtime: Path, way: str) -> None:
    """Each way the daemon can be unusable (tools.hostile) ends, without a hang, in an
    engine of its own that answers the whole session, stderr saying why; a daemon that
    cannot load the game hands over the session it had begun."""
    if way == "foreign" and os.getuid() != 0:
        pytest.skip("a listener of another user needs root to make")
    with broken(way, engine_command()):
        done = subprocess.run([*engine_command(), "--shared"], input=PIPED, capture_output=True, text=True,
                              timeout=WAIT_S)
    assert done.returncode == 0 and done.stdout.splitlines()[-1].startswith("bestmove "), (done.stdout, done.stderr)
    assert "info depth 4" in done.stdout and "error" not in done.stdout, done.stdout
    said = "cannot load the game (error busy setgame" if way == "full" else "cannot be used ("
    assert f"the shared engine daemon {said}" in done.stderr and "of its own" in done.stderr, done.stderr


def test_a_tool_reaches_the_socket_only_through_folders_no_one_else_can_write(runtime: Path, tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """A runtime folder inside a folder that another user owns, or may write, is refused
    however safe the folder itself is; one reached through a link of the user's own, to
    a safe folder, serves."""
    if os.getuid() != 0:
        pytest.skip("a folder of another user needs root to make")
    theirs = Path(tempfile.mkdtemp(prefix="engine-theirs-"))
    try:
        os.chown(theirs, NOBODY, NOBODY)
        theirs.chmod(0o777)
        (theirs / "engine").mkdir(mode=0o700)
        monkeypatch.setenv("ENGINE_RUNTIME_DIR", str(theirs / "engine"))
        result = engine_daemon("start")
        assert result.returncode == 1, result.stdout
        assert f"{theirs}: a folder on the way to the socket's must be this user's or root's" in result.stderr
        done = subprocess.run([*engine_command(), "--shared"], input=PIPED, capture_output=True, text=True,
                              timeout=WAIT_S)
        assert done.stdout.splitlines()[-1].startswith("bestmove ") and "cannot be used" in done.stderr
        assert list((theirs / "engine").iterdir()) == []
    finally:
        shutil.rmtree(theirs)
    link = tmp_path / "link"
    link.symlink_to(runtime)
    monkeypatch.setenv("ENGINE_RUNTIME_DIR", str(link))
    assert "engine daemon: running" in engine_daemon("start").stdout
    assert [entry.socket.parent for entry in shared.status()] == [runtime]


def test_a_stopped_daemon_tells_its_sessions_and_their_clients(runtime: Path) -> None:
    """`engine daemon stop` during `go infinite`: the search is answered with its best
    move so far, the session is told that the daemon ends (`error ending`), and
    `engine --shared` says so on stderr and exits 1."""
    client = subprocess.Popen([*engine_command(), "--shared"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    client.stdin.write("setgame clobber\ngo infinite\n")
    client.stdin.flush()
    assert client.stdout.readline().startswith("info "), "the search did not start"
    assert engine_daemon("stop").stdout.strip() == "engine daemon: stopped"
    out, err = client.communicate(timeout=WAIT_S)
    lines = out.splitlines()
    assert lines[-2].startswith("bestmove ") and lines[-1].startswith("error ending - the daemon is ending"), out
    assert client.returncode == 1 and "the shared engine daemon ended this session (error ending" in err, err


def test_a_full_daemon_is_seen_running_and_makes_room_by_closing_an_idle_session(runtime: Path) -> None:
    place = shared.Place.of()
    daemon = subprocess.Popen([*engine_command(), "--socket", str(place.socket), "--max-sessions", "1",
                               "--evict-idle", "2"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        opened: list = []

        def opens() -> bool:  # once the probes' sessions are over
            with contextlib.suppress(shared.Unusable, OSError):
                opened.append(shared.open_session(place))
            return bool(opened)
        wait_until(lambda: shared.answers(place.socket), "the daemon did not listen")
        wait_until(opens, "the daemon took no session")
        with opened[0] as held:
            (found,) = shared.status()
            assert found.figures is not None and found.figures.sessions == 1, found.line()
            assert ", 1 session(s)" in engine_daemon("status").stdout
            held.sendall(b"setgame othello\ngo infinite\n")
            time.sleep(2.5)  # a search running: not idle, however long ago its last line
            with pytest.raises(shared.Unusable, match="it is full"):
                shared.open_session(place)
            held.sendall(b"stop\n")
            time.sleep(2.5)  # idle from then on: the next session makes room (once the stop is read)
            opened.clear()
            wait_until(opens, "no room was made")
            with opened[0] as newcomer:
                newcomer.sendall(b"daemon\n")
                assert newcomer.recv(4096).startswith(b"daemon pid")
            held.settimeout(WAIT_S)
            told = b""
            while chunk := held.recv(65536):
                told += chunk
            assert b"error busy - closed after " in told and b"without a command" in told, told[-300:]
    finally:
        daemon.terminate()
        daemon.wait(WAIT_S)


def test_stop_all_ends_every_daemon_of_the_user(runtime: Path) -> None:
    process = other_install(runtime)
    try:
        assert engine_daemon("start").returncode == 0
        status = engine_daemon("status").stdout
        assert f"{OTHER_KEY} (another install): running" in status and "daemon stop --all" in status, status
        stopped = engine_daemon("stop", "--all")
        assert stopped.returncode == 0 and "engine daemon: stopped 2:" in stopped.stdout, stopped.stdout
        assert process.wait(WAIT_S) == 0 and shared.status() == []
    finally:
        stop_process(process)


def test_start_says_why_a_daemon_that_answers_garbage_cannot_be_used(runtime: Path) -> None:
    with broken("garbage", engine_command()):
        result = engine_daemon("start")
    assert result.returncode == 1 and "answered isready with b'hello there\\n'" in result.stderr, result


def test_a_socket_that_answers_and_closes_before_isready_is_named_by_its_answer() -> None:
    """A listener that writes its line and closes before the handshake is sent makes the
    send fail (EPIPE); the refusal still names what it wrote, not the broken pipe."""
    ours, theirs = socket.socketpair()
    theirs.sendall(b"hello there\n")
    theirs.close()
    with ours, pytest.raises(shared.Unusable, match=r"answered isready with b'hello there\\n'"):
        shared._handshake(ours, b"", 1.0)


def test_the_log_is_the_users_alone_and_set_aside_while_the_daemon_runs(tmp_path: Path) -> None:
    """The log file (`daemon.logfile`): mode 0600, a crash's stderr in it, set aside as
    `.1` once it passes its size, stderr then following the new file."""
    log = tmp_path / "daemon.log"
    script = ("import logging, sys\nfrom daemon.logfile import LogFile\n"
              f"logging.basicConfig(level='INFO', handlers=[LogFile({str(log)!r}, 2000)])\n"
              "for n in range(40):\n    logging.info('line %d %s', n, 'x' * 60)\n"
              "print('to stderr', file=sys.stderr, flush=True)\n")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=WAIT_S)
    aside = log.with_name("daemon.log.1")
    assert aside.exists() and aside.stat().st_size <= 2100 and log.stat().st_size <= 2100
    assert (log.stat().st_mode & 0o777, aside.stat().st_mode & 0o777) == (0o600, 0o600)
    assert log.read_text().rstrip().endswith("to stderr") and "line 39" in log.read_text()


def test_a_started_daemons_log_is_the_users_alone(runtime: Path, tmp_path: Path) -> None:
    place = shared.ensure_running()
    assert place.log.stat().st_mode & 0o777 == 0o600 and place.log.parent.stat().st_mode & 0o777 == 0o700
