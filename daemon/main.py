"""The `engine` command: argument parsing, the event loop, stdio, TCP and Unix-socket serving,
authentication, the daemon's limits, signals."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import hmac
import ipaddress
import logging
import os
import signal
import socket
import ssl
import stat
import sys
import time
from pathlib import Path
from typing import AsyncIterator

import attrs

from daemon import cores, runner
from daemon.hashfiles import DEFAULT_MAX_BYTES, DEFAULT_MAX_FILES, HashBudget, HashFiles, default_budget_mib
from daemon.logfile import LogFile
from daemon.session import Session
from daemon.transport import StdoutSink, StreamSink, TooLong, stdin_lines, stream_lines
from daemon.unix import prepare_socket_path
from games.text import positive
from protocol.errors import Code, ProtocolError
from protocol.format import DaemonFigures
from protocol.shared import LOG_KEEP_BYTES

LOG = logging.getLogger("engine")

#: How long the interpreter lets a thread hold the GIL (seconds). The default 5 ms would
#: let a search thread delay `isready` and `stop` by that much per switch.
SWITCH_INTERVAL = 0.001
#: Serving TCP, searches run this much nicer than the event loop's thread.
SEARCH_NICENESS = 10
#: A TCP client that must authenticate has this long (seconds) to send its `auth` line.
AUTH_TIMEOUT_S = 10.0
#: The TLS handshake's time limit (seconds).
TLS_HANDSHAKE_TIMEOUT_S = 10.0
DEFAULT_MAX_SESSIONS = 64
#: With a token: connections that have not authenticated yet, at once; one more closes
#: the oldest of them. They take no session until they have.
DEFAULT_MAX_UNAUTHENTICATED = 16


def is_loopback(host: str) -> bool:
    """Whether `host` names only this machine (`localhost` or a loopback address)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="engine",
        description="A multi-game engine daemon speaking a UCI-like protocol on stdio or TCP.",
        epilog="Also: 'engine --shared [--idle-exit SECONDS]', a stdio session of the user's shared daemon"
               " (started where none runs), and 'engine daemon start|stop|status', that daemon.",
    )
    parser.add_argument("--tcp", type=int, metavar="PORT",
                        help="listen on TCP PORT (0 picks a free port) instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDR",
                        help="address to listen on with --tcp (default 127.0.0.1)")
    parser.add_argument("--token", type=Path, metavar="FILE",
                        help="a file holding the token every TCP client must send first (auth <token>);"
                             " required to listen on anything but loopback")
    add_tls_arguments(parser, "TCP")
    parser.add_argument("--socket", type=Path, metavar="PATH",
                        help="listen on a Unix-domain socket at PATH (beside --tcp, or instead of stdio): its"
                             " folder must be the user's alone (mode 0700), whose permissions are the"
                             " authentication, so no token is asked there")
    parser.add_argument("--evict-idle", type=positive, default=int(EVICT_IDLE_S), metavar="SECONDS",
                        help="with --socket: where every session is taken (--max-sessions), a new one closes"
                             " the session that has sent nothing and run nothing longest, if for SECONDS"
                             f" (default {int(EVICT_IDLE_S)})")
    parser.add_argument("--idle-exit", type=positive, metavar="SECONDS",
                        help="with --tcp or --socket: exit (saving hash files as on SIGTERM) once no session"
                             " has been open for SECONDS")
    parser.add_argument("--hash-dir", type=Path, metavar="DIR", default=os.environ.get("ENGINE_HASH_DIR") or None,
                        help="where hash files are saved and loaded, by plain name (default:"
                             " $ENGINE_HASH_DIR, else the user's data directory, engine/hash)")
    parser.add_argument("--allow-hash-paths", action="store_true",
                        help="stdio only: hash file names are paths, anywhere the user may write"
                             " (--max-hash-dir-mib and --max-hash-files do not apply)")
    parser.add_argument("--max-hash-dir-mib", type=positive, metavar="MIB",
                        help=f"the files in the hash directory together (default {DEFAULT_MAX_BYTES >> 20},"
                             f" or less where the disk is short: what the directory holds and half the"
                             f" free space)")
    parser.add_argument("--max-hash-files", type=positive, default=DEFAULT_MAX_FILES, metavar="N",
                        help=f"files in the hash directory (default {DEFAULT_MAX_FILES})")
    parser.add_argument("--max-sessions", type=positive, default=DEFAULT_MAX_SESSIONS, metavar="N",
                        help=f"TCP sessions at once (default {DEFAULT_MAX_SESSIONS})")
    parser.add_argument("--max-unauthenticated", type=positive, default=DEFAULT_MAX_UNAUTHENTICATED,
                        metavar="N", help="with --token: connections still to send their auth line, at once;"
                                          f" one more closes the oldest (default {DEFAULT_MAX_UNAUTHENTICATED})")
    parser.add_argument("--max-searches", type=positive, default=runner.default_max_searches(), metavar="N",
                        help="searches and perfts running at once, over every session (default: 4 a core)")
    parser.add_argument("--threads", type=positive, default=runner.machine_cores(), metavar="N",
                        help="search threads running at once, over every session: the most a session's"
                             " Threads option may ask for, and what its searches share (default: the cores)")
    parser.add_argument("--max-hash-mib", type=positive, default=default_budget_mib(), metavar="MIB",
                        help="the tables of every session together (default: half the memory)")
    parser.add_argument("--log-level", default="info",
                        choices=("debug", "info", "warning", "error"), help="stderr log level")
    parser.add_argument("--log-file", type=Path, metavar="PATH",
                        help="log to PATH (mode 0600, stderr too) instead of stderr, setting it aside as"
                             f" PATH.1 each time it passes {LOG_KEEP_BYTES >> 20} MiB")
    parser.add_argument("--core", choices=cores.CORES, default=os.environ.get("ENGINE_CORE") or None,
                        help="how every session runs the kernels: compiled (numba; the default"
                             " where numba imports) or python (the same kernels interpreted);"
                             " default $ENGINE_CORE")
    args = parser.parse_args(argv)
    if args.core is not None and args.core not in cores.CORES:
        parser.error(f"ENGINE_CORE must be one of {', '.join(cores.CORES)}, got {args.core!r}")
    if args.tcp is not None and not 0 <= args.tcp <= 65535:
        parser.error(f"port out of range: {args.tcp}")
    if (args.tcp is not None or args.socket is not None) and args.allow_hash_paths:
        parser.error("--allow-hash-paths is for a local user on stdio, not for --tcp or --socket")
    if args.idle_exit is not None and args.tcp is None and args.socket is None:
        parser.error("--idle-exit is for a daemon serving --tcp or --socket")
    if args.tcp is not None and not is_loopback(args.host) and args.token is None:
        parser.error(f"refusing to listen on {args.host} without --token FILE: anyone who can reach"
                     f" the port could run searches and write files (docs/remote.md)")
    check_tls_arguments(parser, args)
    return args


def add_tls_arguments(parser: argparse.ArgumentParser, served: str) -> None:
    """`--tls-cert FILE` and `--tls-key FILE`, to serve `served` over TLS: check them
    with `check_tls_arguments`, make the context with `tls_context`."""
    parser.add_argument("--tls-cert", type=Path, metavar="FILE", help=f"serve {served} over TLS with this certificate")
    parser.add_argument("--tls-key", type=Path, metavar="FILE", help="the TLS certificate's private key")


def check_tls_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit with a usage error unless `--tls-cert` and `--tls-key` come together."""
    if (args.tls_cert is None) != (args.tls_key is None):
        parser.error("--tls-cert and --tls-key go together")


def read_token(path: Path) -> str:
    """The token in `path` (its first line, without surrounding space); raises ValueError."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"cannot read the token file {path}: {error}") from None
    token = (text.splitlines() or [""])[0].strip()
    if not token or any(ch.isspace() for ch in token):
        raise ValueError(f"the token file {path} must hold one token, without spaces, on its first line")
    if len(token) < 16:
        LOG.warning("the token in %s is short (%d characters): 32 random ones are better", path, len(token))
    if path.stat().st_mode & 0o077:
        LOG.warning("the token file %s can be read by other users: chmod 600 it", path)
    return token


#: A local session idle this long (seconds) is closed where the daemon is full and
#: another needs room.
EVICT_IDLE_S = 600.0
#: How long a full daemon waits for a new local connection's first line, in case it is
#: `daemon` (`engine daemon status`), before it makes room or refuses it (seconds).
FIGURES_WAIT_S = 1.0


async def _after(first: asyncio.Future, lines: AsyncIterator[str | TooLong]) -> AsyncIterator[str | TooLong]:
    """The lines of a connection whose first (or None at its end) `first` is reading."""
    line = await first
    if line is None:
        return
    yield line
    async for line in lines:
        yield line


class Daemon:
    """The live sessions of the process, so that a signal can save their hash files, and
    what every session shares: the hash directory, the memory budget, the token."""

    def __init__(self, core: str = cores.DEFAULT, files: HashFiles | None = None,
                 budget: HashBudget | None = None, token: str | None = None,
                 max_sessions: int = DEFAULT_MAX_SESSIONS,
                 max_unauthenticated: int = DEFAULT_MAX_UNAUTHENTICATED, evict_idle: float = EVICT_IDLE_S) -> None:
        self.core = core
        self.files = files or HashFiles(None)
        self.budget = budget or HashBudget(default_budget_mib() << 20)
        self.token = token
        self.max_sessions = max_sessions
        self.max_unauthenticated = max_unauthenticated
        self.evict_idle = evict_idle
        self.sessions: set[Session] = set()
        self.tcp_sessions = 0
        #: The connections waiting for their auth line, oldest first, each with the
        #: event that closes it to make room.
        self._unauthenticated: dict[object, asyncio.Event] = {}
        self.terminated = asyncio.Event()
        #: The sinks of the local connections' sessions (Unix socket), for `_evict_idle`.
        self._local_sinks: dict[Session, StreamSink] = {}
        #: Sessions closed to make room, counted out of `tcp_sessions` already.
        self._evicted: set[Session] = set()
        #: The in-process connections' serving tasks (`open_session`).
        self._local: set[asyncio.Task] = set()
        #: When the last connection's session ended (`time.monotonic()`; the daemon's
        #: start before the first): what `--idle-exit` counts from.
        self.started = self.last_session_end = time.monotonic()

    def _session(self, sink, local: bool = True) -> Session:
        return Session(sink, self.core, self.files, self.budget, self.figures, local)

    def figures(self) -> DaemonFigures:
        """What `daemon` answers: this process and its sessions, searches and memory."""
        searching = sum(session.engine.active is not None for session in self.sessions)
        return DaemonFigures(os.getpid(), int(time.monotonic() - self.started), len(self.sessions), searching,
                             runner.SEARCH_SLOTS.running, runner.SEARCH_SLOTS.limit, runner.THREADS.limit,
                             resident_mib(), cores.loaded_games())

    def terminate(self) -> None:
        """On SIGTERM or SIGINT: halt every job (a halted save leaves no temporary file),
        stop every search, answering it with its best move so far, and tell each
        connection's session that the daemon ends (`error ending`); then save the hash
        files (off the loop) and end."""
        LOG.info("terminating: stopping searches and jobs, saving hash files")
        for session in list(self.sessions):
            session.engine.abandon_job()
        asyncio.ensure_future(self._save_and_end())

    async def _save_and_end(self) -> None:
        sessions = list(self.sessions)
        await asyncio.gather(*(self._end(session) for session in sessions))
        await asyncio.gather(*(session.engine.save_hash_file() for session in sessions))
        self.terminated.set()

    @staticmethod
    async def _end(session: Session) -> None:
        await session.engine.finish_job()
        try:
            await session.engine.stop()
        except Exception:  # noqa: BLE001 - a search that fails to answer is still ended
            LOG.exception("a search did not answer as the daemon ended")
            session.engine.abandon_search()
        if isinstance(session.sink, StreamSink):
            session.write(ProtocolError(Code.ENDING, "-", "the daemon is ending (engine daemon stop, a signal or"
                                                          " its idle time): this session is closed").line())
            with contextlib.suppress(ConnectionError, OSError, TimeoutError):
                async with asyncio.timeout(ENDING_DRAIN_S):  # a peer that reads nothing holds no end up
                    await session.sink.drain()

    async def serve_stdio(self) -> None:
        session = self._session(StdoutSink())
        self.sessions.add(session)
        try:
            script = stat.S_ISREG(os.fstat(sys.stdin.fileno()).st_mode)
            await session.run(stdin_lines(), finish_on_eof=True, script=script)
        finally:
            self.sessions.discard(session)
        session.engine.abandon_search()
        await session.engine.save_hash_file()
        session.engine.close()

    async def serve_tcp(self, host: str, port: int, tls: ssl.SSLContext | None = None) -> None:
        server = await asyncio.start_server(
            self._connection, host, port, ssl=tls,
            ssl_handshake_timeout=TLS_HANDSHAKE_TIMEOUT_S if tls is not None else None)
        for sock in server.sockets:
            address = sock.getsockname()
            LOG.info("listening on %s:%d%s%s", address[0], address[1], " (TLS)" if tls else "",
                     ", token required" if self.token else "")
        async with server:
            await server.serve_forever()

    async def serve_unix(self, path: Path) -> None:
        """Serve a Unix-domain socket at `path`, whose folder must be the user's alone:
        its permissions are the authentication (no `auth` is asked). A socket file left
        there by a daemon that no longer listens is replaced; one that still answers is
        not (OSError)."""
        prepare_socket_path(path)
        server = await asyncio.start_unix_server(lambda reader, writer: self._serve(
            reader, writer, f"unix:{path}", stream_lines(reader), local=True), path, limit=1 << 20)
        os.chmod(path, 0o600)
        LOG.info("listening on %s", path)
        try:
            async with server:
                await server.serve_forever()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)

    async def exit_when_idle(self, seconds: float) -> None:
        """End the daemon as SIGTERM does once no connection's session has been open for
        `seconds`."""
        while True:
            await asyncio.sleep(min(1.0, seconds / 4))
            if not self.tcp_sessions and not self._local and time.monotonic() - self.last_session_end >= seconds:
                LOG.info("no session for %s s: exiting (--idle-exit)", seconds)
                self.terminate()
                return

    async def open_session(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A session of this daemon for a client in the same process (the web GUI): the
        client's end of a connected socket pair whose other end is served as a TCP
        connection is (the same limits, no `auth`: it is no stranger)."""
        ours, theirs = socket.socketpair()
        reader, writer = await asyncio.open_connection(sock=theirs, limit=1 << 20)
        served_reader, served_writer = await asyncio.open_connection(sock=ours, limit=1 << 20)
        task = asyncio.ensure_future(self._serve(served_reader, served_writer, "in-process",
                                                 stream_lines(served_reader)))
        self._local.add(task)
        task.add_done_callback(self._local.discard)
        return reader, writer

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        lines = stream_lines(reader)
        if self.token is not None and not await self._authenticated(lines, reader, writer, peer):
            return
        await self._serve(reader, writer, peer, lines)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, peer: object,
                     lines: AsyncIterator[str | TooLong], local: bool = False) -> None:
        """Serve one connection as a session, within --max-sessions; `local`: the user's
        own client (a Unix socket), not a stranger (TCP, the web GUI's tabs)."""
        if self.tcp_sessions >= self.max_sessions and local:
            first = asyncio.ensure_future(anext(lines, None))
            await asyncio.wait([first], timeout=FIGURES_WAIT_S)
            if first.done() and first.result() == "daemon":  # `engine daemon status`: a full daemon still answers
                with contextlib.suppress(ConnectionError, OSError):
                    about = self.figures()  # counting the asker, as a session that asks does
                    writer.write(attrs.evolve(about, sessions=about.sessions + 1).line().encode() + b"\n")
                    await writer.drain()
                writer.close()
                return
            lines = _after(first, lines)
            self._evict_idle()
        if self.tcp_sessions >= self.max_sessions:
            LOG.warning("session refused, %d open already: %s", self.tcp_sessions, peer)
            await refuse(reader, writer, ProtocolError(Code.BUSY, "-", f"{self.tcp_sessions} sessions open,"
                                                                       f" the daemon's limit (--max-sessions)"))
            return
        self.tcp_sessions += 1
        sink = StreamSink(writer)
        session = self._session(sink, local)
        self.sessions.add(session)
        if local:
            self._local_sinks[session] = sink
        LOG.debug("session opened: %s", peer)
        try:
            quit_asked = await session.run(lines, finish_on_eof=False)
            session.engine.abandon_search()  # a quit returns with the search running
            if quit_asked:
                await session.engine.save_hash_file()
        except asyncio.CancelledError:
            pass  # the daemon is ending: its sessions' hash files are saved by `terminate`
        finally:
            session.engine.close()
            self.sessions.discard(session)
            self._local_sinks.pop(session, None)
            if session in self._evicted:
                self._evicted.discard(session)  # counted out as it was closed
            else:
                self.tcp_sessions -= 1
            self.last_session_end = time.monotonic()
            sink.close()
            LOG.debug("session closed: %s", peer)

    def _evict_idle(self) -> None:
        """Close the local session idle longest, where one has been idle `evict_idle`
        seconds (no line read, nothing running), to make room for a new one."""
        idle = [(session.idle_for(), session) for session in self._local_sinks]
        idle = [(seconds, session) for seconds, session in idle if seconds is not None and seconds >= self.evict_idle]
        if not idle:
            return
        seconds, session = max(idle, key=lambda pair: pair[0])
        LOG.warning("closing a session idle for %.0f s to make room for another", seconds)
        session.write(ProtocolError(Code.BUSY, "-", f"closed after {seconds:.0f} s without a command: the daemon's"
                                                    " sessions are all taken (--max-sessions) and another"
                                                    " needed room").line())
        self._local_sinks.pop(session).close()  # its `_serve` ends and counts it out
        self.tcp_sessions -= 1
        self._evicted.add(session)

    async def _authenticated(self, lines: AsyncIterator[str | TooLong], reader: asyncio.StreamReader,
                             writer: asyncio.StreamWriter, peer: object) -> bool:
        """Whether the connection's first line (empty lines aside) is `auth <token>`,
        within AUTH_TIMEOUT_S; else one error, a log line, and the connection closed.

        Until then the connection takes no session: it is one of at most
        `max_unauthenticated`, and one more closes the oldest of them, so that idle
        strangers can never keep a client with the token out."""
        evicted = asyncio.Event()
        key = object()
        self._unauthenticated[key] = evicted
        if len(self._unauthenticated) > self.max_unauthenticated:
            self._unauthenticated.pop(next(iter(self._unauthenticated))).set()

        async def first_line() -> str | TooLong | None:
            async for line in lines:
                if not isinstance(line, str) or line.strip():
                    return line
            return None

        reading = asyncio.ensure_future(first_line())
        waiting = asyncio.ensure_future(evicted.wait())
        try:
            await asyncio.wait((reading, waiting), timeout=AUTH_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
            first = reading.result() if reading.done() else None
        finally:
            self._unauthenticated.pop(key, None)
            for task in (reading, waiting):
                task.cancel()
            # The reading task leaves the stream before `refuse` reads it.
            await asyncio.gather(reading, waiting, return_exceptions=True)
        if first is None and evicted.is_set():
            LOG.warning("unauthenticated connection closed to make room: %s", peer)
            await refuse(reader, writer, ProtocolError(
                Code.BUSY, "-", f"more than {self.max_unauthenticated} connections waiting to authenticate,"
                                f" the daemon's limit (--max-unauthenticated): the oldest is closed"))
            return False
        tokens = first.split() if isinstance(first, str) else []
        given = tokens[1] if len(tokens) == 2 and tokens[0] == "auth" else ""
        if hmac.compare_digest(given.encode(), self.token.encode()):
            return True
        name = "-" if first is None or isinstance(first, TooLong) or not tokens else tokens[0]
        LOG.warning("authentication failed from %s", peer)
        await refuse(reader, writer, ProtocolError(Code.UNAUTHORIZED, name, "the first line must be auth <token>"))
        return False

    async def main(self, args: argparse.Namespace) -> int:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.terminate)
        served = []
        if args.tcp is not None:
            served.append(asyncio.ensure_future(self.serve_tcp(args.host, args.tcp, tls_context(args))))
        if args.socket is not None:
            served.append(asyncio.ensure_future(self.serve_unix(args.socket)))
        if not served:
            served.append(asyncio.ensure_future(self.serve_stdio()))
        if args.idle_exit is not None:
            served.append(asyncio.ensure_future(self.exit_when_idle(args.idle_exit)))
        ending = asyncio.ensure_future(self.terminated.wait())
        await asyncio.wait((*served, ending), return_when=asyncio.FIRST_COMPLETED)
        failed = [task.exception() for task in served
                  if task.done() and not task.cancelled() and task.exception() is not None]
        for task in (*served, ending):
            task.cancel()
        await asyncio.gather(*served, return_exceptions=True)
        if failed:
            LOG.error("cannot serve: %s", failed[0])
            return 1
        return 0


#: After refusing a connection, how long (seconds) and how much its further input is read
#: and dropped, so that closing it does not reset it before the client reads the error.
REFUSAL_DRAIN_S = 1.0
REFUSAL_DRAIN_BYTES = 1 << 16


async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, error: ProtocolError) -> None:
    """Write `error`, end the output, and drop what the client still sends for a moment
    before closing: a socket closed with unread input is reset, and a reset can lose the
    error line on its way to a client that had sent more."""
    try:
        writer.write(error.line().encode() + b"\n")
        await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
        dropped = 0
        async with asyncio.timeout(REFUSAL_DRAIN_S):
            while dropped < REFUSAL_DRAIN_BYTES:
                chunk = await reader.read(4096)
                if not chunk:
                    break
                dropped += len(chunk)
    except (TimeoutError, ConnectionError, OSError):
        pass
    finally:
        writer.close()


def tls_context(args: argparse.Namespace) -> ssl.SSLContext | None:
    """The server's TLS context, if --tls-cert was given; raises ValueError saying why
    the certificate or its key cannot be used."""
    if args.tls_cert is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(args.tls_cert, args.tls_key)
    except (OSError, ssl.SSLError) as error:
        raise ValueError(f"cannot use the TLS certificate: {error}") from None
    return context


#: How long an ending daemon waits for a session's peer to read its last lines (seconds).
ENDING_DRAIN_S = 2.0
#: How long an ending daemon waits for compiled code still loading (the heaviest
#: game's searches take a few seconds to load on a busy two-core machine).
EXIT_LOAD_WAIT_S = 10.0


def resident_mib() -> int:
    """This process's resident memory in MiB (0 where /proc does not tell)."""
    try:
        with open("/proc/self/statm") as handle:
            pages = int(handle.read().split()[1])
    except (OSError, ValueError, IndexError):
        return 0
    return pages * os.sysconf("SC_PAGE_SIZE") >> 20


def _loop_factory():
    try:
        import uvloop
    except ImportError:
        return asyncio.new_event_loop
    return uvloop.new_event_loop


def serving_core(requested: str | None) -> str:
    """The core every session runs: `requested` (None: compiled), or the Python core
    where numba cannot be imported (said on stderr when compiled was asked for)."""
    core = requested or cores.COMPILED
    missing = cores.compiled_missing()
    if missing:
        if core == cores.COMPILED:
            print(f"engine: {missing}; searching with the Python core", file=sys.stderr)
        return cores.PYTHON
    cores.prepare_compiler()
    return core


def in_process_daemon(core: str | None = None) -> Daemon:
    """A daemon whose sessions a program of the same process opens (`open_session`), with
    the defaults of `engine --tcp`: the hash directory, the limits, the searches' lower
    priority (the loop serves the program too)."""
    directory = os.environ.get("ENGINE_HASH_DIR")
    files = HashFiles(Path(directory) if directory else None)
    try:
        files.prepare()
    except OSError as error:
        LOG.warning("hash directory %s unusable (%s): hash save and load will fail", files.directory,
                    error.strerror)
    runner.configure(runner.default_max_searches(), SEARCH_NICENESS, runner.machine_cores())
    return Daemon(serving_core(core), files, HashBudget(default_budget_mib() << 20))


def main(argv: list[str] | None = None) -> int:
    args = parse_arguments(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        handlers=[LogFile(args.log_file, LOG_KEEP_BYTES) if args.log_file else
                                  logging.StreamHandler(sys.stderr)])
    sys.setswitchinterval(SWITCH_INTERVAL)
    try:
        token = read_token(args.token) if args.token is not None else None
        tls_context(args)
    except ValueError as error:
        print(f"engine: {error}", file=sys.stderr)
        return 2
    files = HashFiles(args.hash_dir, args.allow_hash_paths,
                      None if args.max_hash_dir_mib is None else args.max_hash_dir_mib << 20, args.max_hash_files)
    try:
        files.prepare()
    except OSError as error:
        LOG.warning("hash directory %s unusable (%s): hash save and load will fail", files.directory,
                    error.strerror)
    # Serving strangers over TCP, the loop's thread must come first for the system's
    # scheduler: searches yield the cores to it. On stdio the one session's search comes
    # first, and on a Unix socket the user's own tools' searches (the shared daemon plays
    # their games) compete with other programs as the tools' own engines would.
    runner.configure(args.max_searches, SEARCH_NICENESS if args.tcp is not None else 0, args.threads)
    core = serving_core(args.core)
    # Everything imported so far lives as long as the process (numba alone is hundreds
    # of thousands of objects): frozen, no full collection walks it again, as one could
    # in the middle of a turn before the game's loaded code is frozen in turn (such
    # collections took 36-42 ms with numba's code loaded, see specialised.warm).
    gc.freeze()
    with asyncio.Runner(loop_factory=_loop_factory()) as loop_runner:
        code = loop_runner.run(Daemon(core, files, HashBudget(args.max_hash_mib << 20), token,
                                      args.max_sessions, args.max_unauthenticated, args.evict_idle).main(args))
    sys.stdout.flush()
    # A load of compiled code cut off by the exit could abort the process (SIGABRT).
    cores.finish_loading(EXIT_LOAD_WAIT_S)
    return code


if __name__ == "__main__":
    sys.exit(main())
