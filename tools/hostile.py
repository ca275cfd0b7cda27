"""Things that take the shared daemon's place, for the tests and benchmarks of the tools,
which must not trust them: `python -m tools.hostile MODE PATH` listens on a Unix socket
at PATH (or holds the lock file at PATH) and misbehaves as MODE says, until killed:

- `flood`: answers a connection with 10 MB and no line end;
- `garbage`: answers `hello there`, then closes;
- `silent`: takes connections and never answers;
- `foreign`: answers `readyok` to anything, listening as uid/gid 65534 (run as root);
- `lock`: holds the flock on PATH, sleeping;
- `lock-stopped`: holds the flock on PATH, then stops itself (SIGSTOP).

It prints `ready` once it listens or holds the lock."""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

NOBODY = 65534


def _answer(mode: str, connection: socket.socket) -> None:
    try:
        if mode == "flood":
            connection.sendall(b"x" * 10_000_000)
        elif mode == "garbage":
            connection.sendall(b"hello there\n")
        elif mode == "foreign":
            while connection.recv(4096):
                connection.sendall(b"readyok\n")
        elif mode == "silent":
            while connection.recv(4096):
                pass
    except OSError:
        pass
    finally:
        if mode != "silent":
            connection.close()


def main(mode: str, path: str) -> None:
    if mode.startswith("lock"):
        handle = open(path, "a")
        fcntl.flock(handle, fcntl.LOCK_EX)
        print("ready", flush=True)
        if mode == "lock-stopped":
            os.kill(os.getpid(), signal.SIGSTOP)
        while True:
            time.sleep(60)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    if mode == "foreign":
        os.setgid(NOBODY)
        os.setuid(NOBODY)
    server.listen(64)
    print("ready", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=_answer, args=(mode, connection), daemon=True).start()


if __name__ == "__main__":
    main(*sys.argv[1:3])


# ---- for the tests: each way the shared daemon can be unusable, made real ----------------

#: Each way, by name: the hostile modes above, and `full` (a real daemon whose tables'
#: budget has no room for a game), `stopped` (a real daemon stopped once it listens),
#: `stopped-starting` (a real daemon stopped before it listens, its pid file written as a
#: tool starting it writes it).
WAYS = ("flood", "garbage", "silent", "foreign", "lock", "lock-stopped", "full", "stopped", "stopped-starting")


def _until(condition, what: str, wait: float = 60.0) -> None:
    deadline = time.monotonic() + wait
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.02)


@contextlib.contextmanager
def broken(way: str, engine: list[str]) -> Iterator[None]:
    """The shared daemon of this install (`protocol.shared.Place.of()`) made unusable
    `way` (WAYS) until the block ends; `engine` is the engine's command."""
    from protocol import shared

    place = shared.Place.of()
    if way in ("full", "stopped", "stopped-starting"):
        extra = ["--max-hash-mib", "1"] if way == "full" else []
        process = subprocess.Popen([*engine, "--socket", str(place.socket), *extra], stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        if way == "stopped-starting":
            process.send_signal(signal.SIGSTOP)
            place.pid_file.write_text(f"{process.pid}\n")
        else:
            _until(lambda: shared.answers(place.socket), "the daemon did not listen")
            if way == "stopped":
                process.send_signal(signal.SIGSTOP)
    else:
        target = place.lock if way.startswith("lock") else place.socket
        process = subprocess.Popen([sys.executable, "-m", "tools.hostile", way, str(target)],
                                   stdout=subprocess.PIPE, text=True, start_new_session=True,
                                   cwd=Path(__file__).resolve().parents[1])
        assert process.stdout.readline().strip() == "ready", f"{way}: the stand-in did not start"
    try:
        yield
    finally:
        process.send_signal(signal.SIGCONT)
        process.kill()
        process.wait()
        for path in (place.socket, place.pid_file):
            path.unlink(missing_ok=True)
