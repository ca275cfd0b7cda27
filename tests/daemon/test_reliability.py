"""The daemon as a stranger on the network would try it: the real `engine --tcp`
process, driven over real sockets, through every bound it keeps (docs/remote.md):
confined hash files, authentication, stoppable work, fair service, the memory budget,
clean shutdown."""

from __future__ import annotations

import asyncio
import os
import signal
import ssl
import subprocess
import time
from pathlib import Path

import pytest

from protocol.client import Engine, EngineClosed, EngineError
from tests.conftest import AT_ONCE_S, LOAD_SLACK, TcpEngine, cpu_seconds, engine_command, resident_mib, run

TOKEN = "s3cret-token-of-the-test-run-0123456789"


@pytest.fixture
def hash_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "hash"
    folder.mkdir()
    return folder


def daemon(hash_dir: Path, *extra: str) -> TcpEngine:
    return TcpEngine("--hash-dir", str(hash_dir), "--log-level", "info", *extra)


def connect(engine: TcpEngine, token: str | None = None, tls: ssl.SSLContext | None = None):
    return Engine.connect("127.0.0.1", engine.port, token, tls)


async def isready_ms(engine: TcpEngine) -> float:
    """The time a new session's `isready` takes to answer, connection excluded."""
    client = await connect(engine)
    try:
        started = time.monotonic()
        await client.ready(5)
        return (time.monotonic() - started) * 1000
    finally:
        await client.close()


# ---- files -----------------------------------------------------------------------------


def test_loading_a_device_or_a_hostile_file_reads_nothing(hash_dir: Path, tmp_path: Path) -> None:
    """/dev/zero behind a link in the directory, and a file whose header announces a
    huge table, are refused before a byte of body is read: memory stays put."""
    (hash_dir / "zero.hash").symlink_to("/dev/zero")
    huge = hash_dir / "huge.hash"
    with open(huge, "wb") as out:  # a valid header announcing 2**40 entries, then a hole
        game = b"clobber"
        out.write(b"ENGINE-TT\n" + (1).to_bytes(4, "little") + (1).to_bytes(4, "little")
                  + (1 << 40).to_bytes(8, "little") + bytes([len(game)]) + game)
        out.truncate(1 << 31)
    engine = daemon(hash_dir)

    async def scenario() -> None:
        client = await connect(engine)
        await client.send("setgame clobber")
        await client.ready()
        before = resident_mib(engine.process.pid)
        for name, expected in (("zero.hash", "error io hash no hash file 'zero.hash'"),
                               ("huge.hash", "error bad-value hash 'huge.hash' holds 1099511627776 entries")):
            (reply,) = await client.ask(f"hash load {name}", "error")
            assert reply.startswith(expected), reply
        assert resident_mib(engine.process.pid) - before < 50
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_names_outside_the_directory_are_refused_and_nothing_outside_changes(
        hash_dir: Path, tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    engine = daemon(hash_dir)

    async def scenario() -> None:
        client = await connect(engine)
        await client.send("setgame clobber")
        await client.bestmove("go depth 3")
        for command in ("hash save ../victim.txt", f"hash save {victim}", "hash load ../victim.txt",
                        f"hash load {victim}", "hash save .hidden", "hash save a/b",
                        "setoption name HashFile value ../victim.txt", f"setoption name HashFile value {victim}"):
            with pytest.raises(EngineError) as refused:
                await client.ask(command, "readyok", 5)
            assert refused.value.code == "bad-value", refused.value.line
            assert "is not a hash file name" in refused.value.message
        # Missing and not allowed read alike: a client learns nothing of what exists.
        (missing,) = await client.ask("hash load nothing.hash", "error")
        (link,) = await client.ask("hash load passwd", "error")
        assert missing == "error io hash no hash file 'nothing.hash'"
        assert link == "error io hash no hash file 'passwd'"
        await client.send("quit")

    (hash_dir / "passwd").symlink_to("/etc/passwd")
    try:
        run(scenario())
    finally:
        engine.stop()
    assert victim.read_text() == "precious\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["hash", "victim.txt"]


def test_two_saves_to_one_name_leave_one_valid_file_and_true_replies(hash_dir: Path) -> None:
    engine = daemon(hash_dir)

    async def scenario() -> None:
        big, small = await connect(engine), await connect(engine)
        for client, depth in ((big, 7), (small, 2)):
            await client.send("setgame clobber")
            await client.bestmove(f"go depth {depth}", timeout=120)
        counts = await asyncio.gather(*(client.ask("hash save same.hash", "info string hash saved")
                                        for client in (big, small)))
        said = {int(lines[-1].split()[4]) for lines in counts}
        assert len(said) == 2
        reader = await connect(engine)
        await reader.send("setgame clobber")
        (loaded,) = await reader.ask("hash load same.hash", "info string")
        assert int(loaded.split()[4]) in said
        for client in (big, small, reader):
            await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()
    assert [path.name for path in hash_dir.iterdir()] == ["same.hash"]


def test_a_killed_save_leaves_the_old_file_and_a_restart_cleans_up(hash_dir: Path) -> None:
    """kill -9 in the middle of a save: the old file is intact; the next daemon removes
    the temporary file."""
    for _ in range(3):
        engine = daemon(hash_dir)
        saved: list[bytes] = []

        async def fill() -> None:
            client = await connect(engine)
            await client.send("setoption name Hash value 256")
            await client.send("setgame clobber")
            await client.ask("hash save old.hash", "info string hash saved")
            saved.append((hash_dir / "old.hash").read_bytes())
            await client.bestmove("go movetime 2500", timeout=30)
            await client.send("hash save old.hash")
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not any(hash_dir.glob("*.tmp")):
                time.sleep(0.0005)  # blocking on purpose: the kill must follow at once
            engine.process.kill()

        run(fill())
        engine.process.wait()
        if any(hash_dir.glob("*.tmp")):
            break
    else:
        pytest.fail("the save always finished before the kill")
    assert (hash_dir / "old.hash").read_bytes() == saved[0]
    old = saved[0]
    restarted = daemon(hash_dir)
    try:
        assert sorted(path.name for path in hash_dir.iterdir()) == ["old.hash"]
        assert (hash_dir / "old.hash").read_bytes() == old

        async def load() -> None:
            client = await connect(restarted)
            await client.send("setgame clobber")
            (reply,) = await client.ask("hash load old.hash", "info string")
            assert reply.startswith("info string hash loaded ")
            await client.close()

        run(load())
    finally:
        restarted.stop()


# ---- authentication ----------------------------------------------------------------------


def test_listening_beyond_loopback_needs_a_token(hash_dir: Path) -> None:
    result = subprocess.run([*engine_command(), "--tcp", "0", "--host", "0.0.0.0"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "refusing to listen on 0.0.0.0 without --token FILE" in result.stderr


def test_a_wrong_or_missing_token_is_closed_and_the_right_one_served(hash_dir: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    token_file.chmod(0o600)
    engine = daemon(hash_dir, "--token", str(token_file))

    async def refused(first: str | None) -> str:
        client = await connect(engine)
        if first is not None:
            await client.send(first)
        await client.send("isready")
        (line,) = await client.until("error", 15)
        with pytest.raises(EngineClosed):
            await client.read_line(5)
        return line

    async def scenario() -> None:
        assert await refused("auth wrong-token") == "error unauthorized auth the first line must be auth <token>"
        assert (await refused("uci")).startswith("error unauthorized uci ")
        assert (await refused("auth")).startswith("error unauthorized auth ")
        client = await connect(engine, TOKEN)
        assert await client.ready() == []
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()
    assert sum("authentication failed" in line for line in engine.log) == 3


def test_tls_with_a_token(hash_dir: Path, tmp_path: Path) -> None:
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    made = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
                           "-out", str(cert), "-days", "1", "-subj", "/CN=localhost"],
                          capture_output=True, timeout=60)
    if made.returncode != 0:
        pytest.skip("openssl cannot make a test certificate here")
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o600)
    engine = daemon(hash_dir, "--token", str(token_file), "--tls-cert", str(cert), "--tls-key", str(key))

    async def scenario() -> None:
        context = ssl.create_default_context(cafile=str(cert))
        context.check_hostname = False
        client = await connect(engine, TOKEN, context)
        await client.send("setgame clobber")
        assert (await client.bestmove("go depth 2")).move
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


# ---- stoppable work, fair service ----------------------------------------------------------


def test_perft_stops_at_stop_and_when_its_client_vanishes(hash_dir: Path) -> None:
    engine = daemon(hash_dir)

    async def scenario() -> None:
        client = await connect(engine)
        await client.send("setgame othello")
        await client.send("perft 12")
        await asyncio.sleep(0.5)
        started = time.monotonic()
        (reply,) = await client.ask("stop", "error")
        assert (time.monotonic() - started) < AT_ONCE_S, "perft answered stop late"
        assert reply.startswith("error stopped perft stopped after ")
        assert await client.ready() == []
        # A client that sends perft and vanishes.
        gone = await connect(engine)
        await gone.send("setgame othello")
        await gone.send("perft 12")
        await gone.send("isready")  # queued behind the perft
        await asyncio.sleep(0.3)
        gone._writer.transport.abort()
        await asyncio.sleep(0.3)
        before = cpu_seconds(engine.process.pid)
        await asyncio.sleep(1.0)
        assert cpu_seconds(engine.process.pid) - before < 0.2, "the perft went on without its client"
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_busy_sessions_leave_a_new_one_ready_at_once(hash_dir: Path) -> None:
    """64 sessions: perfts and infinite searches past the search limit, and saves and
    loads, while a new session asks isready."""
    fifo = hash_dir / "fifo.hash"
    os.mkfifo(fifo)
    engine = daemon(hash_dir, "--max-sessions", "80")

    async def scenario() -> None:
        clients = [await connect(engine) for _ in range(64)]
        for index, client in enumerate(clients):
            await client.send("setgame othello")
            match index % 4:
                case 0:
                    await client.send("perft 12")
                case 1:
                    await client.send("go infinite")
                case 2:
                    await client.send("hash load fifo.hash")
                case 3:
                    await client.send("hash save busy.hash")
        await asyncio.sleep(1.0)
        latencies = sorted([await isready_ms(engine) for _ in range(9)])
        assert latencies[len(latencies) // 2] < 50 + 1000 * LOAD_SLACK, latencies
        for client in clients:
            client._writer.transport.abort()
        # The 64 sessions' work winds down (tables given back) within seconds, sooner on
        # an idle machine; then the daemon idles.
        winding_down = time.monotonic() + 10
        while True:
            before = cpu_seconds(engine.process.pid)
            await asyncio.sleep(1.0)
            used = cpu_seconds(engine.process.pid) - before
            if used < 0.3 or time.monotonic() > winding_down:
                break
        assert used < 0.3, "work went on without its clients"

    try:
        run(scenario())
    finally:
        engine.stop()


def test_the_daemons_limits_answer_busy(hash_dir: Path) -> None:
    engine = daemon(hash_dir, "--max-sessions", "2", "--max-searches", "1")

    async def scenario() -> None:
        first, second = await connect(engine), await connect(engine)
        for client in (first, second):
            await client.send("setgame clobber")
        await first.send("go infinite")
        await first.until("info depth 1")
        with pytest.raises(EngineError) as refused:
            await second.bestmove("go depth 3", timeout=5)
        assert refused.value.code == "busy" and "--max-searches" in refused.value.message
        third = await connect(engine)
        (line,) = await third.until("error", 5)
        assert line.startswith("error busy - 2 sessions open") and "--max-sessions" in line
        with pytest.raises(EngineClosed):
            await third.read_line(5)
        await first.bestmove("stop")
        assert (await second.bestmove("go depth 3")).move
        for client in (first, second):
            await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


# ---- memory --------------------------------------------------------------------------------


def test_the_hash_budget_bounds_every_session_together(hash_dir: Path) -> None:
    engine = daemon(hash_dir, "--max-hash-mib", "100")

    async def scenario() -> None:
        # Othello's compiled code (its evaluation's tables among it) loads once, here,
        # so that the figures below are of the tables alone.
        loader = await connect(engine)
        await loader.send("setoption name Hash value 1")
        await loader.send("setgame othello")
        assert await loader.ready(180) == []
        await loader.close()
        first, second = await connect(engine), await connect(engine)
        with pytest.raises(EngineError) as refused:
            await first.ask("setoption name Hash value 128", "readyok", 5)
        assert refused.value.code == "bad-value" and "hash budget of 100 MiB" in refused.value.message
        await first.send("setoption name Hash value 48")  # 72 MiB with the solver's table
        await first.send("setgame clobber")
        assert await first.ready() == []
        await second.send("setoption name Hash value 16")  # 24 MiB: fits beside
        await second.send("setgame clobber")
        assert await second.ready() == []
        with pytest.raises(EngineError) as refused:
            await second.ask("setgame othello", "readyok", 5)  # another 24 MiB: does not
        assert refused.value.code == "busy" and "96 of 100 MiB" in refused.value.message
        await second.send("position startpos")
        assert (await second.bestmove("go depth 2")).move, "the refused setgame changed nothing"
        resident = resident_mib(engine.process.pid)
        await first.close()
        await asyncio.sleep(0.3)
        await second.send("setgame othello")  # the closed session's memory is back at once
        assert await second.ready() == []
        assert resident_mib(engine.process.pid) < resident + 30
        await second.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_an_error_reply_raises_at_once_in_the_client(hash_dir: Path) -> None:
    engine = daemon(hash_dir)

    async def scenario() -> None:
        client = await connect(engine)
        started = time.monotonic()
        with pytest.raises(EngineError) as refused:
            await client.bestmove("go depth 3")
        assert time.monotonic() - started < 1 + LOAD_SLACK
        assert (refused.value.code, refused.value.command) == ("no-game", "go")
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_sigterm_ends_every_session_cleanly(hash_dir: Path) -> None:
    engine = daemon(hash_dir)

    async def scenario() -> None:
        searching, saving = await connect(engine), await connect(engine)
        await searching.send("setgame clobber")
        await searching.send("setoption name HashFile value term.hash")
        await searching.send("go infinite")
        await searching.until("info depth 3")
        await saving.send("setoption name Hash value 256")
        await saving.send("setgame othello")
        await saving.send("perft 12")
        await asyncio.sleep(0.2)
        engine.process.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(engine.process.wait, 15) == 0

    run(scenario())
    time.sleep(0.2)
    log = "".join(engine.log)
    assert "Traceback" not in log and "CancelledError" not in log, log
    assert [path.name for path in hash_dir.iterdir()] == ["term.hash"]
    assert (hash_dir / "term.hash").stat().st_size > 1000


def test_a_flood_of_commands_from_a_client_that_never_reads_stays_bounded(hash_dir: Path) -> None:
    """20,000 `moves` (about 11 MB of replies) and junk lines, never read: the daemon reads
    no further than its bounds allow, its memory stays put, and others are served."""
    engine = daemon(hash_dir)

    async def scenario() -> None:
        greedy = await connect(engine)
        await greedy.send("setgame clobber")
        await greedy.ready()
        before = resident_mib(engine.process.pid)
        for index in range(20_000):
            greedy._writer.write(b"moves\n" if index % 2 else b"junk line\n")
        await asyncio.sleep(2.0)
        assert resident_mib(engine.process.pid) - before < 50
        assert await isready_ms(engine) < 500 + 1000 * LOAD_SLACK
        greedy._writer.transport.abort()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_connections_that_never_authenticate_cannot_lock_out_the_token(hash_dir: Path, tmp_path: Path) -> None:
    """Idle sockets that never send `auth` take no session: past --max-unauthenticated the
    oldest is closed, and a client with the token is served whatever they do."""
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o600)
    engine = daemon(hash_dir, "--token", str(token_file), "--max-sessions", "2", "--max-unauthenticated", "4")

    async def scenario() -> None:
        idle = [await asyncio.open_connection("127.0.0.1", engine.port) for _ in range(10)]
        await asyncio.sleep(0.3)
        # The six oldest were closed to make room, each with one line.
        for reader, _ in idle[:6]:
            line = (await asyncio.wait_for(reader.readline(), 5)).decode()
            assert line.startswith("error busy - more than 4 connections waiting to authenticate"), line
            assert await asyncio.wait_for(reader.read(), 5) == b""
        clients = [await connect(engine, TOKEN) for _ in range(2)]
        for client in clients:
            assert await client.ready(5) == []
        # Sessions are counted once authenticated: a third is one too many.
        third = await connect(engine, TOKEN)
        (line,) = await third.until("error", 5)
        assert line.startswith("error busy - 2 sessions open")
        for client in clients:
            await client.close()
        for _, writer in idle:
            writer.close()

    try:
        run(scenario())
    finally:
        engine.stop()


def test_empty_lines_before_the_auth_line_are_ignored(hash_dir: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN)
    token_file.chmod(0o600)
    engine = daemon(hash_dir, "--token", str(token_file))

    async def scenario() -> None:
        client = await connect(engine)
        await client.send_raw(f"\n  \r\nauth {TOKEN}\n".encode())
        assert await client.ready(5) == []
        await client.close()

    try:
        run(scenario())
    finally:
        engine.stop()
