"""A stdio session of the user's shared daemon (`engine --shared`): what a client writes
on this process's stdin goes to a session of the daemon, and what the daemon answers
comes out on stdout, so that any program that starts an engine on stdio (a GUI, a
script, the README's examples) gets the daemon's warm compiled code, books and tables.

The session behaves as the stdio engine's does: the end of input finishes a search with
limits or a long job and prints its answer before the process ends (`eof finish`), and
`quit` ends it. Where the daemon cannot be used (`protocol.shared.open_session` says
why on stderr), this process becomes an engine of its own (`exec`); where the daemon
cannot load the session's game (its tables' budget is full), an engine of its own takes
the session over, sent what the client sent so far, so the client loses nothing. Where
the daemon ends the session (it is stopped), stderr says so and the exit status is 1.
It loads no game code: with the daemon running, it is up in tens of milliseconds.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

from protocol import shared
from protocol.errors import no_room_for_game
from protocol.launch import engine_command

#: The client's lines kept for a replay to an engine of its own (bytes): past that, a
#: session that the daemon cannot serve any more says so and ends.
REPLAY_BYTES = 1 << 20


def _say(message: str) -> None:
    print(f"engine: {message}", file=sys.stderr, flush=True)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def replay(lines: list[bytes]) -> bytes:
    """What an engine of its own is sent to take over a session whose game the daemon
    refused: the options set before the last `setgame`, then every line from it on (the
    daemon answered the lines before it, the rest it could not serve)."""
    games = [index for index, line in enumerate(lines) if line.split()[:1] == [b"setgame"]]
    start = games[-1] if games else len(lines)
    return b"".join([*(line for line in lines[:start] if line.split()[:1] == [b"setoption"]), *lines[start:]])


class Relay:
    """One client's stdio and a session of the daemon, until either ends; an engine of
    its own takes the session over where the daemon cannot load its game."""

    def __init__(self, channel: socket.socket):
        self.channel = channel
        self._lock = threading.Lock()
        #: The client's whole lines so far, while REPLAY_BYTES allow (then None).
        self._lines: list[bytes] | None = []
        self._kept = 0
        self._partial = b""
        self._ended = False
        self._quit = False
        self._own: subprocess.Popen | None = None

    def pump_input(self) -> None:
        """stdin to the session (or to the engine of its own once it took over), then
        the end of input (the write side shut down, its stdin closed)."""
        while True:
            try:
                chunk = os.read(0, 65536)
            except OSError:
                chunk = b""
            with self._lock:
                if not chunk:
                    self._ended = True
                    self._end_input()
                    return
                self._keep(chunk)
                try:
                    if self._own is not None:
                        self._own.stdin.write(chunk)
                        self._own.stdin.flush()
                    else:
                        self.channel.sendall(chunk)
                except OSError:
                    pass

    def _keep(self, chunk: bytes) -> None:
        *whole, self._partial = (self._partial + chunk).split(b"\n")
        for line in whole:
            self._quit = self._quit or line.strip() == b"quit"
            if self._lines is not None:
                self._kept += len(line) + 1
                self._lines.append(line + b"\n")
                if self._kept > REPLAY_BYTES:
                    self._lines = None

    def _end_input(self) -> None:
        try:
            if self._own is not None:
                self._own.stdin.close()
            else:
                self.channel.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _take_over(self, refusal: str) -> bool:
        """Start an engine of its own on this stdio and send it the session so far;
        False where the session is too long to replay."""
        with self._lock:
            if self._lines is None:
                return False
            _say(f"the shared engine daemon cannot load the game ({refusal}): serving this session in a process"
                 " of its own")
            self._own = subprocess.Popen(engine_command(), stdin=subprocess.PIPE)
            try:
                self._own.stdin.write(replay(self._lines) + self._partial)
                self._own.stdin.flush()
            except OSError:
                pass
            if self._ended:
                self._end_input()
            self.channel.close()
            return True

    def serve(self) -> int:
        """The daemon's lines to stdout until it ends the session: 0 where the client
        ended it (`quit`, the end of input), 1 where the daemon did; the exit status of
        the engine of its own where one took over."""
        buffer, last = b"", b""
        try:
            while data := self.channel.recv(65536):
                *whole, buffer = (buffer + data).split(b"\n")
                passed = b""
                for line in whole:
                    if no_room_for_game(line.decode(errors="replace")):
                        _write_all(1, passed)
                        passed = b""
                        if self._take_over(line.decode(errors="replace")):
                            return self._own.wait()
                    passed += line + b"\n"
                    last = line
                _write_all(1, passed)
        except (BrokenPipeError, ConnectionError):
            pass
        finally:
            if self._own is None:
                self.channel.close()
        _write_all(1, buffer)
        with self._lock:
            if self._ended or self._quit:
                return 0
        why = last.decode(errors="replace") if last.startswith(b"error ending") else "it closed the connection"
        _say(f"the shared engine daemon ended this session ({why})")
        return 1


def relay(idle_exit: int = shared.DEFAULT_IDLE_EXIT_S) -> int:
    """Serve stdio as a session of the shared daemon until the daemon ends it (`quit`,
    or the end of input once its work is answered); where the daemon cannot be used,
    become the stdio engine instead."""
    try:
        channel = shared.open_session(idle_exit=idle_exit, hello=b"eof finish\n")
    except OSError as error:
        _say(f"the shared engine daemon cannot be used ({error}): serving this session in a process of its own")
        command = engine_command()
        os.execv(command[0], command)
    session = Relay(channel)
    threading.Thread(target=session.pump_input, name="stdin", daemon=True).start()
    return session.serve()
