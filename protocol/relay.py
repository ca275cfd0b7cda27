"""A stdio session of the user's shared daemon (`engine --shared`): what a client writes
on this process's stdin goes to a session of the daemon, and what the daemon answers
comes out on stdout, so that any program that starts an engine on stdio (a GUI, a
script, the README's examples) gets the daemon's warm compiled code, books and tables.

The session behaves as the stdio engine's does: the end of input finishes a search with
limits or a long job and prints its answer before the process ends (`eof finish`), and
`quit` ends it. Where the daemon cannot be used (it cannot start, or it is full), stderr
says why and this process becomes an engine of its own (`exec`), so the client loses
nothing. It loads no game code: with the daemon running, it is up in tens of
milliseconds.
"""

from __future__ import annotations

import os
import socket
import sys
import threading

from protocol import shared
from protocol.launch import engine_command

#: How long the daemon may take to answer the relay's `isready` (seconds).
READY_WAIT_S = 30.0


def _session(idle_exit: int) -> socket.socket:
    """A session of the shared daemon (started where none runs) that has answered
    `isready` and takes `eof finish`; OSError saying why where there is none."""
    place = shared.ensure_running(idle_exit=idle_exit)
    channel = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        channel.settimeout(READY_WAIT_S)
        channel.connect(str(place.socket))
        channel.sendall(b"eof finish\nisready\n")
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = channel.recv(1)
            if not chunk:
                break
            answer += chunk
        if answer.strip() != b"readyok":
            raise OSError(answer.decode(errors="replace").strip() or "the daemon closed the session")
        channel.settimeout(None)
    except BaseException:
        channel.close()
        raise
    return channel


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _pump_input(channel: socket.socket) -> None:
    """stdin to the session, then the end of input (the write side shut down)."""
    try:
        while chunk := os.read(0, 65536):
            channel.sendall(chunk)
    except OSError:
        pass
    try:
        channel.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def relay(idle_exit: int = shared.DEFAULT_IDLE_EXIT_S) -> int:
    """Serve stdio as a session of the shared daemon until the daemon ends it (`quit`,
    or the end of input once its work is answered); where the daemon cannot be used,
    become the stdio engine instead."""
    try:
        channel = _session(idle_exit)
    except OSError as error:
        print(f"engine: the shared engine daemon cannot be used ({error}): serving this session in a process"
              " of its own", file=sys.stderr, flush=True)
        command = engine_command()
        os.execv(command[0], command)
    threading.Thread(target=_pump_input, args=(channel,), name="stdin", daemon=True).start()
    try:
        while data := channel.recv(65536):
            _write_all(1, data)
    except (BrokenPipeError, ConnectionError):
        pass
    finally:
        channel.close()
    return 0
